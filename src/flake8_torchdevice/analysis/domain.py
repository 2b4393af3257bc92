"""What a value is and where it may live: the lattice every other layer computes with.

A ``Value`` is a kind (tensor, module, device, container...) times a *set* of places, plus a
few facts (may require grad, is 0-dim, a CUDA check it encodes, where its place came from).

Places are sets so the analysis can say both "must be on the CPU" (``{cpu}``) and "may be on
the accelerator" (``{cpu, device}``). An accelerator place is named by the device expression
that chose it (``device``, ``self.device``, ``"cuda"``) or by the module it lives in (``self``
for the inputs and parameters of a module, ``model`` for the outputs of a module whose place
is not shown). ``?`` is a place the code does not show. Joins take unions: they forget
"must", never invent it, so a rule that needs a "must" stays silent where paths disagree.
"""

from __future__ import annotations

import enum
from dataclasses import dataclass, field, replace
from typing import TypeVar, dataclass_transform

import libcst as cst

from ..knowledge import api
from .polarity import Polarity, joined_polarity

_T = TypeVar("_T")


@dataclass_transform(frozen_default=True)
def _immutable(cls: type[_T]) -> type[_T]:
    """A frozen dataclass to the type checker (values are hashed, shared, never changed), built at
    run time without frozen dataclasses' slower ``__init__``: the analysis makes hundreds of
    thousands of values. The hash is over the same fields."""
    return dataclass(slots=True, unsafe_hash=True)(cls)


class Kind(enum.Enum):
    UNKNOWN = "unknown"
    TENSOR = "tensor"
    # A tensor or a NumPy array: shown by methods both have (``reshape``, ``transpose``).
    ARRAYLIKE = "arraylike"
    # What calling a module returned: a tensor or a structure of tensors, all where the module is.
    OUTPUT = "output"
    MODULE = "module"
    DEVICE = "device"
    NDARRAY = "ndarray"
    # A dict of values, a ``BatchEncoding``; ``items`` holds what literal keys map to.
    MAPPING = "mapping"
    # A tuple or list; ``elements`` holds known positions, ``item`` what any element may be.
    SEQUENCE = "sequence"
    LOADER = "loader"
    # One item of a data loader: a tensor or a collection of CPU tensors.
    BATCH = "batch"
    SCALAR = "scalar"
    NONE = "none"
    # An instance of a class defined in the analysed file, or of a library class the tables know
    # (an optimizer); ``cls`` names it.
    OBJECT = "object"


# Kinds that hold tensor data somewhere a device matters.
TENSOR_KINDS = frozenset({Kind.TENSOR, Kind.OUTPUT})
ARRAY_KINDS = frozenset({Kind.TENSOR, Kind.OUTPUT, Kind.ARRAYLIKE, Kind.NDARRAY})  # what has rows
_JOIN_TO_ARRAYLIKE = frozenset({Kind.TENSOR, Kind.ARRAYLIKE, Kind.NDARRAY})


class PlaceKind(enum.Enum):
    CPU = "cpu"
    # The device a device expression chose: the accelerator when one is present.
    ACCELERATOR = "accelerator"
    # Wherever a module is (its inputs, parameters and outputs): the accelerator once it is moved.
    WITH_MODULE = "module"
    UNKNOWN = "?"


@_immutable
class Origin:
    """Why a value is where it is: the node that put it there and a few words."""

    node: cst.CSTNode = field(compare=False, repr=False)
    reason: str = field(compare=False)


@dataclass(frozen=True, slots=True)
class Place:
    kind: PlaceKind
    # For an accelerator: the device expression (``device``, ``"cuda"``) or the module (``self``).
    name: str = ""
    # Taken for a device from its name alone (``.to(input_device)`` of a value the code does not
    # show): an inferred link, so a finding that rests on it is only likely. Not compared: it says
    # how the place is known, not which place it is.
    guessed: bool = field(default=False, compare=False)
    # An unknown place that is wherever the function's caller put an input: the function runs on
    # whatever device its inputs are on. Not compared either: it says why the place is unknown.
    given: bool = field(default=False, compare=False)
    # The CPU of one branch of an ``if`` that made the value there (``else: b = torch.zeros(n)``)
    # while the other branch put it elsewhere: what made it. The CPU path runs whenever the
    # condition says so, whatever the device.
    branch: Origin | None = field(default=None, compare=False)

    def __str__(self) -> str:
        if self.kind is PlaceKind.ACCELERATOR:
            return self.name
        if self.kind is PlaceKind.WITH_MODULE:
            return f"module:{self.name}"
        return self.kind.value


