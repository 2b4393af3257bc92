"""Lines a message names ("made by torch.zeros() at line 12"), kept as positions until a front end
says how its reader counts lines.

A rule writes a node's line into its message through ``Analysis.explain``, which leaves a mark
(``mark``) instead of a number: the engine then finds the line of every marked node in the one
pass that places the findings (a pass per mention made linting quadratic in the file's length),
writes "line 12", and records where in the message it wrote it (``LineMention``). A front end
that counts lines another way renames those spans (``renamed``): the notebook front end says
"line 3" of the finding's own cell, or "cell 2, line 8".
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

# Python refuses source that holds a NUL byte: no code a message quotes from a program can look like a mark.
_MARK = re.compile("\x00([0-9]+)\x00")


@dataclass(frozen=True)
class LineMention:
    """``message[start:end]`` names line ``line`` of the analysed module."""

    start: int
    end: int
    line: int


def mark(key: int) -> str:
    """Stands for "line N" of the node with this key (its ``id``) until the engine resolves it."""
    return f"\x00{key}\x00"


def resolved(message: str, lines: Mapping[int, int]) -> tuple[str, tuple[LineMention, ...]]:
    """The message with each mark written as "line N" (line 1 for a node without a position),
    and where each one landed."""
    parts: list[str] = []
    mentions: list[LineMention] = []
    length = previous_end = 0
    for match in _MARK.finditer(message):
        before = message[previous_end : match.start()]
        line = lines.get(int(match.group(1)), 1)
        named = python_line_name(line)
        mentions.append(LineMention(length + len(before), length + len(before) + len(named), line))
        parts += (before, named)
        length += len(before) + len(named)
        previous_end = match.end()
    parts.append(message[previous_end:])
    return "".join(parts), tuple(mentions)


def renamed(message: str, mentions: Sequence[LineMention], name: Callable[[int], str]) -> str:
    """The message with each line it names written by ``name``."""
    parts: list[str] = []
    previous_end = 0
    for mention in mentions:
        parts += (message[previous_end : mention.start], name(mention.line))
        previous_end = mention.end
    parts.append(message[previous_end:])
    return "".join(parts)


def python_line_name(line: int) -> str:
    return f"line {line}"
