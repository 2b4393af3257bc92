"""What a condition proves, when true and when false: narrowing as data.

``narrow(state, test, truth)`` returns the state in which ``test`` evaluated to ``truth``.
``and`` / ``or`` / ``not`` compose their operands the way Python evaluates them, so a guard
in the left operand covers the right one. What an atomic test proves:

* a CUDA check (``torch.cuda.is_available()``, ``x.is_cuda``, ``device.type == "cuda"``,
  ``args.use_gpu``, a user guard function, a variable assigned from one of these): the
  branch where CUDA is usable is *guarded*;
* a type check (``isinstance(x, torch.Tensor)``, ``torch.is_tensor(x)``,
  ``isinstance(m, nn.Module)``): ``x`` has that kind in the true branch;
* ``x is None`` / ``x is not None``: nothing about devices, left alone.

A name or attribute that mentions CUDA or a GPU (``use_cuda``, ``args.gpu``) counts as a
CUDA check: the author made CUDA an explicit choice, and reporting it would be noise. Unless the
choice is made by default: a parameter ``use_gpu=True`` (or an attribute assigned from it) takes
the CUDA branch for every caller that does not pass it, so that branch is no guard; the state
records the default instead (``cuda_by_default``), for the rules to say why.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import replace

import libcst as cst

from ..knowledge.api import AVAILABILITY_CHECKS, CUDA_COUNTS, LEGACY_CUDA_CONSTRUCTORS, NN_MODULE
from .comparisons import (
    LARGE_COUNT,
    against_a_number,
    compare,
    counts_none,
    index_test,
    is_equality,
    literal_polarity,
    names_a_device_index,
)
from .cuda_evidence import adds_an_option
from .cuda_words import chooses_cuda_by_default, flag_polarity, keyed_flag_polarity, mentions_cuda, names_a_cuda_feature
from .device_tests import on_the_cpu, on_the_same_device, placement_test, same_device_test
from .domain import NOWHERE, Kind, Origin, Value
from .imports import ImportTable, dotted_name
from .literals import bool_value, constant_truth, flag_truth, is_none_literal, number_value, string_value
from .polarity import Polarity
from .state import State
from .syntax import children, literal_index

# Functions that pass their argument's truth on: ``len(torch.cuda.default_generators) > 0``.
_TRANSPARENT_CALLS = frozenset({"len", "bool", "int", "any", "all"})
_ZERO_COMPARISONS = (cst.Equal, cst.LessThanEqual)  # ``device_count() == 0`` means no CUDA
# Checks that a multi-process job runs: ``dist.is_initialized()``, ``is_dist_avail_and_initialized()``,
# ``get_world_size()`` (compared with 1).
_IN_DISTRIBUTED_JOB = re.compile(r"^(is_initialized|is_dist\w*|get_world_size)$")
# How many processes a job runs (``world_size``, ``get_world_size()``), and flags that say it runs
# several (``args.distributed``, ``use_distributed``, ``ddp``, ``use_fsdp``).
_WORLD_SIZE = re.compile(r"(^|[._])(get_)?world_size$")
_DISTRIBUTED_FLAG = re.compile(r"(^|\.)(use_|is_)?(distributed|ddp|fsdp)$")  # not ``no_ddp``
_NEGATED = (cst.NotEqual, cst.NotIn, cst.IsNot)
_MODULE_TYPES = NN_MODULE
# The value an expression has in a state, evaluated without recording anything (the interpreter's
# ``peek``): passed to each narrowing, so that conditions hold no reference to the interpreter.
CurrentValue = Callable[[cst.BaseExpression, State], Value]


class Conditions:
    """Classifies and narrows on tests; knows the imports and the user's guard functions."""

    def __init__(
        self,
        imports: ImportTable,
        guard_functions: frozenset[str],
        tensor_types: frozenset[str],
        distributed_means_cuda: bool = False,
    ) -> None:
        self._imports = imports
        # The file sets up its process group with NCCL, or leaves it to a launcher elsewhere: code
        # that runs only in a multi-process job (``if not dist.is_initialized(): return``) runs on
        # CUDA GPUs only.
        self._distributed_means_cuda = distributed_means_cuda
        self._guard_functions = guard_functions
        self._tensor_types = tensor_types

    # ------------------------------------------------------------------ narrowing
    def narrow(self, state: State, test: cst.BaseExpression, truth: bool, current_value: CurrentValue) -> State:
        """The state in which ``test`` was ``truth`` (the same object when it proves nothing)."""
        if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
            return self.narrow(state, test.expression, not truth, current_value)
        if type(test) is cst.BooleanOperation:
            return self._narrow_boolean(state, test, truth, current_value)
        if type(test) is cst.NamedExpr:
            return self.narrow(state, test.target, truth, current_value)
        narrowed, polarity = state, self.polarity(test, state)
        one_sided = False
        if type(test) is cst.Name or type(test) is cst.Attribute:
            # What the code assigned decides over what the name says: ``self.use_gpu`` an earlier
            # method set, ``self.cpu_cache`` set true only for inputs on CUDA. A name that says only
            # that a feature of CUDA's is on (``self.model_parallel``) says nothing when false.
            shown = current_value(test, state).polarity
            if shown is not Polarity.NONE:
                polarity = shown
            elif polarity is not Polarity.NONE:  # asked only of a name that says something
                one_sided = names_a_cuda_feature(dotted_name(test) or "")
        if (polarity is Polarity.POSITIVE and truth) or (polarity is Polarity.NEGATIVE and not truth):
            chosen = _defaulted_flag(test, state, current_value)
            narrowed = _with_cuda(narrowed, checked=True) if chosen is None else _by_default(narrowed, chosen)
        elif polarity is not Polarity.NONE and not one_sided:
            narrowed = _with_cuda(narrowed, checked=False)
        if type(test) is cst.Call:
            narrowed = self._narrow_type_check(narrowed, test, truth, current_value)
        return self._narrow_placement(narrowed, test, truth, current_value)

    def _narrow_placement(
        self, state: State, test: cst.BaseExpression, truth: bool, current_value: CurrentValue
    ) -> State:
        """The branch where a test shows a value or a device is the CPU (``device_tests``)."""
        compared = same_device_test(test)
        if compared is not None:
            left, right, same_when = compared
            if same_when is not truth:
                return state
            sides = [(dotted_name(side), current_value(side, state)) for side in (left, right)]
            origin = Origin(test, "on the same device as the other, as this test shows")
            return on_the_same_device(state, sides, origin)
        tested = placement_test(test)
        if tested is None or tested.cpu_when is not truth:
            return state
        name = dotted_name(tested.subject)
        if name is None:
            return state
        known = state.get(name) or current_value(tested.subject, state)
        return on_the_cpu(state, name, tested, known, Origin(test, "off CUDA where this test holds"))

    def _narrow_boolean(
        self, state: State, test: cst.BooleanOperation, truth: bool, current_value: CurrentValue
    ) -> State:
        is_and = type(test.operator) is cst.And
        if is_and == truth:  # ``a and b`` true, or ``a or b`` false: both operands had that truth
            left_held = self.narrow(state, test.left, truth, current_value)
            return self.narrow(left_held, test.right, truth, current_value)
        # Either the left operand decided, or it passed and the right one decided.
        decided_left = self.narrow(state, test.left, truth, current_value)
        left_failed = self.narrow(state, test.left, not truth, current_value)
        decided_right = self.narrow(left_failed, test.right, truth, current_value)
        if decided_left is state and decided_right is state:
            return state
        return decided_left.join(decided_right)

    def _narrow_type_check(self, state: State, call: cst.Call, truth: bool, current_value: CurrentValue) -> State:
        """``isinstance(x, C)`` true: ``x`` is one; ``torch.is_tensor(x)`` false: ``x`` is no tensor,
        whatever device a tensor there would have been on."""
        if not call.args:
            return state
        subject = dotted_name(call.args[0].value)
        if subject is None:
            return state
        kind = self._checked_kind(call)
        if kind is None or (not truth and kind is not Kind.TENSOR):
            return state
        known = state.get(subject)
        if known is None:
            # Bound in the state both branches start from, so the other branch keeps it too.
            known = current_value(call.args[0].value, state)
            state.bind(subject, known)
        narrowed = state.copy()
        if not truth:  # what else it says stays (``torch.tensor(exponent)`` of a number is 0-dim)
            narrowed.bind(subject, replace(known, kind=Kind.OBJECT, places=NOWHERE))
            return narrowed
        checked_class = dotted_name(call.args[1].value) if kind is Kind.OBJECT else None
        refined = known.with_kind(kind) if checked_class is None else Value(kind=kind, cls=checked_class)
        narrowed.bind(subject, refined)
        return narrowed

    def _checked_kind(self, call: cst.Call) -> Kind | None:
        if self._imports.qualify(call.func) == "torch.is_tensor":
            return Kind.TENSOR
        if dotted_name(call.func) != "isinstance" or len(call.args) != 2:
            return None
        cls = call.args[1].value
        checked = self._imports.qualify(cls)
        if checked in self._tensor_types:
            return Kind.TENSOR
        if checked in _MODULE_TYPES:
            return Kind.MODULE
        if (checked is None or not checked.startswith("torch.")) and type(cls) in (cst.Name, cst.Attribute):
            return Kind.OBJECT  # an instance of another class, whose methods are its own
        return None

    # --------------------------------------------------------------- CUDA checks
    def polarity(self, test: cst.BaseExpression, state: State) -> Polarity:
        # Exact types (libcst's node classes are ABCs, slow to ``isinstance``).
        if type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
            return self.polarity(test.expression, state).flipped()
        if type(test) is cst.BooleanOperation:
            # ``a and b`` is true only if both are: one POSITIVE operand guards the body.
            # ``a or b`` is false only if both are: one NEGATIVE operand guards the ``else``.
            sides = {self.polarity(test.left, state), self.polarity(test.right, state)} - {Polarity.NONE}
            preferred = Polarity.POSITIVE if type(test.operator) is cst.And else Polarity.NEGATIVE
            if preferred in sides or not sides:
                return preferred if sides else Polarity.NONE
            return sides.pop()
        if type(test) is cst.Call:
            return self._call_polarity(test, state)
        if type(test) is cst.Comparison:
            return self._comparison_polarity(test, state)
        if type(test) is cst.Name or type(test) is cst.Attribute:
            return self._reference_polarity(test, state)
        if type(test) is cst.Subscript:  # ``conf["use_gpu"]``: a flag kept under its name
            return keyed_flag_polarity(dotted_name(test.value), literal_index(test))
        if type(test) is cst.NamedExpr:
            return self.polarity(test.value, state)
        if type(test) is cst.IfExp:
            return self._chosen_polarity(test, state)
        return Polarity.NONE

    def _chosen_polarity(self, test: cst.IfExp, state: State) -> Polarity:
        """``True if c else False`` tests what ``c`` tests; ``False if c else True``, its negation."""
        body, orelse = constant_truth(test.body), constant_truth(test.orelse)
        if body is None or orelse is None or body is orelse:
            return Polarity.NONE
        tested = self.polarity(test.test, state)
        return tested if body else tested.flipped()

    def bound_polarity(self, value: cst.BaseExpression, state: State) -> Polarity:
        """The polarity of a value being bound: its test's, or a constant's that agrees with what the
        state knows (``use_cuda = False`` where CUDA is missing is false exactly when
        ``torch.cuda.is_available()`` is)."""
        truth = flag_truth(value)
        if truth is not None and (state.cuda_checked if truth else state.cuda_refused):
            return Polarity.POSITIVE
        return self.polarity(value, state)

    def mentions_guard(self, node: cst.CSTNode, state: State) -> bool:
        """Anywhere inside ``node`` (a decorator, say), is there a CUDA check?"""
        if isinstance(node, cst.BaseExpression) and self.polarity(node, state) is not Polarity.NONE:
            return True
        return any(self.mentions_guard(child, state) for child in children(node))

    def _call_polarity(self, call: cst.Call, state: State) -> Polarity:
        qualified = self._imports.qualify(call.func)
        if qualified in AVAILABILITY_CHECKS:
            return Polarity.POSITIVE
        func = call.func
        if type(func) is cst.Attribute and func.attr.value == "startswith" and call.args:
            return literal_polarity(call.args[0].value)  # ``str(device).startswith("cuda")``
        name = dotted_name(func)
        if name is None:
            return Polarity.NONE
        if name in _TRANSPARENT_CALLS and call.args:
            return self.polarity(call.args[0].value, state)
        if type(func) is cst.Attribute and func.attr.value == "get" and call.args:  # ``conf.get("use_gpu")``
            keyed = keyed_flag_polarity(dotted_name(func.value), string_value(call.args[0].value))
            default = call.args[1].value if len(call.args) > 1 else None  # ``conf.get("use_gpu", True)``: CUDA's
            return Polarity.NONE if default is not None and chooses_cuda_by_default(keyed, default) else keyed
        if name == "isinstance" and len(call.args) == 2:
            types = call.args[1].value
            named = [element.value for element in types.elements] if type(types) is cst.Tuple else [types]
            if named and all(self._names_a_cuda_type(kind) for kind in named):
                return Polarity.POSITIVE
            if [dotted_name(kind) for kind in named] == ["int"] and self._chosen_gpu_index(call.args[0].value, state):
                return Polarity.POSITIVE
        last = name.rsplit(".", 1)[-1]
        if last in self._guard_functions or name in self._guard_functions:
            return Polarity.POSITIVE
        if self._distributed_means_cuda and _IN_DISTRIBUTED_JOB.match(last):
            return Polarity.POSITIVE
        if mentions_cuda(last) and last != "cuda":  # ``x.cuda()`` moves, it does not check
            return Polarity.POSITIVE
        return Polarity.NONE

    def _chosen_gpu_index(self, tested: cst.BaseExpression, state: State) -> bool:
        """``isinstance(device, int)``: a device given as an index is a GPU (semantics/raises_integer_device_*),
        chosen by the caller, unless a number is its default (``device=0``: every call that omits it)."""
        known = state.get(dotted_name(tested) or "")
        return names_a_device_index(tested) and not (known is not None and known.scalar)

    def _names_a_cuda_type(self, kind: cst.BaseExpression) -> bool:
        """``torch.cuda.FloatTensor``, a framework's ``CUDAAccelerator``: an instance is on CUDA."""
        if self._imports.qualify(kind) in LEGACY_CUDA_CONSTRUCTORS:
            return True
        name = dotted_name(kind)  # not ``NoGPUAccelerator``: named for the opposite
        return name is not None and flag_polarity(name.rsplit(".", 1)[-1]) is Polarity.POSITIVE

    def _comparison_polarity(self, comparison: cst.Comparison, state: State) -> Polarity:
        left = comparison.left
        for target in comparison.comparisons:
            operator, right = target.operator, target.comparator
            negated = isinstance(operator, _NEGATED)
            literal = literal_polarity(left)
            if literal is Polarity.NONE:
                literal = literal_polarity(right)
            if literal is not Polarity.NONE:
                return literal.flipped() if negated else literal
            threshold = self._count_threshold(left, operator, right)
            if threshold is None:
                threshold = index_test(left, operator, right)
            if threshold is not None:
                return threshold
            inner = self.polarity(left, state)
            if inner is Polarity.NONE:
                inner = self.polarity(right, state)
            if inner is not Polarity.NONE:
                truth = bool_value(right) if bool_value(right) is not None else bool_value(left)
                if truth is not None:  # ``torch.cuda.is_available() is False``
                    return inner if truth != negated else inner.flipped()
                # ``ids is not None``, ``gpu_id != -1``, ``visible_gpus != "-1"`` (-1: no GPU, as
                # ``CUDA_VISIBLE_DEVICES=-1`` hides them all) test what ``ids``, ``gpu_id`` test.
                if is_none_literal(right) or is_none_literal(left) or _minus_one(right):
                    return inner if negated else inner.flipped()
                counts_zero = isinstance(operator, _ZERO_COMPARISONS) and counts_none(right)
                return inner.flipped() if counts_zero or negated else inner
            left = right
        return Polarity.NONE

    def _count_threshold(
        self, left: cst.BaseExpression, operator: cst.BaseCompOp, right: cst.BaseExpression
    ) -> Polarity | None:
        """``device_count() > 1``, ``memory_allocated() < 8e9``: a count that is 0 without CUDA,
        compared with a number (None when the test is not one). A test that fails for 0 has CUDA
        in its true branch; one that holds for 0 is read the other way round, as ``== 0`` is."""
        count, bound, flipped = against_a_number(left, right)  # ``0 < device_count()`` too
        absent = self._without_cuda(count) if bound is not None else None
        if bound is None or absent is None:
            return None
        if not compare(absent, operator, bound, flipped):
            return Polarity.POSITIVE
        # True for 0: the false branch has CUDA if some count fails the test (``<= 1``, ``== 0``);
        # ``>= 0`` holds for every count and proves nothing.
        if is_equality(operator) or not compare(LARGE_COUNT, operator, bound, flipped):
            return Polarity.NEGATIVE
        return Polarity.NONE

    def _without_cuda(self, count: cst.BaseExpression) -> float | None:
        """What a count is where CUDA is not in use: 0 devices; 1 process, where the file's
        multi-process jobs run on CUDA (``if world_size == 1: return``)."""
        if self._counts_cuda(count):
            return 0.0
        name = dotted_name(count.func if type(count) is cst.Call else count) or ""
        return 1.0 if self._distributed_means_cuda and _WORLD_SIZE.search(name) else None

    def _counts_cuda(self, node: cst.BaseExpression) -> bool:
        if type(node) is not cst.Call:
            return False
        if self._imports.qualify(node.func) in CUDA_COUNTS:
            return True
        # ``len(torch.cuda.default_generators)``: one generator per CUDA device
        return (
            dotted_name(node.func) == "len"
            and bool(node.args)
            and self._imports.qualify(node.args[0].value) == "torch.cuda.default_generators"
        )

    def _reference_polarity(self, reference: cst.BaseExpression, state: State) -> Polarity:
        name = dotted_name(reference)
        if name is not None:
            known = state.get(name)
            if known is not None and known.polarity is not Polarity.NONE:
                return known.polarity
            if self._imports.qualify(reference) in AVAILABILITY_CHECKS:
                return Polarity.POSITIVE
        elif type(reference) is cst.Attribute:
            name = reference.attr.value  # ``batch[0].is_cuda``: the attribute alone decides
        else:
            return Polarity.NONE
        if self._distributed_means_cuda and _DISTRIBUTED_FLAG.search(name):
            return Polarity.POSITIVE
        return flag_polarity(name.rsplit(".", 1)[-1])


