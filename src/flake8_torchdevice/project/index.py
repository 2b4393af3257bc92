"""What one file of a project shows about running without CUDA, read with ``ast``: plain data.

The index reads every Python file of the project, not only the files being linted and not only
those that mention torch: a launcher that exits without a GPU, or a config whose device option
defaults to the CPU, decides about code elsewhere. It parses with ``ast`` (about a tenth of a
libcst parse) and keeps no syntax tree: a ``FileIndex`` is names, lines and counts, so that it can
be stored and compared.

Evidence that the code runs without CUDA (``SUPPORTS``; the kinds are in evidence.py): a device
chosen by CUDA's availability with the CPU as the other choice, a load onto the CPU, a CPU
command-line option (or CUDA as an opt-in), a device parameter that defaults to the CPU, tests
skipped where CUDA is missing. Evidence that it does not (``REQUIRES``): a program that stops
without CUDA, NCCL as the only backend, CUDA kernels it compiles (``CUDAExtension``,
``cpp_extension.load`` of ``.cu`` sources), an unconditional import of a CUDA-only library, a
module docstring that says so.
"""

from __future__ import annotations

import ast
import bisect
import contextlib
import itertools
import posixpath
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from typing import cast

from ..knowledge import api
from .classes import NO_CLASSES, FileClasses, read_classes
from .cuda_tests import CUDA_DEVICE, mentions_cuda, negated
from .evidence import (
    BENCHMARKS_THE_GPU,
    CALLS_A_GPU_ONLY_API,
    CPU_DEFAULT,
    CPU_LOAD,
    CPU_OPTION,
    CUDA_EXTENSION,
    CUDA_ONLY_IMPORT,
    DEVICE_OPTION,
    DISTRIBUTED_STOPS_WITHOUT_CUDA,
    FALLBACK,
    KERNELS_ON_IMPORT,
    NAMED_FOR_THE_GPU,
    NCCL_ONLY,
    NCCL_PROGRAM,
    NOT_READ,
    SAVES_CPU_TENSORS,
    SAVES_OPTIMIZER_STATE,
    SAVES_TENSORS,
    SAYS_IT_NEEDS_CUDA,
    SKIPS_WITHOUT_CUDA,
    STOPS_WITHOUT_CUDA,
    SUPPORTS,
    TRAINS_ON_GPUS,
    UNCHECKED_CUDA,
    Evidence,
)
from .layout import importing_package, module_name
from .names import dotted, names_the_cpu, qualified
from .nodes import DEFINITIONS, descendants
from .references import NO_REFERENCES, FileReferences, read_references

# A notebook name that says it is about the GPU: ``gpu``, ``gpus``, ``multi_gpu``, ``cuda`` as a
# word of it (``use-gpu``, ``multiple-gpus``, ``cuda_basics``), not inside another (``pycuda``).
_NAMED_FOR_THE_GPU = re.compile(r"(^|[^a-z])(multi_?)?(gpus?|cuda)([^a-z]|$)", re.IGNORECASE)
# A path that says it holds a benchmark or a profiler (``benchmark/fwdbench.py``, ``profile_gpu.py``).
_NAMED_FOR_A_BENCHMARK = re.compile(r"(^|[/_-])(bench(mark)?s?|profil(e|er|ing))([/_.-]|$)", re.IGNORECASE)
# Libraries with no CPU implementation at all, or that install only where an NVIDIA GPU is
# (Isaac Gym's system requirements name one): importing one unconditionally needs a GPU.
# torch.utils.cpp_extension's loaders, by their last names: given ``.cu`` sources, they compile CUDA kernels.
_EXTENSION_LOADERS = frozenset(loader.rsplit(".", 1)[-1] for loader in api.CUDA_SOURCE_LOADERS)
_EXIT_FUNCTIONS = frozenset({"sys.exit", "exit", "quit", "os._exit", "os.abort"})
_SKIP_FUNCTIONS = frozenset({"skipif", "skipIf", "skipUnless", "skip", "skipTest"})
# Options handed on whole, to be read as keyword arguments elsewhere.
_HANDS_ON_OPTIONS = re.compile(r"\*\*\s*(vars\(|\w+\.__dict__)")
_CUDA_OPT_IN = re.compile(r"^--?(use[-_])?(cuda|gpu)$", re.IGNORECASE)
# What a call that needs a GPU raises without one: a ``try`` catching it has a CPU path.
_GPU_FAILURES = frozenset({"AttributeError", "RuntimeError", "AssertionError", "Exception", "BaseException"})
# Devices that hold results rather than compute: mmengine's ``collect_device="cpu"`` gathers the
# evaluation results there on GPU runs too, an ``offload_device`` or ``cache_device`` keeps
# tensors off the GPU. A CPU default there says nothing of where the code runs.
_HOLDING_DEVICE = re.compile(r"(collect|gather|offload|cache|storage|output|result|host|buffer)_?device")
# A GPU option whose help names the value that selects the CPU: ``--ngpu`` with "0 = CPU.",
# ``--gpu_ids`` with "use -1 for CPU".
_HELP_SELECTS_CPU = re.compile(r"['\"]?(-1|\b0)['\"]?\s*(=|:|for|means|is)\s*(the\s+)?cpu\b", re.IGNORECASE)
_NAMES_A_DEVICE = re.compile(r"gpu|cuda|device", re.IGNORECASE)
# A device of any kind: "cuda" or "device" anywhere (``is_cuda``, ``self.device``), a move
# (``.to(``), or one of the short names as a word (not "input", "output"). A file without any
# places nothing anywhere but on the CPU, and takes no device from elsewhere. Substring tests
# first: a regular expression over every file of a project costs as much as parsing the few that
# hold evidence, so it runs only on a file that holds a short name as a substring.
_DEVICE_WORDS = ("cuda", "device", "accelerator", ".to(")
_SHORT_DEVICE_NAMES = ("mps", "gpu", "xla", "tpu", "xpu", "npu", "hpu")
_SHORT_DEVICE_NAME = re.compile(r"(?<![a-z0-9])(mps|gpus?|xla|tpu|xpu|npu|hpu)(?![a-z])")
# ``if __name__ == "__main__":``, in either quotes: the file may run as a program.
_RUNS_AS_A_PROGRAM = re.compile(r"""^if\s+__name__\s*==\s*['"]__main__['"]\s*:""", re.MULTILINE)
# An import at the start of a line: unconditional, at the module's top level.
_TOP_LEVEL_IMPORT = re.compile(r"^(?:from|import)[ \t]+([A-Za-z_]\w*)", re.MULTILINE)
# Every kind of evidence names one of these (a device, a CUDA check, a CUDA-only library or
# kernel, a load's map_location): a file without any shows nothing, and is not parsed. Plain
# substring tests: a regular expression over every file costs more than the parse it saves.
_EVIDENCE_WORDS = (
    "cuda", "cpu", "gpu", "nccl", "map_location", "cpp_extension", ".cu", "trt", "device_ids", "fsdp", "pin_memory",
    "init_process_group", "save", *sorted(library.lower() for library in api.CUDA_ONLY_LIBRARIES),
)  # fmt: skip
TEST_FILE = re.compile(r"(^|/)(tests?/|test_[^/]*$|[^/]*_test\.py$|conftest\.py$)")
_DISTRIBUTED_SETUP_NAME = r"(init|setup)_distributed\w*"
_DISTRIBUTED_SETUP = re.compile(rf"^{_DISTRIBUTED_SETUP_NAME}$")
# Methods of training frameworks that write a checkpoint (Lightning, Accelerate, Ignite, DeepSpeed),
# and the objects whose ``save`` does (``accelerator.save``, ``fabric.save``, ``xm.save`` for TPUs).
_CHECKPOINT_METHODS = frozenset({"save_checkpoint", "save_state", "save_model"})
_SAVING_FRAMEWORKS = frozenset({"accelerator", "fabric", "xm", "trainer"})
# What a backend is chosen by when it is chosen by operating system (Gloo for Windows, NCCL elsewhere).
_OPERATING_SYSTEM = frozenset({"os.name", "sys.platform", "platform.system"})
_ENTRY_FUNCTION = re.compile(rf"^(main|_main|run|cli|train|setup|{_DISTRIBUTED_SETUP_NAME})$")
# A name in a test that a run is one of several processes: ``if ddp:``, ``if args.distributed:``,
# ``if world_size > 1:``.
_DISTRIBUTED_NAME = re.compile(r"^(\w*_)?(ddp|distributed|world_size)(_\w*)?$", re.IGNORECASE)


