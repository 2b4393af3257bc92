"""Expressions that hold a dtype: what a ``.to(...)`` of only a dtype converts to."""

from __future__ import annotations

import libcst as cst

from ..knowledge import api
from .imports import ImportTable, dotted_name


def names_a_dtype(imports: ImportTable, node: cst.BaseExpression) -> bool:
    """``torch.float16``, ``x.dtype``, ``compute_dtype``: an expression that holds a dtype."""
    if imports.qualify(node) in api.DTYPES:
        return True
    name = dotted_name(node)
    return name is not None and name.rsplit(".", 1)[-1].lower().endswith("dtype")


def casts_to_a_saved_dtype(imports: ImportTable, call: cst.Call) -> bool:
    """``x.to(orig_dtype)``, ``x.to(dtype=w.dtype)``: a conversion that names only a dtype held
    in a value, one the code read from a tensor, not a dtype it writes out (``torch.float16``)."""
    arguments = [arg for arg in call.args if arg.keyword is None or arg.keyword.value != "non_blocking"]
    return bool(arguments) and all(_names_saved_dtype(imports, arg) for arg in arguments)


def _names_saved_dtype(imports: ImportTable, arg: cst.Arg) -> bool:
    if arg.star or (arg.keyword is not None and arg.keyword.value != "dtype"):
        return False
    # ``y.dtype``, ``orig_dtype``, ``self.compute_dtype``: held in a value, not written out
    return names_a_dtype(imports, arg.value) and imports.qualify(arg.value) not in api.DTYPES
