"""Whether each package of a project runs without CUDA, inferred from its own code (beliefs.py).

Engler et al.'s "Bugs as Deviant Behavior": a project's code shows what its authors believe.
A package that falls back to the CPU, offers a CPU option, skips its CUDA tests without a GPU or
defaults its devices to the CPU means to run without CUDA, and a hard-coded ``.cuda()`` in it
is a bug on the machines it supports. A package whose programs stop without CUDA, or that needs
a CUDA-only library, requires NVIDIA GPUs by design, and the same ``.cuda()`` is how it is
meant to run. Everything else is unknown, and the rules grade their findings as they would
without a project.

Beliefs are per package (``layout.package_of``): ``examples/`` and ``benchmarks/`` often require
a GPU while the library does not. A package whose own code decides nothing takes the belief of
the packages that import it, where they agree; one with no evidence at all, the belief of the
project's other packages together. The user's statement (``runs-without-cuda``) overrides any
inference.
"""

from __future__ import annotations

import contextlib
import re
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path

from ..knowledge.api import NEEDS_CUDA
from .beliefs import (
    NO_BELIEF,
    OPTIMIZER_STATES_AS_THEY_ARE,
    REQUIRES_CUDA,
    SAVES_NO_CHECKPOINT,
    SAVES_ONLY_CPU_TENSORS,
    SUPPORTS_CPU,
    UNKNOWN,
    Belief,
)
from .evidence import (
    ASKS_FOR_A_GPU,
    BENCHMARKS_THE_GPU,
    CALLS_A_GPU_ONLY_API,
    CHECKPOINT_EVIDENCE,
    CPU_LOAD,
    CUDA_EXTENSION,
    CUDA_ONLY_IMPORT,
    DEVICE_OPTION,
    FALLBACK,
    IMPORTED_ONLY_WHERE_CUDA_IS,
    IMPORTS_A_CUDA_ONLY_MODULE,
    IMPORTS_KERNELS,
    KERNELS_ON_IMPORT,
    NAMED_FOR_THE_GPU,
    NCCL_PROGRAM,
    NOT_READ,
    REQUIRES,
    SAVES_CPU_TENSORS,
    SAVES_OPTIMIZER_STATE,
    SAYS_IT_NEEDS_CUDA,
    STOPS_WITHOUT_CUDA,
    SUPPORTS,
    TRAINS_ON_GPUS,
    UNCHECKED_CUDA,
    Evidence,
)
from .index import FileIndex
from .layout import TOP_PACKAGE, importing_package, is_satellite, module_name
from .names import IDENTIFIER