def _copied_to_the_cpu(saved: ast.expr) -> bool:
    """Every value a save writes is a copy to the CPU: ``x.cpu()``, ``net.cpu().state_dict()``,
    ``{k: v.cpu() for k, v in state.items()}``, a dict or list of such copies and constants; not
    ``{"model": model.state_dict(), "sample": x.cpu()}``, whose state dict may be on a GPU."""
    if isinstance(saved, ast.Dict):
        return (
            all(value is not None and _copied_or_constant(value) for value in saved.values) and None not in saved.keys
        )
    if isinstance(saved, (ast.List, ast.Tuple)):
        return all(_copied_or_constant(element) for element in saved.elts)
    if isinstance(saved, ast.DictComp):
        return _copied_to_the_cpu(saved.value)
    if isinstance(saved, (ast.ListComp, ast.GeneratorExp)):
        return _copied_to_the_cpu(saved.elt)
    while isinstance(saved, (ast.Call, ast.Attribute)):  # down the chain: ``x.detach().cpu().numpy()``
        if isinstance(saved, ast.Call) and isinstance(saved.func, ast.Attribute) and saved.func.attr == "cpu":
            return True
        saved = saved.func if isinstance(saved, ast.Call) else saved.value
    return False


def _copied_or_constant(value: ast.expr) -> bool:
    return isinstance(value, ast.Constant) or _copied_to_the_cpu(value)


def _rewritten_on_the_cpu(body: list[ast.stmt], spelled: str, line: int) -> bool:
    """Before the save at ``line``, ``spelled`` was last bound to CPU copies (``state = {k:
    v.cpu() ...}``), or had each of its values replaced with one in a loop over it (KAIR's and
    BasicSR's ``for key, param in state_dict.items(): state_dict[key] = param.cpu()``), in a block
    that holds the save. A binding under a condition, or after the copies, leaves it unknown."""
    for block in reversed(_blocks_holding(body, line)):  # the innermost first
        earlier = [statement for statement in block if (statement.end_lineno or statement.lineno) < line]
        binding = [statement for statement in earlier if _binds(statement, spelled)]
        if binding:
            last = binding[-1]
            if isinstance(last, ast.For) and _over_the_items_of(last, spelled):
                return _replaces_each_value(last, spelled)
            return isinstance(last, ast.Assign) and _copied_to_the_cpu(last.value)
    return False


def _binds(statement: ast.stmt, spelled: str) -> bool:
    """Does the statement bind ``spelled`` anywhere in it, or loop over its items?"""
    if isinstance(statement, ast.For) and _over_the_items_of(statement, spelled):
        return True
    assignments = (node for node in ast.walk(statement) if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)))
    return any(dotted(target) == spelled for node in assignments for target in _targets(node))


def _blocks_holding(body: list[ast.stmt], line: int) -> list[list[ast.stmt]]:
    """The lists of statements that hold the statement at ``line``, from ``body`` inwards."""
    for statement in body:
        if statement.lineno <= line <= (statement.end_lineno or statement.lineno):
            inner = [getattr(statement, name, None) for name in ("body", "orelse", "finalbody")]
            inner += [handler.body for handler in getattr(statement, "handlers", ())]
            for block in inner:
                if isinstance(block, list) and block and block[0].lineno <= line <= (block[-1].end_lineno or line):
                    return [body, *_blocks_holding(block, line)]
    return [body]


def _over_the_items_of(loop: ast.For, spelled: str) -> bool:
    """``for key, value in <spelled>.items():``."""
    items = loop.iter
    return (
        isinstance(items, ast.Call)
        and isinstance(items.func, ast.Attribute)
        and items.func.attr == "items"
        and dotted(items.func.value) == spelled
        and isinstance(loop.target, ast.Tuple)
        and len(loop.target.elts) == 2
    )


def _replaces_each_value(loop: ast.For, spelled: str) -> bool:
    """The loop sets ``<spelled>[...]`` to a CPU copy of the value it iterates, at its top level."""
    value = cast(ast.Tuple, loop.target).elts[1]
    for statement in loop.body:
        if isinstance(statement, ast.Assign) and len(statement.targets) == 1:
            target = statement.targets[0]
            copied = _copied_to_the_cpu(statement.value) and _names_within(statement.value, value)
            if isinstance(target, ast.Subscript) and dotted(target.value) == spelled and copied:
                return True
    return False


def _names_within(expression: ast.expr, name: ast.expr) -> bool:
    return isinstance(name, ast.Name) and any(
        isinstance(node, ast.Name) and node.id == name.id for node in ast.walk(expression)
    )


def _an_optimizers_state(saved: ast.expr) -> bool:
    """``optimizer.state_dict()``, ``self.optimizer_G.state_dict()``: a save for resuming training,
    of tensors wherever the optimizer kept them."""
    if not (isinstance(saved, ast.Call) and isinstance(saved.func, ast.Attribute) and saved.func.attr == "state_dict"):
        return False
    return api.names_an_optimizer(dotted(saved.func.value) or "")


