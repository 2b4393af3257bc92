"""What the code means, computed once per file and read by every rule."""

from .facts import Assignment, CallSite, ModuleAnalysis, ParameterDefault
from .positions import positions_of
from .values import Kind, Place, Value
from .walker import analyse

__all__ = [
    "Assignment",
    "CallSite",
    "Kind",
    "ModuleAnalysis",
    "ParameterDefault",
    "Place",
    "Value",
    "analyse",
    "positions_of",
]
