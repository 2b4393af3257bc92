"""What calls show about CUDA beyond conditions: a call that shows the code runs without CUDA
(a load onto the CPU, a ``--cpu`` option), CUDA named anywhere inside an expression (a test
case's ``marks=`` that skips it without CUDA), and whether a CUDA check decides every read of a
command-line option (``torch.device(args.device if torch.cuda.is_available() else "cpu")``)."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from ..knowledge import api
from .cuda_words import mentions_cuda
from .facts import CallFact
from .imports import ImportTable, dotted_name
from .literals import names_the_cpu, string_value
from .syntax import children, keyword_argument


# Command-line options that choose the CPU: ``--cpu``, ``--no-cuda``, ``--no_gpu``, ``--use-cpu``.
def cpu_support(call: CallFact) -> str | None:
    """What a call shows about running without CUDA: a CPU option. Not a load onto the CPU: code
    that needs a GPU loads checkpoints there too, to spare the GPU's memory (round 21: a training
    script whose README asks for an A100), as the project's beliefs weigh it (project/beliefs.py)."""
    node = call.node
    if call.method == "add_argument":
        flags = [string_value(arg.value) for arg in node.args if arg.keyword is None]
        if any(flag is not None and api.CPU_OPTION.match(flag) for flag in flags):
            return "has a CPU option"
        default = keyword_argument(node, "default")
        if default is not None and "--device" in flags and names_the_cpu(default):
            return "defaults to the CPU"
    return None


def mentions_cuda_anywhere(node: cst.CSTNode) -> bool:
    """A name, keyword or string inside ``node`` that mentions CUDA or GPUs (``min_cuda_gpus``)."""
    if type(node) is cst.Name and mentions_cuda(node.value):
        return True
    text = string_value(node) if isinstance(node, cst.BaseExpression) else None
    if text is not None and mentions_cuda(text):
        return True
    return any(mentions_cuda_anywhere(child) for child in children(node))


# Calls that only show a value (``print(args.device)``, ``logger.info(...)``): not a use of it.
_DISPLAYS = frozenset({"print", "info", "debug", "warning", "warn", "log", "format", "write", "add_text"})


def option_read_only_where_cuda_is(module: cst.Module, imports: ImportTable, option: str) -> bool | None:
    """Does a CUDA check decide every read of ``<x>.<option>`` in the module (either branch of an
    ``if`` or a conditional expression whose test asks whether CUDA is there, or that test)? Then
    the option's ``"cuda"`` default is never used without CUDA. None: the module never reads it
    (another file may), a read that only displays it aside."""
    reads = list(_option_reads(module, imports, option, checked=False))
    return all(reads) if reads else None


def _option_reads(node: cst.CSTNode, imports: ImportTable, option: str, checked: bool) -> Iterator[bool]:
    """Whether each read of the option under ``node`` is decided by a CUDA check."""
    # ``args.device``, not ``torch.device``: an option is read off a namespace, not a module.
    if type(node) is cst.Attribute and node.attr.value == option and dotted_name(node) is not None:
        if imports.qualify(node) is not None:
            return
        yield checked
        return
    if type(node) is cst.Call and (dotted_name(node.func) or "").rsplit(".", 1)[-1] in _DISPLAYS:
        return
    if type(node) is cst.If or type(node) is cst.IfExp:
        checked = checked or _asks_for_cuda(node.test, imports)
    for child in children(node):
        yield from _option_reads(child, imports, option, checked)


def _asks_for_cuda(test: cst.CSTNode, imports: ImportTable) -> bool:
    if type(test) is cst.Call and imports.qualify(test.func) in api.AVAILABILITY_CHECKS:
        return True
    return any(_asks_for_cuda(child, imports) for child in children(test))