# A load onto the CPU alone says little: GPU projects load checkpoints there to spare GPU memory.
_STRONG_SUPPORT = SUPPORTS - {CPU_LOAD}
# The files a folder's README is read from.
_README = re.compile(r"^readme(\.(md|rst|txt))?$", re.IGNORECASE)
_README_CHARACTERS = 1_000_000
_CONFIGURATION = frozenset({".yaml", ".yml", ".toml", ".cfg", ".ini", ".json"})
# README sections whose sentences state what the project needs; elsewhere a README may discuss
# GPUs in any sense ("the benchmark below requires 8 GPUs").
_REQUIREMENT_HEADING = re.compile(r"requir|prerequisite|hardware|dependenc", re.IGNORECASE)
# "## Environment" (HRNet's): what the code was developed on, where a sentence may state a need.
_ENVIRONMENT_HEADING = re.compile(r"^\W*((system|hardware|software)\s+)?environments?\W*$", re.IGNORECASE)
# An item of such a section that names CUDA or NVIDIA GPUs ("- NVIDIA GPU + CUDA cuDNN"), unless
# it says they are optional.
_REQUIREMENT_ITEM = re.compile(r"^\s*([-*+]|\d+[.)])\s.*\b(cuda|nvidia|gpus?)\b", re.IGNORECASE)
_OPTIONAL = re.compile(r"optional|recommended|if available|if you have|only for|faster", re.IGNORECASE)
# A version of the CUDA toolkit ("- CUDA >= 10.0", "cudatoolkit=11.3") names what a GPU install
# builds against, not hardware the code cannot run without (DGCNN's scripts offer --no_cuda).
_TOOLKIT_VERSION = re.compile(r"\bcuda(\s*toolkit)?\s*(>=|==|~=|=|>|\s|v)\s*\d", re.IGNORECASE)
_HARDWARE = re.compile(r"\b(gpus?|nvidia)\b", re.IGNORECASE)
# "does not need a GPU", "no GPU required", "without CUDA": the opposite of a need.
_NEGATED = re.compile(
    r"\b(not|n't|never|without)\b[^.;:]{0,30}\b(need|require|cuda|gpu)|\bno (cuda|gpus?|nvidia)\b", re.IGNORECASE
)
_HTML_HEADING = re.compile(r"^\s*<h[1-6]\b", re.IGNORECASE)
_FENCE = re.compile(r"^\s*(```|~~~)")
_UNDERLINE = re.compile(r"^(=+|-+|~+|\^+)\s*$")
_FILE_SCOPED = (
    NCCL_PROGRAM,
    CUDA_ONLY_IMPORT,
    KERNELS_ON_IMPORT,
    SAYS_IT_NEEDS_CUDA,
    NAMED_FOR_THE_GPU,
    TRAINS_ON_GPUS,
    CALLS_A_GPU_ONLY_API,
    BENCHMARKS_THE_GPU,
    ASKS_FOR_A_GPU,
)
# What makes importing a module fail without CUDA, and so importing anything that imports it.
_FAILS_ON_IMPORT = frozenset({CUDA_ONLY_IMPORT, KERNELS_ON_IMPORT, IMPORTS_A_CUDA_ONLY_MODULE})
# Evidence a package's belief about CPU support does not weigh: the file's own, and checkpoints'.
_NOT_THE_PACKAGES = frozenset(_FILE_SCOPED) | CHECKPOINT_EVIDENCE
# A package written for GPUs only: hard-coded CUDA in this many files, this many times, and no
# CUDA check, fallback, CPU option or default anywhere. Fewer (one script, a few uses) is as
# likely the bug TDV001 reports as a belief.
_GPU_ONLY_FILES = 3
_GPU_ONLY_USES = 10


def file_beliefs(indexes: Iterable[FileIndex], application: bool = False) -> dict[str, Belief]:
    """Each file's own belief (``file_belief``), where it has one, by path; with the files that
    import, at their top, a module of the project that cannot be imported without CUDA (RVRT's
    network imports ``op/deform_attn.py``, which compiles a ``.cu`` kernel when imported), and the
    files that import those, and so on. In an ``application`` (no user imports its modules), also
    the modules that only such files import (``_imported_only_where_cuda_is``)."""
    indexes = list(indexes)
    modules = {module_name(index.path): index for index in indexes}
    beliefs = {index.path: belief for index in indexes if (belief := file_belief(index)) is not None}
    failing = {
        module_name(path)
        for path, belief in beliefs.items()
        if any(item.kind in _FAILS_ON_IMPORT for item in belief.evidence)
    }
    runs = (
        {index.path: _modules_run(index, index.module_imports, modules) for index in indexes}
        if failing or application
        else {}
    )
    grown = bool(failing)
    while grown:
        grown = False
        for index in indexes:
            if index.path in beliefs:
                continue
            line = next((line for module, line in runs[index.path] if module in failing), None)
            if line is not None:
                beliefs[index.path] = Belief(REQUIRES_CUDA, (Evidence(IMPORTS_A_CUDA_ONLY_MODULE, index.path, line),))
                failing.add(module_name(index.path))
                grown = True
    return _imported_only_where_cuda_is(beliefs, modules, runs) if application else beliefs


