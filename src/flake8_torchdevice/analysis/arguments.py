"""Reading a call's arguments by keyword or position."""

from __future__ import annotations

import libcst as cst


def keyword_argument(call: cst.Call, name: str) -> cst.BaseExpression | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None


def positional_argument(call: cst.Call, index: int) -> cst.BaseExpression | None:
    positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    return positional[index] if index < len(positional) else None
