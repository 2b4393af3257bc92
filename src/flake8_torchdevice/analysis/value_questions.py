"""Questions about one value (and one call) that rules ask through ``queries``: *what* a value
is and where it may live, never its fields. ``queries`` re-exports every name here; rules import
from ``queries`` only."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from ..confidence import Confidence
from ..knowledge import api
from . import domain
from .domain import Kind, PlaceKind, Value
from .facts import CallFact
from .literals import bool_value, is_none_literal, number_value, string_value
from .polarity import Polarity
from .syntax import keyword_argument, positional_argument


def is_tensor(value: Value) -> bool:
    """A tensor (or what a module returned, which holds tensors)."""
    return value.kind in domain.TENSOR_KINDS


def may_be_tensor(value: Value) -> bool:
    """A tensor, or a value that is a tensor on some path (a place is known for it)."""
    return is_tensor(value) or (value.kind is Kind.UNKNOWN and value.places != domain.NOWHERE)


def is_array(value: Value) -> bool:
    """A tensor or a NumPy array: the code shows one of the two."""
    return value.kind is Kind.ARRAYLIKE


def is_unknown(value: Value) -> bool:
    return value.kind is Kind.UNKNOWN


def is_instance_of_other_class(value: Value) -> bool:
    """An instance of a class that is not torch's (its ``.cuda()`` is its own method)."""
    return value.kind is Kind.OBJECT and not is_optimizer(value)


def moves_nothing(value: Value) -> bool:
    """A torch.nn module that holds no parameter or buffer (``nn.MSELoss()``, ``nn.ReLU()``,
    ``nn.CrossEntropyLoss(ignore_index=-1)``, not ``nn.CrossEntropyLoss(weight=w)``): moving it
    moves nothing, so its ``.cuda()`` needs no GPU
    (tests/fixtures/semantics/holds_moving_a_module_without_tensors_needs_no_gpu.py)."""
    if value.kind is not Kind.MODULE or value.cls not in api.STATELESS_MODULES:
        return False
    if value.cls not in api.MODULES_WITH_OPTIONAL_STATE:
        return True
    built = value.origin.node if value.origin is not None else None
    return type(built) is cst.Call and all(_keeps_it_stateless(arg) for arg in built.args)


def _keeps_it_stateless(arg: cst.Arg) -> bool:
    """A keyword that gives no state whatever it holds (``reduction=self.reduction``), a number, a
    string or ``None`` (no tensor can be one), or a truth value that turns no state on
    (``affine=False``; a positional ``True`` may be ``affine``)."""
    if arg.star:
        return False
    if arg.keyword is not None and arg.keyword.value not in api.STATE_ARGUMENTS:
        return True
    truth = bool_value(arg.value)
    if truth is not None:
        return not truth or (arg.keyword is not None and arg.keyword.value not in api.STATE_SWITCHES)
    return is_none_literal(arg.value) or number_value(arg.value) is not None or string_value(arg.value) is not None


def device_index_literal(value: Value) -> cst.Integer | None:
    """The integer literal a value is, when it is one (``device = 0``): a CUDA device index."""
    origin = value.origin
    if value.kind is Kind.SCALAR and origin is not None and type(origin.node) is cst.Integer:
        return origin.node
    return None


def is_module(value: Value) -> bool:
    return value.kind is Kind.MODULE


def is_device(value: Value) -> bool:
    return value.kind is Kind.DEVICE


def is_ndarray(value: Value) -> bool:
    return value.kind is Kind.NDARRAY


def is_zero_dim(value: Value) -> bool:
    return value.scalar


def may_be_zero_dim(value: Value) -> bool:
    """0-dim as far as the code shows, or maybe: ``alphas[t]`` of a tensor whose rank it does not
    show, ``torch.tensor(self.lower)``."""
    return value.scalar or value.may_be_scalar


def is_number(value: Value) -> bool:
    """A Python number (``k`` of ``for k in range(n)``, ``len(x)``, ``0``)."""
    return value.kind is Kind.SCALAR


def rank(value: Value) -> int | None:
    """How many dimensions the value has, when the code shows it."""
    return value.rank


def requires_grad(value: Value) -> bool:
    return value.grad


def is_registered_parameter(value: Value) -> bool:
    """``nn.Parameter(...)``: assigned to a module's attribute, it is registered, and only another
    parameter (or ``None``) may be assigned there (a buffer takes any tensor)."""
    return value.cls in api.PARAMETERS


def must_be_on_cpu(value: Value) -> bool:
    return domain.must_be_on_cpu(value)


