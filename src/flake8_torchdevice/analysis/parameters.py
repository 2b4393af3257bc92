"""What each parameter of one of the file's functions holds while its body is recorded (part of
the interpreter): what the body shows of it (``x.unsqueeze(0)``: a tensor), its annotation, its
default (``device="cuda"``, ``use_gpu=True``, what every call without the argument gets) and, for
a module's ``forward()``, inputs where the module is. A call of the function binds its arguments
instead (``summaries``).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import libcst as cst

from .cuda_words import chooses_cuda_by_default, flag_polarity
from .definitions import FunctionInfo
from .domain import CPU, GIVEN, Kind, Origin, Value, must_be_on_accelerator, tensor, with_module
from .evidence import Evidence
from .syntax import all_params, every_node, passes

if TYPE_CHECKING:
    from .parts import InterpreterParts as _Base
else:
    _Base = object

# Where the module a method belongs to is: the place of ``self`` in every module method.
SELF = with_module("self")
_MODULE_ENTRY_METHODS = frozenset({"forward", "__call__"})


class ParameterEvaluator(_Base):
    def parameter_values(self, info: FunctionInfo) -> dict[str, Value]:
        """What each parameter holds when the body is recorded, from what the body shows."""
        values = {}
        evidence = info.evidence
        owner = self.definitions.owner(info)
        in_module = owner is not None and self.is_module_class(owner) and not owner.stateless_callable()
        inputs = in_module and info.name in _MODULE_ENTRY_METHODS
        batch = self.definitions.batch_parameter(info)
        for param in all_params(info.node.params):
            name = param.name.value
            if name == info.self_name:
                continue
            if param is batch:
                values[name] = Value(kind=Kind.BATCH, places=CPU)  # ignite hands it a DataLoader batch
                continue
            kind = self._parameter_kind(param, name, evidence, inputs)
            default = self.default_values.get(id(param))
            if (
                kind is None
                and default is not None
                and default.kind is Kind.DEVICE
                and must_be_on_accelerator(default)
                and not self.definitions.default_always_replaced(info, param)
            ):
                values[name] = default  # ``device="cuda"``: what a call without the argument gets
                continue
            flag = self._default_cuda_flag(info, param)
            if kind is None and flag is not None:
                values[name] = flag
                continue
            if kind is None and default is not None and self._left_at_its_default(info, param):
                values[name] = default  # ``zero_triu=False`` no call passes: ``if zero_triu:`` never runs
                continue
            if kind is Kind.TENSOR:
                values[name] = tensor(SELF if in_module else GIVEN)
            elif kind is Kind.MODULE:
                values[name] = Value(kind=Kind.MODULE, places=with_module(name))
            elif kind is None:  # bound even when unknown: narrowing it must not make it one branch's
                # ``exponent=2``: a number by its default, 0-dim should a caller pass a tensor instead
                numeric = default is not None and default.kind is Kind.SCALAR
                values[name] = Value(places=GIVEN, scalar=numeric)
            else:
                values[name] = Value(kind=kind)
        return values

    def _left_at_its_default(self, info: FunctionInfo, param: cst.Param) -> bool:
        """Does every run leave ``param`` at its default: nothing outside the file calls the function,
        the file calls it by its name alone (it never hands it on: ``fn = self._rel_shift``), and
        none of those calls passes the parameter (Transformer-XL's ``_rel_shift(x, zero_triu=False)``,
        always called as ``self._rel_shift(BD)``)? Not a module's ``forward``, which its ``__call__``
        is handed arguments for."""
        if param.default is None or param.star or info.name in _MODULE_ENTRY_METHODS:
            return False
        sites = self.definitions.calls_of(info)
        if not sites or not self.definitions.has_no_callers_elsewhere(info):
            return False
        if self.handed_on is None:
            self.handed_on = names_handed_on(self.module)
        owner = self.definitions.owner(info)
        called = owner.name if owner is not None and info.name == "__init__" else info.name  # ``C(...)``
        index = next((i for i, candidate in enumerate(info.positional_params()) if candidate is param), None)
        return called not in self.handed_on and not any(passes(site, param.name.value, index) for site in sites)

    def _default_cuda_flag(self, info: FunctionInfo, param: cst.Param) -> Value | None:
        """``use_gpu=True``: a flag that chooses CUDA for every call that does not pass it, unless
        every call in the file does. It carries the parameter as its origin, for the branch it
        guards to cite."""
        polarity = flag_polarity(param.name.value)
        if param.default is None or not chooses_cuda_by_default(polarity, param.default):
            return None
        if self.definitions.default_always_replaced(info, param):
            return None
        return Value(kind=Kind.SCALAR, polarity=polarity, origin=Origin(param, f"`{param.name.value}` defaults to it"))

    def _parameter_kind(self, param: cst.Param, name: str, evidence: Evidence, inputs: bool) -> Kind | None:
        annotation = param.annotation.annotation if param.annotation is not None else None
        annotated, shown = self.annotation_kind(annotation) if annotation else None, evidence.kind_of(name)
        if annotated is Kind.TENSOR or (annotated is Kind.OBJECT and shown is not Kind.MODULE):
            return annotated  # an object's ``to()`` and ``detach()`` are its class's own
        if shown is not None:
            return shown
        plain = param.default is None and annotation is None and param.star == ""
        if inputs and plain and not evidence.calls_what_no_tensor_has(name):
            return Kind.TENSOR  # an input of forward(): where the module is
        return None


def names_handed_on(module: cst.Module) -> frozenset[str]:
    """The names the file reads other than to call them or to define them (``fn = self._rel_shift``,
    ``map(step, xs)``, a variable of the same name): a function so named may be called with any
    arguments, by code the file does not show."""
    nodes = list(every_node(module))
    not_read: set[int] = set()  # callees, the attribute names of attributes, the defined names
    for node in nodes:
        if type(node) is cst.Call:
            not_read.add(id(node.func))
        elif type(node) is cst.Attribute:
            not_read.add(id(node.attr))
        elif type(node) is cst.FunctionDef or type(node) is cst.ClassDef:
            not_read.add(id(node.name))
    handed: set[str] = set()
    for node in nodes:
        if id(node) in not_read:
            continue
        if type(node) is cst.Attribute:
            handed.add(node.attr.value)
        elif type(node) is cst.Name:
            handed.add(node.value)
    return frozenset(handed)
