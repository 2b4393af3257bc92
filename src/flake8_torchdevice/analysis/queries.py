"""The only face of the analysis that rules see: the recorded facts and questions about values.

Rules import from here and nowhere else in ``analysis`` (a test enforces it), so the domain
and the interpreter can change without touching a rule. A rule asks *what* (``is_tensor``,
``must_be_on_cpu``, ``may_be_on_accelerator``, ``requires_grad``...), never reads a value's
fields, and asks ``explain`` for the words that say *why*.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from collections.abc import Set as AbstractSet

import libcst as cst

from ..mentions import mark
from . import domain
from .conditions import needs_cuda
from .definitions import Definitions, FunctionInfo
from .domain import Kind, PlaceKind, Value, is_device_of_a_value
from .facts import CallFact, DefaultFact, Facts, LiteralFact, OperationFact, Scope, StoreFact
from .imports import ImportTable, dotted_name
from .knowledge import api
from .literals import cuda_fstring, is_cpu_literal, is_cuda_literal, string_value
from .syntax import docstring, keyword_argument, positional_argument

__all__ = [
    "Analysis",
    "CallFact",
    "DefaultFact",
    "FunctionInfo",
    "LiteralFact",
    "OperationFact",
    "Scope",
    "StoreFact",
    "Value",
    "builds_layer_with_state",
    "cuda_fstring",
    "data_arguments",
    "describe",
    "device_code",
    "device_index_literal",
    "dotted_name",
    "elements",
    "is_array",
    "is_cpu_literal",
    "is_cuda_literal",
    "is_device",
    "is_device_of_a_value",
    "is_instance_of_other_class",
    "is_module",
    "is_ndarray",
    "is_tensor",
    "is_unknown",
    "is_zero_dim",
    "keyword_argument",
    "may_be_on_accelerator",
    "may_be_tensor",
    "must_be_on_accelerator",
    "must_be_on_cpu",
    "place_name",
    "place_unknown",
    "positional_argument",
    "rank",
    "requires_grad",
    "string_value",
]


class Analysis:
    """What the analysis learned about one module."""

    def __init__(self, module: cst.Module, imports: ImportTable, definitions: Definitions, facts: Facts) -> None:
        self.module = module
        self._imports = imports
        self._definitions = definitions
        self._facts = facts
        self._mentioned: dict[int, cst.CSTNode] = {}
        self._copying_to_cpu: set[int] | None = None

    # ------------------------------------------------------------------ imports
    @property
    def uses_torch(self) -> bool:
        return self._imports.imports_torch()

    def imports_library(self, libraries: AbstractSet[str]) -> bool:
        """Does the file import one of these libraries, at any depth of a module path
        (``torchrl.modules.llm.backends.vllm`` is a vLLM backend), in a function too, or by name
        (``importlib.import_module("tensorrt")``, ``optional_import("tensorrt")``)?"""
        return any(not libraries.isdisjoint(module.split(".")) for module in self._definitions.imported_modules)

    def qualify(self, node: cst.BaseExpression) -> str | None:
        return self._imports.qualify(node)

    def names_an_import(self, node: cst.BaseExpression) -> bool:
        """Does ``node`` start at a name an import binds (``utils`` in ``utils.load(...)``), a
        relative import too? Its attributes are the imported module's own functions."""
        name = dotted_name(node)
        return name is not None and name.split(".", 1)[0] in self._definitions.imported_names

    # -------------------------------------------------------------------- facts
    def calls(self) -> Iterable[CallFact]:
        return self._facts.calls.values()

    def call_at(self, node: cst.CSTNode | None) -> CallFact | None:
        return self._facts.calls.get(id(node)) if node is not None else None

    def operations(self) -> Iterable[OperationFact]:
        return self._facts.operations.values()

    def stores(self) -> Iterable[StoreFact]:
        return self._facts.stores.values()

    def defaults(self) -> Iterable[DefaultFact]:
        return self._facts.defaults.values()

    def literal_at(self, node: cst.CSTNode | None) -> LiteralFact | None:
        return self._facts.literals.get(id(node)) if node is not None else None

    def value_of(self, node: cst.CSTNode) -> Value:
        """The value an expression had where it was evaluated (unknown if it never was)."""
        return self._facts.values.get(id(node), domain.UNKNOWN)

    def casts_to_a_saved_dtype(self, call: cst.Call) -> bool:
        """``x.to(orig_dtype)``, ``x.to(dtype=w.dtype)``: a conversion that names only a dtype held
        in a value, one the code read from a tensor, not a dtype it writes out (``torch.float16``)."""
        arguments = [arg for arg in call.args if arg.keyword is None or arg.keyword.value != "non_blocking"]
        return bool(arguments) and all(self._names_saved_dtype(arg) for arg in arguments)

    def _names_saved_dtype(self, arg: cst.Arg) -> bool:
        if arg.star or (arg.keyword is not None and arg.keyword.value != "dtype"):
            return False
        name = dotted_name(arg.value)  # ``y.dtype``, ``orig_dtype``, ``self.compute_dtype``
        return (
            name is not None
            and self.qualify(arg.value) not in api.DTYPES
            and name.rsplit(".", 1)[-1].lower().endswith("dtype")
        )

    def copies_to_cpu(self, function: FunctionInfo | None) -> bool:
        """Does the scope call ``.cpu()`` somewhere? Its author knows its tensors may live on a
        device, so a tensor whose place the code only may show is worth reporting there."""
        if self._copying_to_cpu is None:
            self._copying_to_cpu = {id(call.scope.function) for call in self.calls() if call.method == "cpu"}
        return id(function) in self._copying_to_cpu

    def functions(self) -> Iterable[FunctionInfo]:
        """Every function and method the file defines."""
        return self._definitions.functions.values()

    def call_sites(self, function: FunctionInfo) -> list[cst.Call]:
        """The calls in this file that may reach the function (``f(...)``; ``self.f(...)`` for a method)."""
        return self._definitions.calls_of(function)

    def runs_in_forward(self, function: FunctionInfo | None) -> bool:
        """Is this a method that ``forward()`` runs (itself, or one it calls on ``self``)?"""
        return function is not None and self._definitions.runs_in_forward(function)

    def runs_in_constructor(self, function: FunctionInfo | None) -> bool:
        """Is this ``__init__`` (or a method only it runs), where a module has not been moved yet?"""
        return function is not None and self._definitions.runs_in_constructor(function)

    def lazily_assigned(self, node: cst.CSTNode) -> bool:
        """Is this value assigned to ``self.x`` under ``if self.x is None:`` (built once, then kept)?"""
        return id(node) in self._definitions.lazy_values

    def only_compared(self, node: cst.CSTNode) -> bool:
        """Is this expression only compared or asked its type (``x.device == torch.device("cuda")``)?"""
        return id(node) in self._definitions.compared

    @property
    def says_it_needs_cuda(self) -> bool:
        """Does the module's docstring say its code needs CUDA ("requires a CUDA GPU")?"""
        return needs_cuda(docstring(self.module))

    def unpacked_as_mapping(self, function: FunctionInfo | None, name: str) -> bool:
        """Is ``name`` unpacked with ``**name`` in the function's scope (a ``BatchEncoding``)?"""
        evidence = function.evidence if function is not None else self._definitions.module_evidence
        return name in evidence.mappings

    def device_names(self, function: FunctionInfo | None) -> set[str]:
        """The names a scope (and the module around it) uses as devices: ``.to(name)``, ``device=name``.
        The module's own set holds every scope's (the collector adds each name to all enclosing
        scopes), so ``device_names(None)`` is every device name of the file."""
        names = set(self._definitions.module_evidence.placements)
        if function is not None:
            names |= function.evidence.placements
        return names

    def is_self_contained(self) -> bool:
        """Does nothing outside call this module's functions: a script (``if __name__ ==
        "__main__":``) or a module of tests?"""
        return self._definitions.self_contained

    def is_parameter(self, function: FunctionInfo | None, name: str) -> bool:
        """Is ``name`` a parameter of the function (what its caller hands it), ``self`` aside?"""
        if function is None:
            return False
        params = function.node.params
        names = [param.name.value for param in (*params.posonly_params, *params.params, *params.kwonly_params)]
        return name in names and name != function.self_name

    def places_a_device(self, function: FunctionInfo | None, name: str) -> bool:
        """Is ``name`` used as a device (``.to(name)``, ``device=name``) in the function's scope?"""
        evidence = function.evidence if function is not None else self._definitions.module_evidence
        return name in evidence.placements

    # --------------------------------------------------------------- explaining
    def explain(self, value: Value) -> str:
        """Why a value is where it is, in a few words: "moved by .to() at line 12".

        The line is a mark that the engine resolves with the findings' positions (mentions.py).
        """
        origin = value.origin
        if origin is None:
            return ""
        self._mentioned[id(origin.node)] = origin.node
        return f"{origin.reason} at {mark(id(origin.node))}"

    def mentioned(self) -> list[cst.CSTNode]:
        """The nodes whose line a message names."""
        return list(self._mentioned.values())

    def origin_node(self, value: Value) -> cst.CSTNode | None:
        return value.origin.node if value.origin is not None else None


