"""Applying the rules' fixes to source text (for the standalone command and the language server).

Fixes replace nodes of the analysed module by identity, so formatting and comments
outside the replaced nodes are untouched. Fixes apply in rounds: a fix whose target
contains another fix's target waits for the next round, which re-analyses the
result; rounds stop when nothing changes, so fixing twice changes nothing.
"""

from __future__ import annotations

import ast
import warnings
from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import libcst as cst

from .engine import CheckedSource, Diagnostic, check_source
from .noqa import silencer
from .rules import ALL_RULES, Rule
from .rules.base import Fix
from .settings import Settings

_MAX_ROUNDS = 8


@dataclass
class FixOutcome:
    source: str
    applied: int
    remaining: list[Diagnostic]


class _Replacer(cst.CSTTransformer):
    """Replaces fix targets by identity; a target that contains another target waits a round."""

    def __init__(self, fixes: Sequence[Fix]) -> None:
        super().__init__()
        self._replacements: dict[int, cst.CSTNode] = {id(fix.target): fix.replacement for fix in fixes}
        self._open_targets: list[int] = []
        self._deferred: set[int] = set()
        self.applied = 0

    def on_visit(self, node: cst.CSTNode) -> bool:
        if id(node) in self._replacements:
            # Its replacement was built from the original children: it would undo this inner fix.
            self._deferred.update(self._open_targets)
            self._open_targets.append(id(node))
        return True

    # libcst's stubs say on_leave returns the type it was given, but libcst accepts any node its
    # parent's field allows (its own leave_Expr may return any small statement); a fix replaces
    # ``x.to(d)`` by ``x = x.to(d)``, a name by a call.
    def on_leave(self, original_node: cst.CSTNode, updated_node: cst.CSTNode) -> cst.CSTNode:  # type: ignore[override]
        key = id(original_node)
        if key not in self._replacements:
            return updated_node
        self._open_targets.pop()
        if key in self._deferred:
            return updated_node
        self.applied += 1
        return _keep_parentheses(updated_node, self._replacements[key])


def _keep_parentheses(original: cst.CSTNode, replacement: cst.CSTNode) -> cst.CSTNode:
    """``(torch.zeros(3).to(d))`` keeps its parentheses: they belong to the replaced node."""
    lpar = getattr(original, "lpar", None)
    if lpar and isinstance(replacement, cst.BaseExpression) and not replacement.lpar:
        return replacement.with_changes(lpar=lpar, rpar=original.rpar)  # type: ignore[attr-defined]
    return replacement


@dataclass
class FixRound:
    """One round of fixing: the text it started from, what the analysis found there, the result."""

    before: str
    checked: CheckedSource
    after: str
    applied: int


def fix_rounds(
    source: str,
    settings: Settings = Settings(),
    rules: Sequence[type[Rule]] = ALL_RULES,
    unsafe: bool = False,
) -> Iterator[FixRound]:
    """The rounds of fixing ``source``, each one re-analysing the previous one's result.

    A fix can reveal a finding that was not there before (``x.to(d)`` made ``x = x.to(d)`` puts
    ``x`` on ``d`` for the ``x.numpy()`` below it): the next round reports and fixes it. Rounds
    stop when none applies; the last one yielded applied nothing.
    """
    for _ in range(_MAX_ROUNDS):
        checked = check_source(source, settings, rules)
        silenced = silencer(source)
        fixes = [
            finding.fix
            for finding, diagnostic in checked.located
            if finding.fix is not None and (finding.fix.safe or unsafe) and not silenced(diagnostic)
        ]
        fixed, count = apply_fixes(source, checked.module, fixes) if checked.module and fixes else (source, 0)
        yield FixRound(source, checked, fixed, count)
        if count == 0:
            return
        source = fixed
    yield FixRound(source, check_source(source, settings, rules), source, 0)


def fix_source(
    source: str,
    settings: Settings = Settings(),
    rules: Sequence[type[Rule]] = ALL_RULES,
    unsafe: bool = False,
) -> FixOutcome:
    """Apply every applicable fix; return the new text, how many fixes applied, and what remains.

    A finding silenced by ``# noqa`` keeps its code as it is, as flake8 would keep it unreported.
    """
    rounds = list(fix_rounds(source, settings, rules, unsafe))
    last = rounds[-1]  # it applied nothing: its text is the result, its findings what remains
    return FixOutcome(last.after, sum(one.applied for one in rounds), last.checked.diagnostics)


def apply_fixes(source: str, module: cst.Module, fixes: Sequence[Fix]) -> tuple[str, int]:
    """One round: ``source`` with ``fixes`` (of findings in ``module``, its parse) applied, and how
    many applied; ``source`` itself and 0 when none applies or the result would not parse."""
    replacer = _Replacer(fixes)
    fixed = _with_what_libcst_drops(source, module.code, module.visit(replacer).code)
    if replacer.applied == 0 or not _still_parses(source, fixed):
        return source, 0
    return fixed, replacer.applied


def _with_what_libcst_drops(source: str, regenerated: str, fixed: str) -> str:
    """``fixed`` with the text libcst's code generation drops around the module put back.

    libcst regenerates a module without its leading byte-order mark, and without the final line
    break of a file whose lines end with a lone carriage return. ``regenerated`` is the unchanged
    module as libcst writes it; whatever of ``source`` surrounds it surrounds the fixed code too.
    """
    start = source.find(regenerated)
    if start < 0:
        return fixed
    return source[:start] + fixed + source[start + len(regenerated) :]


def _still_parses(before: str, after: str) -> bool:
    """The fixed text parses with libcst, and with this Python if the original did.

    libcst accepts PEP 701 f-strings on every version, so ``f"{torch.load(p, map_location="cpu")}"``
    passes it yet breaks Python before 3.12; Python's own parser has the last word.
    """
    try:
        cst.parse_module(after)
    except Exception:
        return False
    return not _python_parses(before) or _python_parses(after)


def _python_parses(source: str) -> bool:
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like
            ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True
