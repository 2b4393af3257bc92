"""What the command prints for one finding: a diagnostic in the user's coordinates.

Shared by the runner, which makes reports, and the output formats, which render them; neither
depends on the other.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Report:
    """One finding in user coordinates: 1-based line and column, and the notebook cell if any."""

    path: str
    cell: int | None
    line: int
    column: int
    code: str
    message: str
    fix: str | None
    confidence: str = "high"
