"""Reading device strings: ``"cuda"``, ``"cuda:1"``, ``"cpu"`` written as literals."""

from __future__ import annotations

import re

import libcst as cst

_CUDA_DEVICE = re.compile(r"cuda(:\d+)?")
_CPU_DEVICE = re.compile(r"cpu(:\d+)?")


def string_value(node: cst.BaseExpression) -> str | None:
    """The value of a plain (non-f, non-bytes) string literal."""
    if type(node) is cst.SimpleString and "b" not in node.prefix.lower():
        try:
            value = node.evaluated_value
        except Exception:  # odd escapes: not a literal we can reason about
            return None
        return value if isinstance(value, str) else None
    return None


def is_cuda_literal(node: cst.BaseExpression) -> bool:
    """``"cuda"`` or ``"cuda:N"``."""
    value = string_value(node)
    return value is not None and _CUDA_DEVICE.fullmatch(value) is not None


def is_cpu_literal(node: cst.BaseExpression) -> bool:
    value = string_value(node)
    return value is not None and _CPU_DEVICE.fullmatch(value) is not None


def cuda_fstring(node: cst.BaseExpression) -> bool:
    """``f"cuda:{rank}"``: a CUDA device whose index is computed."""
    if type(node) is not cst.FormattedString or not node.parts:
        return False
    first = node.parts[0]
    return type(first) is cst.FormattedStringText and first.value.startswith("cuda")
