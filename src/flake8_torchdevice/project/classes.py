"""Which of the project's classes are ``nn.Module``s, decided across files: plain data.

One file cannot tell whether ``class Net(BaseModel)`` is a module when ``BaseModel`` comes from
another file, nor what ``model = Net()`` built when ``Net`` is imported. The index reads each
file's top-level classes with ``ast`` (their bases, read through the file's imports, and whether
the class may put itself on a device), and the class names the file uses (bases, and calls of
capitalised names); then the project decides, over every file at once:

- a class is a **module** when one of its bases is: torch's ``nn.Module``, a library's module
  class (``knowledge``), or a class of the project that is one, however many files up;
- it is a **plain class** when every base is plain: none, ``object``, the standard library's and
  torch's classes that are not modules (``knowledge.api.PLAIN_BASES``), the project's plain classes;
- otherwise the project does not say (a base from a library the knowledge does not cover).

Each linted file is then told only about the names it uses (``ImportedClasses``): the key of its
result cache covers them, and an edit elsewhere re-lints it only when one of those changes.
"""

from __future__ import annotations

import ast
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass

from ..imported import ImportedClass, ImportedClasses, ImportedHelper, ImportedSaver
from ..knowledge import api
from .cuda_tests import is_availability_check, tests_cuda_missing
from .helpers import HelperEntry, read_helpers
from .layout import importing_package, module_name
from .names import NOT_THE_PROJECT, dotted, names_the_cpu, qualified, read_through
from .nodes import descendants
from .resolution import Resolver
from .savers import SaverEntry, read_savers

# Methods of ``self`` that move a module's parameters: a class that calls one places itself.
_MOVES = frozenset({"cuda", "to", "to_empty", "xpu", "mps", "npu", "hpu", "ipu"})
# Chains of bases followed before a class is given up on (a cycle, or a very deep hierarchy).
_MAX_DEPTH = 32


@dataclass(frozen=True)
class ClassEntry:
    """A top-level class of one file, as the index reads it."""

    name: str
    # Each base's dotted name, read through the file's imports (a class of the same file named
    # by its module: ``pkg.models.Base``); "" for a base that is not a dotted name.
    bases: tuple[str, ...]
    # Its constructor takes a device, or one of its methods moves ``self``: where an instance is
    # after construction is not known.
    places_itself: bool
    # It registers nothing and every attribute it sets holds a number, a string or a truth value
    # (a loss that keeps an ``eps``): what its bases hold aside, moving an instance moves nothing.
    keeps_no_tensors: bool = False
    # The parameters its ``__init__`` replaces with the CPU where CUDA is not available (a
    # ``device="cuda:0"`` default made ``"cpu"``), by name: what a caller passes by keyword.
    replaces_without_cuda: tuple[str, ...] = ()


@dataclass(frozen=True)
class FileClasses:
    entries: tuple[ClassEntry, ...] = ()
    # Imported names the file uses as a base or calls, and the dotted name each stands for, read
    # through the file's imports: ``("models.Net", "pkg.models.Net")``, ``("to_gpu", "utils.to_gpu")``.
    uses: tuple[tuple[str, str], ...] = ()
    # A package's ``__init__`` imports (local name, dotted name): ``from pkg import Net`` reads
    # through them to ``pkg.models.Net``.
    exports: tuple[tuple[str, str], ...] = ()
    # Its top-level functions whose result the index could read (project/helpers.py).
    helpers: tuple[HelperEntry, ...] = ()
    # Its functions and classes that save a file under an argument (project/savers.py).
    savers: tuple[SaverEntry, ...] = ()


NO_CLASSES = FileClasses()


