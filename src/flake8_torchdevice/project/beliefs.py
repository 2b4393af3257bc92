"""What a project believes about running without CUDA, per package and per file, what the calls
of each file's functions have in common, and what the classes each file uses are: plain data,
which the front ends hand to the rules through ``Settings`` and the project's store keeps between
runs (snapshot.py). How a belief is inferred from the code is inference.py's.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import NamedTuple

from ..callers import NO_CALLERS, FileCallers
from ..imported import NO_IMPORTED_CLASSES, ImportedClasses
from .evidence import Evidence
from .layout import package_at

SUPPORTS_CPU = "supports the CPU"
REQUIRES_CUDA = "requires CUDA"
UNKNOWN = "unknown"
# An application none of whose files names CUDA, MPS or a GPU: it runs on the CPU only, and what
# fails only on an accelerator cannot fail there.
NO_ACCELERATOR = "never uses an accelerator"


@dataclass(frozen=True)
class Belief:
    verdict: str = UNKNOWN
    evidence: tuple[Evidence, ...] = ()  # for the verdict, the most telling first
    stated: bool = False  # the user said so (``runs-without-cuda``)
    note: str = ""  # why the evidence did not decide, for ``torchdevice beliefs``

    def cited(self) -> str:
        """Why, in a few words for a finding's message: ``the project falls back to the CPU in
        train.py:12``, ``the project requires CUDA: launch.py:30 stops without CUDA``."""
        if self.stated:
            runs = "runs without" if self.verdict == SUPPORTS_CPU else "requires"
            return f"the configuration says the project {runs} CUDA"
        if self.verdict == NO_ACCELERATOR:
            return "the project never uses an accelerator"
        if not self.evidence:
            return ""
        first = self.evidence[0]
        if self.verdict == REQUIRES_CUDA:
            return f"the project requires CUDA: {first.path}:{first.line} {first.kind}"
        return f"the project {first.kind} in {first.path}:{first.line}"


# Where the checkpoints a project loads come from, when its own code tells (project/inference.py):
# it saves none (what it loads was written elsewhere: published weights, another project's), or
# every ``torch.save`` in it writes tensors copied to the CPU first.
SAVES_NO_CHECKPOINT = "saves no checkpoint"
SAVES_ONLY_CPU_TENSORS = "saves only CPU tensors"
# The note of a checkpoints belief where the project also saves optimizer states as they are.
OPTIMIZER_STATES_AS_THEY_ARE = "optimizer states saved as they are"

NO_BELIEF = Belief()
STATED_SUPPORTS_CPU = Belief(SUPPORTS_CPU, stated=True)
STATED_REQUIRES_CUDA = Belief(REQUIRES_CUDA, stated=True)


@dataclass(frozen=True)
class ProjectBeliefs:
    root: Path
    packages: Mapping[str, Belief] = field(default_factory=dict)
    # Files that require CUDA whatever their package believes: a script that stops without CUDA
    # or imports a CUDA-only library (``import setGPU``), keyed by path relative to the root.
    files: Mapping[str, Belief] = field(default_factory=dict)
    # What the calls in other files of each file's functions and classes have in common
    # (project/callers.py), by path relative to the root; not a belief, but read in the same pass.
    callers: Mapping[str, FileCallers] = field(default_factory=dict)
    # What the project's classes whose names each file uses are (project/classes.py), by path.
    classes: Mapping[str, ImportedClasses] = field(default_factory=dict)
    # What the project saves (SAVES_NO_CHECKPOINT, SAVES_ONLY_CPU_TENSORS, or unknown): what the
    # checkpoints it loads hold, where nothing else tells.
    checkpoints: Belief = NO_BELIEF

    def for_path(self, path: Path) -> Belief:
        """The belief a file is linted with: its verdict and the evidence its findings cite, no
        more (the result cache's key covers it: another file's edit that leaves both as they were
        must not re-lint this one)."""
        return self.for_file(path).belief

    def for_file(self, path: Path) -> FileFacts:
        """``for_path``, and what the rest of the project says of the file's definitions and of
        the classes it uses: a front end asks all of them of every file, and resolving its path
        once costs less."""
        # os.path rather than pathlib: a warm run asks this of every file it lints.
        real = os.path.realpath(path)
        return self.facts_at(real) if self.holds(real) else NO_FACTS

    def holds(self, real: str) -> bool:
        """Whether the file at ``real`` (a resolved path) is under this project's root."""
        return real.startswith(os.path.join(self.root, ""))

    def facts_at(self, real: str) -> FileFacts:
        """``for_file`` of a file this project ``holds``, by its resolved path."""
        parts = tuple(real[len(os.path.join(self.root, "")) :].split(os.sep))
        relative = "/".join(parts)
        belief = self.files.get(relative) or self.packages.get(package_at(parts), NO_BELIEF)
        return FileFacts(
            Belief(belief.verdict, belief.evidence[:1], belief.stated),
            self.callers.get(relative, NO_CALLERS),
            self.classes.get(relative, NO_IMPORTED_CLASSES),
            self.checkpoints,
        )


@dataclass(frozen=True)
class Projects:
    """The projects of one run, each read alone: files of several repositories linted at once are
    not one project. A file's facts are those of the deepest project that holds it."""

    each: tuple[ProjectBeliefs, ...] = ()

    def for_file(self, path: Path) -> FileFacts:
        real = os.path.realpath(path)
        holders = [project for project in self.each if project.holds(real)]
        if not holders:
            return NO_FACTS
        return max(holders, key=lambda project: len(project.root.parts)).facts_at(real)


class FileFacts(NamedTuple):
    """What the project says of one file, as it is linted."""

    belief: Belief
    callers: FileCallers
    classes: ImportedClasses
    checkpoints: Belief


NO_FACTS = FileFacts(NO_BELIEF, NO_CALLERS, NO_IMPORTED_CLASSES, NO_BELIEF)
