"""The rules, one module each; ``ALL_RULES`` is the registry every front end reads."""

from typing import Dict, Tuple, Type

from .base import Finding, Rule
from .tdv001_hardcoded_cuda import HardcodedCudaDevice
from .tdv002_discarded_conversion import DiscardedConversion
from .tdv003_numpy_on_device import NumpyOnAccelerator

ALL_RULES: Tuple[Type[Rule], ...] = (HardcodedCudaDevice, DiscardedConversion, NumpyOnAccelerator)

RULES_BY_CODE: Dict[str, Type[Rule]] = {rule.code: rule for rule in ALL_RULES}

__all__ = ["ALL_RULES", "RULES_BY_CODE", "Finding", "Rule"]