def _saves_through_a_framework(name: str, method: str) -> bool:
    """``trainer.save_checkpoint(path)``, ``accelerator.save(state, path)``: a checkpoint of the
    trainer's own, which holds tensors wherever they were (not ``image.save(path)``)."""
    receiver = name.rsplit(".", 2)[-2].lower() if name.count(".") >= 1 else ""
    return method in _CHECKPOINT_METHODS or (method == "save" and receiver in _SAVING_FRAMEWORKS)


def _sets_up_distributed(body: list[ast.stmt]) -> bool:
    """Does a function set up a process group on every run: a statement of its own body, not in a
    branch, that calls ``init_distributed_mode(args)`` or ``dist.init_process_group(...)``? One
    under ``if args.distributed:`` leaves the single-process run, which the stop refuses too."""
    for statement in body:
        call = statement.value if isinstance(statement, (ast.Expr, ast.Assign)) else None
        if not isinstance(call, ast.Call):
            continue
        func = call.func
        name = func.attr if isinstance(func, ast.Attribute) else func.id if isinstance(func, ast.Name) else ""
        if name == "init_process_group" or _DISTRIBUTED_SETUP.match(name):
            return True
    return False


def _tests_distributed(test: ast.expr) -> bool:
    """Does the test name the distributed mode: a variable, an attribute, a method, or a key
    (``os.environ["WORLD_SIZE"]``)?"""
    return any(_DISTRIBUTED_NAME.match(name) is not None for name in map(_named, descendants(test)) if name)


def _named(node: ast.AST) -> str | None:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


@dataclass(frozen=True)
class Definition:
    """A top-level function, or a top-level class's constructor, that uses CUDA where its callers
    may decide about it: a parameter whose default names CUDA, or a CUDA use outside any CUDA
    check in its body. What the project's calls of it do (project/callers.py) may settle both."""

    name: str  # the function's, or the class's
    parameters: tuple[str, ...]  # those a call fills by position first, in order (``self`` left out)
    positional: int  # how many of ``parameters`` a call can fill by position
    cuda_defaults: tuple[str, ...] = ()
    uses_cuda: bool = False


@dataclass(frozen=True)
class FileIndex:
    path: str
    package: str
    evidence: tuple[Evidence, ...] = ()
    cuda_uses: int = 0  # hard-coded CUDA devices: ``.cuda()``, ``"cuda"`` as a device
    guarded_cuda_uses: int = 0  # of those, the ones under a test that mentions CUDA
    # Names a device or an accelerator anywhere (CUDA, MPS, a GPU, ``device``, ``.to(``): a
    # project none of whose files does never puts anything on an accelerator.
    mentions_accelerator: bool = False
    # The modules it imports unconditionally at its top level (first name, line): a package that
    # imports one of the project's CUDA-only packages needs CUDA too.
    imports: tuple[tuple[str, int], ...] = ()
    definitions: tuple[Definition, ...] = ()
    classes: FileClasses = NO_CLASSES
    # What it defines at its top level and every name it refers to (project/references.py).
    references: FileReferences = NO_REFERENCES
    # The modules its unconditional imports at its top name (dotted, relative ones resolved, with
    # the line): a module of the project that cannot be imported without CUDA makes the file need
    # CUDA too (inference.file_beliefs). And the modules its other imports name (in a function, a
    # ``try``, an ``if``): it may run them too.
    module_imports: tuple[tuple[str, int], ...] = ()
    other_imports: tuple[tuple[str, int], ...] = ()
    # ``if __name__ == "__main__":``: it may run as a program, not only as an importer's module.
    runs_as_a_script: bool = False


def index_source(source: str, path: str, package: str) -> FileIndex:
    """The index of one file; a file that does not parse shows nothing. Only a file that names
    one of the things evidence is made of is searched for evidence (most files are not), and
    only one that defines or imports something is parsed at all."""
    lowered = source.lower()
    mentions_accelerator = _names_a_device(lowered)
    imports = _top_level_imports(source)
    shows_evidence = any(word in lowered for word in _EVIDENCE_WORDS)
    if not shows_evidence and "class " not in source and "import " not in source:
        return FileIndex(path, package, mentions_accelerator=mentions_accelerator, imports=imports)
    try:
        tree = ast.parse(source)
        return _index_tree(tree, source, lowered, path, package, shows_evidence, mentions_accelerator, imports)
    except Exception:  # does not parse, or a fault of a reader here: the file is unknown, the run goes on
        # What it refers to is unknown, so what it may call is too, and what it saves.
        unknown = FileReferences(reaches_any=True)
        not_read = (Evidence(NOT_READ, path, 1),)
        return FileIndex(
            path, package, not_read, mentions_accelerator=mentions_accelerator, imports=imports, references=unknown
        )


def _index_tree(
    tree: ast.Module,
    source: str,
    lowered: str,
    path: str,
    package: str,
    shows_evidence: bool,
    mentions_accelerator: bool,
    imports: tuple[tuple[str, int], ...],
) -> FileIndex:
    """The index of a parsed file (``index_source``); ``lowered`` is its source in lower case."""
    imports_read = read_imports(tree, importing_package(path))
    aliases, loaded, lazily = imports_read.aliases, imports_read.at_top, imports_read.elsewhere
    classes, references = NO_CLASSES, FileReferences(reaches_any=True)
    with contextlib.suppress(RecursionError):
        classes, references = _read_definitions(tree, imports_read, path)
    if not shows_evidence:
        return FileIndex(
            path,
            package,
            mentions_accelerator=mentions_accelerator,
            imports=imports,
            classes=classes,
            references=references,
            module_imports=loaded,
            other_imports=lazily,
            runs_as_a_script=_RUNS_AS_A_PROGRAM.search(source) is not None,
        )
    reader = _Reader(path, aliases, lines_with_words(lowered, _EVIDENCE_WORDS))
    with contextlib.suppress(RecursionError):  # deeper than Python's own limit: what was read stands
        reader.visit(tree)
    reader.read_what_the_file_says(tree)
    unread = _unread_options(source, reader.options)
    return FileIndex(
        path,
        package,
        tuple(item for item in reader.evidence if item.kind != CPU_OPTION or item.line not in unread),
        reader.cuda_uses,
        reader.guarded_cuda_uses,
        mentions_accelerator,
        imports,
        tuple(reader.definitions.values()),
        classes,
        references,
        loaded,
        lazily,
        _RUNS_AS_A_PROGRAM.search(source) is not None,
    )


def _read_definitions(tree: ast.Module, imports: FileImports, path: str) -> tuple[FileClasses, FileReferences]:
    """The file's classes and helpers, and what it defines and refers to: one walk of its nodes serves both."""
    # Each top-level statement's nodes apart: a definition that names itself (``super(Net, self)``,
    # a recursive call) does not refer to itself (read_references).
    parts = [descendants(statement) for statement in tree.body]
    nodes = [node for part in parts for node in part]
    module = module_name(path)
    classes = read_classes(tree, nodes, imports.aliases, module, path.endswith("__init__.py"))
    called_by_name = TEST_FILE.search(path) is not None or path.rsplit("/", 1)[-1] == "hubconf.py"
    return classes, read_references(tree, parts, imports.aliases, imports.every, module, imports.stars, called_by_name)


