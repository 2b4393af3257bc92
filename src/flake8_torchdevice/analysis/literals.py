"""Reading device strings: ``"cuda"``, ``"cuda:1"``, ``"cpu"`` written as literals."""

from __future__ import annotations

import functools
import re
from ast import literal_eval
from collections.abc import Iterable, Mapping
from typing import cast

import libcst as cst

from ..knowledge.api import CUDA_SOURCE_LOADERS, CUDA_SOURCE_SUFFIXES, KERNEL_LOADERS
from .imports import dotted_name

_CUDA_DEVICE = re.compile(r"cuda(:\d+)?")
_CPU_DEVICE = re.compile(r"cpu(:\d+)?")
# Templates of a CUDA device whose index is filled in: ``"cuda:%d" % i``, ``"cuda:{}".format(i)``.
_CUDA_PERCENT_TEMPLATE = re.compile(r"cuda:%[dis]")
_CUDA_FORMAT_TEMPLATE = re.compile(r"cuda:\{[^{}]*\}")


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


def number_value(node: cst.BaseExpression) -> float | None:
    """The value of an integer or float literal (``0x10``, ``1_000``, ``0.9``, ``-1``); None for anything else."""
    if type(node) is cst.UnaryOperation and type(node.operator) is cst.Minus:
        magnitude = number_value(node.expression)
        return None if magnitude is None else -magnitude
    try:
        if type(node) is cst.Integer:
            return float(int(node.value, 0))
        if type(node) is cst.Float:
            return float(node.value)
    except (ValueError, OverflowError):
        return None
    return None


def bool_value(node: cst.BaseExpression | None) -> bool | None:
    """``True`` / ``False`` written out; None for anything else."""
    if type(node) is cst.Name and node.value in ("True", "False"):
        return node.value == "True"
    return None


def is_cuda_literal(node: cst.BaseExpression) -> bool:
    """``"cuda"`` or ``"cuda:N"``."""
    value = string_value(node)
    return value is not None and _CUDA_DEVICE.fullmatch(value) is not None


def flag_truth(node: cst.BaseExpression) -> bool | None:
    """A flag's value written out (``True``, ``False``, ``0``, ``1``), else None."""
    if type(node) is cst.Integer:
        return int(node.value, 0) != 0
    return bool_value(node)


def constant_truth(node: cst.BaseExpression) -> bool | None:
    """The truth of a test that is a constant (a flag's value, ``None``, ``""``, ``"reason"``), else None."""
    if is_none_literal(node):
        return False
    text = string_value(node)
    return flag_truth(node) if text is None else bool(text)


def is_none_literal(node: cst.BaseExpression) -> bool:
    return type(node) is cst.Name and node.value == "None"


def is_cpu_literal(node: cst.BaseExpression) -> bool:
    value = string_value(node)
    return value is not None and _CPU_DEVICE.fullmatch(value) is not None


def cuda_fstring(node: cst.BaseExpression) -> bool:
    """``f"cuda:{rank}"``: a CUDA device whose index is computed."""
    if type(node) is not cst.FormattedString or not node.parts:
        return False
    first = node.parts[0]
    return type(first) is cst.FormattedStringText and first.value.startswith("cuda")


def computed_cuda_device(node: cst.BaseExpression) -> bool:
    """A CUDA device string the code builds, its index chosen at run time: ``f"cuda:{rank}"``,
    ``"cuda:" + str(i)``, ``"cuda:%d" % i``, ``"cuda:{}".format(i)`` (and ``f"cuda"``). Only the
    whole string is one: ``f"cuda:{i}_peak"`` or ``"cuda_" + name`` name something else."""
    node_type = type(node)
    if node_type is cst.FormattedString:
        return _cuda_fstring_exactly(cast(cst.FormattedString, node))
    if node_type is cst.BinaryOperation:
        operation = cast(cst.BinaryOperation, node)
        left = string_value(operation.left)
        if left is None:
            return False
        if type(operation.operator) is cst.Add:
            return left == "cuda:"
        return type(operation.operator) is cst.Modulo and _CUDA_PERCENT_TEMPLATE.fullmatch(left) is not None
    if node_type is cst.Call:
        func = cast(cst.Call, node).func
        if type(func) is not cst.Attribute or func.attr.value != "format":
            return False
        template = string_value(func.value)
        return template is not None and _CUDA_FORMAT_TEMPLATE.fullmatch(template) is not None
    return False


