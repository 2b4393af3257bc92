"""What the parts of the interpreter use of each other, for the type checker only.

``Interpreter`` is assembled from mixins (``statements``, ``loops``, ``expressions``, ``calls``,
``methods``), each calling methods another one defines and reading the state ``Interpreter``
sets up. Each mixin names this abstract class as its base under ``TYPE_CHECKING`` (``object`` at
run time), so mypy checks those uses against the declarations here; nothing imports it at run
time. (A ``Protocol`` would not do: mypy takes a mixin's ``self.state = ...`` for a new
definition of a protocol's attribute, and infers its type from that assignment.)
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager

import libcst as cst

from .conditions import Conditions
from .definitions import ClassInfo, Definitions, FunctionInfo
from .domain import Kind, Value
from .facts import Facts
from .frames import Frame, Pending
from .imports import ImportTable
from .memo import SummaryMemo
from .state import State


class InterpreterParts(ABC):
    # Set up by ``Interpreter``.
    module: cst.Module
    imports: ImportTable
    definitions: Definitions
    conditions: Conditions
    facts: Facts
    summary_memo: SummaryMemo
    summary_globals: State | None
    state: State
    recording: bool
    simple: bool  # past the budget: loops in one pass, no summaries
    frame: Frame
    pending: list[Pending]
    default_values: dict[int, Value]
    expression_statement: cst.Expr | None

    # ``interpreter``
    @abstractmethod
    def step(self) -> None: ...
    @abstractmethod
    def cuda_specific(self, info: FunctionInfo) -> bool: ...
    @abstractmethod
    def option_never_false(self, node: cst.Attribute) -> Value | None: ...
    @abstractmethod
    def plain_class(self, node: cst.BaseExpression) -> bool: ...
    @abstractmethod
    def globals_state(self) -> State: ...
    @abstractmethod
    def evaluate_function(
        self, info: FunctionInfo, outer: State, arguments: dict[str, Value], self_value: Value | None
    ) -> tuple[Value | None, State]: ...
    @abstractmethod
    def narrow(self, state: State, test: cst.BaseExpression, truth: bool) -> State: ...
    @abstractmethod
    def peek(self, node: cst.BaseExpression, state: State) -> Value: ...
    @abstractmethod
    def walk_unit(self, walk: Callable[[], None], entry: State) -> State: ...
    @abstractmethod
    def entry_state(
        self, info: FunctionInfo, outer: State, self_value: Value | None, arguments: dict[str, Value]
    ) -> State: ...
    @abstractmethod
    def frame_for(self, info: FunctionInfo, self_value: Value | None) -> AbstractContextManager[Frame]: ...

    # ``statements``
    @abstractmethod
    def block(self, body: Sequence[cst.CSTNode]) -> None: ...
    @abstractmethod
    def statement(self, node: cst.CSTNode) -> None: ...
    @abstractmethod
    def bind_target(self, target: cst.BaseExpression, value: Value) -> None: ...

    # ``expressions``
    @abstractmethod
    def evaluate(self, node: cst.BaseExpression) -> Value: ...
    @abstractmethod
    def evaluate_children(self, node: cst.CSTNode) -> None: ...
    @abstractmethod
    def attribute_of(self, owner: Value, attribute: str, node: cst.CSTNode) -> Value: ...
    @abstractmethod
    def store(self, target: cst.Subscript, value: Value) -> None: ...
    @abstractmethod
    def arithmetic(self, left: Value, right: Value) -> Value: ...
    @abstractmethod
    def iterated(self, value: Value) -> Value: ...
    @abstractmethod
    def annotation_kind(self, annotation: cst.BaseExpression) -> Kind | None: ...

    # ``methods``
    @abstractmethod
    def hard_coded_device(self, node: cst.BaseExpression) -> Value: ...

    # ``calls``
    @abstractmethod
    def call(self, node: cst.Call) -> Value: ...
    @abstractmethod
    def _module_call(self, node: cst.Call, module: Value, arguments: tuple[Value, ...]) -> Value: ...

    # ``summaries``
    @abstractmethod
    def instance_attribute(self, owner: Value, attribute: str) -> Value: ...
    @abstractmethod
    def stores_attribute(self, owner: Value, attribute: str) -> bool: ...
    @abstractmethod
    def call_method(
        self, receiver: Value, method: str, node: cst.Call, arguments: tuple[Value, ...]
    ) -> Value | None: ...
    @abstractmethod
    def call_named(self, name: str, node: cst.Call, arguments: tuple[Value, ...]) -> Value | None: ...
    @abstractmethod
    def method_of(self, receiver: Value, method: str) -> FunctionInfo | None: ...
    @abstractmethod
    def called_back(self, function: FunctionInfo, owner: Value | None, given: Value = ...) -> Value: ...
    @abstractmethod
    def stops_without_cuda(self, info: FunctionInfo) -> bool: ...
    @abstractmethod
    def super_value(self, frame: Frame) -> Value: ...
    @abstractmethod
    def self_value(self, info: FunctionInfo) -> Value | None: ...
    @abstractmethod
    def is_module_class(self, info: ClassInfo) -> bool: ...

    # ``parameters``
    @abstractmethod
    def parameter_values(self, info: FunctionInfo) -> dict[str, Value]: ...

    # ``contexts``
    @abstractmethod
    def note_call_site(self, info: FunctionInfo, node: cst.Call, bound: dict[str, Value]) -> None: ...