def _unread_options(source: str, options: dict[int, str]) -> frozenset[int]:
    """The lines of the CPU options a script parses and never reads (``--cuda`` with no
    ``opt.cuda`` anywhere): a flag the code ignores says nothing about where it runs. Only a file
    that parses its arguments itself and hands none of them on whole (``**vars(args)``) is judged:
    a module that defines a parser for others reads nothing of it."""
    if not options or "parse_args(" not in source or _HANDS_ON_OPTIONS.search(source):
        return frozenset()
    return frozenset(line for line, dest in options.items() if not _reads_option(source, dest))


def _reads_option(source: str, dest: str) -> bool:
    """``opt.cuda`` (not ``torch.cuda`` or ``x.cuda()``), ``opt["cuda"]``, ``getattr(opt, "cuda")``."""
    name = re.escape(dest)
    quoted = rf"['\"]{name}['\"]"
    pattern = rf"(?<!torch)\.{name}\b(?!\s*\()|\[\s*{quoted}\s*\]|getattr\([^)]*{quoted}"
    return re.search(pattern, source) is not None


def _names_a_device(lowered: str) -> bool:
    if any(word in lowered for word in _DEVICE_WORDS):
        return True
    held = any(name in lowered for name in _SHORT_DEVICE_NAMES)
    return held and _SHORT_DEVICE_NAME.search(lowered) is not None


def _top_level_imports(source: str) -> tuple[tuple[str, int], ...]:
    return tuple(
        (match.group(1), source.count("\n", 0, match.start()) + 1) for match in _TOP_LEVEL_IMPORT.finditer(source)
    )


def lines_with_words(text: str, words: Iterable[str]) -> list[int]:
    """How many of the first N lines name one of ``words``, for each N: a statement whose lines
    name none is not walked (``names_a_word``)."""
    ends = list(itertools.accumulate(len(line) for line in text.splitlines(keepends=True)))
    marked = bytearray(len(ends) + 1)
    for word in words:
        found = text.find(word)
        while found != -1:
            marked[bisect.bisect_right(ends, found) + 1] = 1
            found = text.find(word, found + 1)
    return list(itertools.accumulate(marked))


def names_a_word(statement: ast.stmt, counts: list[int]) -> bool:
    """Whether the lines of ``statement``, its decorators included, name a word ``counts``
    (``lines_with_words``) counts."""
    decorators = getattr(statement, "decorator_list", ())
    first = min([statement.lineno, *(decorator.lineno for decorator in decorators)])
    last = statement.end_lineno or statement.lineno
    return counts[min(last, len(counts) - 1)] != counts[first - 1]


def _statements(body: list[ast.stmt], enter_scopes: bool = True) -> Iterator[ast.stmt]:
    """Every statement, nested ones too (not expressions: imports are statements); without
    ``enter_scopes``, not those of the functions and classes defined in ``body``."""
    pending = list(body)
    while pending:
        statement = pending.pop()
        yield statement
        if enter_scopes or not isinstance(statement, DEFINITIONS):
            for name in ("body", "orelse", "finalbody", "handlers"):
                pending.extend(getattr(statement, name, ()))


@dataclass(frozen=True)
class FileImports:
    """What a file's imports stand for, read in one walk of its statements (relative imports are
    read from ``package``, ``layout.importing_package``)."""

    # Local name -> dotted name it stands for (one per local name).
    aliases: dict[str, str]
    # What every import stands for, each one: a script that imports ``train_epoch_dense as
    # train_epoch`` in one branch and ``train_epoch_sparse as train_epoch`` in the other refers to both.
    every: frozenset[str]
    # The modules the imports name, with their lines (``from m import f`` names ``m`` and, where
    # ``f`` is a submodule, ``m.f``): those at the file's top, not in a ``try``, an ``if`` or a
    # function, and the others.
    at_top: tuple[tuple[str, int], ...]
    elsewhere: tuple[tuple[str, int], ...]
    # The modules ``from m import *`` reads (``try: from .cuda_ops import *`` too).
    stars: tuple[str, ...]


def read_imports(tree: ast.Module, package: str) -> FileImports:
    top = {id(node) for node in tree.body}
    aliases: dict[str, str] = {}
    every: set[str] = set()
    at_top: list[tuple[str, int]] = []
    elsewhere: set[tuple[str, int]] = set()
    stars: list[str] = []
    for node in _statements(tree.body):
        if isinstance(node, ast.Import):
            for alias in node.names:
                local = alias.asname or alias.name.split(".")[0]
                aliases[local] = alias.name if alias.asname else local
            imported = [alias.name for alias in node.names]
            every.update(imported)
            modules = imported
        elif isinstance(node, ast.ImportFrom):
            source = _absolute(node.module, node.level, package)
            stars.extend(source or "" for alias in node.names if alias.name == "*")
            if not source:
                continue
            for alias in node.names:
                aliases[alias.asname or alias.name] = f"{source}.{alias.name}"
            every.update(f"{source}.{alias.name}" for alias in node.names)
            modules = [source, *(f"{source}.{alias.name}" for alias in node.names if alias.name != "*")]
        else:
            continue
        if id(node) in top:
            at_top.extend((name, node.lineno) for name in modules)
        else:
            elsewhere.update((name, node.lineno) for name in modules)
    return FileImports(aliases, frozenset(every), tuple(at_top), tuple(sorted(elsewhere)), tuple(stars))


def _absolute(module: str | None, level: int, package: str) -> str | None:
    """The module ``from <level dots><module> import ...`` reads, in ``package``; None above the root."""
    if not level:
        return module
    parts = package.split(".") if package else []
    if level - 1 > len(parts):
        return None
    return ".".join([*parts[: len(parts) - (level - 1)], *([module] if module else [])])


@dataclass
class _Definer:
    """A ``Definition`` being read: its body's CUDA uses are found as the reader walks it."""

    name: str
    parameters: tuple[str, ...]
    positional: int
    cuda_defaults: tuple[str, ...]
    uses_cuda: bool = False

    def read(self) -> Definition:
        return Definition(self.name, self.parameters, self.positional, self.cuda_defaults, self.uses_cuda)


