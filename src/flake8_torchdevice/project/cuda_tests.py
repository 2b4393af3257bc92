"""What a test says about CUDA, read with ``ast``: whether it is about CUDA at all, whether it is
negated, and which of its branches runs only with CUDA. Shared by the index (evidence), the call
reader (guarded calls) and the helper reader (moves under a CUDA check)."""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping

from ..knowledge import api
from .names import qualified

# A CUDA device as a string: "cuda", "cuda:1".
CUDA_DEVICE = re.compile(r"cuda(:\d+)?")


def is_availability_check(node: ast.AST, aliases: Mapping[str, str]) -> bool:
    """``torch.cuda.is_available()``, ``torch.cuda.device_count()``..., as the file imports them."""
    return isinstance(node, ast.Call) and qualified(node.func, aliases) in api.AVAILABILITY_CHECKS


def tests_cuda_missing(test: ast.expr, aliases: Mapping[str, str]) -> bool:
    """``not torch.cuda.is_available()``, alone or with ``and`` beside tests of what the device is
    (``"cuda" in device``): not beside another condition (``strict and not ...``, ``allow_cpu is
    True``), which may be false."""
    parts = test.values if isinstance(test, ast.BoolOp) and isinstance(test.op, ast.And) else [test]
    missing = [part for part in parts if _negated_check(part, aliases)]
    return len(missing) == 1 and all(part in missing or _tests_the_device(part, aliases) for part in parts)


def _tests_the_device(test: ast.expr, aliases: Mapping[str, str]) -> bool:
    """A comparison about CUDA or a device: ``"cuda" in device``, ``device.type != "cpu"``."""
    names = (
        node.attr if isinstance(node, ast.Attribute) else node.id
        for node in ast.walk(test)
        if isinstance(node, (ast.Attribute, ast.Name))
    )
    return isinstance(test, ast.Compare) and (mentions_cuda(test, aliases) or any("device" in name for name in names))


def _negated_check(test: ast.expr, aliases: Mapping[str, str]) -> bool:
    return (
        isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not) and is_availability_check(test.operand, aliases)
    )


def mentions_cuda(test: ast.AST, aliases: Mapping[str, str]) -> bool:
    """A test about CUDA: an availability check, or a name like ``use_cuda`` / ``args.gpu``."""
    for node in ast.walk(test):
        if is_availability_check(node, aliases):
            return True
        name = node.attr if isinstance(node, ast.Attribute) else node.id if isinstance(node, ast.Name) else None
        if name is not None and api.MENTIONS_CUDA.search(name):
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and CUDA_DEVICE.fullmatch(node.value):
            return True
    return False


def negated(test: ast.AST) -> bool:
    """``not torch.cuda.is_available()``, ``torch.cuda.is_available() is False``,
    ``device_count() == 0``, ``device_count() < 1``."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return True
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        truth = _compared_truth(test)
        if truth is not None:  # ``is False``, ``!= True``
            return truth[1] is False
        comparator = test.comparators[0]
        bound = comparator.value if isinstance(comparator, ast.Constant) else None
        return isinstance(test.ops[0], (ast.Eq, ast.Lt, ast.LtE)) and bound in (0, 1)
    return False


def _compared_truth(test: ast.Compare) -> tuple[ast.expr, bool] | None:
    """``x is False``, ``x != True``, ``False is x``: the side compared and the truth value ``x``
    must have for the test to hold; None when neither side is ``True`` or ``False``."""
    left, right = test.left, test.comparators[0]
    for side, other in ((left, right), (right, left)):
        if isinstance(other, ast.Constant) and isinstance(other.value, bool):
            wanted = other.value != isinstance(test.ops[0], (ast.NotEq, ast.IsNot))
            return side, wanted
    return None


def runs_with_cuda(test: ast.AST, aliases: Mapping[str, str]) -> bool | None:
    """True where ``test``'s true branch runs only with CUDA, False where its false branch does,
    None where neither is known (no CUDA in it, or no telling)."""
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        inner = runs_with_cuda(test.operand, aliases)
        return None if inner is None else not inner
    if isinstance(test, ast.BoolOp):
        # ``a and b`` is true only if both are; ``a or b`` is false only if both are.
        sides = {runs_with_cuda(value, aliases) for value in test.values}
        wanted_side = isinstance(test.op, ast.And)
        return wanted_side if wanted_side in sides else None
    if isinstance(test, ast.Compare) and len(test.ops) == 1:
        if not mentions_cuda(test, aliases):
            return None
        # ``device.type == "cuda"``, ``device_count() > 0``; ``!=``, ``== 0`` the other way round
        truth = _compared_truth(test)
        if truth is not None:  # ``torch.cuda.is_available() is False``, ``args.no_cuda == True``
            side, value = truth
            inner = runs_with_cuda(side, aliases)
            flipped = value is False
            return None if inner is None else inner != flipped
        return not (negated(test) or isinstance(test.ops[0], (ast.NotEq, ast.IsNot, ast.NotIn)))
    if isinstance(test, ast.Call):
        return True if is_availability_check(test, aliases) else None
    if isinstance(test, (ast.Name, ast.Attribute)):
        if qualified(test, aliases) in api.AVAILABILITY_CHECKS:
            return True
        last = test.id if isinstance(test, ast.Name) else test.attr
        if api.REFUSES_CUDA.search(last):  # ``args.no_cuda``, ``cpu_only``
            return False
        return True if api.MENTIONS_CUDA.search(last) else None
    return None
