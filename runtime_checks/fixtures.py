"""Fixture discovery and the two inline annotation grammars.

A fixture is ``tests/fixtures/<CODE>/bad_*.py`` or ``good_*.py``: a small runnable
program that uses a free variable ``device`` (the runner binds it). It says what the
linter must report with ``# expect:`` comments on the reported lines, and what it
does at run time with ``# runtime:`` comment lines (grammar in tests/fixtures/README.md):

    # runtime: passes
    # runtime: passes (performance)
    # runtime: raises RuntimeError "same device"|"expected device" on accelerator
    # runtime: raises AssertionError|RuntimeError "not compiled with CUDA"|"driver" on cpu-only
"""

from __future__ import annotations

import glob
import io
import re
import tokenize
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

FIXTURES_ROOT = Path(__file__).resolve().parent.parent / "tests" / "fixtures"

CONDITIONS = ("accelerator", "gpu", "cpu-only", "cuda", "any")
# The folder of the facts about PyTorch that the analysis relies on: ``holds_*.py`` runs clean on
# every device, ``raises_*.py`` fails as it declares. The linter's findings on them are checked
# like any fixture's (``# expect:`` lines, none required), but they belong to no rule.
SEMANTICS = "semantics"

_RULE_CODE = re.compile(r"^TDV\d{3}$")
_CODES = r"(?P<codes>TDV\d{3}(?:\s*,\s*TDV\d{3})*)\s*$"
_EXPECT = re.compile(rf"#\s*expect:\s*{_CODES}")
_RUNTIME = re.compile(r"^#\s*runtime:\s*(?P<body>.+?)\s*$")
_RAISES = re.compile(
    r'^raises\s+(?P<types>\w+(?:\|\w+)*)\s+(?P<messages>"[^"]*"(?:\|"[^"]*")*)\s+on\s+(?P<condition>[\w-]+)$'
)


class FixtureError(ValueError):
    """A fixture whose annotations do not follow the grammar."""


class SelectionError(ValueError):
    """A ``--fixtures`` choice that names no fixture file."""


@dataclass(frozen=True)
class RuntimeExpectation:
    """``raises <types> <messages> on <condition>``; ``passes`` has no types."""

    exception_types: tuple[str, ...] = ()
    messages: tuple[str, ...] = ()
    condition: str = ""

    @property
    def passes(self) -> bool:
        return not self.exception_types

    def matches(self, exception_type: str, message: str) -> bool:
        lowered = message.lower()
        return exception_type in self.exception_types and any(m.lower() in lowered for m in self.messages)


PASSES = RuntimeExpectation()
# A performance bug runs correctly: it does extra work (TDV007 allocates twice) but never fails.
PERFORMANCE = RuntimeExpectation(condition="performance")


@dataclass(frozen=True)
class Fixture:
    path: Path
    code: str  # the rule directory, e.g. TDV001
    is_bad: bool
    expected: Counter = field(compare=False)  # Counter[(line, code)]
    runtime: tuple[RuntimeExpectation, ...] = ()

    @property
    def name(self) -> str:
        return f"{self.code}/{self.path.name}"

    @property
    def performance_only(self) -> bool:
        """A bad fixture whose bug costs time, not correctness: it must run clean everywhere."""
        return self.runtime == (PERFORMANCE,)


def parse_runtime(body: str) -> RuntimeExpectation:
    if body == "passes":
        return PASSES
    if body == "passes (performance)":
        return PERFORMANCE
    match = _RAISES.match(body)
    if match is None or match.group("condition") not in CONDITIONS:
        raise FixtureError(f"bad runtime annotation: {body!r}")
    messages = tuple(part.strip('"') for part in match.group("messages").split("|"))
    return RuntimeExpectation(tuple(match.group("types").split("|")), messages, match.group("condition"))


def comments(source: str) -> list[tuple[tuple[int, int], str]]:
    """((line, column), text) of every comment token: ``# expect:`` inside a string is not one."""
    tokens = tokenize.generate_tokens(io.StringIO(source).readline)
    return [(token.start, token.string) for token in tokens if token.type == tokenize.COMMENT]


