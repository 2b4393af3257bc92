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
from . import domain, dtypes, value_questions
from .checkpoints import reads_model_state
from .cuda_evidence import cpu_support, mentions_cuda_anywhere, option_attribute, option_read_only_where_cuda_is
from .cuda_words import needs_cuda
from .definitions import Definitions, FunctionInfo
from .domain import Kind, Origin, Value, is_device_of_a_value
from .facts import CallFact, DefaultFact, Facts, LiteralFact, OperationFact, StoreFact
from .holders import definitions_holding
from .imports import ImportTable, dotted_name
from .literals import bool_value, is_cuda_literal, number_value, string_value
from .positions import positions_of
from .project_classes import replaced_without_cuda
from .syntax import (
    children,
    docstring,
    ends_a_notebook_cell,
    every_node,
    fits_tensor_move,
    keyword_argument,
    opens_a_file,
    own_nodes,
    path_to,
    positional_argument,
)
from .value_questions import (
    builds_layer_with_state,
    builds_parameter,
    checks_every_device,
    data_arguments,
    describe,
    device_code,
    device_index_literal,
    elements,
    evidence_confidence,
    is_array,
    is_device,
    is_instance_of_other_class,
    is_layer_with_state,
    is_module,
    is_ndarray,
    is_number,
    is_optimizer,
    is_registered_parameter,
    is_tensor,
    is_unknown,
    is_zero_dim,
    keeps_state,
    load_with_map_location,
    may_already_be_there,
    may_be_on_accelerator,
    may_be_tensor,
    may_be_zero_dim,
    must_be_on_accelerator,
    must_be_on_cpu,
    on_the_cpu_in_a_branch,
    place_name,
    place_unknown,
    placed_by_the_caller,
    rank,
    requires_grad,
    same_places,
    saves_a_file,
    takes_inputs_anywhere,
)

__all__ = [
    "Analysis",
    "CallFact",
    "FunctionInfo",
    "Origin",
    "StoreFact",
    "Value",
    "bool_value",
    "builds_layer_with_state",
    "builds_parameter",
    "checks_every_device",
    "children",
    "data_arguments",
    "describe",
    "device_code",
    "device_index_literal",
    "dotted_name",
    "elements",
    "every_node",
    "evidence_confidence",
    "fits_tensor_move",
    "is_array",
    "is_cuda_literal",
    "is_device",
    "is_device_of_a_value",
    "is_instance_of_other_class",
    "is_layer_with_state",
    "is_module",
    "is_ndarray",
    "is_number",
    "is_optimizer",
    "is_registered_parameter",
    "is_tensor",
    "is_unknown",
    "is_zero_dim",
    "keeps_state",
    "keyword_argument",
    "load_with_map_location",
    "may_already_be_there",
    "may_be_on_accelerator",
    "may_be_tensor",
    "may_be_zero_dim",
    "must_be_on_accelerator",
    "must_be_on_cpu",
    "number_value",
    "on_the_cpu_in_a_branch",
    "opens_a_file",
    "option_attribute",
    "own_nodes",
    "path_to",
    "place_name",
    "place_unknown",
    "placed_by_the_caller",
    "positional_argument",
    "rank",
    "reads_model_state",
    "requires_grad",
    "same_places",
    "saves_a_file",
    "string_value",
    "takes_inputs_anywhere",
]


