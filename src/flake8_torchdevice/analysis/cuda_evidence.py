"""What calls show about CUDA beyond conditions: a call that shows the code runs without CUDA
(a load onto the CPU, a ``--cpu`` option), and CUDA named anywhere inside an expression (a test
case's ``marks=`` that skips it without CUDA)."""

from __future__ import annotations

import libcst as cst

from ..knowledge import api
from .cuda_words import mentions_cuda
from .facts import CallFact
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
