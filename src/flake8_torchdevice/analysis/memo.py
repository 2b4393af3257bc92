"""What the summaries of a file's functions and classes remember.

Plain data keyed by definition keys (``bindings``): it holds no part of the interpreter, which
owns it and asks it before and after each evaluation (``summaries``).
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field

from .domain import Kind, Value

Outcome = tuple[Value, dict[str, Value]]  # the value returned, and what it assigned to ``self``
# A function's key, the instance it runs on, and its arguments (sorted by parameter name).
CallKey = tuple[str, Value | None, tuple[tuple[str, Value], ...]]


@dataclass
class SummaryMemo:
    outcomes: dict[CallKey, Outcome] = field(default_factory=dict)
    bindings: Counter[str] = field(default_factory=Counter)  # summaries made, by function key
    depth: int = 0
    tables: dict[str, dict[str, Value]] = field(default_factory=dict)  # by the keys of a class family
    module_classes: dict[str, bool] = field(default_factory=dict)  # by class key
    shown_kinds: dict[tuple[str, str], Kind | None] = field(default_factory=dict)  # class key, attribute
