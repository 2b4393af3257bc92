"""Parse once, analyse once, run the enabled rules, return diagnostics.

The only entry point every front end uses. It never raises: a file it cannot
parse or analyse yields a single TDV900 diagnostic.
"""

from __future__ import annotations

import sys
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterable, Iterator, List, Sequence, Type

import libcst as cst

from .analysis import analyse, positions_of
from .rules import ALL_RULES, Finding, Rule
from .rules.tdv900_unanalysable import UnanalysableFile
from .settings import Settings

# The walk recurses once per nesting level; a generated 1,000-term sum is deeper than Python's
# default limit. From 3.11 Python-to-Python calls do not grow the C stack, so a higher limit is
# safe there; older versions keep their default.
_RECURSION_LIMIT = 20_000 if sys.version_info >= (3, 11) else 0

# A file that mentions neither can hold no finding; skipping it costs one substring search.
_RELEVANT_WORDS = ("torch", "cuda")


@dataclass(frozen=True, order=True)
class Diagnostic:
    line: int  # 1-based
    column: int  # 0-based, in characters
    code: str
    message: str

    def flake8_text(self) -> str:
        return f"{self.code} {self.message}"


def could_have_findings(source: str) -> bool:
    return any(word in source for word in _RELEVANT_WORDS)


def lint_source(
    source: str, settings: Settings = Settings(), rules: Sequence[Type[Rule]] = ALL_RULES
) -> List[Diagnostic]:
    if not could_have_findings(source):
        return []
    try:
        module = cst.parse_module(source)
    except RecursionError:
        return [_unanalysable("nested too deeply for the parser")]
    except Exception as error:  # libcst's ParserSyntaxError, or anything its native parser raises
        return [_unanalysable(f"libcst could not parse it: {_first_line(error)}")]
    try:
        with _recursion_limit(_RECURSION_LIMIT):
            findings = _run_rules(module, settings, rules)
            return _diagnostics(module, findings)
    except RecursionError:
        return [_unanalysable("nested too deeply to analyse")]
    except Exception as error:  # an analysis bug must not abort the user's whole flake8 run
        return [_unanalysable(f"internal error {type(error).__name__}: {_first_line(error)}")]


@contextmanager
def _recursion_limit(limit: int) -> Iterator[None]:
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous, limit))
    try:
        yield
    finally:
        sys.setrecursionlimit(previous)


def _run_rules(module: cst.Module, settings: Settings, rules: Sequence[Type[Rule]]) -> List[Finding]:
    analysis = analyse(module, settings.guard_functions)
    return [finding for rule in rules for finding in rule().check(analysis, settings)]


def _diagnostics(module: cst.Module, findings: Iterable[Finding]) -> List[Diagnostic]:
    unique = {(id(finding.node), finding.code): finding for finding in findings}
    positions = positions_of(module, (finding.node for finding in unique.values()))
    diagnostics = set()
    for (node_id, code), finding in unique.items():
        line, column = positions.get(node_id, (1, 0))
        diagnostics.add(Diagnostic(line, column, code, finding.message))
    return sorted(diagnostics)


def _unanalysable(reason: str) -> Diagnostic:
    return Diagnostic(1, 0, UnanalysableFile.code, UnanalysableFile.message(reason))


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__
