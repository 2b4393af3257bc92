"""Does a condition prove that CUDA is (or is not) usable?

A hard-coded ``"cuda"`` is only a bug where nothing checked for CUDA first. This
module classifies a test expression by its *polarity*:

* ``POSITIVE``: when the test is true, the code is running with CUDA in mind
  (``torch.cuda.is_available()``, ``x.is_cuda``, ``device.type == "cuda"``,
  ``args.use_gpu``, a user guard function, or a variable assigned from any of these);
* ``NEGATIVE``: when it is false (``not torch.cuda.is_available()``,
  ``device == "cpu"``);
* ``NONE``: the test says nothing about CUDA.

A name or attribute that mentions CUDA or a GPU (``use_cuda``, ``args.gpu``) counts
as a guard: the author made CUDA an explicit choice, and reporting it would be noise.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Callable

import libcst as cst

from .imports import ImportTable, dotted_name
from .values import string_value


class Polarity(enum.Enum):
    NONE = 0
    POSITIVE = 1
    NEGATIVE = 2

    def flipped(self) -> Polarity:
        if self is Polarity.POSITIVE:
            return Polarity.NEGATIVE
        if self is Polarity.NEGATIVE:
            return Polarity.POSITIVE
        return self


AVAILABILITY_CHECKS: frozenset[str] = frozenset(
    {
        "torch.cuda.is_available",
        "torch.cuda.device_count",
        "torch.cuda.is_initialized",
        "torch.accelerator.is_available",
        "torch.accelerator.device_count",
        "torch.accelerator.current_accelerator",
        "torch.backends.cudnn.is_available",
    }
)

_MENTIONS_CUDA = re.compile(r"cuda|gpu", re.IGNORECASE)
_REFUSES_CUDA = re.compile(r"(no|disable|without|skip)_?(cuda|gpu)|cpu", re.IGNORECASE)
_ZERO_COMPARISONS = (cst.Equal, cst.LessThanEqual)  # ``device_count() == 0`` means no CUDA


def mentions_cuda(identifier: str) -> bool:
    return _MENTIONS_CUDA.search(identifier) is not None


class GuardClassifier:
    """Classifies test expressions; knows the imports, user guard names and guard variables."""

    def __init__(
        self,
        imports: ImportTable,
        guard_functions: frozenset[str],
        guard_variable: Callable[[str], Polarity | None],
    ) -> None:
        self._imports = imports
        self._guard_functions = guard_functions
        self._guard_variable = guard_variable

    def polarity(self, test: cst.BaseExpression) -> Polarity:
        # Exact types (libcst's node classes are ABCs, slow to ``isinstance``): asked of every
        # assigned value and every condition.
        test_type = type(test)
        if test_type is cst.UnaryOperation and type(test.operator) is cst.Not:
            return self.polarity(test.expression).flipped()
        if test_type is cst.BooleanOperation:
            # ``a and b`` is true only if both are: one POSITIVE operand guards the body.
            # ``a or b`` is false only if both are: one NEGATIVE operand guards the ``else``.
            sides = {self.polarity(test.left), self.polarity(test.right)} - {Polarity.NONE}
            preferred = Polarity.POSITIVE if isinstance(test.operator, cst.And) else Polarity.NEGATIVE
            if preferred in sides or not sides:
                return preferred if sides else Polarity.NONE
            return sides.pop()
        if test_type is cst.Call:
            return self._call_polarity(test)
        if test_type is cst.Comparison:
            return self._comparison_polarity(test)
        if test_type is cst.Name or test_type is cst.Attribute:
            return self._reference_polarity(test)
        return Polarity.NONE

    def mentions_guard(self, node: cst.CSTNode) -> bool:
        """Anywhere inside ``node`` (a decorator, say), is there a CUDA check?"""
        if isinstance(node, cst.BaseExpression) and self.polarity(node) is not Polarity.NONE:
            return True
        return any(self.mentions_guard(child) for child in node.children)

    def _call_polarity(self, call: cst.Call) -> Polarity:
        qualified = self._imports.qualify(call.func)
        if qualified in AVAILABILITY_CHECKS:
            return Polarity.POSITIVE
        if isinstance(call.func, cst.Attribute) and call.func.attr.value == "startswith" and call.args:
            return _literal_polarity(call.args[0].value)  # ``str(device).startswith("cuda")``
        name = dotted_name(call.func)
        if name is None:
            return Polarity.NONE
        last = name.rsplit(".", 1)[-1]
        if last in self._guard_functions or name in self._guard_functions:
            return Polarity.POSITIVE
        if mentions_cuda(last) and last != "cuda":  # ``x.cuda()`` moves, it does not check
            return Polarity.POSITIVE
        return Polarity.NONE

    def _comparison_polarity(self, comparison: cst.Comparison) -> Polarity:
        left = comparison.left
        for target in comparison.comparisons:
            operator, right = target.operator, target.comparator
            negated = isinstance(operator, (cst.NotEqual, cst.NotIn, cst.IsNot))
            literal = _literal_polarity(left)
            if literal is Polarity.NONE:
                literal = _literal_polarity(right)
            if literal is not Polarity.NONE:
                return literal.flipped() if negated else literal
            inner = self.polarity(left)
            if inner is Polarity.NONE:
                inner = self.polarity(right)
            if inner is not Polarity.NONE:
                counts_zero = isinstance(operator, _ZERO_COMPARISONS) and _is_zero(right)
                return inner.flipped() if counts_zero else inner
            left = right
        return Polarity.NONE

    def _reference_polarity(self, reference: cst.BaseExpression) -> Polarity:
        name = dotted_name(reference)
        if name is not None:
            variable = self._guard_variable(name)
            if variable is not None:
                return variable
        elif isinstance(reference, cst.Attribute):
            name = reference.attr.value  # ``batch[0].is_cuda``: the attribute alone decides
        else:
            return Polarity.NONE
        last = name.rsplit(".", 1)[-1]
        if _REFUSES_CUDA.search(last):  # ``args.no_cuda``, ``cpu_only``
            return Polarity.NEGATIVE
        if mentions_cuda(last):
            return Polarity.POSITIVE
        return Polarity.NONE


def _literal_polarity(node: cst.BaseExpression) -> Polarity:
    """A string naming a CUDA/GPU device type (``"cuda"``, ``"cuda:"``, ``"gpu"``) or the CPU."""
    value = string_value(node)
    if value is None:
        return Polarity.NONE
    if mentions_cuda(value):
        return Polarity.POSITIVE
    if value.lower().startswith("cpu"):
        return Polarity.NEGATIVE
    return Polarity.NONE


def _is_zero(node: cst.BaseExpression) -> bool:
    return isinstance(node, cst.Integer) and node.value == "0"


_EXIT_CALLS: frozenset[str] = frozenset({"skip", "skipTest", "exit", "_exit", "abort", "fail"})


def always_leaves(statement: cst.CSTNode) -> bool:
    """Does this statement leave the block (return, raise, continue, break, skip, exit)?"""
    if not isinstance(statement, cst.SimpleStatementLine) or not statement.body:
        return False
    final = statement.body[-1]
    if isinstance(final, (cst.Return, cst.Raise, cst.Continue, cst.Break)):
        return True
    if isinstance(final, cst.Expr) and isinstance(final.value, cst.Call):
        name = dotted_name(final.value.func)
        return name is not None and name.rsplit(".", 1)[-1] in _EXIT_CALLS
    return False