def _imported_only_where_cuda_is(
    beliefs: dict[str, Belief], modules: Mapping[str, FileIndex], runs: Mapping[str, list[tuple[str, int]]]
) -> dict[str, Belief]:
    """``beliefs``, with each module that is no program itself and that only files needing CUDA
    import (anywhere in them: a lazy import counts), and so on; ``runs``: what each file's imports
    at its top run (``_modules_run``)."""
    importers: dict[str, dict[str, int]] = defaultdict(dict)  # module -> {importing path: line}
    for index in modules.values():
        # The imports at its top first, for their lines; then the others, lazy ones included.
        lazily = _modules_run(index, index.other_imports, modules)
        for module, line in [*runs[index.path], *lazily]:
            if modules[module].path != index.path:
                importers[module].setdefault(index.path, line)
    grown = True
    while grown:
        grown = False
        for module, index in modules.items():
            users = importers.get(module)
            if index.path in beliefs or index.runs_as_a_script or not users:
                continue
            if all(beliefs.get(path, NO_BELIEF).verdict == REQUIRES_CUDA for path in users):
                path, line = min(users.items())
                beliefs[index.path] = Belief(REQUIRES_CUDA, (Evidence(IMPORTED_ONLY_WHERE_CUDA_IS, path, line),))
                grown = True
    return beliefs


def imported_by_others(indexes: Iterable[FileIndex]) -> frozenset[str]:
    """The paths of the project's files whose module another of its files imports: at its top,
    lazily, or a name from it (``from pkg.gcn import GCN``, ``from pkg import gcn``)."""
    indexes = list(indexes)
    modules = {module_name(index.path): index for index in indexes}
    imported: set[str] = set()
    for index in indexes:
        names = [*index.module_imports, *index.other_imports, *((name, 0) for name in index.references.imported)]
        imported.update(module for module, _ in _modules_run(index, names, modules) if modules[module] is not index)
    return frozenset(modules[module].path for module in imported)


def _modules_run(
    index: FileIndex, imported: Iterable[tuple[str, int]], modules: Mapping[str, FileIndex]
) -> list[tuple[str, int]]:
    """The project's modules that the file's imports (dotted names, with their lines) run: each
    one named and the packages above it (``import a.b.c`` runs ``a/__init__.py`` and
    ``a/b/__init__.py``). A name that is no module of the project from its root may name one
    beside the file, the way a script's folder comes first on ``sys.path`` (``from op import f``
    in ``models/net.py`` runs ``models/op``); ``import torch`` names none."""
    package = importing_package(index.path)
    run: list[tuple[str, int]] = []
    for name, line in imported:
        parts = name.split(".")
        chain = [".".join(parts[:end]) for end in range(1, len(parts) + 1)]
        if package and not any(module in modules for module in chain) and f"{package}.{parts[0]}" in modules:
            chain = [f"{package}.{module}" for module in chain]
        run.extend((module, line) for module in chain if module in modules)
    return run


def file_belief(index: FileIndex) -> Belief | None:
    """A file's own belief, where its code alone decides: it cannot run without CUDA."""
    # A stop in a distributed branch refuses that mode; the file may run alone elsewhere.
    hard = tuple(item for item in index.evidence if item.kind in (STOPS_WITHOUT_CUDA, *_FILE_SCOPED))
    return Belief(REQUIRES_CUDA, hard) if hard else None


def decide(evidence: Iterable[Evidence], cuda_uses: int = 0, guarded_cuda_uses: int = 0) -> Belief:
    """The belief that a package's evidence supports.

    A stop without CUDA decides alone: that code cannot run on the CPU. So does CUDA hard-coded
    across the package with no check, fallback, CPU or `--device` option anywhere. CPU support needs one
    strong idiom (a fallback, a CPU option or default, skipped CUDA tests), no sign of needing
    CUDA, and hard-coded CUDA uses that are not the rule: where unguarded ones outnumber the
    guarded ones and the files with an idiom more than threefold, the fallback is boilerplate, not
    a belief (one helper with twenty ``device="cpu"`` defaults is one sign, not twenty).
    """
    found = sorted(set(evidence), key=lambda item: (item.path, item.line))
    stops = [item for item in found if item.kind == STOPS_WITHOUT_CUDA]
    if stops:
        return Belief(REQUIRES_CUDA, tuple(stops))
    support = [item for item in found if item.kind in _STRONG_SUPPORT]
    needs = [item for item in found if item.kind in REQUIRES]
    if not support:
        if needs:
            return Belief(REQUIRES_CUDA, tuple(needs))
        unchecked = [item for item in found if item.kind == UNCHECKED_CUDA]
        chosen = any(item.kind == DEVICE_OPTION for item in found)
        if not chosen and guarded_cuda_uses == 0 and len(unchecked) >= _GPU_ONLY_FILES and cuda_uses >= _GPU_ONLY_USES:
            return Belief(REQUIRES_CUDA, tuple(unchecked))
        loads = any(item.kind == CPU_LOAD for item in found)
        return Belief(note="only loads onto the CPU" if loads else "no evidence either way")
    if needs:
        return Belief(note=f"{len(support)} sign(s) of CPU support against {len(needs)} of needing CUDA")
    followed = guarded_cuda_uses + len({item.path for item in support})
    unguarded = cuda_uses - guarded_cuda_uses
    if unguarded > 3 * followed:
        return Belief(note=f"{unguarded} hard-coded CUDA uses without a check against {followed} with one")
    fallbacks_first = sorted(support, key=lambda item: (item.kind != FALLBACK, item.path, item.line))
    return Belief(SUPPORTS_CPU, tuple(fallbacks_first))