def _cuda_fstring_exactly(node: cst.FormattedString) -> bool:
    parts = node.parts
    first = parts[0] if parts else None
    if type(first) is not cst.FormattedStringText:
        return False
    text = first.value
    if len(parts) == 1:
        return _CUDA_DEVICE.fullmatch(text) is not None
    return len(parts) == 2 and text == "cuda:" and type(parts[1]) is cst.FormattedStringExpression


def names_the_cpu(node: cst.BaseExpression) -> bool:
    """``"cpu"``, ``torch.device("cpu")``."""
    if is_cpu_literal(node):
        return True
    return type(node) is cst.Call and bool(node.args) and is_cpu_literal(node.args[0].value)


def names_nccl(call: cst.Call, bound: Mapping[str, cst.CSTNode]) -> bool:
    """``init_process_group("nccl")`` / ``init_process_group(backend="nccl")``, or NCCL by default
    (``_nccl_by_default``) in a scope whose names are ``bound``."""
    backend = next((arg.value for arg in call.args if arg.keyword is None or arg.keyword.value == "backend"), None)
    return backend is not None and (string_value(backend) == "nccl" or _nccl_by_default(backend, bound))


def _nccl_by_default(backend: cst.BaseExpression, bound: Mapping[str, cst.CSTNode]) -> bool:
    """``kwargs.get("backend", "nccl")`` of the function's own ``**kwargs``: NCCL unless a caller
    names another backend, as a parameter defaulting to it is (``defaults_to_nccl``). Not another
    mapping's, nor ``getattr(args, "dist_backend", "nccl")``: an option of that name has its own
    default, which argparse always sets."""
    if type(backend) is not cst.Call or type(backend.func) is not cst.Attribute or backend.func.attr.value != "get":
        return False
    receiver = backend.func.value
    param = bound.get(receiver.value) if type(receiver) is cst.Name else None
    positional = [arg.value for arg in backend.args if arg.keyword is None and not arg.star]
    keywords = type(param) is cst.Param and param.star == "**"
    return keywords and len(positional) == 2 and string_value(positional[1]) == "nccl"


def defaults_to_nccl(param: cst.Param) -> bool:
    """``def init_dist(launcher, backend="nccl")``: a backend parameter that is NCCL unless a
    caller picks another."""
    return "backend" in param.name.value and param.default is not None and string_value(param.default) == "nccl"


def loads_cuda_kernels(value: cst.BaseExpression, imported_modules: Iterable[str]) -> bool:
    """``ext_loader.load_ext("_ext", [...])``, ``cpp_extension.load("op", sources=["op.cu"])``,
    ``load(...)`` imported from ``torch.utils.cpp_extension``, ``load_inline(..., cuda_sources=...)``:
    a call that loads compiled CUDA kernels as a module."""
    call = value if type(value) is cst.Call else None
    name = dotted_name(call.func) if call is not None else None
    if call is None or name is None:
        return False
    spelled = [name, *(module for module in imported_modules if module.endswith(f".{name}"))]
    if any(candidate.endswith(KERNEL_LOADERS) for candidate in spelled):
        return True
    if not any(candidate.endswith(CUDA_SOURCE_LOADERS) for candidate in spelled):
        return False
    for index, arg in enumerate(call.args):
        keyword = arg.keyword.value if arg.keyword is not None else None
        if keyword == "cuda_sources":
            return True
        if keyword == "sources" or (keyword is None and index == 1):
            return _names_cuda_sources(arg.value)
    return False


def _names_cuda_sources(sources: cst.BaseExpression) -> bool:
    """A list of sources (or an expression choosing one) that names a ``.cu`` / ``.cuh`` file."""
    pending: list[cst.CSTNode] = [sources]
    while pending:
        node = pending.pop()
        if type(node) is cst.SimpleString and (string_value(node) or "").endswith(CUDA_SOURCE_SUFFIXES):
            return True
        pending.extend(node.children)
    return False
