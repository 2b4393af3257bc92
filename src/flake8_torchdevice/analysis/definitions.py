"""What the file defines, and what each scope shows, as one syntactic pass (``collector``) finds it:
functions and classes (for summaries and class state), the call sites of each name (which
arguments callers pass), the names each loop rebinds (to widen them), and per scope the
*evidence* a careful reader uses to tell what a name is (``x.size(0)`` shows a tensor,
``m.eval()`` a module; devices; ``**`` unpacking): flow-insensitive, it only refines a value the
flow analysis does not know."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

import libcst as cst

from ..callers import NO_CALLERS, CallFacts, FileCallers
from ..imported import ImportedClass, ImportedHelper, ImportedSaver
from ..knowledge import api
from .domain import Value
from .evidence import Evidence
from .imports import dotted_name
from .syntax import every_node, passes


@dataclass
class FunctionInfo:
    node: cst.FunctionDef
    # The key of the class it is a method of (``Definitions.owner`` finds it): plain data, so that
    # a class and its methods make no reference cycle.
    owner_key: str | None
    evidence: Evidence
    # Unique in the file and plain data (see ``definition_key``): what summaries are keyed by.
    key: str
    name: str = ""
    # The first parameter of a method (``self``), unless it is a static method.
    self_name: str | None = None
    # A class method: its first parameter is the class, not an instance (``cls(...)`` constructs).
    is_classmethod: bool = field(init=False, default=False)
    # Read as an attribute (``@property``): ``obj.name`` runs it.
    is_property: bool = field(init=False, default=False)

    def positional_params(self) -> list[cst.Param]:
        """The parameters a call fills by position, ``self`` (or ``cls``) left out."""
        params = [*self.node.params.posonly_params, *self.node.params.params]
        return params[1:] if self.self_name is not None else params

    def __post_init__(self) -> None:
        self.name = self.node.name.value
        decorators = {_decorator_name(d) for d in self.node.decorators}
        self.is_classmethod = self.owner_key is not None and "classmethod" in decorators
        self.is_property = self.owner_key is not None and not decorators.isdisjoint(_PROPERTY_DECORATORS)
        if self.owner_key is not None and "staticmethod" not in decorators:
            params = self.node.params.posonly_params or self.node.params.params
            self.self_name = params[0].name.value if params else None


@dataclass
class ClassInfo:
    node: cst.ClassDef
    key: str  # unique in the file, as ``FunctionInfo.key``
    methods: dict[str, FunctionInfo] = field(default_factory=dict)
    _stateless: bool | None = field(default=None, repr=False, compare=False)  # ``stateless_callable``

    @property
    def name(self) -> str:
        return self.node.name.value

    def base_names(self) -> list[str]:
        return [name for name in (dotted_name(base.value) for base in self.node.bases) if name is not None]

    def stateless_callable(self) -> bool:
        """A class that replaces ``__call__`` (no ``forward``) and keeps nothing a device holds:
        no attribute made by a call, none it calls (a model handed in), nothing registered (a
        data transform that subclasses ``nn.Module``, say). Its inputs are where its callers put
        them, not where a module is."""
        if self._stateless is None:  # asked for every walk of every method: read the body once
            self._stateless = self._keeps_nothing()
        return self._stateless

    def _keeps_nothing(self) -> bool:
        if "__call__" not in self.methods or "forward" in self.methods:
            return False
        for node in every_node(self.node.body):
            if type(node) is cst.Call:
                called = dotted_name(node.func) or ""
                if called.rsplit(".", 1)[-1] in api.MODULE_REGISTERS or _calls_an_attribute(called, self.methods):
                    return False
            elif isinstance(node, (cst.Assign, cst.AnnAssign, cst.AugAssign)) and type(node.value) is cst.Call:
                targets = node.targets if isinstance(node, cst.Assign) else [node]
                if any(type(target.target) is cst.Attribute for target in targets):
                    return False
        return True


@dataclass
class Definitions:
    functions: dict[int, FunctionInfo] = field(default_factory=dict)  # by id(FunctionDef)
    # Functions and classes at the top of the module, by name (what calls of a bare name reach).
    top_functions: dict[str, FunctionInfo] = field(default_factory=dict)
    classes: dict[str, ClassInfo] = field(default_factory=dict)
    # Every class of the file, nested ones too, by key.
    classes_by_key: dict[str, ClassInfo] = field(default_factory=dict)
    # Every call whose callee ends in a given name (``f(...)``, ``self.f(...)``).
    call_sites: defaultdict[str, list[cst.Call]] = field(default_factory=lambda: defaultdict(list))
    # Names (and attribute paths) each loop may rebind: what a loop's back edge can change.
    loop_targets: dict[int, frozenset[str]] = field(default_factory=dict)
    # Stores that replace every element of a container, and the container each such loop
    # rewrites, by ``id`` of the loop (``containers.every_element_stores``).
    every_element_stores: set[int] = field(default_factory=set)
    rewritten_containers: dict[int, str] = field(default_factory=dict)
    module_evidence: Evidence = field(default_factory=Evidence)
    # Values assigned to ``self.x`` under a test that ``self.x`` is not set yet (lazy initialisation).
    lazy_values: set[int] = field(default_factory=set)
    # The module runs as a program (``if __name__ == "__main__":``, a notebook, a loop over its own
    # functions at the top level): its functions have no other callers.
    is_script: bool = False
    # The module defines tests (``test_*`` functions, ``TestCase`` classes): a test runner imports
    # it, and nothing else calls its helpers.
    is_test_module: bool = False
    # Functions started once per CUDA device (``mp.spawn(f, nprocs=torch.cuda.device_count())``).
    gpu_workers: set[str] = field(default_factory=set)
    # Expressions only compared (``x.device == torch.device("cuda")``) or asked their type/index.
    compared: set[int] = field(default_factory=set)
    # Every module the file imports, at any depth, by statement or by name
    # (``importlib.import_module("tensorrt")``, ``optional_import("tensorrt")``).
    imported_modules: set[str] = field(default_factory=set)
    # Every local name an import binds, relative imports too (``from . import utils``).
    imported_names: set[str] = field(default_factory=set)
    # The function each nested function is defined in (by id of the nested ``FunctionDef``).
    enclosing: dict[int, FunctionInfo] = field(default_factory=dict)
    # Functions (and classes, for their ``__call__``) handed to ignite's ``Engine(...)``: ignite
    # calls them with ``(engine, batch)``, a batch from the DataLoader it runs.
    batch_handlers: set[str] = field(default_factory=set)
    # What the calls in other files of the module's functions and classes have in common.
    callers: FileCallers = NO_CALLERS
    # What the classes the module imports from the project's other files are, by the name it uses.
    project_classes: dict[str, ImportedClass] = field(default_factory=dict)
    # What the helpers of the project's other files that the file calls return (``to_gpu``).
    project_helpers: dict[str, ImportedHelper] = field(default_factory=dict)
    # The functions and classes of the project's other files that save under an argument.
    project_savers: dict[str, ImportedSaver] = field(default_factory=dict)
    # The file calls ``init_process_group`` somewhere, with whatever backend.
    sets_up_a_process_group: bool = False
    # A function of the file takes a backend that defaults to NCCL (``init_dist(backend="nccl")``).
    backend_defaults_to_nccl: bool = False
    _families: dict[str, list[ClassInfo]] = field(default_factory=dict)  # by class key

    def owner(self, function: FunctionInfo) -> ClassInfo | None:
        """The class ``function`` is a method of."""
        return None if function.owner_key is None else self.classes_by_key[function.owner_key]

    def family(self, info: ClassInfo) -> list[ClassInfo]:
        """The classes of this file related to ``info`` by inheritance, either way."""
        known = self._families.get(info.key)
        if known is None:
            known = self._families[info.key] = self._related(info)
        return known

    def _related(self, info: ClassInfo) -> list[ClassInfo]:
        family = {info.name: info}
        changed = True
        while changed:
            changed = False
            for cls in self.classes.values():
                if cls.name in family:
                    continue
                related = any(base in family for base in cls.base_names()) or any(
                    base == cls.name for member in family.values() for base in member.base_names()
                )
                if related:
                    family[cls.name] = cls
                    changed = True
        return list(family.values())

    def ancestors(self, info: ClassInfo) -> list[ClassInfo]:
        """The classes of this file that ``info`` inherits from, nearest first."""
        found: list[ClassInfo] = []
        pending = list(info.base_names())
        while pending:
            base = self.classes.get(pending.pop(0))
            if base is not None and base not in found and base is not info:
                found.append(base)
                pending.extend(base.base_names())
        return found

    @property
    def self_contained(self) -> bool:
        """No other module calls this one's functions: a script, or a module of tests."""
        return self.is_script or self.is_test_module

    def batch_parameter(self, function: FunctionInfo) -> cst.Param | None:
        """The parameter that receives a DataLoader batch from ignite's ``Engine``, if any."""
        owner = self.owner(function)
        handler = function.name if owner is None else owner.name
        if handler not in self.batch_handlers or (owner is not None and function.name != "__call__"):
            return None
        if not any(module.split(".", 1)[0] == "ignite" for module in self.imported_modules):
            return None
        params = function.positional_params()
        return params[1] if len(params) > 1 else None  # (engine, batch)

    def sets_up_nccl(self) -> bool:
        """Does some scope of the file set up NCCL, or the file set up a process group with a backend
        that defaults to it? Then its multi-process code runs on CUDA GPUs."""
        if self.backend_defaults_to_nccl and self.sets_up_a_process_group:
            return True
        return self.module_evidence.uses_nccl or any(f.evidence.uses_nccl for f in self.functions.values())

    def distributed_means_cuda(self) -> bool:
        """Does the file's multi-process code run on CUDA GPUs only? Where it sets up NCCL, or leaves
        the process group to a launcher elsewhere: a job launched for GPUs (demucs' dora, a
        ``torchrun`` script). Not where it sets one up with another backend (``gloo``)."""
        return self.sets_up_nccl() or not self.sets_up_a_process_group

    def note_rewritten(self, loop: int, rewritten: tuple[str, frozenset[int]] | None) -> None:
        """What ``containers.every_element_stores`` found of a loop (by ``id``), if anything."""
        if rewritten is not None:
            self.rewritten_containers[loop], stores = rewritten
            self.every_element_stores |= stores

    def top_level_names(self) -> frozenset[str]:
        """The functions and classes the module defines at its top."""
        return frozenset(self.top_functions) | frozenset(self.classes)

    def calls_of(self, function: FunctionInfo) -> list[cst.Call]:
        """The calls in this file that may reach ``function``: ``f(...)`` for a function,
        ``x.f(...)`` for a method (``model.train()`` does not call a script's ``train()``), ``C(...)``
        for ``C.__init__``, and a subclass's ``super().__init__(...)`` (not the base's it calls)."""
        if (owner := self.owner(function)) is not None and function.name == "__init__":
            inside = {id(n) for c in self.family(owner) if owner.name in c.base_names() for n in every_node(c.node)}
            made = [site for site in self.call_sites.get(owner.name, []) if type(site.func) is cst.Name]
            return made + [site for site in self.call_sites.get("__init__", []) if id(site) in inside]
        is_function = function.owner_key is None
        return [site for site in self.call_sites.get(function.name, []) if (type(site.func) is cst.Name) == is_function]

    def imported_class(self, node: cst.BaseExpression) -> ImportedClass | None:
        """What the project says of the class ``node`` names (``Net``, ``models.Net``), when it is
        imported from another of the project's files and not a class of this one."""
        if not self.project_classes:  # asked of every call: most files import no project class
            return None
        spelled = self._imported_spelling(node)
        return self.project_classes.get(spelled) if spelled is not None else None

    def imported_helper(self, node: cst.BaseExpression) -> ImportedHelper | None:
        """What the project says a helper ``node`` names (``to_gpu``, ``utils.load_batch``) returns,
        when it is imported from another of the project's files and not defined in this one."""
        if not self.project_helpers:
            return None
        spelled = self._imported_spelling(node)
        return self.project_helpers.get(spelled) if spelled is not None else None

    def saved_arguments(self, call: cst.Call, callee: Value) -> list[cst.BaseExpression]:
        """The arguments a saver of another of the project's files saves a file under: a function
        (``save_checkpoint(state, run_dir)``), or an instance of a class whose ``__call__`` saves
        (``early_stopping(loss, model, path)``, the instance made by ``EarlyStopping(...)``)."""
        if not self.project_savers:
            return []
        made_by = callee.origin.node if callee.origin is not None else None
        spelled = self._imported_spelling(made_by.func if type(made_by) is cst.Call else call.func)
        saver = self.project_savers.get(spelled) if spelled is not None else None
        if saver is None:
            return []
        positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
        keywords = {arg.keyword.value: arg.value for arg in call.args if arg.keyword is not None}
        found = [positional[position] for position, _ in saver.saves_under if 0 <= position < len(positional)]
        return found + [keywords[name] for _, name in saver.saves_under if name in keywords]

    def _imported_spelling(self, node: cst.BaseExpression) -> str | None:
        spelled = dotted_name(node)
        if spelled is None or spelled in self.classes or spelled in self.top_functions:
            return None
        return spelled if spelled.partition(".")[0] in self.imported_names else None

    def project_calls(self, function: FunctionInfo) -> CallFacts | None:
        """What every call of ``function`` in the project does, where other files call it: a
        top-level function's calls, or a top-level class's for its ``__init__``."""
        facts = self._callers_of(function)
        return None if facts is None or facts.only_here or facts.public else facts

    def _callers_of(self, function: FunctionInfo) -> CallFacts | None:
        owner = self.owner(function)
        if owner is None:
            return self.callers.of(function.name) if self.top_functions.get(function.name) is function else None
        if function.name == "__init__" and self.classes.get(owner.name) is owner:
            return self.callers.of(owner.name)
        return None

    def has_no_callers_elsewhere(self, function: FunctionInfo) -> bool:
        """Can nothing outside the file call ``function``: it is private (``_name``), the file's own (a
        script's, a notebook's, a test module's), or the project read showed its every call in this file?"""
        owner = self.owner(function)
        name = owner.name if owner is not None and function.name == "__init__" else function.name  # ``C(...)``
        if name.startswith("__"):
            return False
        facts = self._callers_of(function)
        if facts is not None:
            return facts.only_here
        return name.startswith("_") or self.self_contained or self._called_only_where_nested(function)

    def _around(self, function: FunctionInfo) -> FunctionInfo | None:
        """The function a nested function (not a method) is defined in: only it can call it by name."""
        return self.enclosing.get(id(function.node)) if function.owner_key is None else None

    def _called_only_where_nested(self, function: FunctionInfo) -> bool:
        """A function nested in another that only calls it (never returns or hands it on): nothing
        outside the function around it can call it."""
        outer = self._around(function)
        if outer is None:
            return False
        calls = {id(site.func) for site in self.calls_of(function)} | {id(function.node.name)}
        named = (node for node in every_node(outer.node.body) if type(node) is cst.Name and node.value == function.name)
        return all(id(node) in calls for node in named)

    def methods_beside(self, method: FunctionInfo | None) -> list[FunctionInfo]:
        """The methods of ``method``'s class and of the classes related to it (none for a function)."""
        owner = self.owner(method) if method is not None else None
        return [other for cls in (self.family(owner) if owner is not None else []) for other in cls.methods.values()]

    def called_only_here(self, function: FunctionInfo) -> bool:
        """Are the file's own calls of a top-level function all its calls?"""
        return self.top_functions.get(function.name) is function and self.has_no_callers_elsewhere(function)

    def default_always_replaced(self, function: FunctionInfo, param: cst.Param) -> bool:
        """A default that every call replaces: every call in the project, where other files call
        the function; else every call in the file, of a function nothing else calls
        (``has_no_callers_elsewhere``)."""
        project = self.project_calls(function)
        if project is not None:
            return param.name.value in project.passed
        return self.has_no_callers_elsewhere(function) and self._replaced_here(function, param)

    def default_replaced_where_seen(self, function: FunctionInfo, param: cst.Param) -> bool:
        """A default that every call the project shows replaces, other files' included where they
        call the function, though callers it does not show may take it: a library's users, another
        file's calls of a method (``obj.grid_priors(sizes)``), which the project index does not read."""
        facts = self._callers_of(function)
        if facts is not None and not facts.only_here:
            return not facts.api and param.name.value in facts.passed  # its users' calls are not there
        return self._replaced_here(function, param)

    def _replaced_here(self, function: FunctionInfo, param: cst.Param) -> bool:
        sites = self.calls_of(function)
        outer = self._around(function)
        if outer is not None:  # a nested function: the calls of that name in the function around it
            inside = {id(node) for node in every_node(outer.node.body)}
            sites = [site for site in sites if id(site) in inside]
        index = next((i for i, candidate in enumerate(function.positional_params()) if candidate is param), None)
        return bool(sites) and all(passes(site, param.name.value, index) for site in sites)

    def default_unused(self, function: FunctionInfo, param: cst.Param) -> bool:
        """A default that names a device and that no run of the function uses: every call replaces
        it, or the body never reads the parameter (``device=torch.device("cuda:0")`` kept for an
        old signature). One that allocates or moves (``buf=torch.zeros(9).cuda()``) runs at the
        ``def`` whatever the calls pass."""
        if param.default is None or not _only_names_a_device(param.default):
            return False
        return not _reads(function.node.body, param.name.value) or self.default_always_replaced(function, param)

    def runs_in_forward(self, function: FunctionInfo, each_time: bool = False) -> bool:
        """A method that ``forward()`` (or ``__call__``) of its class runs, directly or through
        other methods called on ``self``, in its class or a related class of this file; with
        ``each_time``, at each call, not once behind a lazy-initialisation check."""
        return function.name in self._reached_from(function, {"forward", "__call__"}, each_time)

    def runs_in_constructor(self, function: FunctionInfo) -> bool:
        """``__init__`` of a class, or a method only it runs: code that runs before anyone can move
        the module, so its parameters and buffers are still where they were made."""
        return function.name in self._reached_from(function, {"__init__"}) and not self.runs_in_forward(function)

    def _reached_from(self, function: FunctionInfo, roots: set[str], each_time: bool = False) -> set[str]:
        """The methods of ``function``'s class family that ``roots`` run through calls on ``self``
        (``each_time``: those made outside a block that runs once)."""
        owner = self.owner(function)
        if owner is None:
            return set()
        methods = [method for cls in self.family(owner) for method in cls.methods.values()]
        reached = set(roots)
        changed = True
        while changed:
            changed = False
            for method in methods:
                called = method.evidence.self_called_each_time if each_time else method.evidence.self_called
                if method.name in reached and not called <= reached:
                    reached |= called
                    changed = True
        return reached

    def function(self, node: cst.FunctionDef) -> FunctionInfo:
        return self.functions[id(node)]


