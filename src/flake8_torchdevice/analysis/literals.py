"""Reading device strings: ``"cuda"``, ``"cuda:1"``, ``"cpu"`` written as literals."""

from __future__ import annotations

import functools
import re
from ast import literal_eval

import libcst as cst

_CUDA_DEVICE = re.compile(r"cuda(:\d+)?")
_CPU_DEVICE = re.compile(r"cpu(:\d+)?")


def string_value(node: cst.BaseExpression) -> str | None:
    """The value of a plain (non-f, non-bytes) string literal."""
    return _evaluated(node.value) if type(node) is cst.SimpleString else None


@functools.lru_cache(maxsize=4096)
def _evaluated(literal: str) -> str | None:
    """A string literal's value from its source text. Most literals have no prefix, escape or
    carriage return: their value is the text between the quotes, read without ``literal_eval``
    (which compiles the text: the analysis asks about every docstring and device string)."""
    if literal[0] in "\"'" and "\\" not in literal and "\r" not in literal:
        quote = 3 if literal[:3] in ('"""', "'''") else 1
        return literal[quote:-quote]
    try:
        value = literal_eval(literal)
    except Exception:  # odd escapes: not a literal we can reason about
        return None
    return value if isinstance(value, str) else None


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