def checkpoints_saved(indexes: Iterable[FileIndex]) -> Belief:
    """What the project's own code saves, for what the checkpoints it loads hold: nothing (what it
    loads was written elsewhere: weights published for download, another project's, so whether
    they hold CUDA tensors is not in the code), or only tensors it copies to the CPU first
    (OpenVoice's ``torch.save(se.cpu(), path)``). A save of anything else tells nothing."""
    saves = sorted(
        (item for index in indexes for item in index.evidence if item.kind in CHECKPOINT_EVIDENCE),
        key=lambda item: (item.path, item.line),
    )
    if any(item.kind == NOT_READ for item in saves):
        return NO_BELIEF  # a file not read may save anything
    # An optimizer's state is read back into an optimizer: it says nothing of the weights a model
    # loads, and the note keeps such loads from being judged by the weights (TDV004).
    resumes = [item for item in saves if item.kind == SAVES_OPTIMIZER_STATE]
    note = OPTIMIZER_STATES_AS_THEY_ARE if resumes else ""
    saves = [item for item in saves if item.kind != SAVES_OPTIMIZER_STATE]
    if not saves:
        return Belief(SAVES_NO_CHECKPOINT, note=note)
    if all(item.kind == SAVES_CPU_TENSORS for item in saves):
        return Belief(SAVES_ONLY_CPU_TENSORS, tuple(saves[:1]), note=note)
    return NO_BELIEF


def infer(indexes: Iterable[FileIndex], readmes: Mapping[str, tuple[Evidence, ...]] = {}) -> dict[str, Belief]:
    """Each package's belief; a package without evidence takes the belief the library packages
    share (satellites like ``examples/`` excluded both ways)."""
    evidence: dict[str, list[Evidence]] = defaultdict(list)
    uses: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    for index in indexes:
        # A CUDA-only import, a trainer built for GPUs or a docstring speaks for its file alone
        # (``file_belief``): one GPU script among the library's modules says nothing of the others
        # (lm-eval's NeMo backend among its CPU-capable ones).
        evidence[index.package].extend(item for item in index.evidence if item.kind not in _NOT_THE_PACKAGES)
        uses[index.package][0] += index.cuda_uses
        uses[index.package][1] += index.guarded_cuda_uses
    for package, found in readmes.items():
        evidence[package].extend(found)
    beliefs = {package: decide(evidence[package], *uses[package]) for package in uses.keys() | evidence.keys()}
    beliefs.update(_as_their_importers(beliefs, list(indexes)))
    library = [package for package in beliefs if not is_satellite(package)]
    shared = decide(
        [item for package in library for item in evidence[package]],
        sum(uses[package][0] for package in library),
        sum(uses[package][1] for package in library),
    )
    for package, belief in beliefs.items():
        if belief.verdict == UNKNOWN and not is_satellite(package) and _takes_the_shared(evidence[package], shared):
            beliefs[package] = shared
    return _with_kernel_dependencies(beliefs, list(indexes))


