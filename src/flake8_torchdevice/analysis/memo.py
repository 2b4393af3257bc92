"""What the summaries of a file's functions and classes remember, and when a result may be kept.

Keyed by definition keys (``bindings``), argument values and depth; it holds no part of the
interpreter, which owns it and asks it before and after each evaluation (``summaries``).

A result is kept only when it is *complete*: the answer whatever order the summaries were asked
in. Three things would make an answer depend on that order, and a result they touched is used by
whoever asked for it but not kept:

* A recursion guard. A call of a function whose evaluation is in progress contributes nothing
  (``NONE``, which joins as nothing); a result computed with that stand-in depends on which
  function of the cycle was asked first. pyright's rule: what is computed under a recursion
  guard is incomplete and never cached. Only a direct call of a function by itself, with the
  same arguments, leaves its own result complete: its cycle has no other entry.
* The depth cap. Past ``MAX_DEPTH`` nested evaluations a call is unknown, so a result depends on
  how deep it was asked from. Each result records the levels it used below it (its height): a
  result that fits under the cap is kept for every depth it fits at, one the cap cut only for
  the depth it was computed at.
* A class's table of attributes, read while it is being built (a method ``__init__`` calls reads
  ``self.x``): what such a read sees is the part learned so far. A table is built apart from
  whatever asked for it (no evaluation in progress is visible to it, and the depth starts
  again), so it comes out the same whoever asked. The results computed inside it that read it
  are kept only while that part stays the same: until the method evaluated for the table ends
  (``__init__`` calling ``self.log(...)`` twenty times evaluates it once). Two tables that read
  each other while being built are kept by neither.

The budget (``MAX_SUMMARIES``) and simple mode refuse evaluations for reasons outside the call:
what is in progress when they do is not kept. ``MAX_BINDINGS`` (``summaries``) does depend on
order: which argument values of a function came first.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field

from .domain import NONE, Kind, Value

# Nested evaluations: a call past them is unknown.
MAX_DEPTH = 3
# Summaries (distinct functions and arguments) evaluated in a file: past them, calls are unknown.
MAX_SUMMARIES = 400
# The height of a result the depth cap cut: it holds only at the depth it was computed at.
_CUT = MAX_DEPTH + 1
# A frame's ``lowest`` when nothing below it was reached (no cycle cut, nothing refused).
_NOTHING = 1 << 30

Outcome = tuple[Value, dict[str, Value]]  # the value returned, and what it assigned to ``self``
# A function's key, the instance it runs on, and its arguments (sorted by parameter name).
CallKey = tuple[str, Value | None, tuple[tuple[str, Value], ...]]


@dataclass
class _Frame:
    """An evaluation in progress: a summary (``key``), or a method evaluated for a table."""

    key: CallKey | None
    # The lowest frame (index) that a cycle cut inside this one reached, or a refusal (-1).
    lowest: int = _NOTHING
    # Levels of nested evaluations this one used, itself included (``_CUT``: the cap cut it).
    height: int = 1
    # It read the table being built around it: it holds while that table stays as it is.
    partial: bool = False


@dataclass
class _Table:
    """A table being built, with the evaluations in progress where it was asked for."""

    key: str
    outside: list[_Frame]
    attributes: dict[str, Value] = field(default_factory=dict)  # what is known so far
    # Results that read ``attributes``, kept while they stay as they are.
    provisional: dict[tuple[CallKey, int], tuple[Outcome, int]] = field(default_factory=dict)
    # The lowest table (index) that a read of a table in progress reached from inside this one.
    lowest: int = _NOTHING


@dataclass
class SummaryMemo:
    """The complete results, and the evaluations and tables in progress that decide what is."""

    # Complete summaries, by call and the depth they hold at, with their height.
    outcomes: dict[tuple[CallKey, int], tuple[Outcome, int]] = field(default_factory=dict)
    # The distinct calls evaluated, by function key (``MAX_BINDINGS``, ``MAX_SUMMARIES``).
    calls: defaultdict[str, set[CallKey]] = field(default_factory=lambda: defaultdict(set))
    evaluated: int = 0
    # Complete tables of instance attributes, by the keys of the class family.
    tables: dict[str, dict[str, Value]] = field(default_factory=dict)
    # Facts of classes that depend on the file's definitions only, never on order.
    module_classes: dict[str, bool] = field(default_factory=dict)  # by class key
    shown_kinds: dict[tuple[str, str], Kind | None] = field(default_factory=dict)  # class key, attribute
    surely_assigned: dict[str, frozenset[str]] = field(default_factory=dict)  # by method key
    # Evaluations in progress since the innermost table in progress began (or since the start).
    _frames: list[_Frame] = field(default_factory=list)
    _building: list[_Table] = field(default_factory=list)

    @property
    def depth(self) -> int:
        return len(self._frames)

    def admit(self, simple: bool) -> bool:
        """May an evaluation start here? A refusal makes what is in progress incomplete: cut at
        this depth by the cap, or for good in simple mode or past the budget."""
        if simple or self.evaluated >= MAX_SUMMARIES:
            if self._frames:
                self._frames[-1].lowest = -1
            if self._building:
                self._building[-1].lowest = -1
            return False
        if self.depth >= MAX_DEPTH:
            self._frames[-1].height = _CUT
            return False
        return True

    def recall(self, key: CallKey) -> Outcome | None:
        """A complete summary that holds at this depth; or, for a call in progress, what a
        recursive call contributes (nothing), noting the cycle it cuts."""
        known = self.outcomes.get((key, self.depth))
        if known is None and self._building:
            known = self._building[-1].provisional.get((key, self.depth))
            if known is not None and self._frames:
                self._frames[-1].partial = True
        if known is not None:
            outcome, height = known
            self._used(height)
            return outcome
        for index, frame in enumerate(self._frames):
            if frame.key == key:
                if index < self.depth - 1:  # not a direct call of itself: a cycle through others
                    top = self._frames[-1]
                    top.lowest = min(top.lowest, index)
                return NONE, {}
        return None

    def evaluate(self, key: CallKey | None, evaluate: Callable[[], Outcome]) -> Outcome:
        """Evaluate a summary (or, without a key, a method for a table) and keep it if complete."""
        if key is not None and key not in self.calls[key[0]]:
            self.calls[key[0]].add(key)
            self.evaluated += 1
        frame = _Frame(key)
        self._frames.append(frame)
        try:
            outcome = evaluate()
        finally:
            self._frames.pop()
        index = self.depth
        if self._frames:  # what this one reached, its caller reached too
            caller = self._frames[-1]
            caller.lowest = min(caller.lowest, frame.lowest)
            caller.partial = caller.partial or frame.partial
        self._used(frame.height)
        if key is None:  # a method evaluated for a table: the table grows by what it assigned
            self._building[-1].provisional.clear()
        elif frame.lowest > index:
            kept = self._building[-1].provisional if frame.partial else self.outcomes
            if index + frame.height > MAX_DEPTH:  # cut by the cap: holds at this depth only
                kept[(key, index)] = (outcome, frame.height)
            else:
                for depth in range(MAX_DEPTH - frame.height + 1):
                    kept[(key, depth)] = (outcome, frame.height)
        return outcome

    def _used(self, height: int) -> None:
        if self._frames:
            caller = self._frames[-1]
            caller.height = min(_CUT, max(caller.height, height + 1))

    def table(self, key: str, build: Callable[[dict[str, Value]], None]) -> dict[str, Value]:
        """The table of a class family: kept, or built apart (see the module's docstring)."""
        known = self.tables.get(key)
        if known is not None:
            return known
        for index, building in enumerate(self._building):
            if building.key == key:
                if index < len(self._building) - 1:  # read while building another table
                    innermost = self._building[-1]
                    innermost.lowest = min(innermost.lowest, index)
                    if self._frames:
                        self._frames[-1].lowest = -1
                elif self._frames:  # read by evaluations that see only part of it
                    self._frames[-1].partial = True
                return building.attributes
        building = _Table(key, self._frames)
        self._frames = []
        self._building.append(building)
        try:
            build(building.attributes)
        finally:
            self._building.pop()
            self._frames = building.outside
        if building.lowest > len(self._building):
            self.tables[key] = building.attributes
        else:  # it read a table built around it: neither it nor what asked for it is kept
            if self._building:
                outer = self._building[-1]
                outer.lowest = min(outer.lowest, building.lowest)
            if self._frames:
                self._frames[-1].lowest = -1
        return building.attributes