class Analysis:
    """What the analysis learned about one module."""

    def __init__(self, module: cst.Module, imports: ImportTable, definitions: Definitions, facts: Facts) -> None:
        self.module = module
        self._imports = imports
        self._definitions = definitions
        self._facts = facts
        self._mentioned: dict[int, cst.CSTNode] = {}
        self._lines: dict[int, int] = {}
        self._copying_to_cpu: set[int] | None = None
        self._without_cuda: str | None = None
        self._site: cst.Call | None = None  # the call, in a view of a call context
        self._closed_nodes: frozenset[int] | None = None  # ``runs_only_as_called``

    # ------------------------------------------------------------------ imports
    @property
    def uses_torch(self) -> bool:
        return self._imports.imports_torch()

    def imports_library(self, libraries: AbstractSet[str]) -> bool:
        """Does the file import one of these libraries: at any depth of a module path, in a function, by name?"""
        return any(not libraries.isdisjoint(module.split(".")) for module in self._definitions.imported_modules)

    def qualify(self, node: cst.BaseExpression) -> str | None:
        return self._imports.qualify(node)

    def names_an_import(self, node: cst.BaseExpression) -> bool:
        """Does ``node`` start at a name an import binds, a relative one too (``utils`` of ``utils.load()``)?"""
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

    def moves_nothing(self, value: Value) -> bool:
        """A module holding no parameter, buffer or submodule (``nn.MSELoss()``, a project class of numbers)?"""
        imported = self._definitions.project_classes.get(value.cls or "") if value.kind is Kind.MODULE else None
        return (imported is not None and imported.holds_no_tensors) or value_questions.moves_nothing(value)

    def casts_to_a_saved_dtype(self, call: cst.Call) -> bool:
        return dtypes.casts_to_a_saved_dtype(self._imports, call)

    def names_a_dtype(self, node: cst.BaseExpression) -> bool:
        return dtypes.names_a_dtype(self._imports, node)

    def copies_to_cpu(self, function: FunctionInfo | None) -> bool:
        """Does the scope call ``.cpu()`` somewhere? Its author knows its tensors may be on a device."""
        if self._copying_to_cpu is None:
            self._copying_to_cpu = {id(call.scope.function) for call in self.calls() if call.method == "cpu"}
        return id(function) in self._copying_to_cpu

    def functions(self) -> Iterable[FunctionInfo]:
        """Every function and method the file defines."""
        return self._definitions.functions.values()

    def saved_arguments(self, site: CallFact) -> list[cst.BaseExpression]:
        """What a call hands a saver of another of the project's files to save a file under (``path``)."""
        return self._definitions.saved_arguments(site.node, site.callee)

    def call_sites(self, function: FunctionInfo) -> list[cst.Call]:
        """The calls in this file that may reach the function (``f(...)``; ``self.f(...)`` for a method)."""
        return self._definitions.calls_of(function)

    def replaced_defaults(self, where_seen: bool = False) -> set[int]:
        """The parameter defaults (by id of the expression) that no run uses: the body never reads the
        parameter, or every call replaces it (``Definitions.default_unused``); ``where_seen``: those
        every call the project shows replaces, though callers it does not show may take them."""
        unused = self._definitions.default_replaced_where_seen if where_seen else self._definitions.default_unused
        return {id(fact.param.default) for fact in self._facts.defaults.values() if unused(fact.function, fact.param)}

    def replaced_without_cuda(self, call: CallFact) -> frozenset[str]:
        """The keywords (``device=``) that the function or class the call runs (this file's or the
        project's) replaces where CUDA is not available: a CUDA default passed there is safe."""
        return replaced_without_cuda(self._definitions, self._imports, call.node, call.scope.function)

    def guarded_by_its_callers(self, function: FunctionInfo) -> bool | None:
        """Does every call of the function in the project, other files' included, run under a
        CUDA check (or in a function every call of which does)? None where no other file calls
        it (or the project was not read): then only this file's calls can tell."""
        return project.guarded if (project := self._definitions.project_calls(function)) is not None else None

    def runs_in_forward(self, function: FunctionInfo | None, each_time: bool = False) -> bool:
        """Is this a method that ``forward()`` runs (itself, or one it calls on ``self``)? With
        ``each_time``: at each call, not once behind a lazy-initialisation check."""
        return function is not None and self._definitions.runs_in_forward(function, each_time)

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

    def option_read_only_where_cuda_is(self, option: str) -> bool | None:
        """Does a CUDA check decide every read of ``<x>.<option>`` (``cuda_evidence.py``)?"""
        return option_read_only_where_cuda_is(self.module, self._imports, option)

    def device_names(self, function: FunctionInfo | None) -> set[str]:
        """The names a scope (and the module around it) uses as devices (``.to(name)``, ``device=name``);
        ``device_names(None)``: every device name of the file (the collector adds each to every scope)."""
        own = function.evidence.placements if function is not None else set()
        return set(self._definitions.module_evidence.placements) | own

    def has_no_callers_elsewhere(self, function: FunctionInfo) -> bool:
        """Can nothing outside this file call the function (``Definitions.has_no_callers_elsewhere``)?"""
        return self._definitions.has_no_callers_elsewhere(function)

    def definitions_holding(self, names: AbstractSet[str]) -> dict[int, str]:
        """Each node (by ``id``) of the top-level functions and classes named: the one that holds it."""
        return definitions_holding(self.module, names)

    def is_parameter(self, function: FunctionInfo | None, name: str) -> bool:
        """Is ``name`` a parameter of the function (what its caller hands it), ``self`` aside?"""
        if function is None:
            return False
        params = function.node.params
        names = [param.name.value for param in (*params.posonly_params, *params.params, *params.kwonly_params)]
        return name in names and name != function.self_name

    def in_scope_at(self, site: CallFact, name: str) -> bool:
        """Would ``name`` (``device``, ``args.device``, ``self.device``) resolve if written into this
        call? Its first part must be a parameter of the call's function or be bound on an earlier
        line, in that function, a function around it or the module: a ``device`` of another
        function is an undefined name here, and a global bound after the load's line may not exist
        yet when it runs (``if __name__ == "__main__": device = ...``). ``self.x`` also needs ``x``
        assigned by the class (or its relatives in this file), or used as a device in the function.
        What the file does not show (``from m import *``) is not in scope."""
        root, _, attribute = name.partition(".")
        function = site.scope.function
        if (
            function is not None
            and attribute
            and root == function.self_name
            and not any(attribute in other.evidence.self_assigned for other in self.methods_beside(function))
            and name not in function.evidence.placements
        ):
            return False
        while function is not None:
            binding = function.evidence.bound.get(root)
            if binding is not None:  # the innermost binding decides (a local hides a global)
                return type(binding) is cst.Param or self.line_of(binding) < self.line_of(site.node)
            function = self._definitions.enclosing.get(id(function.node))
        binding = self._definitions.module_evidence.bound.get(root)
        return binding is not None and self.line_of(binding) < self.line_of(site.node)

    def methods_beside(self, method: FunctionInfo | None) -> list[FunctionInfo]:
        """The methods of ``method``'s class and of the classes related to it in this file."""
        return self._definitions.methods_beside(method)

    def places_a_device(self, function: FunctionInfo | None, name: str) -> bool:
        """Is ``name`` used as a device (``.to(name)``, ``device=name``) in the function's scope?"""
        evidence = function.evidence if function is not None else self._definitions.module_evidence
        return name in evidence.placements

    def runs_without_cuda(self) -> str | None:
        """Where the file shows that its code runs without CUDA, in a few words ("falls back to the CPU
        at line 12"), or None. A hard-coded CUDA device, or a load without map_location, in such a file
        fails on the machines its own author meant it for (Engler's "deviant behaviour"). The evidence,
        first in the file: ``"cpu"`` chosen where CUDA is not in use, a ``--cpu``
        / ``--no-cuda`` option, a ``--device`` option that defaults to the CPU."""
        if self._without_cuda is None:
            evidence = [(node, "falls back to the CPU") for node in self._facts.cpu_fallbacks.values()]
            evidence += [(call.node, reason) for call in self.calls() if (reason := cpu_support(call)) is not None]
            positions = positions_of(self.module, (node for node, _ in evidence))  # one pass for all
            self._without_cuda = ""
            if evidence:
                node, reason = min(evidence, key=lambda found: positions.get(id(found[0]), (1, 0)))
                self._mentioned[id(node)] = node
                self._without_cuda = f"{reason} at {mark(id(node))}"
        return self._without_cuda or None

    def cases_skipped_without_cuda(self) -> set[int]:
        """The nodes inside test cases a CUDA check skips (``pytest.param(torch.device("cuda"),
        marks=pytest.mark.skipif(not torch.cuda.is_available(), ...))``, ``marks=RunIf(min_cuda_gpus=1)``),
        which run only where CUDA does (building a device at collection needs no GPU)."""
        skipped: set[int] = set()
        for call in self.calls():
            marks = keyword_argument(call.node, "marks") if call.qualified == "pytest.param" else None
            if marks is not None and mentions_cuda_anywhere(marks):
                skipped.update(id(node) for argument in call.node.args for node in every_node(argument))
        return skipped

    # --------------------------------------------------------------- explaining
    def line_of(self, node: cst.CSTNode) -> int:
        """The line a node starts on, for ordering two nodes (a message names lines with ``explain``)."""
        line = self._lines.get(id(node))
        if line is None:
            # One pass over the code finds lines; the first records every call's too, which rules
            # order (a save before a load): one pass per file, not one per call.
            wanted = [node] if self._lines else [node, *(site.node for site in self.calls())]
            found = positions_of(self.module, wanted)
            self._lines.update((key, position[0]) for key, position in found.items())
            line = self._lines.setdefault(id(node), 1)
        return line

    def explain(self, value: Value) -> str:
        """Why a value is where it is, in a few words: "moved by .to() at line 12" (the line is a
        mark that the engine resolves with the findings' positions: mentions.py)."""
        origin = value.origin
        if origin is None:
            return ""
        return f"{origin.reason} at {self.cite(origin.node)}"

    def displayed_by_a_notebook(self, statement: cst.Expr) -> bool:
        """The last expression of a notebook cell: Jupyter shows its value."""
        return ends_a_notebook_cell(self.module, statement)

    def call_contexts(self) -> Iterator[tuple[cst.Call, Analysis]]:
        """Each function of the file as one of its calls runs it (``contexts``): the call, and the
        analysis of the body seen so, whose messages name lines as this one's do."""
        for context in self._facts.contexts:
            view = Analysis(self.module, self._imports, self._definitions, context.facts)
            view._mentioned, view._lines, view._site = self._mentioned, self._lines, context.site
            yield context.site, view

    def runs_only_as_called(self, node: cst.CSTNode) -> bool:
        """Is ``node`` in a function's own body (no nested def, class, lambda) whose every run is a call context?"""
        if self._closed_nodes is None:
            closed = self._facts.closed_functions
            functions = [info for info in self._definitions.functions.values() if info.key in closed]
            self._closed_nodes = frozenset(id(part) for info in functions for part in own_nodes(info.node.body))
        return id(node) in self._closed_nodes

    def passed_in(self, value: Value) -> bool:
        """Is the value where it is because the call whose context this is passed it there?"""
        return self._site is not None and value.origin is not None and value.origin.node is self._site

    def cite(self, node: cst.CSTNode) -> str:
        """A mark for "line N" of a node, which the engine resolves (``mentions``)."""
        self._mentioned[id(node)] = node
        return mark(id(node))

    def mentioned(self) -> list[cst.CSTNode]:
        """The nodes whose line a message names."""
        return list(self._mentioned.values())

    def origin_node(self, value: Value) -> cst.CSTNode | None:
        return value.origin.node if value.origin is not None else None