CPU_PLACE = Place(PlaceKind.CPU)
UNKNOWN_PLACE = Place(PlaceKind.UNKNOWN)
CPU = frozenset({CPU_PLACE})
NOWHERE = frozenset({UNKNOWN_PLACE})
# Where a function's input is: not shown, but wherever its caller put it.
GIVEN = frozenset({Place(PlaceKind.UNKNOWN, given=True)})
# Beyond this many places a value is "somewhere": sets stay small and joins cheap.
_MAX_PLACES = 4


def accelerator(name: str, guessed: bool = False) -> frozenset[Place]:
    """On the device chosen by ``name`` (the accelerator when one is present)."""
    return frozenset({Place(PlaceKind.ACCELERATOR, name, guessed)})


def with_module(name: str, guessed: bool = False) -> frozenset[Place]:
    """Wherever the module ``name`` is (``guessed``: nothing shows where that is)."""
    return frozenset({Place(PlaceKind.WITH_MODULE, name, guessed=guessed)})


@_immutable
class Value:
    kind: Kind = Kind.UNKNOWN
    places: frozenset[Place] = NOWHERE
    # Must require grad (a parameter, a model output with grad enabled); joins keep it only if both do.
    grad: bool = False
    # Must be 0-dim: PyTorch lets a CPU 0-dim tensor meet tensors on any device as an operand.
    scalar: bool = False
    # May be 0-dim, the code does not show: a number's pick of a tensor whose rank is not shown
    # (``alphas[t]``), ``torch.tensor(x)`` of data not shown. Neither a scalar nor sure not one.
    may_be_scalar: bool = False
    # A boolean that is a CUDA check (``use_cuda = torch.cuda.is_available()``).
    polarity: Polarity = Polarity.NONE
    # ``True`` or ``False`` as written, on every path that reached here (None: not a constant).
    truth: bool | None = None
    # How many dimensions, when the code shows it (``np.zeros((n, 1))`` has 2).
    rank: int | None = None
    elements: tuple[Value, ...] | None = None
    item: Value | None = None
    items: tuple[tuple[str, Value], ...] = ()
    cls: str | None = None
    origin: Origin | None = field(default=None, compare=False)

    # ------------------------------------------------------------------ derived values
    def placed(self, places: frozenset[Place], origin: Origin | None = None) -> Value:
        return replace(self, places=places, origin=origin or self.origin)

    def each_module_placed(self, places: frozenset[Place]) -> Value:
        """A sequence whose modules are now where ``places`` say (registered by a container)."""

        def moved(element: Value) -> Value:
            return element.placed(places) if element.kind is Kind.MODULE else element

        elements = tuple(map(moved, self.elements)) if self.elements is not None else None
        return replace(self, elements=elements, item=moved(self.item) if self.item is not None else None)

    def without_cpu(self) -> Value:
        """The value seen from a path where CUDA is not in use: there, the CPU is the device."""
        if CPU_PLACE not in self.places or self.kind is Kind.DEVICE:  # a CPU device is one there
            return self
        return replace(self, places=self.places - CPU or NOWHERE)

    def off_cuda(self) -> Value:
        """The value on a path where CUDA is not in use (``if not use_cuda:``): on no device named
        for CUDA (``.cuda()``, ``"cuda:0"``), nor, in code that chooses CUDA by a flag, on a device
        only because a module is (the code moves its modules under the same flag). What was only
        there is where the code does not show."""
        if self.kind is Kind.DEVICE:  # a hard-coded device stays what it names
            return self
        kept = frozenset(place for place in self.places if not _cuda_in_use(place))
        return self if len(kept) == len(self.places) else replace(self, places=kept or NOWHERE)

    def with_kind(self, kind: Kind) -> Value:
        return replace(self, kind=kind)

    def element(self, index: int | None = None) -> Value:
        """What subscripting or unpacking gives at a position (None: any position)."""
        if self.elements is not None and index is not None and -len(self.elements) <= index < len(self.elements):
            return self.elements[index]
        if self.item is not None:
            return self.item
        if self.elements:
            return any_element(self.elements)
        return UNKNOWN

    def keyed(self, key: str) -> Value:
        for name, value in self.items:
            if name == key:
                return value
        return self.item or UNKNOWN

    # -------------------------------------------------------------------------- lattice
    def join(self, other: Value) -> Value:
        """What is known on both of two paths that meet (``None`` on one path is ignored)."""
        if self is other or self == other:  # equal but for their origins: the one that says why
            return self if self.origin is not None or other.origin is None else other
        if other.kind is Kind.NONE:
            return self
        if self.kind is Kind.NONE:
            return other
        return Value(
            kind=_join_kinds(self.kind, other.kind),
            places=join_places(self.places, other.places),
            grad=self.grad and other.grad,
            scalar=self.scalar and other.scalar,
            may_be_scalar=self.may_be_scalar or other.may_be_scalar,
            polarity=joined_polarity(self.polarity, self.truth, other.polarity, other.truth),
            truth=self.truth if self.truth is other.truth else None,
            rank=self.rank if self.rank == other.rank else None,
            elements=_join_elements(self.elements, other.elements),
            item=_join_any_element(self.item, other.item),
            items=_join_items(self.items, other.items),
            cls=_joined_class(self.cls, other.cls),
            origin=_cited_origin(self, other),
        )


