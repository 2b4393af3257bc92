"""``torchdevice beliefs``: what the project believes about running without CUDA, and why."""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from pathlib import Path

from ..sources import DEFAULT_MEMORY_BUDGET_MIB
from .beliefs import ProjectBeliefs
from .evidence import Evidence
from .layout import find_root
from .snapshot import KeptBeliefs

# Lines of evidence printed per package; ``--format json`` gives all of them.
SHOWN_EVIDENCE = 5


def project_of(paths: Sequence[Path]) -> Path:
    """The project root of the files a run lints: the one above the folder they share. Where a
    file links to is not where it is: a link to ``/dev/zero`` must not make ``/`` the project."""
    absolute = [os.path.abspath(path) for path in paths] or [os.getcwd()]
    return find_root(Path(os.path.commonpath(absolute)))


def beliefs_of(
    paths: Sequence[Path], memory_budget: int = DEFAULT_MEMORY_BUDGET_MIB, cache_dir: Path | None = None
) -> ProjectBeliefs:
    """The beliefs of the project of ``paths``; with ``cache_dir``, those the last run kept when
    nothing they were read from changed (snapshot.py)."""
    root = project_of(paths)
    kept = KeptBeliefs(cache_dir, root, memory_budget) if cache_dir is not None else None
    beliefs = kept.load() if kept is not None else None
    if beliefs is None:
        # Imported only here: the readers cost a run that finds the beliefs kept more than the rest of its work.
        from .scan import read_project

        beliefs = read_project(root, memory_budget, cache_dir)
        if kept is not None:
            kept.save(beliefs)
    return beliefs


def text_report(beliefs: ProjectBeliefs) -> str:
    lines = [f"project: {beliefs.root}"]
    for package, belief in sorted(beliefs.packages.items()):
        lines.append(f"  {package}: {belief.verdict}" + (f" ({belief.note})" if belief.note else ""))
        lines += [f"    {item.cited()}" for item in belief.evidence[:SHOWN_EVIDENCE]]
        if len(belief.evidence) > SHOWN_EVIDENCE:
            lines.append(f"    ... and {len(belief.evidence) - SHOWN_EVIDENCE} more")
    for path, belief in sorted(beliefs.files.items()):
        lines.append(f"  {path} (this file alone): {belief.verdict}, {belief.evidence[0].cited()}")
    lines.append(
        "State it instead with runs-without-cuda = true or false under [tool.torchdevice]"
        " (--runs-without-cuda / --no-runs-without-cuda)."
    )
    return "\n".join(lines) + "\n"


def json_report(beliefs: ProjectBeliefs) -> str:
    def evidence(items: tuple[Evidence, ...]) -> list[dict[str, object]]:
        return [{"kind": item.kind, "path": item.path, "line": item.line} for item in items]

    document = {
        "root": str(beliefs.root),
        "packages": {
            package: {"belief": belief.verdict, "note": belief.note, "evidence": evidence(belief.evidence)}
            for package, belief in sorted(beliefs.packages.items())
        },
        "files": {
            path: {"belief": belief.verdict, "evidence": evidence(belief.evidence)}
            for path, belief in sorted(beliefs.files.items())
        },
    }
    return json.dumps(document, indent=2) + "\n"
