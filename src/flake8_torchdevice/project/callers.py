"""What every call of each of the project's definitions has in common, from every file's calls.

A call is resolved to a definition by its dotted name (``calls.CallSite.callee``, read as
resolution.py says). Calls that resolve to nothing are not counted, and a definition used other than by
calling it (handed on, subclassed, reached through) gets no facts: its calls are not all seen.

Where no other file calls a definition, the facts say only that (``only_here``): the file's own
calls are all its calls, and the analysis weighs them itself. Their ``passed`` names only the
parameters with a CUDA default, so that a caller's edit elsewhere re-lints the definition's file
only when it matters. A definition is guarded where each of its calls runs under a CUDA check or
inside a definition that is guarded itself (iterated to a fixpoint).
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping

from ..callers import CallFacts, FileCallers
from .calls import CallSite, FileCalls
from .index import TEST_FILE, Definition, FileIndex
from .layout import importing_package, is_satellite, module_name
from .references import ProjectReferences
from .resolution import Resolver


def project_callers(
    indexes: list[FileIndex],
    calls: Mapping[str, FileCalls],
    library: bool = False,
    references: ProjectReferences | None = None,
) -> dict[str, FileCallers]:
    """The ``FileCallers`` of each file (by relative path) whose definitions other files call.

    In a library (``library``), the public definitions (not ``_name``, not of a satellite such as
    ``examples/``) are told so (``public``): their callers outside the project are unseen, and they
    may well take a default every call of the project replaces. Those only their own file calls
    are told so (``only_here``) where the project's ``references`` show that nothing else refers to
    them (read in a library and in a whole application: a lone file or a few may be called from
    code that is not there); a public one is not, its file's calls are not all its calls."""
    defined = {
        f"{module_name(index.path)}.{definition.name}": (index.path, definition, is_satellite(index.package))
        for index in indexes
        for definition in index.definitions
    }
    if not defined:
        return {}
    exports = {module_name(path): dict(found.exports) for path, found in calls.items() if found.exports}
    resolver = Resolver(defined, exports)
    sites: defaultdict[str, list[tuple[str, CallSite]]] = defaultdict(list)
    unknown: set[str] = set()  # used in ways whose calls are not seen
    for path, found in calls.items():
        folder = importing_package(path)
        for site in found.sites:
            key = resolver.resolve(site.callee, folder)
            if key is not None:
                sites[key].append((path, site))
            unknown |= resolver.reached_through(site.callee, folder)
        for reference in found.references:
            unknown |= resolver.reached_through(reference, folder)
            key = resolver.resolve(reference, folder)
            if key is not None:
                unknown.add(key)
        unknown |= {key for key, (_, definition, _) in defined.items() if definition.name in found.unread}
    public = {
        key for key, (path, definition, beside) in defined.items() if library and _exported(path, definition, beside)
    }
    api = public & _shown_by_packages(calls, resolver)
    guarded = _guarded(sites, public)
    facts: defaultdict[str, list[tuple[str, CallFacts]]] = defaultdict(list)
    for key, called in sites.items():
        path, definition, _ = defined[key]
        if key in unknown:
            continue
        only_here = all(caller == path for caller, _ in called)
        exported = key in public
        if only_here and (exported or references is None or not references.only_here(path, definition.name)):
            continue
        passed = frozenset(definition.cuda_defaults).intersection(*(_passed(definition, site) for _, site in called))
        facts[path].append(
            (definition.name, CallFacts(len(called), passed, key in guarded, only_here, exported, key in api))
        )
    return {path: FileCallers(tuple(sorted(found))) for path, found in facts.items()}


def _shown_by_packages(calls: Mapping[str, FileCalls], resolver: Resolver) -> set[str]:
    """The definitions a package's ``__init__`` re-exports (``from .devnet import DevNet`` in
    ``models/__init__.py``): the API a library shows its users. Not those it defines itself: a
    vendored helper package's ``init_model(device="cuda")`` is as internal as any (round 24)."""
    shown: set[str] = set()
    for path, found in calls.items():
        if path.endswith("__init__.py"):
            folder = importing_package(path)
            shown |= {key for _, dotted in found.exports if (key := resolver.resolve(dotted, folder)) is not None}
    return shown


def _passed(definition: Definition, site: CallSite) -> frozenset[str]:
    """The parameters one call passes; all of them, for all it knows, where it unpacks."""
    if site.unpacks:
        return frozenset(definition.parameters)
    by_position = definition.parameters[: min(site.positional, definition.positional)]
    return frozenset((*by_position, *site.keywords))


def _exported(path: str, definition: Definition, beside: bool) -> bool:
    """A library's definition its users may call: not private, not of a satellite (``examples/``)
    nor of its tests, which nothing installed imports."""
    return not definition.name.startswith("_") and not beside and not TEST_FILE.search(path)


def _guarded(sites: Mapping[str, list[tuple[str, CallSite]]], public: set[str]) -> set[str]:
    """The definitions whose every call runs with CUDA only: under a check, or in a guarded one. Never
    a library's ``public`` one, whose users call it unseen, nor so what it alone calls."""
    guarded: set[str] = set()
    changed = True
    while changed:
        changed = False
        for key, called in sites.items():
            if key in public:
                continue
            if key not in guarded and all(site.guarded or site.caller in guarded for _, site in called):
                guarded.add(key)
                changed = True
    return guarded
