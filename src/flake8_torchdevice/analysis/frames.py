"""What the interpreter keeps per function it walks, and the functions waiting to be walked."""

from __future__ import annotations

from dataclasses import dataclass, field

from .definitions import FunctionInfo
from .domain import Value
from .facts import Scope
from .state import State


@dataclass
class Frame:
    """The function (None: the module) being walked, and where its control flow goes."""

    function: FunctionInfo | None
    scope: Scope
    self_value: Value | None = None
    returns: list[Value] = field(default_factory=list)
    # The states at each ``return``: with the end of the body, where the function leaves.
    exits: list[State] = field(default_factory=list)
    # Per enclosing loop: the states at ``break`` and at ``continue``.
    breaks: list[list[State]] = field(default_factory=list)
    continues: list[list[State]] = field(default_factory=list)


@dataclass
class Pending:
    """A function to record later, with the state its body starts from (None: the module's)."""

    info: FunctionInfo
    entry: State | None
