"""What the language server asks about an open document, answered with the engine, the fixes and
``# noqa``: the findings with their spans, the edit of each fix and of each noqa comment, and the
edit that applies every safe fix.

It runs in the server's worker process (server.py), so that an analysis that overruns its time
budget, or crashes, is stopped without stopping the server; so it imports no LSP library and
answers in plain data. Positions are ``(line, column)``, both 0-based, columns in characters, lines
split where Python splits them (``\\n``, ``\\r\\n``, ``\\r``), as the LSP splits them too; the server
turns columns into the client's units.
"""

from __future__ import annotations

import io
import tokenize
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Literal

import libcst as cst

from .callers import NO_CALLERS, FileCallers
from .config import ConfigError, Resolved, config_from_table, load_config, resolve
from .engine import CheckedSource, Diagnostic, check_source, unanalysable
from .fixes import apply_fixes, fix_source
from .imported import NO_IMPORTED_CLASSES, ImportedClasses
from .noqa import is_silenced, silencer, with_noqa
from .notebooks import physical_lines
from .parsing import cyclic_gc_paused
from .project.beliefs import NO_BELIEF, Belief
from .rules import Finding, Rule, selected_rules
from .sources import oversized

Position = tuple[int, int]

# Where a problem with the editor's settings comes from, in the message that names it.
EDITOR_SETTINGS = "the editor's torchdevice settings"


@dataclass(frozen=True)
class Document:
    """An open document as the editor holds it, unsaved changes included."""

    text: str
    # Where the file is, for its pyproject.toml; None for a buffer never saved (the working directory's).
    path: Path | None
    # ``[tool.torchdevice]`` keys from the editor, over the file's as the command's flags are.
    settings: Mapping[str, Any]
    # What the file's project believes about running without CUDA, what the calls of its
    # functions in other files have in common, and what the classes it imports are, once the
    # server has read the project (never waited for: unknown until then).
    cpu_support: Belief = NO_BELIEF
    callers: FileCallers = NO_CALLERS
    classes: ImportedClasses = NO_IMPORTED_CLASSES
    checkpoints: Belief = NO_BELIEF


@dataclass(frozen=True)
class Found:
    """A finding, where it is: from its node's start to the end of the node's code."""

    diagnostic: Diagnostic
    start: Position
    end: Position


@dataclass(frozen=True)
class Linted:
    found: list[Found]
    problem: str | None = None  # a configuration error: nothing was analysed


@dataclass(frozen=True)
class Edit:
    """Replace the text from ``start`` to ``end`` with ``text``."""

    start: Position
    end: Position
    text: str


@dataclass(frozen=True)
class Action:
    """An edit for one finding (its code and start): its fix, safe or not, or a noqa comment."""

    kind: Literal["fix", "unsafe fix", "noqa"]
    code: str
    start: Position
    description: str  # what a fix does; for noqa, the comment
    edit: Edit


def lint(document: Document) -> Linted:
    """The selected findings that no ``# noqa`` silences."""
    try:
        resolved = _resolved(document)
    except ConfigError as error:
        return Linted([], problem=str(error))
    silenced = silencer(document.text)
    # The tree dies before the cyclic GC resumes: alive then, the next collection would walk it all.
    with cyclic_gc_paused():
        checked = _checked(document.text, resolved)
        nodes = {id(diagnostic): finding.node for finding, diagnostic in checked.located}
        lines = physical_lines(document.text)
        found = [
            _found(checked.module, nodes.get(id(diagnostic)), diagnostic, lines)
            for diagnostic in checked.diagnostics
            if not silenced(diagnostic)
        ]
    return Linted(found)


def actions(document: Document, wanted: Sequence[tuple[str, Position]]) -> list[Action]:
    """The fix and the noqa comment of each finding at ``wanted`` (its code and start), as the
    document reads now; a finding that has moved or gone gets none."""
    try:
        resolved = _resolved(document)
    except ConfigError:
        return []
    with cyclic_gc_paused():
        checked = _checked(document.text, resolved)
        findings = {id(diagnostic): finding for finding, diagnostic in checked.located}
        keys = set(wanted)
        here = [diagnostic for diagnostic in checked.diagnostics if (diagnostic.code, _start(diagnostic)) in keys]
        return [
            action
            for diagnostic in here
            for action in _actions(document.text, checked, diagnostic, findings.get(id(diagnostic)))
        ]


def fix_all(document: Document) -> Edit | None:
    """The edit that applies every safe fix, as ``torchdevice fix`` would; None when there is none."""
    try:
        resolved = _resolved(document)
    except ConfigError:
        return None
    if oversized(document.text, resolved.memory_budget):
        return None
    fixed = fix_source(document.text, resolved.settings, _rules(resolved)).source
    return None if fixed == document.text else text_edit(document.text, fixed)


def _resolved(document: Document) -> Resolved:
    start = document.path.parent if document.path is not None else Path.cwd()
    resolved = resolve(load_config(start), config_from_table(document.settings, start, EDITOR_SETTINGS))
    settings = replace(
        resolved.settings, callers=document.callers, classes=document.classes, checkpoints=document.checkpoints
    )
    if not settings.states_a_belief:  # stated, it is in the settings already
        settings = replace(settings, cpu_support=document.cpu_support)
    return replace(resolved, settings=settings)


