"""What names and words say about CUDA: an identifier that mentions it (``use_gpu``), a flag that
chooses or refuses it, a docstring that says its code needs it. Read by the conditions, the
summaries and the evidence the rules cite."""

from __future__ import annotations

import functools
import re

import libcst as cst

from ..knowledge.api import CUDA_FEATURES, CUDA_KERNEL_MODULE, MENTIONS_CUDA, NEEDS_CUDA, REFUSES_CUDA
from .literals import bool_value
from .polarity import Polarity


@functools.lru_cache(maxsize=4096)  # asked again and again about the same few hundred names
def mentions_cuda(identifier: str) -> bool:
    return MENTIONS_CUDA.search(identifier) is not None


def names_cuda_kernels(module: str) -> bool:
    """``import pointnet2_batch_cuda as pointnet2_cuda``: an extension named for its CUDA kernels
    (not one of torch's own modules, ``torch.testing._internal.common_cuda``)."""
    return not module.startswith("torch.") and CUDA_KERNEL_MODULE.search(module.rsplit(".", 1)[-1]) is not None


def names_a_cuda_feature(name: str) -> bool:
    """``self.pin_memory``, ``model_parallel``: a feature only CUDA has, not the choice of CUDA itself."""
    last = name.rsplit(".", 1)[-1]
    return CUDA_FEATURES.search(last) is not None and not mentions_cuda(CUDA_FEATURES.sub("", last))


def needs_cuda(docstring: str | None) -> bool:
    """Does a docstring say its code needs CUDA (a TensorRT backend, a CUDA-graph helper)?"""
    if docstring is None:
        return False
    lowered = docstring.lower()
    if "cuda" not in lowered and "gpu" not in lowered and "nvidia" not in lowered:
        return False  # most docstrings: spared the slower search
    return NEEDS_CUDA.search(docstring) is not None


def flag_polarity(name: str) -> Polarity:
    """What a flag's name says about CUDA: ``use_gpu`` chooses it, ``args.no_cuda``, ``cpu_only``
    refuse it."""
    if REFUSES_CUDA.search(name):
        return Polarity.NEGATIVE
    if mentions_cuda(name):
        return Polarity.POSITIVE
    return Polarity.NONE


# A configuration holding the program's settings (``conf["use_gpu"]``, ``opts.get("cuda")``), and
# an entry that is a CUDA switch by its name, not a measurement (``stats["gpu_time"]``).
_CONFIGURATION = re.compile(r"conf|cfg|opt|arg|param|setting|kwargs|flag", re.IGNORECASE)
_CUDA_SWITCH = re.compile(r"^(use_|with_|enable_|no_|disable_)?(cuda|gpus?)$", re.IGNORECASE)


def keyed_flag_polarity(configuration: str | None, key: object) -> Polarity:
    """What a configuration's entry says about CUDA, as a flag of that name would; nothing for other
    mappings (``results.get("cuda")``, ``os.environ.get("CUDA_VISIBLE_DEVICES")``)."""
    last = (configuration or "").rsplit(".", 1)[-1]
    if type(key) is not str or _CUDA_SWITCH.match(key) is None or _CONFIGURATION.search(last) is None:
        return Polarity.NONE
    return flag_polarity(key)


def chooses_cuda_by_default(polarity: Polarity, default: cst.BaseExpression) -> bool:
    """``use_gpu=True``, ``no_cuda=False``: a flag whose default is the CUDA branch."""
    value = bool_value(default)
    return value is not None and polarity is not Polarity.NONE and (polarity is Polarity.POSITIVE) == value
