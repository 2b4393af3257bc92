"""User settings shared by every front end (flake8 options, and later the CLI)."""

from __future__ import annotations

from dataclasses import dataclass

from .confidence import DEFAULT_CONFIDENCE, Confidence


@dataclass(frozen=True)
class Settings:
    # Extra functions that check for CUDA, like ``torch.cuda.is_available`` (``is_torch_cuda_available``).
    guard_functions: frozenset[str] = frozenset()
    # TDV002: also report ``x.to(device)`` statements when the code does not show what ``x`` is.
    report_unknown_receivers: bool = False
    # The least sure findings reported: high (the default), medium or low.
    confidence: Confidence = DEFAULT_CONFIDENCE