def _cuda_in_use(place: Place) -> bool:
    if place.kind is PlaceKind.WITH_MODULE:
        return True
    return place.kind is PlaceKind.ACCELERATOR and place.name.strip("\"'").startswith("cuda")


def _cited_origin(left: Value, right: Value) -> Origin | None:
    """The origin a message about a joined value cites: the one that put it on a device when one
    side is there (a message saying "on `device`" must not cite the `.cpu()` of the other path)."""
    if right.origin is None or right.origin is left.origin:
        return left.origin
    moved_here = may_be_on_accelerator(right) and not may_be_on_accelerator(left)
    return right.origin if left.origin is None or moved_here else left.origin


def _joined_class(left: str | None, right: str | None) -> str | None:
    """The class both values are; of two of torch's layers without parameters (``nn.ReLU()`` or
    ``nn.Sigmoid()``), either: what their outputs are depends on that alone."""
    if left == right or (left in api.STATELESS_MODULES and right in api.STATELESS_MODULES):
        return min(left or "", right or "") or None
    return None


def _join_kinds(left: Kind, right: Kind) -> Kind:
    if left is right:
        return left
    if left in _JOIN_TO_ARRAYLIKE and right in _JOIN_TO_ARRAYLIKE:
        return Kind.ARRAYLIKE
    if {left, right} == {Kind.TENSOR, Kind.OUTPUT}:
        return Kind.OUTPUT
    return Kind.UNKNOWN


def join_places(left: frozenset[Place], right: frozenset[Place]) -> frozenset[Place]:
    if left is right:
        return left
    if _says_why(right) and not _says_why(left):
        left, right = right, left  # sets keep their left element: keep the places that say why
    if left == right:
        return left
    joined = left | right
    return joined if len(joined) <= _MAX_PLACES else NOWHERE


def _join_any_element(left: Value | None, right: Value | None) -> Value | None:
    if left is None or right is None:
        return left or right
    return any_element((left, right))


def _join_elements(left: tuple[Value, ...] | None, right: tuple[Value, ...] | None) -> tuple[Value, ...] | None:
    if left is None or right is None or len(left) != len(right):
        return None
    return tuple(a.join(b) for a, b in zip(left, right))


def _join_items(
    left: tuple[tuple[str, Value], ...], right: tuple[tuple[str, Value], ...]
) -> tuple[tuple[str, Value], ...]:
    if not left or not right:
        return ()
    theirs = dict(right)
    return tuple((key, value.join(theirs[key])) for key, value in left if key in theirs)


def join_all(values: tuple[Value, ...] | list[Value]) -> Value:
    if not values:
        return UNKNOWN
    joined = values[0]
    for value in values[1:]:
        joined = joined.join(value)
    return joined


def any_element(values: tuple[Value, ...] | list[Value]) -> Value:
    """What any of several elements of one collection may be: their join, except that a CPU one
    branch of an ``if`` made is only a CPU the element may be on: when that branch runs, the other
    elements are still where they are (a list of one CPU score and later device ones)."""
    joined = join_all(values)
    if all(cpu_branch(value) is cpu_branch(joined) for value in values):
        return joined
    return replace(joined, places=frozenset(replace(place, branch=None) for place in joined.places))


UNKNOWN = Value()
NONE = Value(kind=Kind.NONE)
SCALAR = Value(kind=Kind.SCALAR)
BOOLEANS = {truth: Value(kind=Kind.SCALAR, truth=truth) for truth in (False, True)}  # ``True``, ``False``