def read_classes(
    tree: ast.Module, nodes: Iterable[ast.AST], aliases: Mapping[str, str], module: str, is_package: bool
) -> FileClasses:
    """The classes of a parsed file (``nodes``: every node of ``tree``, ``nodes.descendants``) whose
    imports are ``aliases`` and whose module is ``module``."""
    local = {node.name for node in tree.body if isinstance(node, ast.ClassDef)}
    known = {**{name: f"{module}.{name}" for name in local}, **aliases}
    entries = []
    plain_classes: frozenset[str] = frozenset()
    for statement in tree.body:
        if not isinstance(statement, ast.ClassDef):
            continue
        keeps_no_tensors = _keeps_no_tensors(statement, plain_classes)
        bases = tuple(_base(base, known) for base in statement.bases)
        if keeps_no_tensors and set(bases) <= {"object"}:
            plain_classes |= {statement.name}  # what later classes of the file may keep
        entries.append(
            ClassEntry(
                statement.name,
                bases,
                _places_itself_in(statement),
                keeps_no_tensors,
                _replaced_without_cuda(statement, aliases),
            )
        )
    used = _uses(nodes)
    uses = {spelled: target for spelled in used if (target := _project_target(spelled, aliases)) is not None}
    exports = tuple(sorted(aliases.items())) if is_package else ()
    helpers, savers = read_helpers(tree, aliases), read_savers(tree, aliases)
    return FileClasses(tuple(entries), tuple(sorted(uses.items())), exports, helpers, savers)


def _project_target(spelled: str, aliases: Mapping[str, str]) -> str | None:
    """What an imported name stands for, unless it is torch's, NumPy's or the standard library's."""
    target = read_through(spelled, aliases)
    if target is None or target.partition(".")[0] in NOT_THE_PROJECT:
        return None
    return target


def _base(node: ast.expr, known: Mapping[str, str]) -> str:
    """A builtin (``object``) by its bare name; "" for a base that is not a dotted name."""
    return qualified(_subscripted(node), known) or ""


def _places_itself_in(node: ast.ClassDef) -> bool:
    """Whether the class may put itself on a device: a method of it does."""
    methods = (item for item in node.body if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)))
    return any(_places_itself(method, descendants(method)) for method in methods)


def _places_itself(method: ast.FunctionDef | ast.AsyncFunctionDef, inside: list[ast.AST]) -> bool:
    """A constructor that takes a device, or a method (whose nodes are ``inside``) that moves ``self``."""
    arguments = [*method.args.posonlyargs, *method.args.args, *method.args.kwonlyargs]
    if method.name == "__init__" and any(_names_a_device(arg.arg) for arg in arguments):
        return True
    this = arguments[0].arg if arguments else None
    return this is not None and any(type(call) is ast.Call and _moves(call, this) for call in inside)


def _replaced_without_cuda(node: ast.ClassDef, aliases: Mapping[str, str]) -> tuple[str, ...]:
    """The parameters the class's ``__init__`` replaces with the CPU where CUDA is not available,
    before anything reads them: ``if not torch.cuda.is_available(): device = "cpu"`` (also ``if
    "cuda" in device and not ...``), or ``device = device if torch.cuda.is_available() else "cpu"``.
    A caller's CUDA default passed there by keyword is a choice the class makes safe."""
    init = next((item for item in node.body if isinstance(item, ast.FunctionDef) and item.name == "__init__"), None)
    if init is None:
        return ()
    by_keyword = {arg.arg for arg in [*init.args.args[1:], *init.args.kwonlyargs]}
    replaced: set[str] = set()
    read: set[str] = set()
    for statement in init.body:
        replaced |= _replaced_in(statement, aliases) & (by_keyword - read)
        read |= {
            item.id for item in ast.walk(statement) if isinstance(item, ast.Name) and isinstance(item.ctx, ast.Load)
        }
    return tuple(sorted(replaced))


def _replaced_in(statement: ast.stmt, aliases: Mapping[str, str]) -> set[str]:
    """The names a statement sets to the CPU where CUDA is not available."""
    if isinstance(statement, ast.If) and tests_cuda_missing(statement.test, aliases):
        assigned = (item for item in statement.body if isinstance(item, ast.Assign) and names_the_cpu(item.value))
        return {target.id for item in assigned for target in item.targets if isinstance(target, ast.Name)}
    if isinstance(statement, ast.Assign) and _chosen_by_availability(statement.value, aliases):
        return {target.id for target in statement.targets if isinstance(target, ast.Name)}
    return set()


def _chosen_by_availability(value: ast.expr, aliases: Mapping[str, str]) -> bool:
    """``x if torch.cuda.is_available() else "cpu"``: the CPU where CUDA is not available."""
    return isinstance(value, ast.IfExp) and is_availability_check(value.test, aliases) and names_the_cpu(value.orelse)


