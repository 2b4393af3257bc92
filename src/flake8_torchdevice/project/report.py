"""``torchdevice beliefs``: what the project believes about running without CUDA, and why."""

from __future__ import annotations

import functools
import json
import os
from collections.abc import Sequence
from pathlib import Path

from ..sources import DEFAULT_MEMORY_BUDGET_MIB
from .beliefs import UNKNOWN, ProjectBeliefs, Projects
from .evidence import Evidence
from .layout import find_root, has_marker, nested_roots, project_files
from .snapshot import KeptBeliefs

# Lines of evidence printed per package; ``--format json`` gives all of them.
SHOWN_EVIDENCE = 5


def project_roots(paths: Sequence[Path]) -> tuple[Path, ...]:
    """The roots of the projects of the paths a run is given (files or folders): each path's own
    (``find_root``) and those of the projects inside a folder given that is no project itself
    (``nested_roots``), so that
    repositories linted at once are read as several projects, not as one under the folder they
    share, and a file is read in the project a run given only that file would read it in. A root
    no marker names is only the folder its files sit in (a folder of scripts): inside another root
    of the run, it is part of that project. Where a file links to is not where it is: a link to
    ``/dev/zero`` must not make ``/`` the project."""
    given = [os.path.abspath(path) for path in paths] or [os.getcwd()]
    # One ``find_root`` per folder, not per file: a pre-commit run passes each changed file; and
    # one look for markers per folder, for the folders above them are mostly the same.
    marked = functools.cache(has_marker)
    folders = {path if os.path.isdir(path) else os.path.dirname(path) for path in given}
    found = {find_root(Path(folder), marked) for folder in folders}
    unmarked = [path for path in given if os.path.isdir(path) and not marked(find_root(Path(path), marked))]
    found.update(nested for path in unmarked for nested in nested_roots(Path(path).resolve()))
    return tuple(sorted(root for root in found if marked(root) or _stands_alone(root, found)))


def _stands_alone(root: Path, found: set[Path]) -> bool:
    """Whether a root no marker names is a project of its own: a folder of scripts inside no other root
    of the run, not a folder that only holds other projects."""
    # ``isdisjoint`` walks the parents once; ``other in root.parents`` walks them again for every other root.
    return found.isdisjoint(root.parents) and next(project_files(root), None) is not None


def beliefs_of(
    paths: Sequence[Path], memory_budget: int = DEFAULT_MEMORY_BUDGET_MIB, cache_dir: Path | None = None
) -> Projects:
    """The beliefs of the projects of ``paths``, one by one (``project_roots``)."""
    return Projects(tuple(_beliefs_at(root, memory_budget, cache_dir) for root in project_roots(paths)))


def _beliefs_at(root: Path, memory_budget: int, cache_dir: Path | None) -> ProjectBeliefs:
    """The beliefs of the project at ``root``; with ``cache_dir``, those the last run kept when
    nothing they were read from changed (snapshot.py)."""
    kept = KeptBeliefs(cache_dir, root, memory_budget) if cache_dir is not None else None
    beliefs = kept.load() if kept is not None else None
    if beliefs is None:
        # Imported only here: the readers cost a run that finds the beliefs kept more than the rest of its work.
        from .scan import read_project

        beliefs = read_project(root, memory_budget, cache_dir)
        if kept is not None:
            kept.save(beliefs)
    return beliefs


def text_report(projects: Projects) -> str:
    lines = [line for beliefs in projects.each for line in _project_lines(beliefs)]
    lines.append(
        "State it instead with runs-without-cuda = true or false under [tool.torchdevice]"
        " (--runs-without-cuda / --no-runs-without-cuda)."
    )
    return "\n".join(lines) + "\n"


def _project_lines(beliefs: ProjectBeliefs) -> list[str]:
    lines = [f"project: {beliefs.root}"]
    for package, belief in sorted(beliefs.packages.items()):
        lines.append(f"  {package}: {belief.verdict}" + (f" ({belief.note})" if belief.note else ""))
        lines += [f"    {item.cited()}" for item in belief.evidence[:SHOWN_EVIDENCE]]
        if len(belief.evidence) > SHOWN_EVIDENCE:
            lines.append(f"    ... and {len(belief.evidence) - SHOWN_EVIDENCE} more")
    for path, belief in sorted(beliefs.files.items()):
        lines.append(f"  {path} (this file alone): {belief.verdict}, {belief.evidence[0].cited()}")
    saved = beliefs.checkpoints
    if saved.verdict != UNKNOWN:  # what TDV004 grades the project's loads by
        cited = f", {saved.evidence[0].cited()}" if saved.evidence else ""
        lines.append(f"  checkpoints: {saved.verdict}{cited}" + (f" ({saved.note})" if saved.note else ""))
    return lines


def json_report(projects: Projects) -> str:
    """One project's document (``root``, ``packages``, ``files``); a list of them where the paths
    given belong to several projects."""
    documents = [_project_document(beliefs) for beliefs in projects.each]
    return json.dumps(documents[0] if len(documents) == 1 else documents, indent=2) + "\n"


def _project_document(beliefs: ProjectBeliefs) -> dict[str, object]:
    def evidence(items: tuple[Evidence, ...]) -> list[dict[str, object]]:
        return [{"kind": item.kind, "path": item.path, "line": item.line} for item in items]

    return {
        "root": str(beliefs.root),
        "packages": {
            package: {"belief": belief.verdict, "note": belief.note, "evidence": evidence(belief.evidence)}
            for package, belief in sorted(beliefs.packages.items())
        },
        "files": {
            path: {"belief": belief.verdict, "evidence": evidence(belief.evidence)}
            for path, belief in sorted(beliefs.files.items())
        },
        "checkpoints": {
            "belief": beliefs.checkpoints.verdict,
            "evidence": evidence(beliefs.checkpoints.evidence),
            "note": beliefs.checkpoints.note,
        },
    }