def tensor(places: frozenset[Place], origin: Origin | None = None, grad: bool = False, scalar: bool = False) -> Value:
    return Value(kind=Kind.TENSOR, places=places, grad=grad, scalar=scalar, origin=origin)


def sequence(elements: tuple[Value, ...] | None = None, item: Value | None = None) -> Value:
    return Value(kind=Kind.SEQUENCE, elements=elements, item=item)


def mapping(items: tuple[tuple[str, Value], ...] = (), item: Value | None = None) -> Value:
    return Value(kind=Kind.MAPPING, items=items, item=item)


# --------------------------------------------------------------------- place questions
_DEVICE_PLACES = frozenset({PlaceKind.ACCELERATOR, PlaceKind.WITH_MODULE})


def must_be_on_cpu(value: Value) -> bool:
    return value.places == CPU


def may_be_on_accelerator(value: Value, through_modules: bool = True) -> bool:
    """Some place is an accelerator (or, ``through_modules``, wherever a module is)."""
    kinds = _DEVICE_PLACES if through_modules else {PlaceKind.ACCELERATOR}
    return any(place.kind in kinds for place in value.places)


def is_device_of_a_value(value: Value) -> bool:
    """A device read off a value (``d = x.device``): wherever ``x`` is, not one the code chose."""
    origin = value.origin
    return (
        value.kind is Kind.DEVICE
        and origin is not None
        and type(origin.node) is cst.Attribute
        and origin.node.attr.value == "device"
    )


def must_be_on_accelerator(value: Value, through_modules: bool = True) -> bool:
    """Every place is an accelerator: on the device wherever a device is present."""
    kinds = _DEVICE_PLACES if through_modules else {PlaceKind.ACCELERATOR}
    return bool(value.places) and all(place.kind in kinds for place in value.places)


def _says_why(places: frozenset[Place]) -> bool:
    return any(place.given or place.branch is not None for place in places)


def is_given(places: frozenset[Place]) -> bool:
    """Is one of the places where an input of the function is (wherever its caller put it)?"""
    return any(place.given for place in places)


def on_the_cpu_in_a_branch(value: Value, origin: Origin | None) -> Value:
    """``value`` where the branch that made it on the CPU meets paths that put it elsewhere."""
    places = frozenset(Place(PlaceKind.CPU, branch=origin) if place == CPU_PLACE else place for place in value.places)
    return replace(value, places=places)


def cpu_branch(value: Value) -> Origin | None:
    """What made the value on the CPU in one branch of an ``if``, when another put it elsewhere."""
    return next((place.branch for place in value.places if place.branch is not None), None)


def may_hold_data(value: Value) -> bool:
    """A tensor (or array-like), or a value moved or made somewhere though its kind is unknown."""
    kind = value.kind
    return kind in TENSOR_KINDS or kind is Kind.ARRAYLIKE or (kind is Kind.UNKNOWN and value.places != NOWHERE)


def computed_places(operands: list[Value]) -> tuple[frozenset[Place], Origin | None]:
    """Where an operation on these tensors puts its result, and why.

    0-dim operands, sure or possible, do not decide (PyTorch lets a CPU one meet any device); when an operand must be on
    an accelerator, 0-dim or not, the result is there. Where a sized CPU tensor meets it too, the operation fails
    (semantics/raises_zero_dim_device_tensor_meets_one_dim_cpu_tensor.py; TDV005 reports it): its result is nowhere
    known, so what is built on it is not reported again, whichever operand the fix moves.
    """
    sized = [value for value in operands if not (value.scalar or value.may_be_scalar)]
    on_device = [value for value in operands if must_be_on_accelerator(value)]
    if on_device and any(must_be_on_cpu(value) for value in sized):
        return NOWHERE, None
    deciding = on_device or sized or operands
    places = deciding[0].places
    for value in deciding[1:]:
        places = join_places(places, value.places)
    return places, deciding[0].origin


def without_grad(value: Value) -> Value:
    """``value`` computed under ``torch.no_grad()``: neither it nor what it holds requires grad."""
    if not value.grad and value.elements is None and value.item is None and not value.items:
        return value
    return replace(
        value,
        grad=False,
        elements=None if value.elements is None else tuple(without_grad(element) for element in value.elements),
        item=None if value.item is None else without_grad(value.item),
        items=tuple((key, without_grad(item)) for key, item in value.items),
    )
