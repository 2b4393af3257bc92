"""The line that ends a run of the command: what it checked, found and fixed, as ruff ends one.

"All checks passed (12 files)", "Found 3 findings in 2 files (2 fixable with `torchdevice fix`)",
"Fixed 2 findings in 1 file; 1 remaining in 1 file", what a lower ``--confidence`` would add
("; 3 likely findings not shown (`--confidence medium`)") and what the rules off by default found
("; 5 findings of rules off by default not shown (`--select TDV`)"). A pure function of the run's
counts, so that every wording is tested without running anything.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Tally:
    """What a run did, counted over its files."""

    files: int  # files checked
    findings: int  # findings reported: after fixing, those that remain
    files_with_findings: int
    safe_fixes: int = 0  # findings reported with a safe fix
    unsafe_fixes: int = 0  # findings reported with a fix that only --unsafe-fixes applies
    fixed: int = 0  # fixes applied (with --diff: that would be)
    files_fixed: int = 0
    errors: int = 0  # files that could not be read, written or analysed (named on stderr)
    # Findings one confidence level below the run's, which it does not report, and that level.
    not_shown: int = 0
    shown_with: str = "medium"
    # Findings, at the run's confidence, of the rules off by default that the user left alone.
    off_by_default: int = 0


@dataclass(frozen=True)
class Mode:
    """How the run was asked for: whether it fixed, only showed a diff, and applied unsafe fixes."""

    fixing: bool = False
    diff: bool = False
    unsafe: bool = False


def summary(tally: Tally, mode: Mode = Mode()) -> str:
    """The last line of a run (without its line break)."""
    text = _fixed(tally, mode) or _found(tally, mode)
    if tally.errors:
        text += f"; {_count(tally.errors, 'file')} failed (see above)"
    if tally.not_shown:
        what = "likely finding" if tally.shown_with == "medium" else "guess"
        text += f"; {_count(tally.not_shown, what)} not shown (`--confidence {tally.shown_with}`)"
    if tally.off_by_default:
        text += f"; {_count(tally.off_by_default, 'finding')} of rules off by default not shown (`--select TDV`)"
    return text[0].upper() + text[1:]


def _fixed(tally: Tally, mode: Mode) -> str:
    if not tally.fixed:
        return ""
    verb = "would fix" if mode.diff else "fixed"
    fixed = f"{verb} {_count(tally.fixed, 'finding')} in {_count(tally.files_fixed, 'file')}"
    if tally.findings == 0:
        return f"{fixed}; {'none would remain' if mode.diff else _passed(tally)}"
    remaining = f"{tally.findings} {'would remain' if mode.diff else 'remaining'}"
    return f"{fixed}; {remaining} in {_count(tally.files_with_findings, 'file')}{_fixable(tally, mode)}"


def _found(tally: Tally, mode: Mode) -> str:
    if tally.findings == 0:
        return f"no findings in {_count(tally.files, 'file')}" if tally.errors else _passed(tally)
    found = f"found {_count(tally.findings, 'finding')} in {_count(tally.files_with_findings, 'file')}"
    return found + _fixable(tally, mode)


def _passed(tally: Tally) -> str:
    return f"all checks passed ({_count(tally.files, 'file')})"


def _fixable(tally: Tally, mode: Mode) -> str:
    """How many of the findings a fix would repair, and with which command.

    After fixing, the safe fixes that remain are those left out (the code would not parse, the
    notebook cannot be rewritten): running fix again does not apply them, so they are not offered.
    """
    safe = 0 if mode.fixing else tally.safe_fixes
    if mode.unsafe:
        fixable = safe + (0 if mode.fixing else tally.unsafe_fixes)
        return f" ({fixable} fixable with `torchdevice fix --unsafe-fixes`)" if fixable else ""
    if safe and tally.unsafe_fixes:
        return f" ({safe} fixable with `torchdevice fix`, {tally.unsafe_fixes} more with `--unsafe-fixes`)"
    if safe:
        return f" ({safe} fixable with `torchdevice fix`)"
    if tally.unsafe_fixes:
        return f" ({tally.unsafe_fixes} fixable with `torchdevice fix --unsafe-fixes`)"
    return ""


def _count(number: int, noun: str) -> str:
    plural = "es" if noun.endswith("s") else "s"
    return f"{number} {noun}{'' if number == 1 else plural}"