def _defaulted_flag(test: cst.BaseExpression, state: State, current_value: CurrentValue) -> Origin | None:
    """The parameter default that makes a CUDA-choosing flag choose CUDA (``use_gpu=True``) when
    ``test`` is that flag, or an attribute or variable that holds it; or the option a script cannot
    turn off (``add_argument("--cuda", action="store_true", default=True)``)."""
    if type(test) is not cst.Name and type(test) is not cst.Attribute:
        return None
    value = state.get(dotted_name(test) or "") or current_value(test, state)
    origin = value.origin
    return origin if origin is not None and (type(origin.node) is cst.Param or adds_an_option(origin.node)) else None


def _with_cuda(state: State, checked: bool) -> State:
    """The branch where CUDA was checked for (``checked``), or where it is known not to be used."""
    if state.cuda_checked if checked else state.cuda_refused:
        return state
    narrowed = state.copy()
    if checked:
        narrowed.cuda_checked = True
    else:
        narrowed.cuda_refused = True
        narrowed.names = {name: value.off_cuda() for name, value in narrowed.names.items()}
    return narrowed


def _by_default(state: State, flag: Origin) -> State:
    """The branch a flag's default takes: CUDA is the user's choice, but one made for every caller
    that does not pass the flag, so the branch is no guard."""
    if state.cuda_by_default is flag:
        return state
    narrowed = state.copy()
    narrowed.cuda_by_default = flag
    return narrowed


_EXIT_CALLS = frozenset({"skip", "skipTest", "exit", "_exit", "abort", "fail"})


def is_exit_call(statement: cst.BaseSmallStatement) -> bool:
    """``pytest.skip(...)``, ``sys.exit()``, ``self.skipTest(...)``: the block ends here."""
    if type(statement) is not cst.Expr or type(statement.value) is not cst.Call:
        return False
    name = dotted_name(statement.value.func)
    return name is not None and name.rsplit(".", 1)[-1] in _EXIT_CALLS


def _minus_one(node: cst.BaseExpression) -> bool:
    """``-1`` or ``"-1"``: the GPU index, or the ``CUDA_VISIBLE_DEVICES`` value, that means none."""
    return number_value(node) == -1 or string_value(node) == "-1"
