"""The flow analysis of one module: an abstract interpreter over the CST.

It walks the module body, then every function and method (entered with the module's final
state, or the enclosing function's state for nested ones), evaluating each expression to a
``Value`` in the current ``State``. Statements (``statements``), expressions (``expressions``),
calls (``calls``) and summaries of the file's own functions and classes (``summaries``) are the
parts of the interpreter. What they hold on to (the summaries learned, ``memo``; the import
table; narrowing, ``conditions``) holds nothing of the interpreter: no reference cycle keeps a
file's tree alive once its analysis is dropped.

Evaluation is separate from recording: a loop body is evaluated until its state stops
changing (each pass recording into a draft, of which only the last pass's is kept), and a
function is evaluated at each call site for its summary, with recording off; facts are kept
once, from the pass that sees the final state. Each unit (the module
body, a function) has a step budget: past it the unit is analysed again in a simple mode
(loops widened in one pass, no summaries), which is linear and never guesses.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from contextlib import contextmanager

import libcst as cst

from ..callers import NO_CALLERS, FileCallers
from ..imported import NO_IMPORTED_CLASSES, ImportedClasses
from ..knowledge.api import GRAD_DISABLING_CONTEXTS, TENSOR_TYPES
from .calls import CallEvaluator
from .collector import collect
from .conditions import Conditions
from .contexts import CallSite, ContextWalker, NotedCall
from .cuda_evidence import holds_options, option_flag, options_never_false
from .cuda_words import flag_polarity, mentions_cuda, needs_cuda
from .definitions import ClassInfo, Definitions, FunctionInfo
from .domain import Kind, Origin, Value
from .expressions import ExpressionEvaluator
from .facts import Facts, Scope
from .frames import Frame, Pending
from .imports import ImportTable, dotted_name
from .memo import SummaryMemo
from .parameters import ParameterEvaluator
from .state import State
from .statements import StatementWalker
from .summaries import SummaryEvaluator
from .syntax import docstring, runs_a_collective_every_call, statements

# Statements one unit may walk before it is analysed again in simple mode.
UNIT_BUDGET = 60_000

# A function named for setting up a multi-process job.
_DISTRIBUTED_SETUP = re.compile(r"(init|setup)_?\w*(dist|ddp)", re.IGNORECASE)


class BudgetExceeded(Exception):
    """A unit took more steps than its budget."""


class Interpreter(
    StatementWalker, ExpressionEvaluator, CallEvaluator, SummaryEvaluator, ParameterEvaluator, ContextWalker
):
    def __init__(
        self,
        module: cst.Module,
        guard_functions: frozenset[str],
        callers: FileCallers = NO_CALLERS,
        project_classes: ImportedClasses = NO_IMPORTED_CLASSES,
    ) -> None:
        self.module = module
        self.imports = ImportTable()
        self.definitions: Definitions = collect(module)
        self.definitions.callers = callers
        self.definitions.project_classes = dict(project_classes.classes)
        self.definitions.project_helpers = dict(project_classes.helpers)
        self.definitions.project_savers = dict(project_classes.savers)
        self.file_sets_up_nccl = self.definitions.sets_up_nccl()
        # The file's multi-process code runs on GPUs: it sets up NCCL, or leaves the process group to
        # a launcher elsewhere (not where it sets one up with Gloo).
        self.distributed_means_cuda = self.definitions.distributed_means_cuda()
        self.conditions = Conditions(self.imports, guard_functions, TENSOR_TYPES, self.distributed_means_cuda)
        self.facts = Facts()
        self.summary_memo = SummaryMemo()
        self.summary_globals: State | None = None  # what the summaries in progress see as globals
        self.state = State()
        self.recording = True
        self.simple = False  # past the budget: loops in one pass, no summaries
        self.steps = 0
        self.frame = Frame(None, Scope(None))
        self.pending: list[Pending] = []
        self.default_values: dict[int, Value] = {}  # by id(Param)
        self.expression_statement: cst.Expr | None = None
        self.module_state: State | None = None  # the module's state once its body is walked
        self._cuda_specific: dict[str, bool] = {}  # by definition key
        self._never_false = options_never_false(self.definitions.call_sites.get("add_argument", ()), module)
        self.call_sites: list[CallSite] = []  # calls of the file's functions, for their contexts
        self.noted_calls: dict[str, list[NotedCall]] = {}
        self.partly_walked: set[str] = set()
        self.in_context = False

    # ------------------------------------------------------------------ the module
    def run(self) -> Facts:
        body = self.module.body
        module_state = self.module_state = self.walk_unit(lambda: self.block(body), State())
        while self.pending:
            pending = self.pending.pop(0)
            entry = pending.entry if pending.entry is not None else module_state
            self.record_function(pending.info, entry)
        self.facts.contexts = self.walk_contexts()
        self.facts.closed_functions = self.closed_functions()
        return self.facts

    def walk_unit(self, walk: Callable[[], None], entry: State) -> State:
        """Walk a unit from ``entry``; past its budget, walk it again in simple mode."""
        pending_before = len(self.pending)
        for simple in (False, True):
            self.state, self.steps, self.simple = entry.copy(), 0, simple
            try:
                walk()
                return self.state
            except BudgetExceeded:
                del self.pending[pending_before:]
        raise AssertionError("simple mode is linear")  # pragma: no cover

    def globals_state(self) -> State:
        """What a function of the module sees as globals: the module's final state, or, while
        the module body is still being walked, its state so far."""
        return self.module_state if self.module_state is not None else self.state

    def step(self) -> None:
        self.steps += 1
        if self.steps > UNIT_BUDGET and not self.simple:
            raise BudgetExceeded

    # ------------------------------------------------------------------ functions
    def record_function(self, info: FunctionInfo, outer: State) -> None:
        """The recording walk of a function body, entered from ``outer``."""
        self_value = self.self_value(info)
        entry = self.entry_state(info, outer, self_value, self.parameter_values(info))
        with self.frame_for(info, self_value):
            self.walk_unit(lambda: self.block(statements(info.node.body)), entry)

    def evaluate_function(
        self, info: FunctionInfo, outer: State, arguments: dict[str, Value], self_value: Value | None
    ) -> tuple[Value | None, State]:
        """Evaluate a function without recording: its returned value (None if it never returns
        a value) and the state where it leaves (the join of its end and its returns). Used for
        summaries."""
        # Its steps count against the unit that asked: a unit whose summaries explode goes simple.
        saved = (self.state, self.recording, self.expression_statement)
        self.recording = False
        entry = self.entry_state(info, outer, self_value, arguments)
        try:
            with self.frame_for(info, self_value) as frame:
                self.state = entry
                self.block(statements(info.node.body))
                exit_state = self.state
                for left in frame.exits:
                    exit_state = exit_state.join(left)
                returned = frame.returns
        finally:
            self.state, self.recording, self.expression_statement = saved
        value = None
        for result in returned:
            value = result if value is None else value.join(result)
        return value, exit_state

    def entry_state(
        self, info: FunctionInfo, outer: State, self_value: Value | None, arguments: dict[str, Value]
    ) -> State:
        visible = outer.names if outer.outer is None else outer.visible()
        if self_value is not None and info.self_name is not None:
            own = info.self_name + "."  # a method sees its instance through the class summary
            if info.self_name in outer.owners:
                visible = {name: value for name, value in visible.items() if not name.startswith(own)}
        entry = State(
            cuda_checked=outer.cuda_checked or self.cuda_specific(info),
            grad_enabled=outer.grad_enabled and not self._decorated_without_grad(info),
            outer=visible,
        )
        if self_value is not None and info.self_name is not None:
            entry.bind(info.self_name, self_value)
        for name, value in arguments.items():
            entry.bind(name, value)
        return entry

    @contextmanager
    def frame_for(self, info: FunctionInfo, self_value: Value | None) -> Iterator[Frame]:
        owner = self.definitions.owner(info)
        in_module = owner is not None and self.is_module_class(owner)
        scope = Scope(info, cuda_specific=self.cuda_specific(info), in_module=in_module)
        saved = self.frame
        self.frame = Frame(info, scope, self_value)
        self.imports.enter_function()
        try:
            yield self.frame
        finally:
            self.imports.leave_function()
            self.frame = saved

    def _decorated_without_grad(self, info: FunctionInfo) -> bool:
        """``@torch.no_grad()`` / ``@torch.inference_mode()``."""
        for decorator in info.node.decorators:
            target = decorator.decorator
            target = target.func if type(target) is cst.Call else target
            if self.imports.qualify(target) in GRAD_DISABLING_CONTEXTS:
                return True
        return False

    def cuda_specific(self, info: FunctionInfo) -> bool:
        """Named for CUDA, in a class named for CUDA or decorated with a CUDA check (or whose base
        is decorated so: ``unittest.skipIf`` on a base skips its subclasses' tests too, a name does
        not pass on) or built only with CUDA, decorated with a CUDA check, or written for GPUs
        (NCCL, a process per GPU, a module spread over GPUs it lists, CUDA graphs, compiled CUDA
        kernels, a collective of a job whose process group is NCCL or set up elsewhere)."""
        owner = self.definitions.owner(info)
        return (
            self._marked_for_cuda(info)
            or info.evidence.uses_nccl  # NCCL runs on CUDA GPUs only
            or info.evidence.written_for_gpus  # ``DataParallel(m, device_ids=[0, 1])``, CUDA graphs
            or _pins_each_process_to_a_gpu(info)
            or (info.evidence.runs_collective and self._collective_of_a_gpu_job(info))
            or (owner is None and info.name in self.definitions.gpu_workers)
            or (owner is not None and self._marked_for_cuda(owner))
            or (owner is not None and any(map(self._decorated_with_a_check, self.definitions.ancestors(owner))))
            or (owner is not None and self._built_only_with_cuda(owner))
        )

    def _built_only_with_cuda(self, owner: ClassInfo) -> bool:
        """Does the class's ``__init__`` stop without CUDA (``assert torch.cuda.is_available()``)?
        No instance exists without CUDA, so its methods run only where CUDA is."""
        init = owner.methods.get("__init__")
        return init is not None and self.stops_without_cuda(init)

    def _collective_of_a_gpu_job(self, info: FunctionInfo) -> bool:
        """Does the function's collective run in a job on GPUs? Anywhere in a file that sets up NCCL;
        where the file leaves the process group to a launcher elsewhere, where the function runs it
        on every call: one under ``if dist.is_initialized():`` lets a single process through, and
        the CUDA uses before it with it."""
        if self.file_sets_up_nccl:
            return True
        return self.distributed_means_cuda and runs_a_collective_every_call(info.node)

    def option_never_false(self, node: cst.Attribute) -> Value | None:
        """``args.cuda`` where the script's ``--cuda`` is ``store_true`` with ``default=True``: true
        on every run, the choice its name says made for the user (``cuda_by_default``)."""
        added = self._never_false.get(node.attr.value)
        if added is None or not holds_options(dotted_name(node.value)):
            return None
        why = f"`{option_flag(added)}` is always on (`store_true`, `default=True`)"
        return Value(kind=Kind.SCALAR, polarity=flag_polarity(node.attr.value), truth=True, origin=Origin(added, why))

    def plain_class(self, node: cst.BaseExpression) -> bool:
        """Does ``node`` name a class this file or the project defines that is no ``nn.Module``?"""
        local = self.definitions.classes.get(dotted_name(node) or "")
        if local is not None:
            return not self.is_module_class(local)
        imported = self.definitions.imported_class(node)
        return imported is not None and not imported.module

    def _marked_for_cuda(self, info: FunctionInfo | ClassInfo) -> bool:
        """Named for CUDA, documented as needing it, or decorated with a CUDA check; asked at
        every walk of a function, so remembered (by definition key)."""
        known = self._cuda_specific.get(info.key)
        if known is None:
            node = info.node
            known = self._cuda_specific[info.key] = (
                mentions_cuda(info.name) or needs_cuda(docstring(node)) or self._decorated_with_a_check(info)
            )
        return known

    def _decorated_with_a_check(self, info: FunctionInfo | ClassInfo) -> bool:
        """``@unittest.skipIf(not torch.cuda.is_available(), ...)``, ``@pytest.mark.skipif(...)``."""
        return any(self.conditions.mentions_guard(d.decorator, self.state) for d in info.node.decorators)

    def narrow(self, state: State, test: cst.BaseExpression, truth: bool) -> State:
        """The state in which ``test`` was ``truth`` (``Conditions.narrow``)."""
        return self.conditions.narrow(state, test, truth, self.peek)

    def peek(self, node: cst.BaseExpression, state: State) -> Value:
        """The value of a name or attribute path in ``state``, recording nothing."""
        saved = (self.state, self.recording)
        self.state, self.recording = state.copy(), False
        try:
            return self.evaluate(node)
        finally:
            self.state, self.recording = saved

    # ------------------------------------------------------------------ recording
    def record_value(self, node: cst.CSTNode, value: Value) -> Value:
        if self.recording:
            self.facts.values[id(node)] = value
        return value


def _pins_each_process_to_a_gpu(info: FunctionInfo) -> bool:
    """A distributed set-up (``init_dist``, ``setup_ddp``, ``init_distributed_mode``) that sets up a
    process group (``dist.init_process_group``, ``deepspeed.init_distributed``) and gives each
    process its GPU (BasicSR's ``_init_dist_pytorch(backend)``, handed a backend its caller defaults
    to NCCL): a multi-GPU set-up whatever backend it is handed. Not a ``main`` that does so among
    other things: its other CUDA uses may run without a process group."""
    called = info.evidence.methods.items()
    sets_up_a_group = any(
        "init_process_group" in methods or (receiver == "deepspeed" and "init_distributed" in methods)
        for receiver, methods in called
    )
    pins = any(receiver.endswith("cuda") and "set_device" in methods for receiver, methods in called)
    return _DISTRIBUTED_SETUP.search(info.name) is not None and sets_up_a_group and pins