def _takes_the_shared(found: list[Evidence], shared: Belief) -> bool:
    """A package that its own evidence leaves undecided takes what the library's packages show
    together where it shows nothing, or where it only hard-codes CUDA too and together they
    require CUDA: written for GPUs only (Uformer: two or three scripts in each of ``train/``,
    ``test/``, ``utils/``, none a pattern alone), or said to be (ROME's README: "GPU-only")."""
    if not found:
        return True
    return shared.verdict == REQUIRES_CUDA and all(item.kind == UNCHECKED_CUDA for item in found)


def _as_their_importers(beliefs: Mapping[str, Belief], indexes: list[FileIndex]) -> dict[str, Belief]:
    """The packages whose own code decides nothing, and that the project's other packages import:
    they run where their importers do (``functions/`` of a script that falls back to the CPU, the
    ``utils/`` of training scripts written for GPUs only), where every importer that decided agrees.
    Satellites (``examples/``) neither give nor take: they often need a GPU the library does not."""
    importers: dict[str, set[str]] = defaultdict(set)
    for index in indexes:
        for name, _ in index.imports:
            if name != index.package and name in beliefs and not is_satellite(index.package):
                importers[name].add(index.package)
    taken = {}
    for package, users in importers.items():
        decided = [beliefs[user] for user in sorted(users) if beliefs[user].verdict != UNKNOWN]
        verdicts = {belief.verdict for belief in decided}
        if beliefs[package].verdict == UNKNOWN and not is_satellite(package) and len(verdicts) == 1:
            cited = tuple(item for belief in decided for item in belief.evidence)
            taken[package] = Belief(
                decided[0].verdict, cited, note=f"as the packages that import it: {', '.join(sorted(users))}"
            )
    return taken


def _with_kernel_dependencies(beliefs: dict[str, Belief], indexes: list[FileIndex]) -> dict[str, Belief]:
    """A package that imports, unconditionally, another package of the project that builds CUDA
    kernels (or imports one that does, and so on) cannot run without CUDA either, whatever its
    own fallbacks say."""
    needing: dict[str, list[Evidence]] = {
        package: [item for item in belief.evidence if item.kind == CUDA_EXTENSION]
        for package, belief in beliefs.items()
        if belief.verdict == REQUIRES_CUDA
    }
    kernels = {package for package, found in needing.items() if found}
    grown = True
    while grown:
        grown = False
        for index in indexes:
            if index.package in kernels:
                continue
            line = next((line for name, line in index.imports if name in kernels), None)
            if line is not None:
                needing[index.package] = [Evidence(IMPORTS_KERNELS, index.path, line)]
                kernels.add(index.package)
                grown = True
    return {
        package: Belief(REQUIRES_CUDA, tuple(needing[package])) if package in kernels else belief
        for package, belief in beliefs.items()
    }


def readme_evidence(root: Path, packages: Iterable[str]) -> dict[str, tuple[Evidence, ...]]:
    """Lines of the project's README files that say the code needs CUDA ("requires a CUDA GPU",
    "- NVIDIA GPU + CUDA") in a section about requirements or in the lead that says what the project
    is ("an implementation of ... (GPU-only)"), per package: the root's README speaks for the
    top-level package, a package's for itself; a sentence about a package by its name ("``robustness``
    requires ... CUDA") for that package and the packages inside it (``robustness/tools``) alone."""
    packages = list(packages)
    subject = _package_as_subject(packages)
    found: dict[str, list[Evidence]] = defaultdict(list)
    for package, readmes in _beside_the_code(root, packages, lambda path: _README.match(path.name)):
        for readme in readmes:
            for item, named in _requirement_lines(readme, readme.relative_to(root).as_posix(), subject):
                credited = [other for other in packages if named in other.split("/")] if named else [package]
                for other in credited:
                    found[other].append(item)
    return {package: tuple(dict.fromkeys(items)) for package, items in found.items()}


def words_outside_the_code(root: Path, packages: Iterable[str]) -> frozenset[str]:
    """Every identifier the project's README files write (the names their usage examples import and
    call: ``from models import build_model``, which a user calls by hand) and its configuration files
    beside them do (``predict: "predict.py:Predictor"`` in a ``cog.yaml``, an entry point)."""
    found = _beside_the_code(root, packages, lambda path: _README.match(path.name) or path.suffix in _CONFIGURATION)
    words: set[str] = set()
    for path in (path for _, paths in found for path in paths):
        with contextlib.suppress(OSError), path.open(encoding="utf-8", errors="replace") as text:
            words.update(IDENTIFIER.findall(text.read(_README_CHARACTERS)))
    return frozenset(words)


