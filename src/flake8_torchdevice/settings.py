"""What a front end knows before it reads a file: the user's settings and the project's beliefs."""

from __future__ import annotations

from dataclasses import dataclass

from .confidence import Confidence
from .project.beliefs import NO_BELIEF, Belief


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