def place_unknown(value: Value) -> bool:
    """The code does not show where the value is (a parameter, the result of an unknown call)."""
    return value.places == domain.NOWHERE


def placed_by_the_caller(value: Value) -> bool:
    """Is the value, on some path, wherever the function's caller put its inputs (computed from
    them, and not shown anywhere else on that path)? The function runs on their device."""
    return domain.is_given(value.places)


def on_the_cpu_in_a_branch(value: Value) -> Value | None:
    """The value as the branch of an ``if`` that made it on the CPU left it (``else: b =
    torch.zeros(n)``), where other branches put it elsewhere; None for any other value."""
    origin = domain.cpu_branch(value)
    return None if origin is None or domain.must_be_on_cpu(value) else value.placed(domain.CPU, origin)


def may_be_on_accelerator(value: Value, through_modules: bool = True) -> bool:
    return domain.may_be_on_accelerator(value, through_modules)


def must_be_on_accelerator(value: Value, through_modules: bool = True) -> bool:
    return domain.must_be_on_accelerator(value, through_modules)


def may_already_be_there(value: Value, moved: Value) -> bool:
    """May ``value`` be, on some path the code shows, where a move put ``moved``: on the CPU for a
    move there, on an accelerator for a move to a device (a tensor made as a CUDA tensor where a
    test of the target device said so, then ``.to()`` that device after the branches join)?"""
    if domain.must_be_on_cpu(moved):
        return any(place.kind is PlaceKind.CPU for place in value.places)
    return domain.may_be_on_accelerator(value)


def place_name(value: Value) -> str:
    """Where a value is, for a message: ``device``, ``"cuda"``, "the module's device"."""
    names = []
    for place in sorted(value.places, key=str):
        if place.kind is PlaceKind.ACCELERATOR:
            names.append(f"`{place.name}`" if not place.name.startswith(("'", '"')) else place.name)
        elif place.kind is PlaceKind.WITH_MODULE:
            names.append("the module's device" if place.name == "self" else f"`{place.name}`'s device")
    return " or ".join(names) or "a device"


def device_code(value: Value) -> str:
    """The code that names a value's device, for a suggested fix: ``device``, ``"cuda"``."""
    names = [place.name for place in value.places if place.kind is PlaceKind.ACCELERATOR]
    return names[0] if len(names) == 1 else "device"


def data_arguments(site: CallFact) -> int | None:
    """How many leading arguments hold data when the rest are sizes, shapes or host-side indices
    (``x.view(n, -1)``: none; ``F.interpolate(x, size)``: one); None when every argument is data."""
    if site.method in api.SHAPE_ARGUMENT_METHODS:
        return 0
    if site.qualified in api.SHAPE_ARGUMENT_FUNCTIONS or site.callee.cls in api.SHAPE_ARGUMENT_MODULES:
        return 1
    return None


def checks_every_device(site: CallFact) -> bool:
    """Whether the call checks the device of every tensor it is given, 0-dim CPU tensors included
    (``torch.clamp``, ``torch.stack``), rather than taking those as scalars (``torch.add``)."""
    if site.qualified is not None:
        return site.qualified in api.DEVICE_CHECKED_FUNCTIONS
    return site.method in api.DEVICE_CHECKED_METHODS


def load_with_map_location(call: CallFact) -> tuple[str, int] | None:
    """For a load that takes ``map_location`` (``torch.load``, ``torch.jit.load``,
    ``torch.hub.load_state_dict_from_url``...): the keyword of what it reads and the position of
    ``map_location``; None for any other call."""
    return api.LOADS_WITH_MAP_LOCATION.get(call.qualified) if call.qualified is not None else None


def saves_a_file(call: CallFact) -> bool:
    """``torch.save(obj, f)``, ``torch.jit.save(module, f)``: a file a later load may read back."""
    return call.qualified in api.SAVES


def is_optimizer(value: Value) -> bool:
    """An optimizer of ``torch.optim`` the code built (``torch.optim.Adam(model.parameters())``)."""
    return value.kind is Kind.OBJECT and value.cls in api.OPTIMIZERS


def keeps_state(call: CallFact) -> bool:
    """Does the optimizer this call builds keep tensors in its state? Every one of ``torch.optim``
    does, but SGD only with a momentum (``momentum=0.9``, or third positionally)."""
    option = api.STATEFUL_WITH.get(call.qualified or "")
    if option is None:
        return True
    value = keyword_argument(call.node, option) or positional_argument(call.node, 2)
    return value is not None and number_value(value) != 0