def _rules(resolved: Resolved) -> tuple[type[Rule], ...]:
    return selected_rules(resolved.codes)


def _checked(text: str, resolved: Resolved) -> CheckedSource:
    """The engine's answer for the selected codes; a text too large for the memory budget is not parsed."""
    too_large = oversized(text, resolved.memory_budget)
    if too_large:
        checked = CheckedSource(None, [], [unanalysable(too_large)])
    else:
        checked = check_source(text, resolved.settings, _rules(resolved))
    # The engine reports TDV900 itself, selected or not.
    selected = [diagnostic for diagnostic in checked.diagnostics if diagnostic.code in resolved.codes]
    return CheckedSource(checked.module, checked.located, selected)


def _found(module: cst.Module | None, node: cst.CSTNode | None, diagnostic: Diagnostic, lines: list[str]) -> Found:
    start = _start(diagnostic)
    if module is None or node is None:  # TDV900, at the top of the file: its first line
        first = lines[0].rstrip("\r\n") if lines else ""
        return Found(diagnostic, start, (start[0], max(start[1], len(first))))
    return Found(diagnostic, start, position_after(start, _reported_code(module, node)))


def _start(diagnostic: Diagnostic) -> Position:
    return diagnostic.line - 1, diagnostic.column


def _reported_code(module: cst.Module, node: cst.CSTNode) -> str:
    """The code of a reported node as the file has it, without the parentheses around it: the
    engine's position of a node is after them."""
    if getattr(node, "lpar", None):
        node = node.with_changes(lpar=(), rpar=())
    return module.code_for_node(node)


def position_after(start: Position, text: str) -> Position:
    """Where ``text`` ends when it is written from ``start``."""
    lines = physical_lines(text)
    if not lines:
        return start
    if lines[-1].endswith(("\n", "\r")):
        return start[0] + len(lines), 0
    if len(lines) == 1:
        return start[0], start[1] + len(text)
    return start[0] + len(lines) - 1, len(lines[-1])


def _actions(text: str, checked: CheckedSource, diagnostic: Diagnostic, finding: Finding | None) -> Iterator[Action]:
    start = _start(diagnostic)
    fix = finding.fix if finding is not None else None
    if fix is not None and checked.module is not None:
        fixed, applied = apply_fixes(text, checked.module, [fix])
        if applied:
            kind: Literal["fix", "unsafe fix"] = "fix" if fix.safe else "unsafe fix"
            yield Action(kind, diagnostic.code, start, fix.description, text_edit(text, fixed))
    noqa = noqa_edit(text, start[0], diagnostic.code)
    if noqa is not None:
        yield Action("noqa", diagnostic.code, start, f"# noqa: {diagnostic.code}", noqa)


def noqa_edit(text: str, line: int, code: str) -> Edit | None:
    """The edit that silences ``code`` on ``line`` (0-based) with a ``# noqa`` comment; None where a
    comment there would not be one (the line ends inside a string, or with a backslash)."""
    lines = physical_lines(text)
    if not 0 <= line < len(lines):
        return None
    silenced = with_noqa(lines[line], code)
    edited = "".join(lines[:line]) + silenced + "".join(lines[line + 1 :])
    if not is_silenced(silenced, code) or not _same_code(text, edited):
        return None
    return text_edit(text, edited)


def _same_code(before: str, after: str) -> bool:
    """The two texts differ in their comments alone: the same tokens, comments and blank lines aside."""
    code = _code_tokens(before)
    return code is not None and code == _code_tokens(after)


def _code_tokens(text: str) -> list[tuple[int, str]] | None:
    try:
        tokens = tokenize.generate_tokens(io.StringIO(text).readline)
        return [(token.type, token.string) for token in tokens if token.type not in (tokenize.COMMENT, tokenize.NL)]
    except (tokenize.TokenError, SyntaxError):
        return None


def text_edit(before: str, after: str) -> Edit:
    """One edit that turns ``before`` into ``after``: what lies between their common start and end.

    Neither end of it falls between the ``\\r`` and the ``\\n`` of a line break, which is no
    position in the LSP.
    """
    start = _shared_length(before, after)
    if start > 0 and before[start - 1 : start + 1] == "\r\n":
        start -= 1
    shared_end = _shared_length(before[start:][::-1], after[start:][::-1])
    end, new_end = len(before) - shared_end, len(after) - shared_end
    if end > start and before[end - 1 : end + 1] == "\r\n":
        end, new_end = end + 1, new_end + 1
    return Edit(position_after((0, 0), before[:start]), position_after((0, 0), before[:end]), after[start:new_end])


def _shared_length(first: str, second: str) -> int:
    """How many characters the two strings share at their start: a binary search over slice
    comparisons, which run in C, instead of a Python loop over a file's characters."""
    low, high = 0, min(len(first), len(second))
    while low < high:
        middle = (low + high + 1) // 2
        if first[:middle] == second[:middle]:
            low = middle
        else:
            high = middle - 1
    return low