_PROPERTY_DECORATORS = frozenset({"property", "functools.cached_property", "cached_property"})


def _decorator_name(decorator: cst.Decorator) -> str | None:
    target = decorator.decorator
    return dotted_name(target.func if type(target) is cst.Call else target)


def _reads(body: cst.BaseSuite, name: str) -> bool:
    """Does the code mention ``name`` (or hand every local on, with ``locals()`` / ``vars()``)?"""
    return any(type(node) is cst.Name and node.value in (name, "locals", "vars") for node in every_node(body))


def _calls_an_attribute(called: str, methods: dict[str, FunctionInfo]) -> bool:
    """``self.model(x)``: an attribute called like a function (not one of the class's methods)."""
    owner, _, attribute = called.partition(".")
    return owner == "self" and "." not in attribute and attribute != "" and attribute not in methods


def _only_names_a_device(default: cst.BaseExpression) -> bool:
    """``"cuda"``, ``0``, ``DEVICE``, ``torch.device("cuda", 0)``: evaluating it touches no GPU."""
    if isinstance(default, (cst.SimpleString, cst.Integer, cst.Name, cst.Attribute)):
        return True
    if not isinstance(default, cst.Call) or (dotted_name(default.func) or "").rsplit(".", 1)[-1] != "device":
        return False
    return all(isinstance(arg.value, (cst.SimpleString, cst.Integer)) for arg in default.args)
