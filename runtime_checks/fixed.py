"""Proof that the autofixes repair the failures they fix, not just silence the linter.

Every bad fixture that its rule's fix repairs entirely (unsafe fixes included) is fixed with the
linter's own ``fix_source`` and written out as a good fixture: ``# runtime: passes``, no
``# expect:``. Entirely means no rule reports anything on the fixed program: moving a batch
back onto the device also clears the device mix (TDV005) it caused further down. The runner
then runs the fixed program on every device like any other fixture, and the cross-check demands
that the linter report nothing on it. A fix that leaves the program failing, or that introduces a
finding of another rule, is a mismatch.

Fixtures that a fix cannot repair entirely (a rule without a fix, a receiver the fix does not
rewrite, a second bug of another rule) have no fixed copy.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from flake8_torchdevice.engine import lint_source
from flake8_torchdevice.fixes import fix_source
from flake8_torchdevice.rules import RULES_BY_CODE

from .fixtures import Fixture, comments, is_annotation

FIXED_PREFIX = "good_fixed_"


def fixed_program(fixture: Fixture) -> str | None:
    """The bad fixture with its rule's fixes applied, declared good; None when a fix cannot repair it all."""
    rule = RULES_BY_CODE.get(fixture.code)
    if rule is None or not fixture.is_bad:
        return None
    # Bytes, decoded without newline translation: a CRLF fixture is fixed as CRLF.
    outcome = fix_source(fixture.path.read_bytes().decode("utf-8"), rules=(rule,), unsafe=True)
    if outcome.applied == 0 or lint_source(outcome.source):
        return None
    return declared_good(outcome.source)


def declared_good(source: str) -> str:
    """The source without its ``# expect:`` and ``# runtime:`` comments, declaring ``# runtime: passes``."""
    lines = source.splitlines(keepends=True)
    for (row, column), comment in reversed(comments(source)):
        if is_annotation(comment):
            line = lines[row - 1]
            ending = line[len(line.rstrip("\r\n")) :]
            kept = line[:column].rstrip()
            lines[row - 1] = kept + ending if kept else ""
    newline = "\r\n" if source.endswith("\r\n") else "\n"
    return f"# runtime: passes{newline}" + "".join(lines)


def write_fixed_copies(fixtures: Sequence[Fixture], directory: Path) -> list[Path]:
    """Each repairable bad fixture's fixed program as ``<directory>/<CODE>/good_fixed_<name>.py``."""
    written = []
    for fixture in fixtures:
        program = fixed_program(fixture)
        if program is None:
            continue
        path = directory / fixture.code / (FIXED_PREFIX + fixture.path.name[len("bad_") :])
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(program.encode("utf-8"))
        written.append(path)
    return written