def _keeps_no_tensors(node: ast.ClassDef, plain_classes: frozenset[str]) -> bool:
    """No method registers state or calls ``setattr``, and every attribute set in the class holds
    a number, a string or a truth value, or a parameter whose default is one (``self.eps = eps``),
    a dict of them, or an instance of one of ``plain_classes`` (classes of the file that are no
    module and keep only such values): a module whose ``.cuda()`` has nothing to move (a plain
    tensor attribute would not move either, but a module or a ``Parameter`` handed in would)."""
    for statement in node.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef)):
            if not _method_keeps_no_tensors(statement, plain_classes):
                return False
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)) and not _plain(
            statement.value, frozenset(), plain_classes
        ):
            return False
    return True


def _method_keeps_no_tensors(method: ast.FunctionDef | ast.AsyncFunctionDef, plain_classes: frozenset[str]) -> bool:
    inside = list(ast.walk(method))
    rebound = {item.id for item in inside if isinstance(item, ast.Name) and isinstance(item.ctx, ast.Store)}
    plain_parameters = frozenset(_parameters_with_plain_defaults(method.args)) - rebound
    for inner in inside:
        if isinstance(inner, ast.Call):
            called = inner.func.attr if isinstance(inner.func, ast.Attribute) else dotted(inner.func)
            if called in api.MODULE_REGISTERS or called in ("setattr", "__setattr__") or _registers_through(inner):
                return False
        elif isinstance(inner, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
            targets = inner.targets if isinstance(inner, ast.Assign) else [inner.target]
            if any(isinstance(target, ast.Attribute) and _names_a_device(target.attr) for target in targets):
                return False  # ``self.device = device``: its methods may place what they make there
            if any(isinstance(target, ast.Attribute) for target in targets):
                if not _plain(inner.value, plain_parameters, plain_classes):
                    return False
            elif any(_sets_an_attribute(target) for target in targets):
                return False  # ``self.proj, self.eps = nn.Linear(4, 4), eps``: read as keeping anything
        elif isinstance(inner, (ast.For, ast.AsyncFor, ast.withitem, ast.comprehension)):
            target = inner.optional_vars if isinstance(inner, ast.withitem) else inner.target
            if target is not None and _sets_an_attribute(target):
                return False
    return True


def _sets_an_attribute(target: ast.expr) -> bool:
    """A store into an attribute somewhere in an assignment's target (``a, self.x = ...``), or into
    a module's own tables (``self._modules["proj"] = layer``); not a store into an element of
    anything else (``M[np.diag_indices(M.shape[0])] = 0`` sets no attribute)."""
    if isinstance(target, (ast.Tuple, ast.List)):
        return any(_sets_an_attribute(element) for element in target.elts)
    if isinstance(target, ast.Starred):
        return _sets_an_attribute(target.value)
    if isinstance(target, ast.Subscript):
        return isinstance(target.value, ast.Attribute) and target.value.attr in _MODULE_TABLES
    return isinstance(target, ast.Attribute)


# Where an ``nn.Module`` keeps what moves with it, and the dict that holds every attribute.
_MODULE_TABLES = frozenset({"_modules", "_parameters", "_buffers", "__dict__"})
# Calls that may be handed ``self`` without giving it anything to keep.
_ONLY_LOOK_AT_SELF = frozenset(
    {"super", "isinstance", "type", "id", "len", "print", "repr", "str", "hasattr", "getattr"}
)


def _registers_through(call: ast.Call) -> bool:
    """``self._modules.update(proj=layer)``: a call on a module's own tables; or ``attach(self)``, a
    helper handed the module, which may set anything on it."""
    owner = call.func.value if isinstance(call.func, ast.Attribute) else None
    if isinstance(owner, ast.Attribute) and owner.attr in _MODULE_TABLES:
        return True
    handed_self = any(isinstance(arg, ast.Name) and arg.id == "self" for arg in call.args)
    return handed_self and dotted(call.func) not in _ONLY_LOOK_AT_SELF


def _parameters_with_plain_defaults(arguments: ast.arguments) -> Iterable[str]:
    positional = [*arguments.posonlyargs, *arguments.args]
    with_defaults = zip(positional[len(positional) - len(arguments.defaults) :], arguments.defaults)
    keyword_only = zip(arguments.kwonlyargs, arguments.kw_defaults)
    for argument, default in (*with_defaults, *keyword_only):
        if default is not None and _plain(default, frozenset()):
            yield argument.arg


def _plain(value: ast.expr | None, plain_names: frozenset[str], plain_classes: frozenset[str] = frozenset()) -> bool:
    """A value no module or tensor can be: a number, a string or a truth value (not ``None``, the
    default of an optional weight), a tuple, list or dict of them, arithmetic on them, one of
    ``plain_names``, or an instance of one of ``plain_classes`` built from such values (no module:
    ``nn.Module`` registers no attribute of it, tests/fixtures/semantics/
    holds_moving_a_module_without_tensors_needs_no_gpu.py)."""
    if value is None:
        return True  # ``x: int`` declares, and sets nothing
    if isinstance(value, ast.Constant):
        return value.value is not None
    if isinstance(value, ast.Name):
        return value.id in plain_names

    def plain(part: ast.expr | None) -> bool:
        return _plain(part, plain_names, plain_classes)

    if isinstance(value, ast.UnaryOp):
        return plain(value.operand)
    if isinstance(value, ast.BinOp):
        return plain(value.left) and plain(value.right)
    if isinstance(value, (ast.Tuple, ast.List)):
        return all(plain(element) for element in value.elts)
    if isinstance(value, ast.Dict):
        return all(key is not None and plain(key) for key in value.keys) and all(map(plain, value.values))
    if isinstance(value, ast.Call) and isinstance(value.func, ast.Name) and value.func.id in plain_classes:
        return all(plain(arg) for arg in value.args) and all(plain(keyword.value) for keyword in value.keywords)
    return False


def _names_a_device(name: str) -> bool:
    return "device" in name.lower() or api.MENTIONS_CUDA.search(name) is not None


def _moves(call: ast.Call, this: str) -> bool:
    """``self.cuda()``, ``self.encoder.to(device)``, or any call given ``device=``."""
    if any(keyword.arg == "device" for keyword in call.keywords):
        return True
    func = call.func
    if not isinstance(func, ast.Attribute) or func.attr not in _MOVES:
        return False
    receiver = func.value
    while isinstance(receiver, ast.Attribute):
        receiver = receiver.value
    return isinstance(receiver, ast.Name) and receiver.id == this


def _uses(nodes: Iterable[ast.AST]) -> set[str]:
    """Dotted names used as a base, called or written in a parameter's annotation (``Net(...)``,
    ``models.Net(...)``, ``to_gpu(x)``, ``batch: TokenBatch | None``): the names that may stand
    for another file's class or helper."""
    found: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.ClassDef):
            found.update(name for base in node.bases if (name := dotted(_subscripted(base))) is not None)
        elif isinstance(node, ast.Call) and (name := dotted(node.func)) is not None:
            found.add(name)
        elif isinstance(node, ast.arg) and node.annotation is not None:
            written = (part for part in ast.walk(node.annotation) if isinstance(part, (ast.Name, ast.Attribute)))
            found.update(name for part in written if (name := dotted(part)) is not None)
    return found


