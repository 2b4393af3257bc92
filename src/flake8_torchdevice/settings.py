"""What a front end knows before it reads a file: the user's settings and what the project says of it."""

from __future__ import annotations

from dataclasses import dataclass, replace
from pathlib import Path

from .callers import NO_CALLERS, FileCallers
from .confidence import Confidence
from .imported import NO_IMPORTED_CLASSES, ImportedClasses
from .project.beliefs import NO_BELIEF, Belief, Projects


@dataclass(frozen=True)
class Settings:
    # Extra functions that check for CUDA, like ``torch.cuda.is_available`` (``is_torch_cuda_available``).
    guard_functions: frozenset[str] = frozenset()
    # TDV002: also report ``x.to(device)`` statements when the code does not show what ``x`` is.
    report_unknown_receivers: bool = False
    # The user states that the project runs without CUDA (CPU-only CI, laptops, Apple silicon): a
    # hard-coded CUDA device, or a load without map_location, fails on machines it supports.
    runs_without_cuda: bool = False
    # The least sure findings reported. The engine's own default is every finding; the front ends
    # (the command, the flake8 plugin) report DEFAULT_CONFIDENCE unless the user asks for more.
    confidence: Confidence = Confidence.LOW
    # What the project shows about running without CUDA, for the package of the file being linted
    # (project/beliefs.py); a front end that read no project leaves it unknown.
    cpu_support: Belief = NO_BELIEF
    # What the project's calls of the file's functions and classes, in other files, have in common
    # (project/callers.py); a front end that read no project leaves it empty.
    callers: FileCallers = NO_CALLERS
    # What the project's classes that the file uses are, in other files (project/classes.py).
    classes: ImportedClasses = NO_IMPORTED_CLASSES
    # What the project saves, for what the checkpoints it loads hold (project/beliefs.py).
    checkpoints: Belief = NO_BELIEF

    @property
    def states_a_belief(self) -> bool:
        """The user said whether the project runs without CUDA: no belief is inferred then."""
        return self.runs_without_cuda or self.cpu_support.stated


def in_project(settings: Settings, projects: Projects, path: Path) -> Settings:
    """The settings of one file of ``projects``: its package's belief, where the user stated none,
    what the calls of its functions and classes have in common, and what the classes it imports
    are. The result cache's key covers them: an edit elsewhere that changes one re-lints the file."""
    belief, callers, classes, checkpoints = projects.for_file(path)
    cpu_support = settings.cpu_support if settings.states_a_belief else belief
    return replace(settings, cpu_support=cpu_support, callers=callers, classes=classes, checkpoints=checkpoints)