@dataclass
class _Reader(ast.NodeVisitor):
    path: str
    aliases: dict[str, str]
    lines_with_words: list[int]  # lines_with_words
    evidence: list[Evidence] = field(default_factory=list)
    cuda_uses: int = 0
    guarded_cuda_uses: int = 0
    # Top-level functions and classes that callers elsewhere may decide about, by name.
    definitions: dict[str, Definition] = field(default_factory=dict)
    _guards: int = 0  # how many tests that mention CUDA enclose the current node
    _depth: int = 0  # statements nested in a def, class, try or if: imports there are optional
    _functions: list[str] = field(default_factory=list)  # the enclosing functions' names
    _distributed: int = 0  # how many ``if ddp:`` bodies enclose the current node
    _main: bool = False  # walking the body of the module's ``if __name__ == "__main__":``
    _class: str | None = None  # the top-level class whose body is walked
    _defining: _Definer | None = None  # the definition whose body is walked
    options: dict[int, str] = field(default_factory=dict)  # a CPU option's line: its ``args.`` name
    measured_the_gpu: int | None = None  # the line of the first unguarded ``api.GPU_MEASUREMENTS`` call
    _bodies: list[list[ast.stmt]] = field(default_factory=list)  # the module's, then each enclosing function's

    def visit(self, node: ast.AST) -> None:
        if isinstance(node, ast.stmt) and not names_a_word(node, self.lines_with_words):
            return  # no evidence word on its lines
        super().visit(node)

    # ------------------------------------------------------------------ helpers
    def qualified(self, node: ast.AST) -> str | None:
        return qualified(node, self.aliases)

    def mentions_cuda(self, test: ast.AST) -> bool:
        return mentions_cuda(test, self.aliases)

    def checks_availability(self, test: ast.AST, checks: frozenset[str] = api.AVAILABILITY_CHECKS) -> bool:
        """A test that calls an availability check (``torch.cuda.is_available()``, one of
        ``checks``), not only a name about CUDA: an option (``args.cuda``) says what the user
        chose, not what runs."""
        calls = (node for node in ast.walk(test) if isinstance(node, ast.Call))
        return any(self.qualified(call.func) in checks for call in calls)

    def runs_on_every_run(self) -> bool:
        """The program's own code outside any condition: the module's top, or the top of its
        ``if __name__ == "__main__":`` block."""
        return not self._functions and (self._depth == 0 or (self._depth == 1 and self._main))

    def at_entry_point(self) -> bool:
        """Where a stop ends the program rather than refuse one feature: the module's own code or
        a ``main``-like function, outside tests (whose stops are skips by another name)."""
        if TEST_FILE.search(self.path):
            return False
        return not self._functions or _ENTRY_FUNCTION.match(self._functions[-1]) is not None

    def stop_kind(self) -> str:
        """A stop in a distributed set-up refuses that mode only (a sign of needing CUDA, weighed
        against the package's signs of CPU support), as does one in a function that sets one up
        (a multi-GPU script's ``main`` that stops, then calls ``init_distributed_mode``); anywhere
        else it ends the program."""
        if self._distributed or (self._functions and _DISTRIBUTED_SETUP.match(self._functions[-1])):
            return DISTRIBUTED_STOPS_WITHOUT_CUDA
        if self._functions and _sets_up_distributed(self._bodies[-1]):
            return DISTRIBUTED_STOPS_WITHOUT_CUDA
        return STOPS_WITHOUT_CUDA

    def stops_the_program(self, body: list[ast.stmt]) -> bool:
        if exits(body, self.aliases):
            return not TEST_FILE.search(self.path)
        return self.at_entry_point() and any(isinstance(statement, ast.Raise) for statement in body)

    def _moves_only_where_cuda_is(self, node: ast.If) -> bool:
        """``if torch.cuda.is_available(): x = x.cuda()``, with no ``else`` that stops: the data stays
        on the CPU without CUDA. Not under a count of GPUs (``device_count() > 1``: several of them)."""
        asks = self.checks_availability(node.test, api.IS_AVAILABLE)
        stops = self.stops_the_program(node.orelse) or any(
            isinstance(statement, ast.Raise) for statement in node.orelse
        )
        moves = _moves_to_cuda(node.body) and not _moves_back(self._bodies[-1], node)
        return asks and not negated(node.test) and not stops and moves

    def found(self, kind: str, node: ast.AST) -> None:
        self.evidence.append(Evidence(kind, self.path, getattr(node, "lineno", 1)))

    def _guarded(self, test: ast.AST, parts: list[ast.AST], in_a_job: int = 0) -> None:
        """Visits ``parts`` under ``test``; the first ``in_a_job`` of them run in a multi-process
        job only."""
        self.visit(test)
        guards = self.mentions_cuda(test)
        self._guards += guards
        for index, part in enumerate(parts):
            inside = index < in_a_job
            self._distributed += inside
            self.visit(part)
            self._distributed -= inside
        self._guards -= guards

    def visit_Module(self, node: ast.Module) -> None:
        self._bodies.append(node.body)
        self.generic_visit(node)

    def _nested(self, node: ast.AST) -> None:
        self._depth += 1
        self.generic_visit(node)
        self._depth -= 1

    # ------------------------------------------------------------------ statements
    def visit_If(self, node: ast.If) -> None:
        if self.mentions_cuda(node.test):
            if negated(node.test) and skips(node.body, self.aliases):
                self.found(SKIPS_WITHOUT_CUDA, node)
            elif negated(node.test) and self.checks_availability(node.test) and self.stops_the_program(node.body):
                self.found(self.stop_kind(), node)
            falls_back = _assigns_cpu(node.body + node.orelse) or self._moves_only_where_cuda_is(node)
            if falls_back and not _asks_where_a_tensor_is(node.test):
                self.found(FALLBACK, node)  # ``device = "cpu"`` in a branch, or data left there without CUDA
        main, self._main = self._main, self._depth == 0 and _tests_main(node.test)
        self._depth += 1
        self._guarded(node.test, [*node.body, *node.orelse], len(node.body) if _tests_distributed(node.test) else 0)
        self._depth -= 1
        self._main = main

    def visit_IfExp(self, node: ast.IfExp) -> None:
        falls_back = names_the_cpu(node.body) or names_the_cpu(node.orelse)
        if falls_back and self.mentions_cuda(node.test) and not _asks_where_a_tensor_is(node.test):
            self.found(FALLBACK, node)
        self._guarded(node.test, [node.body, node.orelse])

    def visit_Assert(self, node: ast.Assert) -> None:
        test = node.test
        if isinstance(test, ast.Call) and self.checks_availability(test) and self.at_entry_point():
            self.found(self.stop_kind(), node)  # ``assert torch.cuda.is_available()``
        self.generic_visit(node)

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef) -> None:
        arguments = node.args
        named = [*arguments.posonlyargs, *arguments.args]
        defaults = list(zip(named[len(named) - len(arguments.defaults) :], arguments.defaults))
        defaults += [(arg, default) for arg, default in zip(arguments.kwonlyargs, arguments.kw_defaults) if default]
        if any(_computes_on(arg.arg) and names_the_cpu(default) for arg, default in defaults):
            self.found(CPU_DEFAULT, node)
        definer = self._definer(node, defaults)
        self._functions.append(node.name)
        self._depth += 1
        for part in (*node.decorator_list, arguments, *([node.returns] if node.returns else [])):
            self.visit(part)
        fallback = self._returns_cpu_after_a_cuda_return(node.body)
        if fallback is not None:
            self.found(FALLBACK, fallback)
        outer = self._defining
        self._defining = definer or outer  # a nested function's uses are its definer's
        self._bodies.append(node.body)
        for statement in node.body:
            self.visit(statement)
        self._bodies.pop()
        self._defining = outer
        self._depth -= 1
        self._functions.pop()
        if definer is not None and (definer.cuda_defaults or definer.uses_cuda):
            self.definitions[definer.name] = definer.read()

    visit_AsyncFunctionDef = visit_FunctionDef

    def _returns_cpu_after_a_cuda_return(self, body: list[ast.stmt]) -> ast.If | None:
        """The ``if`` of a device picker that returns CUDA under a check and the CPU after it
        (``if torch.cuda.is_available(): return "cuda"`` ... ``return "cpu"``): the early-return
        spelling of ``"cuda" if available else "cpu"``."""
        check = None
        for statement in body:
            if check is None and isinstance(statement, ast.If) and self.mentions_cuda(statement.test):
                check = statement if _returns(statement.body) else None
            elif check is not None and isinstance(statement, ast.Return) and _assigns_cpu([statement]):
                return check
        return None

    def _definer(
        self, node: ast.FunctionDef | ast.AsyncFunctionDef, defaults: list[tuple[ast.arg, ast.expr]]
    ) -> _Definer | None:
        """A top-level function, or the constructor of a top-level class (whose calls name the
        class), outside any ``if`` or ``try``; not one named for CUDA, which the analysis takes
        for CUDA code whoever calls it."""
        constructor = self._class is not None and self._depth == 1 and node.name == "__init__"
        if not constructor and (self._depth != 0 or self._functions):
            return None
        name = self._class if constructor and self._class is not None else node.name
        if api.MENTIONS_CUDA.search(name):
            return None
        arguments = node.args
        positional = [arg.arg for arg in (*arguments.posonlyargs, *arguments.args)][constructor:]
        cuda_defaults = tuple(arg.arg for arg, default in defaults if _names_cuda(default))
        keyword_only = tuple(arg.arg for arg in arguments.kwonlyargs)
        return _Definer(name, (*positional, *keyword_only), len(positional), cuda_defaults)

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        outer = self._class
        self._class = node.name if self._depth == 0 else None
        self._nested(node)
        self._class = outer

    def visit_Assign(self, node: ast.Assign | ast.AnnAssign) -> None:
        if _is_cuda_string(node.value):  # ``device = "cuda"``, used further on
            self._used_cuda()
        self.generic_visit(node)

    visit_AnnAssign = visit_Assign

    def _what_a_save_holds(self, saved: ast.expr | None, line: int) -> str:
        """CPU copies (``x.cpu()``, a state dict the function rewrote with ``.cpu()`` copies), an
        optimizer's state (``optimizer.state_dict()``, wherever its tensors were), or tensors."""
        if saved is None:
            return SAVES_TENSORS
        if _copied_to_the_cpu(saved):
            return SAVES_CPU_TENSORS
        spelled = dotted(saved)
        if spelled is not None and _rewritten_on_the_cpu(self._bodies[-1], spelled, line):
            return SAVES_CPU_TENSORS
        return SAVES_OPTIMIZER_STATE if _an_optimizers_state(saved) else SAVES_TENSORS

    def nccl_without_a_cpu_choice(self, backend: ast.expr) -> bool:
        """Whether a process group's ``backend`` is NCCL wherever the code runs on Linux: ``"nccl"``, a
        name or attribute bound to it once earlier in the same function (``args.dist_backend = "nccl"``), or a
        choice by operating system (``"gloo" if os.name == "nt" else "nccl"``: Gloo only on Windows). A
        choice by CUDA's availability falls back; an option is the user's."""
        spelled = dotted(backend)
        if spelled is not None:
            bound = _only_binding(self._bodies[-1], spelled, backend.lineno)
            return bound is not None and self.nccl_without_a_cpu_choice(bound)
        if isinstance(backend, ast.IfExp):
            by_os = any(self.qualified(part) in _OPERATING_SYSTEM for part in ast.walk(backend.test))
            return (
                by_os
                and not self.mentions_cuda(backend.test)
                and any(self.nccl_without_a_cpu_choice(branch) for branch in (backend.body, backend.orelse))
            )
        return _constant(backend) == "nccl"

    def _used_cuda(self) -> None:
        """A CUDA use in the body of a definition: outside any CUDA check, its callers decide."""
        if self._defining is not None and self._guards == 0:
            self._defining.uses_cuda = True

    def visit_Try(self, node: ast.Try) -> None:
        # A ``try`` whose handler catches what a call needing a GPU raises (``AttributeError`` of a
        # CPU build of faiss, ``RuntimeError``, ``Exception``) guards its body: the CPU path is there.
        guards = any(_catches_a_missing_gpu(handler) for handler in node.handlers)
        self._depth += 1
        self._guards += guards
        for statement in node.body:
            self.visit(statement)
        self._guards -= guards
        for part in (*node.handlers, *node.orelse, *node.finalbody):
            self.visit(part)
        self._depth -= 1

    def visit_While(self, node: ast.While) -> None:
        self._nested(node)

    def visit_With(self, node: ast.With) -> None:
        self._nested(node)

    def visit_For(self, node: ast.For) -> None:
        self._nested(node)

    def visit_Import(self, node: ast.Import) -> None:
        if self._depth == 0 and any(alias.name.split(".")[0] in api.CUDA_ONLY_LIBRARIES for alias in node.names):
            self.found(CUDA_ONLY_IMPORT, node)

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        if self._depth == 0 and not node.level and (node.module or "").split(".")[0] in api.CUDA_ONLY_LIBRARIES:
            self.found(CUDA_ONLY_IMPORT, node)

    # ------------------------------------------------------------------ expressions
    def visit_Call(self, node: ast.Call) -> None:
        name = self.qualified(node.func) or ""
        method = node.func.attr if isinstance(node.func, ast.Attribute) else ""
        self._read_call(node, name, method)
        self.generic_visit(node)

    def _read_call(self, node: ast.Call, name: str, method: str) -> None:
        if name in api.SAVES:
            saved = node.args[0] if node.args else _keyword(node, "obj")
            self.found(self._what_a_save_holds(saved, node.lineno), node)
        elif _saves_through_a_framework(name, method):
            self.found(SAVES_TENSORS, node)
        elif name in api.LOADS_WITH_MAP_LOCATION:
            location = _keyword(node, "map_location")
            if location is None and len(node.args) > 1:
                location = node.args[1]
            if location is not None and (names_the_cpu(location) or isinstance(location, ast.Lambda)):
                self.found(CPU_LOAD, node)
        elif method == "add_argument":
            self._read_option(node)
        elif name.endswith("CUDAExtension") or (name.rsplit(".", 1)[-1] in _EXTENSION_LOADERS and _cuda_sources(node)):
            self.found(CUDA_EXTENSION, node)
            if self._depth == 0 and not name.endswith("CUDAExtension"):  # built by ``import``, not by setup.py
                self.found(KERNELS_ON_IMPORT, node)
        elif name.endswith("init_process_group") and self._guards == 0:
            backend = _keyword(node, "backend") or (node.args[0] if node.args else None)
            only_if_distributed = self._distributed or _returns_before(self._bodies[-1], node.lineno)
            if backend is not None and not only_if_distributed and self.nccl_without_a_cpu_choice(backend):
                self.found(NCCL_ONLY, node)
                if self.runs_on_every_run():
                    self.found(NCCL_PROGRAM, node)
        elif _trains_on_gpus_only(node) and self._guards == 0:
            self.found(TRAINS_ON_GPUS, node)
        elif _calls_a_gpu_only_api(name, node) and self._guards == 0:
            self.found(CALLS_A_GPU_ONLY_API, node)
        elif method.rsplit(".", 1)[-1] in _SKIP_FUNCTIONS and any(self.mentions_cuda(arg) for arg in node.args):
            self.found(SKIPS_WITHOUT_CUDA, node)
        if name in api.GPU_MEASUREMENTS and self._guards == 0 and self.measured_the_gpu is None:
            self.measured_the_gpu = node.lineno
        if name in api.NEEDS_GPU or _places_on_cuda(node, method):
            if self._guards == 0 and self.cuda_uses == self.guarded_cuda_uses:
                self.found(UNCHECKED_CUDA, node)  # the file's first one (none before it was unguarded)
            self.cuda_uses += 1
            self.guarded_cuda_uses += self._guards > 0
        checks = name in api.AVAILABILITY_CHECKS
        if _places_on_cuda(node, method) or (name.startswith("torch.cuda.") and not checks):
            self._used_cuda()  # ``.cuda()``, ``.to("cuda")``, ``torch.cuda.synchronize()``

    def _read_option(self, node: ast.Call) -> None:
        flags = [arg.value for arg in node.args if isinstance(arg, ast.Constant) and isinstance(arg.value, str)]
        default, action, help_text = (_keyword(node, name) for name in ("default", "action", "help"))
        if any(api.CPU_OPTION.match(flag) for flag in flags):
            self.found(CPU_OPTION, node)
        elif "--device" in flags and default is not None and names_the_cpu(default):
            self.found(CPU_DEFAULT, node)
        elif "--device" in flags:
            self.found(DEVICE_OPTION, node)
        elif any(_CUDA_OPT_IN.match(flag) for flag in flags) and _switches_cuda(_constant(action), _constant(default)):
            # CUDA is opt-in (the default run is on the CPU), or the flag turns it off
            # (awd-lstm-lm's ``--cuda``, ``store_false``: a run given it is on the CPU)
            self.found(CPU_OPTION, node)
        elif any(map(_NAMES_A_DEVICE.search, flags)) and _HELP_SELECTS_CPU.search(str(_constant(help_text))):
            self.found(CPU_OPTION, node)  # ``--ngpu`` "0 = CPU.": not ``--threads`` "0 = CPU count"
        else:
            return
        dest = _constant(_keyword(node, "dest"))
        long_flags = [flag for flag in flags if flag.startswith("--")] or flags
        self.options[node.lineno] = dest if isinstance(dest, str) else long_flags[0].lstrip("-").replace("-", "_")

    def read_what_the_file_says(self, tree: ast.Module) -> None:
        """The file's own words: a module docstring that says it needs CUDA, or a notebook whose
        name says it is about the GPU (a course's ``4.6_use-gpu.ipynb``), whose CUDA calls are
        the lesson, not a slip. A script's name says less: ``test_cuda_ops.py`` tests a fallback
        as often as it needs a GPU."""
        docstring = ast.get_docstring(tree)
        if docstring and api.NEEDS_CUDA.search(docstring):
            self.evidence.append(Evidence(SAYS_IT_NEEDS_CUDA, self.path, 1))
        stem, extension = posixpath.splitext(posixpath.basename(self.path))
        if extension == ".ipynb" and _NAMED_FOR_THE_GPU.search(stem):
            self.evidence.append(Evidence(NAMED_FOR_THE_GPU, self.path, 1))
        falls_back = any(item.kind in SUPPORTS for item in self.evidence)
        if self.measured_the_gpu is not None and _NAMED_FOR_A_BENCHMARK.search(self.path) and not falls_back:
            self.evidence.append(Evidence(BENCHMARKS_THE_GPU, self.path, self.measured_the_gpu))


