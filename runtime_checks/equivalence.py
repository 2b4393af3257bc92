"""Proof that a safe fix keeps the program's meaning: run it before and after the fix, compare.

A safe fix may change nothing but the bug it repairs. For every fix fixture, the program before
the fix and the program after it run on every device, each in a fresh process, from the same
seeds (torch's generators, Python's ``random``, NumPy's), and what they leave is compared: every
global name; each tensor's class, dtype, shape, device, requires_grad, is_leaf, grad_fn, gradient
and values; modules' parameters and buffers; NumPy arrays, plain values, generators; and the states of the random
number generators afterwards (child.py describes them). meta holds no data: values are compared
on real devices only, everything else everywhere.

The fix fixtures are the ``tests/fixtures/fixes/<CODE>_<name>.in.py`` -> ``.out.py`` pairs whose
rule fixes the input with a safe fix, and every bad fixture of a rule with a safe fix, fixed by
the command's own ``fix_source`` (safe fixes only).

Verdicts per pair and device:
- equivalent: both ran to the same end (both passed, or both raised the same exception) and left
  the same state;
- different: a safe fix that changed behaviour: the fixed program raises where the original ran,
  or leaves another state (a failure of the check);
- not comparable: the original fails in a way the fixed program does not (the failure the fix
  repairs, or one meta cannot run), or a run left no result.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from flake8_torchdevice.fixes import fix_source
from flake8_torchdevice.rules import RULES_BY_CODE

from .fixtures import Fixture
from .launch import Run
from .verdicts import Outcome

EQUIVALENT = "equivalent"
DIFFERENT = "different"
NOT_COMPARABLE = "not comparable"
KINDS = (EQUIVALENT, DIFFERENT, NOT_COMPARABLE)

IN_SUFFIX, OUT_SUFFIX = ".in.py", ".out.py"
_PAIR_CODE = re.compile(r"^(TDV\d{3})_")


@dataclass(frozen=True)
class FixPair:
    name: str  # "TDV007/bad_randn_latent.py", "fixes/TDV007_device_keyword.in.py"
    before: Path
    after: str  # the fixed program's text


@dataclass(frozen=True)
class Equivalence:
    kind: str  # one of KINDS
    reason: str = ""


def fixture_pair(fixture: Fixture) -> FixPair | None:
    """A bad fixture and its rule's safe fixes; None when its rule has no safe fix for it."""
    rule = RULES_BY_CODE.get(fixture.code)
    if rule is None or not fixture.is_bad:
        return None
    # Bytes, decoded without newline translation: a CRLF fixture is fixed as CRLF.
    outcome = fix_source(fixture.path.read_bytes().decode("utf-8"), rules=(rule,), unsafe=False)
    return FixPair(fixture.name, fixture.path, outcome.source) if outcome.applied else None


def declared_pair(path: Path) -> FixPair | None:
    """An ``.in.py`` and its ``.out.py``, held to equivalence when the rule of its name fixes the
    input with a safe fix; None otherwise (the fix is unsafe, or no rule fixes it)."""
    code = _PAIR_CODE.match(path.name)
    rule = RULES_BY_CODE.get(code.group(1)) if code else None
    expected = path.with_name(path.name[: -len(IN_SUFFIX)] + OUT_SUFFIX)
    if rule is None or not expected.exists():
        return None
    if not fix_source(path.read_bytes().decode("utf-8"), rules=(rule,), unsafe=False).applied:
        return None
    return FixPair(f"{path.parent.name}/{path.name}", path, expected.read_bytes().decode("utf-8"))


def compare(before: Run, after: Run) -> Equivalence:
    """The verdict for one pair on one device, from the two observed runs."""
    if before.outcome.no_result or after.outcome.no_result:
        which = "original" if before.outcome.no_result else "fixed program"
        reason = before.outcome.no_result or after.outcome.no_result
        return Equivalence(NOT_COMPARABLE, f"the {which} {reason}")
    if not before.outcome.passed and not _same_failure(before.outcome, after.outcome):
        return Equivalence(NOT_COMPARABLE, f"the original {before.outcome.describe()}; the fixed program does not")
    if not after.outcome.passed and before.outcome.passed:
        return Equivalence(DIFFERENT, f"the original runs; the fixed program {after.outcome.describe()}")
    found = differences(before.state or {}, after.state or {})
    return Equivalence(DIFFERENT, "; ".join(found)) if found else Equivalence(EQUIVALENT)


def differences(before: Mapping, after: Mapping) -> list[str]:
    """What differs between two observed states, one phrase each ("noise: values", "random state: torch cpu")."""
    found = []
    names_before, names_after = before.get("names", {}), after.get("names", {})
    for name in sorted(names_before.keys() | names_after.keys()):
        if name not in names_after:
            found.append(f"{name}: gone")
        elif name not in names_before:
            found.append(f"{name}: new")
        else:
            found.extend(f"{name}: {where}" for where in _changes(names_before[name], names_after[name]))
    rng_before, rng_after = before.get("rng", {}), after.get("rng", {})
    found.extend(
        f"random state afterwards: {generator}"
        for generator in sorted(rng_before.keys() | rng_after.keys())
        if rng_before.get(generator) != rng_after.get(generator)
    )
    return found


def _same_failure(before: Outcome, after: Outcome) -> bool:
    return not after.passed and before.exception_type == after.exception_type


def _changes(before: object, after: object, path: str = "") -> list[str]:
    """The paths where two descriptions differ: ``values``, ``parameters.weight.grad.values``."""
    if before == after:
        return []
    if isinstance(before, dict) and isinstance(after, dict) and before.keys() == after.keys():
        return [
            change for key in before for change in _changes(before[key], after[key], f"{path}.{key}" if path else key)
        ]
    if isinstance(before, list) and isinstance(after, list) and len(before) == len(after):
        items = enumerate(zip(before, after))
        return [change for index, (one, other) in items for change in _changes(one, other, f"{path}[{index}]")]
    return [path or "value"]


def written(pairs: Sequence[FixPair], directory: Path) -> list[tuple[FixPair, Path]]:
    """Each pair with its fixed program written to a file of its own under ``directory``."""
    directory.mkdir(parents=True, exist_ok=True)
    placed = []
    for index, pair in enumerate(pairs):
        path = directory / f"fixed_{index:03d}_{pair.before.name}"
        path.write_bytes(pair.after.encode("utf-8"))
        placed.append((pair, path))
    return placed


def summary(verdicts: Sequence[Equivalence]) -> dict[str, int]:
    return {kind: sum(verdict.kind == kind for verdict in verdicts) for kind in KINDS}