def builds_parameter(call: CallFact) -> bool:
    """``nn.Parameter(...)``, ``nn.Buffer(...)``: a tensor a module registers when it is assigned."""
    return call.qualified in api.PARAMETER_CLASSES


def same_places(first: Value, second: Value) -> bool:
    """Are both values known to be in the one same place (``{cpu}``, both on ``device``)? Two
    values that each may be in several places may be in different ones."""
    return first.places == second.places and len(first.places) == 1 and first.places != domain.NOWHERE


def is_layer_with_state(value: Value) -> bool:
    """A torch.nn layer that owns parameters or buffers (``nn.Linear(...)``, not ``nn.ReLU()`` or a loss)."""
    return value.kind is Kind.MODULE and value.cls is not None and api.module_has_state(value.cls)


def takes_inputs_anywhere(value: Value) -> bool:
    """A module its inputs may reach from any device: a torch.nn layer without parameters or
    buffers (``nn.ReLU()``, ``nn.BCELoss()``), which moving moves nothing and which computes where
    its inputs are, or a wrapper that scatters its inputs to its devices itself (``DataParallel``)."""
    return value.kind is Kind.MODULE and (value.cls in api.STATELESS_MODULES or value.cls in api.SCATTERING_WRAPPERS)


def builds_layer_with_state(call: CallFact) -> bool:
    """``nn.Linear(...)``, ``nn.BatchNorm2d(...)``: a torch.nn layer that owns parameters or buffers."""
    return call.qualified is not None and api.module_has_state(call.qualified)


def elements(value: Value, joined: bool = True) -> Iterator[Value]:
    """The value itself and, for a list, tuple or dict, every value it may hold (nested). Without
    ``joined``, a dict whose items are known gives those, not the join of them it also carries."""
    yield value
    for element in value.elements or ():
        yield from elements(element, joined)
    if value.item is not None and (joined or not value.items):
        yield from elements(value.item, joined)
    for _, item in value.items:
        yield from elements(item, joined)


def evidence_confidence(*values: Value) -> Confidence:
    """How sure a finding about these values is: medium when a link is inferred, that is, when one
    of them is on a device on some paths only (``may{?, device}``: a path where the code does not
    show it), on a device taken for one from its name alone, or wherever a module handed in by a
    caller is (``net.forward(x)`` in ``def evaluate(net, loader)``: nothing shows ``net`` moved,
    unlike a module's own ``self``); else high."""
    for value in values:
        if domain.UNKNOWN_PLACE in value.places and len(value.places) > 1:
            return Confidence.MEDIUM
        if any(place.guessed or _handed_in_module(place) for place in value.places):
            return Confidence.MEDIUM
    return Confidence.HIGH


def _handed_in_module(place: domain.Place) -> bool:
    return place.kind is PlaceKind.WITH_MODULE and place.name != "self" and not place.name.startswith("self.")


def describe(value: Value) -> str:
    """The canonical text of the reveal fixtures: ``tensor {cpu}``, ``output may{cpu, device} grad``."""
    words = [value.cls if value.kind is Kind.OBJECT and value.cls else value.kind.value]
    if value.kind is Kind.SEQUENCE and value.elements is not None:
        words[0] = "sequence(" + ", ".join(describe(element) for element in value.elements) + ")"
    elif value.item is not None and value.kind in (Kind.SEQUENCE, Kind.MAPPING) and not value.items:
        words[0] = f"{value.kind.value}[{describe(value.item)}]"
    if value.items:
        words.append("{" + ", ".join(f"{key}: {describe(item)}" for key, item in value.items) + "}")
    if value.places != domain.NOWHERE and value.kind not in _PLACELESS:
        words.append(_described_places(value.places))
    if value.grad:
        words.append("grad")
    if value.scalar:
        words.append("0-dim")
    elif value.may_be_scalar:
        words.append("maybe-0-dim")
    if value.rank is not None:
        words.append(f"rank={value.rank}")
    if value.polarity is not Polarity.NONE:
        words.append("cuda-check" if value.polarity is Polarity.POSITIVE else "no-cuda-check")
    return " ".join(words)


_PLACELESS = frozenset({Kind.SCALAR, Kind.NONE, Kind.SEQUENCE, Kind.MAPPING, Kind.LOADER, Kind.OBJECT})


def _described_places(places: frozenset[domain.Place]) -> str:
    names = sorted(str(place) for place in places)
    return "{" + names[0] + "}" if len(names) == 1 else "may{" + ", ".join(names) + "}"