def _switches_cuda(action: object, default: object) -> bool:
    """Does a ``--cuda`` flag switch anything: not ``store_true`` with ``default=True`` (MedicalZoo's
    scripts), which is true with the flag and without it."""
    return action == "store_false" or (action == "store_true" and not api.never_false(action, default))


def _calls_a_gpu_only_api(name: str, node: ast.Call) -> bool:
    """``faiss.StandardGpuResources()``, ``faiss.Kmeans(d, k, gpu=True)``: another library's call that
    needs a GPU (``api.GPU_ONLY_LIBRARY_CALLS``)."""
    keyword = api.GPU_KEYWORD_CALLS.get(name)
    return name in api.GPU_ONLY_LIBRARY_CALLS or (
        keyword is not None and _constant(_keyword(node, keyword)) not in (None, False, 0)
    )


def _trains_on_gpus_only(node: ast.Call) -> bool:
    """A trainer built for GPUs by its literal arguments: ``accelerator="gpu"`` (or ``"cuda"``),
    the older ``gpus=2``. Whatever the class (a project's ``Lite`` subclass of ``LightningLite``),
    only Lightning-style trainers take these keywords."""
    accelerator = _constant(_keyword(node, "accelerator"))
    if isinstance(accelerator, str):
        return accelerator.lower() in ("gpu", "cuda")
    gpus = _constant(_keyword(node, "gpus"))
    return type(gpus) is int and gpus != 0