def is_annotation(comment: str) -> bool:
    """An ``# expect:`` or ``# runtime:`` comment: what a fixture declares, not what it does."""
    return bool(_EXPECT.search(comment) or _RUNTIME.match(comment))


def expectations(source: str, marker: str = "expect") -> Counter:
    """Counter[(line, code)] of the ``# expect: TDV00N`` comments (or another ``marker``'s)."""
    pattern = re.compile(rf"#\s*{re.escape(marker)}:\s*{_CODES}")
    expected: Counter = Counter()
    for (line, _), comment in comments(source):
        expect = pattern.search(comment)
        for code in expect.group("codes").split(",") if expect is not None else ():
            expected[(line, code.strip())] += 1
    return expected


def load_fixture(path: Path) -> Fixture:
    source = path.read_bytes().decode("utf-8")
    expected = expectations(source)
    runtime = []
    for (line, _), comment in comments(source):
        declared = _RUNTIME.match(comment)
        if declared is not None:
            try:
                runtime.append(parse_runtime(declared.group("body")))
            except FixtureError as error:
                raise FixtureError(f"{path}:{line}: {error}") from None
    semantic = path.parent.name == SEMANTICS
    failing, working = ("raises_", "holds_") if semantic else ("bad_", "good_")
    is_bad = path.name.startswith(failing)
    if not is_bad and not path.name.startswith(working):
        raise FixtureError(f"{path}: fixture names start with {failing} or {working}")
    if is_bad and not expected and not semantic:
        raise FixtureError(f"{path}: a bad fixture needs at least one '# expect:' comment")
    if not is_bad and expected and not semantic:
        raise FixtureError(f"{path}: a good fixture has no '# expect:' comment")
    if not runtime:
        raise FixtureError(f"{path}: declare what it does at run time with '# runtime:'")
    if not is_bad and runtime != [PASSES]:
        raise FixtureError(f"{path}: a good fixture declares '# runtime: passes' and nothing else")
    if PERFORMANCE in runtime and runtime != [PERFORMANCE]:
        raise FixtureError(f"{path}: '# runtime: passes (performance)' stands alone")
    if is_bad and (PASSES in runtime or PERFORMANCE in runtime) and semantic:
        raise FixtureError(f"{path}: a raises_ fixture declares how it fails")
    if is_bad and PASSES in runtime:
        raise FixtureError(f"{path}: a bad fixture fails, or declares '# runtime: passes (performance)'")
    return Fixture(path, path.parent.name, is_bad, expected, tuple(runtime))


def fixture_paths(root: Path = FIXTURES_ROOT) -> list[Path]:
    return sorted([*root.glob("TDV*/*.py"), *root.glob(f"{SEMANTICS}/*.py")])


def pair_paths(root: Path = FIXTURES_ROOT) -> list[Path]:
    """The autofix pairs, ``fixes/<CODE>_<name>.in.py`` next to their ``.out.py``."""
    return sorted(root.glob("fixes/*.py"))


def discover(root: Path = FIXTURES_ROOT) -> list[Fixture]:
    return [load_fixture(path) for path in fixture_paths(root)]


def select_paths(choices: Iterable[str], root: Path = FIXTURES_ROOT) -> list[Path]:
    """Fixture files named by rule codes (``TDV002``, under root), paths or globs; in order, once each."""
    chosen: list[Path] = []
    for choice in choices:
        found = _paths_for(choice, root)
        if not found:
            raise SelectionError(f"{choice!r} names no fixture file")
        chosen.extend(found)
    return list(dict.fromkeys(path.resolve() for path in chosen))


def _paths_for(choice: str, root: Path) -> list[Path]:
    if _RULE_CODE.match(choice) or choice == SEMANTICS:
        return sorted((root / choice).glob("*.py"))
    matches = [Path(match) for match in sorted(glob.glob(choice, recursive=True))]
    return [path for match in matches for path in _python_files(match)]


def _python_files(path: Path) -> list[Path]:
    return sorted(path.rglob("*.py")) if path.is_dir() else [path]