def _beside_the_code(
    root: Path, packages: Iterable[str], wanted: Callable[[Path], object]
) -> Iterator[tuple[str, list[Path]]]:
    """The ``wanted`` files of the root (for the top-level package) and of each package's folder."""
    for package in {TOP_PACKAGE, *packages}:
        folder = root if package == TOP_PACKAGE else root / package
        try:
            yield package, [path for path in folder.iterdir() if wanted(path) and path.is_file()]
        except OSError:
            continue


def _package_as_subject(packages: Iterable[str]) -> re.Pattern[str] | None:
    """A clause whose subject is one of the project's packages, by its name as written (as code, or
    starting a sentence: "Inference requires a GPU" is about the word, not an ``inference`` package),
    up to the clause's end: "``robustness`` requires PyTorch ... with CUDA support" (MadryLab's
    robustness, in a note under its quick start). Said of the package itself, what it needs is a
    requirement wherever the README says it, not only under a heading about requirements."""
    names = sorted({package.rsplit("/", 1)[-1] for package in packages if package != TOP_PACKAGE} - {""})
    if not names:
        return None
    alternatives = "|".join(re.escape(name) for name in names)
    return re.compile(
        rf"(?:(?:`+|\*+)(?P<code>{alternatives})(?:`+|\*+)|(?:^\s*|[.!]\s+)(?P<start>{alternatives}))"
        r"\s+(?:requires|needs)\b[^.;:]*"
    )


def _named_need(line: str, subject: re.Pattern[str] | None) -> str | None:
    """The package a line says needs CUDA, where its name is the subject of the clause that says so."""
    found = subject.search(line) if subject is not None else None
    if found is None or not _states_a_need(found.group(0).strip(" `*")):
        return None
    return found.group("code") or found.group("start")


def _requirement_lines(
    readme: Path, relative: str, subject: re.Pattern[str] | None = None
) -> list[tuple[Evidence, str | None]]:
    """Each line of a README that states a need for CUDA, with the package it names as the one in
    need, if it names one."""
    try:
        lines = readme.read_text(encoding="utf-8", errors="replace").splitlines()[:2000]
    except OSError:
        return []
    found: list[tuple[Evidence, str | None]] = []
    heading, headings, fenced = "", 0, False
    for number, line in enumerate(lines, 1):
        if _FENCE.match(line):
            fenced = not fenced
        elif fenced:
            continue  # ``# comment`` lines of a code block are no headings, nor its text a need
        elif line.lstrip().startswith("#") or _HTML_HEADING.match(line):
            heading, headings = line, headings + 1
        elif _UNDERLINE.match(line) and number > 1 and lines[number - 2].strip():
            heading, headings = lines[number - 2], headings + 1  # a reStructuredText title, underlined
        elif (named := _named_need(line, subject)) is not None:
            found.append((Evidence(SAYS_IT_NEEDS_CUDA, relative, number), named))
        elif _REQUIREMENT_HEADING.search(heading) and _states_a_need(line):
            found.append((Evidence(SAYS_IT_NEEDS_CUDA, relative, number), None))
        elif (headings <= 1 or _ENVIRONMENT_HEADING.match(heading)) and _says_it_needs_cuda(line):
            # The lead, under the title, says what the project is: "... transformers (GPU-only)"; an
            # environment section, what it runs on: "NVIDIA GPUs are needed."
            found.append((Evidence(SAYS_IT_NEEDS_CUDA, relative, number), None))
    return found


def _says_it_needs_cuda(line: str) -> bool:
    return NEEDS_CUDA.search(line) is not None and _states_a_need(line)


def _states_a_need(line: str) -> bool:
    toolkit_only = _TOOLKIT_VERSION.search(line) and not _HARDWARE.search(line)
    if _OPTIONAL.search(line) or _NEGATED.search(line) or toolkit_only:
        return False
    return NEEDS_CUDA.search(line) is not None or _REQUIREMENT_ITEM.match(line) is not None
