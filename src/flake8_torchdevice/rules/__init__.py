"""The rules, one module each; ``ALL_RULES`` is the registry the engine runs. The front ends
choose codes from ``catalogue.py``, generated from it, and import the rules only to analyse."""

from collections.abc import Iterable

from .base import Code, Finding, Rule
from .tdv001_hardcoded_cuda import HardcodedCudaDevice
from .tdv002_discarded_conversion import DiscardedConversion
from .tdv003_numpy_on_device import NumpyOnAccelerator
from .tdv004_load_without_map_location import LoadWithoutMapLocation
from .tdv005_mixed_devices import MixedDevices
from .tdv006_input_left_behind import InputLeftBehind
from .tdv007_create_then_move import CreateThenMove
from .tdv008_numpy_requires_grad import NumpyRequiresGrad
from .tdv009_implicit_numpy import ImplicitNumpyConversion
from .tdv010_layer_in_forward import LayerInForward
from .tdv011_map_location_to_load_state_dict import MapLocationToLoadStateDict
from .tdv012_parameter_moved_by_to import ParameterMovedByTo
from .tdv013_optimizer_state_left_on_cpu import OptimizerStateLeftOnCpu
from .tdv900_unanalysable import UnanalysableFile

ALL_RULES: tuple[type[Rule], ...] = (
    HardcodedCudaDevice,
    DiscardedConversion,
    NumpyOnAccelerator,
    LoadWithoutMapLocation,
    MixedDevices,
    InputLeftBehind,
    CreateThenMove,
    NumpyRequiresGrad,
    ImplicitNumpyConversion,
    LayerInForward,
    MapLocationToLoadStateDict,
    ParameterMovedByTo,
    OptimizerStateLeftOnCpu,
)

RULES_BY_CODE: dict[str, type[Rule]] = {rule.code: rule for rule in ALL_RULES}

# Every code a user can meet, in the order the docs list them: the rules, and TDV900, which the
# engine reports itself. The docs, the command's code selection and ``torchdevice rules`` read it.
DOCUMENTED: tuple[type[Code], ...] = (*ALL_RULES, UnanalysableFile)


def selected_rules(codes: Iterable[str]) -> tuple[type[Rule], ...]:
    """The rules whose codes are among ``codes``, in the registry's order."""
    chosen = frozenset(codes)
    return tuple(rule for rule in ALL_RULES if rule.code in chosen)


__all__ = ["ALL_RULES", "DOCUMENTED", "RULES_BY_CODE", "Finding", "Rule", "selected_rules"]