def _subscripted(node: ast.expr) -> ast.expr:
    """``Generic[T]`` as a base: the class subscripted."""
    return node.value if isinstance(node, ast.Subscript) else node


@dataclass(frozen=True)
class _Verdict:
    module: bool | None  # None: the project does not say
    places_itself: bool
    # A module none of whose classes, up to torch's, keeps a tensor or a submodule (ClassEntry).
    holds_no_tensors: bool = False
    replaces_without_cuda: tuple[str, ...] = ()  # ClassEntry's


# Resolves a dotted name, as a file of a folder (a package) imports it, to a class's key.
Resolve = Callable[[str, str], "str | None"]


class ProjectClasses:
    """Every class of the project by dotted name (with the folder its file imports from),
    decided once for all of them, and every helper whose result the index read."""

    def __init__(
        self,
        classes: Mapping[str, tuple[ClassEntry, str]],
        helpers: Mapping[str, ImportedHelper],
        savers: Mapping[str, ImportedSaver],
        resolve: Resolve,
    ) -> None:
        self._classes = classes
        self._helpers = helpers
        self._savers = savers
        self._resolve = resolve
        self._verdicts: dict[str, _Verdict] = {}

    def for_file(self, uses: Iterable[tuple[str, str]], folder: str) -> ImportedClasses:
        """What the project says of each class and helper name a file uses, where it says anything."""
        classes, helpers, savers = [], [], []
        for spelled, target in uses:
            key = self._resolve(target, folder)
            if key is None:
                continue
            if key in self._savers:  # a function or a class (its instances save when called)
                savers.append((spelled, self._savers[key]))
            if key in self._helpers:
                helpers.append((spelled, self._helpers[key]))
            elif key in self._classes:
                verdict = self.verdict(key)
                if verdict.module is not None:
                    found = ImportedClass(
                        verdict.module, verdict.places_itself, verdict.holds_no_tensors, verdict.replaces_without_cuda
                    )
                    classes.append((spelled, found))
        return ImportedClasses(tuple(sorted(classes)), tuple(sorted(helpers)), tuple(sorted(savers)))

    def verdict(self, key: str, depth: int = 0) -> _Verdict:
        known = self._verdicts.get(key)
        if known is not None:
            return known
        entry, folder = self._classes[key]
        if depth > _MAX_DEPTH:
            return _Verdict(None, entry.places_itself)
        self._verdicts[key] = _Verdict(None, entry.places_itself)  # a cycle decides nothing
        bases = [self._base(base, key, folder, depth) for base in entry.bases]
        places_itself = entry.places_itself or any(base.places_itself for base in bases)
        replaces = entry.replaces_without_cuda
        if any(base.module for base in bases):
            holds_none = entry.keeps_no_tensors and all(base.holds_no_tensors for base in bases)
            verdict = _Verdict(True, places_itself, holds_none, replaces)
        elif all(base.module is False for base in bases):
            verdict = _Verdict(False, places_itself, replaces_without_cuda=replaces)
        else:
            verdict = _Verdict(None, places_itself, replaces_without_cuda=replaces)
        self._verdicts[key] = verdict
        return verdict

    def _base(self, base: str, key: str, folder: str, depth: int) -> _Verdict:
        if base in api.MODULE_BASES or api.is_module_class(base):
            return _Verdict(True, False, holds_no_tensors=_torch_class_holds_no_tensors(base))
        if base in api.PLAIN_BASES:
            return _Verdict(False, False)
        resolved = self._resolve(base, folder) if base else None
        if resolved is None or resolved == key:
            return _Verdict(None, False)
        return self.verdict(resolved, depth + 1)