def _asks_where_a_tensor_is(test: ast.expr) -> bool:
    """``"cpu" if not t.is_cuda else "gpu"``, ``if x.device.type == "cuda":``: a test of where a value
    already is, not a choice of where to run (sam2's distributed helpers name the device a tensor
    came from)."""
    return any(
        isinstance(node, ast.Attribute)
        and (
            node.attr == "is_cuda"
            or (node.attr == "type" and isinstance(node.value, ast.Attribute) and node.value.attr == "device")
        )
        for node in ast.walk(test)
    )


def _returns_before(body: list[ast.stmt], line: int) -> bool:
    """Whether some run of ``body`` returns before ``line``: a set-up after ``else: print("Not using
    distributed mode"); return`` (DETR, Grounding DINO) sets up NCCL for a multi-process run only."""
    own = _statements(body, enter_scopes=False)
    return any(isinstance(statement, ast.Return) and statement.lineno < line for statement in own)


def _tests_main(test: ast.expr) -> bool:
    """``__name__ == "__main__"``."""
    return (
        isinstance(test, ast.Compare)
        and isinstance(test.left, ast.Name)
        and test.left.id == "__name__"
        and len(test.comparators) == 1
        and _constant(test.comparators[0]) == "__main__"
    )


def _only_binding(body: list[ast.stmt], spelled: str, line: int) -> ast.expr | None:
    """The value the one assignment to ``spelled`` (a name, ``args.backend``) in ``body`` before ``line``
    binds; None where there are several, which branches may choose between."""
    bindings = [
        statement.value
        for statement in _statements(body, enter_scopes=False)
        if isinstance(statement, (ast.Assign, ast.AnnAssign))
        and statement.value is not None
        and statement.lineno < line
        and any(dotted(target) == spelled for target in _targets(statement))
    ]
    return bindings[0] if len(bindings) == 1 else None