# ------------------------------------------------------------------ value questions
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
    return value.kind is Kind.OBJECT


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


def rank(value: Value) -> int | None:
    """How many dimensions the value has, when the code shows it."""
    return value.rank


def requires_grad(value: Value) -> bool:
    return value.grad


def must_be_on_cpu(value: Value) -> bool:
    return domain.must_be_on_cpu(value)


def place_unknown(value: Value) -> bool:
    """The code does not show where the value is (a parameter, the result of an unknown call)."""
    return value.places == domain.NOWHERE


def may_be_on_accelerator(value: Value, through_modules: bool = True) -> bool:
    return domain.may_be_on_accelerator(value, through_modules)


def must_be_on_accelerator(value: Value, through_modules: bool = True) -> bool:
    return domain.must_be_on_accelerator(value, through_modules)


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
    if site.qualified in api.SHAPE_ARGUMENT_FUNCTIONS:
        return 1
    return None


def builds_layer_with_state(call: CallFact) -> bool:
    """``nn.Linear(...)``, ``nn.BatchNorm2d(...)``: a torch.nn layer that owns parameters or buffers."""
    return call.qualified is not None and api.module_has_state(call.qualified)


def elements(value: Value) -> Iterator[Value]:
    """The value itself and, for a list, tuple or dict, every value it may hold (nested)."""
    yield value
    for element in value.elements or ():
        yield from elements(element)
    if value.item is not None:
        yield from elements(value.item)
    for _, item in value.items:
        yield from elements(item)


def describe(value: Value) -> str:
    return value.describe()