def _torch_class_holds_no_tensors(base: str) -> bool:
    """``nn.Module`` itself, or one of torch's modules that holds no state whatever it is given
    (``nn.MSELoss``; not ``nn.CrossEntropyLoss``, which may keep a ``weight``)."""
    if base in api.NN_MODULE:
        return True
    return base in api.STATELESS_MODULES and base not in api.MODULES_WITH_OPTIONAL_STATE


def imported_classes(files: Iterable[tuple[str, FileClasses]]) -> dict[str, ImportedClasses]:
    """What the project says of the class names each file (by relative path) uses, for the files
    it says anything to."""
    files = list(files)
    classes = {
        f"{module_name(path)}.{entry.name}": (entry, importing_package(path))
        for path, found in files
        for entry in found.entries
    }
    helpers = {
        f"{module_name(path)}.{entry.name}": ImportedHelper(entry.returns, path, entry.parameters, entry.kinds)
        for path, found in files
        for entry in found.helpers
    }
    savers = {
        f"{module_name(path)}.{entry.name}": ImportedSaver(entry.saves_under, path)
        for path, found in files
        for entry in found.savers
    }
    if not classes and not helpers and not savers:
        return {}
    exports = {module_name(path): dict(found.exports) for path, found in files if found.exports}
    resolve = Resolver({**classes, **helpers, **savers}, exports).resolve
    project = ProjectClasses(classes, helpers, savers, resolve)
    told = {path: project.for_file(found.uses, importing_package(path)) for path, found in files if found.uses}
    return {
        path: imported for path, imported in told.items() if imported.classes or imported.helpers or imported.savers
    }