def _targets(statement: ast.Assign | ast.AnnAssign | ast.AugAssign) -> list[ast.expr]:
    return statement.targets if isinstance(statement, ast.Assign) else [statement.target]


def _keyword(node: ast.Call, name: str) -> ast.expr | None:
    return next((keyword.value for keyword in node.keywords if keyword.arg == name), None)


def _constant(node: ast.AST | None) -> object:
    return node.value if isinstance(node, ast.Constant) else None


def _names_cuda(node: ast.AST) -> bool:
    """``"cuda"``, ``torch.device("cuda", 0)``: an expression holding a CUDA device string."""
    return any(_is_cuda_string(item) for item in ast.walk(node))


def _is_cuda_string(node: ast.AST | None) -> bool:
    value = _constant(node)
    return isinstance(value, str) and CUDA_DEVICE.fullmatch(value) is not None


def _places_on_cuda(node: ast.Call, method: str) -> bool:
    """``.cuda()``, ``.to("cuda")``, ``device="cuda:0"``, ``torch.device("cuda")``."""
    if method == "cuda":
        return True
    candidates = [keyword.value for keyword in node.keywords if keyword.arg == "device"]
    if method in ("to", "device"):
        candidates += node.args[:1]
    return any(_is_cuda_string(arg) for arg in candidates)


def _cuda_sources(node: ast.Call) -> bool:
    """``load(name, sources=["kernel.cu"])``, ``load_inline(..., cuda_sources=...)``."""
    if _keyword(node, "cuda_sources") is not None:
        return True
    strings = (item.value for item in ast.walk(node) if isinstance(item, ast.Constant))
    return any(isinstance(value, str) and value.endswith(api.CUDA_SOURCE_SUFFIXES) for value in strings)


def exits(body: list[ast.stmt], aliases: dict[str, str]) -> bool:
    """A block that exits the program: ``sys.exit(...)``, ``exit()``."""
    for statement in body:
        call = statement.value if isinstance(statement, ast.Expr) else None
        if isinstance(call, ast.Call) and qualified(call.func, aliases) in _EXIT_FUNCTIONS:
            return True
    return False


def skips(body: list[ast.stmt], aliases: dict[str, str]) -> bool:
    """A block that skips a test: ``pytest.skip(...)``, ``self.skipTest(...)``, ``raise SkipTest``."""
    for statement in body:
        raised = statement.exc if isinstance(statement, ast.Raise) else None
        called = statement.value if isinstance(statement, ast.Expr) else raised
        if isinstance(called, ast.Call):
            called = called.func
        name = qualified(called, aliases) if called is not None else None
        if name is not None and (name.rsplit(".", 1)[-1] in _SKIP_FUNCTIONS or name.endswith("SkipTest")):
            return True
    return False


def _returns(body: list[ast.stmt]) -> bool:
    """A branch that ends by returning."""
    return bool(body) and isinstance(body[-1], ast.Return)


def _catches_a_missing_gpu(handler: ast.ExceptHandler) -> bool:
    """``except:``, ``except (AttributeError, RuntimeError):``, ``except Exception:``."""
    caught = handler.type
    if caught is None:
        return True
    names = caught.elts if isinstance(caught, ast.Tuple) else [caught]
    return any((dotted(name) or "").rsplit(".", 1)[-1] in _GPU_FAILURES for name in names)


def _moves_to_cuda(body: list[ast.stmt]) -> bool:
    """``x = x.cuda()``, ``model.to("cuda")`` in a branch that runs only where CUDA is (``if
    torch.cuda.is_available():``): elsewhere the data stays on the CPU, a fallback without an else."""
    calls = (node for statement in body for node in ast.walk(statement) if isinstance(node, ast.Call))
    return any(isinstance(call.func, ast.Attribute) and _places_on_cuda(call, call.func.attr) for call in calls)


def _moves_back(body: list[ast.stmt], branch: ast.If) -> bool:
    """Does the branch put back on CUDA only what the code copied to the CPU before it
    (``torch.save(net.cpu().state_dict(), path)``, then ``if len(gpu_ids) and
    torch.cuda.is_available(): net.cuda(gpu_ids[0])``: pix2pix's ``save_network``)? A move back after
    a save says nothing of where the code runs."""
    moved = _receivers(branch.body, ("cuda", "to"))
    copied = _receivers([statement for statement in body if statement.lineno < branch.lineno], ("cpu",))
    return bool(moved) and None not in moved and moved <= copied


def _receivers(statements: list[ast.stmt], methods: tuple[str, ...]) -> set[str | None]:
    """What the statements call one of ``methods`` on, as spelled (None where no dotted name)."""
    calls = (node for statement in statements for node in ast.walk(statement) if isinstance(node, ast.Call))
    named = (call.func for call in calls if isinstance(call.func, ast.Attribute) and call.func.attr in methods)
    return {dotted(method.value) for method in named}


def _assigns_cpu(body: list[ast.stmt]) -> bool:
    """``device = "cpu"`` or ``return torch.device("cpu")`` directly in a branch, or in the last
    branch of an ``elif`` chain (CUDA, else MPS, else the CPU)."""
    for statement in body:
        if isinstance(statement, ast.If) and _assigns_cpu(statement.body + statement.orelse):
            return True
        assigned = statement.value if isinstance(statement, (ast.Assign, ast.AnnAssign, ast.Return)) else None
        if assigned is not None and names_the_cpu(assigned):
            return True
    return False


def _computes_on(parameter: str) -> bool:
    """Does a parameter name a device the code computes on (``device``, ``model_device``), not one
    that only holds results (``collect_device``)?"""
    lowered = parameter.lower()
    return "device" in lowered and _HOLDING_DEVICE.search(lowered) is None
