"""What the user reads: every rule's messages on the bad fixtures, against a snapshot, one line of
at most 160 characters each; the summary line that ends a run, in each of its forms.

The snapshot is ``tests/snapshots/messages.txt``. After changing a message on purpose, regenerate
it and read the diff:

    TORCHDEVICE_UPDATE_SNAPSHOTS=1 python -m pytest tests/test_messages.py -n 0
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from flake8_torchdevice.engine import lint_source
from flake8_torchdevice.rules import ALL_RULES
from flake8_torchdevice.rules.base import shortened
from flake8_torchdevice.summary import Mode, Tally, summary

TESTS = Path(__file__).resolve().parent
BAD_FIXTURES = sorted((TESTS / "fixtures").glob("TDV*/bad_*.py"))
MESSAGES = TESTS / "snapshots" / "messages.txt"
LONGEST_MESSAGE = 160
UPDATING = os.environ.get("TORCHDEVICE_UPDATE_SNAPSHOTS") == "1"


def messages(path: Path) -> list[str]:
    """``TDV003/bad_chain.py:6:38: TDV003 message`` for every finding of every rule on one fixture."""
    source = path.read_bytes().decode("utf-8")
    name = path.relative_to(TESTS / "fixtures").as_posix()
    return [f"{name}:{d.line}:{d.column + 1}: {d.code} {d.message}" for d in lint_source(source, rules=ALL_RULES)]


def check_snapshot(snapshot: Path, lines: list[str]) -> None:
    text = "".join(line + "\n" for line in lines)
    if UPDATING:
        snapshot.write_text(text, encoding="utf-8")
    assert snapshot.read_text(encoding="utf-8") == text, f"to accept: TORCHDEVICE_UPDATE_SNAPSHOTS=1 ({__doc__})"


def test_every_rules_messages_on_the_bad_fixtures_match_the_snapshot() -> None:
    check_snapshot(MESSAGES, [line for path in BAD_FIXTURES for line in messages(path)])


@pytest.mark.parametrize("path", BAD_FIXTURES, ids=lambda path: f"{path.parent.name}/{path.name}")
def test_a_message_is_one_line_of_at_most_160_characters(path: Path) -> None:
    for diagnostic in lint_source(path.read_bytes().decode("utf-8"), rules=ALL_RULES):
        assert "\n" not in diagnostic.message and "\r" not in diagnostic.message, diagnostic
        assert len(diagnostic.message) <= LONGEST_MESSAGE, f"{len(diagnostic.message)}: {diagnostic.message}"


def test_every_rule_has_a_message_in_the_snapshot() -> None:
    codes = {line.split(": ", 1)[1].split(" ", 1)[0] for line in MESSAGES.read_text(encoding="utf-8").splitlines()}
    assert codes >= {rule.code for rule in ALL_RULES}


@pytest.mark.parametrize(
    "code, width, expected",
    [
        ("model.cuda(args.gpu)", 40, "model.cuda(args.gpu)"),  # short enough: as written
        ("classifier(batch).softmax(dim=-1).detach().numpy()", 40, "classifier(batch)...detach().numpy()"),
        ("torch.zeros(num_layers, batch_size, hidden_size).to(device)", 40, "torch.zeros(...).to(device)"),
        ("running_mean.mul(1 - momentum).add(batch_mean, alpha=momentum)", 30, "running_mean.mul(...).add(...)"),
        ("(classifier(batch).softmax(dim=-1).detach().numpy())", 36, "(classifier(batch)...numpy())"),
        ("pad_sequence(recordings, batch_first=True, padding_value=0.0)", 30, "pad_sequence(...)"),
        ("layer2.weight.grad.abs().mean(dim=(0, 1, 2, 3)).item()", 30, "layer2...mean(...).item()"),
        ("scale * 1.5 + offset_of_the_whole_batch_of_inputs", 30, "scale * 1.5 + ...tch_of_inputs"),  # no chain: cut
    ],
)
def test_long_code_is_quoted_by_its_ends(code: str, width: int, expected: str) -> None:
    assert shortened(code, width) == expected
    assert len(shortened(code, width)) <= width


CHECK, FIX, DIFF = Mode(), Mode(fixing=True), Mode(fixing=True, diff=True)
UNSAFE_CHECK, UNSAFE_FIX = Mode(unsafe=True), Mode(fixing=True, unsafe=True)


@pytest.mark.parametrize(
    "tally, mode, line",
    [
        (Tally(12, 0, 0), CHECK, "All checks passed (12 files)"),
        (Tally(1, 0, 0), CHECK, "All checks passed (1 file)"),
        (Tally(12, 1, 1), CHECK, "Found 1 finding in 1 file"),
        (Tally(12, 5, 3, safe_fixes=2), CHECK, "Found 5 findings in 3 files (2 fixable with `torchdevice fix`)"),
        (
            Tally(12, 5, 3, safe_fixes=2, unsafe_fixes=1),
            CHECK,
            "Found 5 findings in 3 files (2 fixable with `torchdevice fix`, 1 more with `--unsafe-fixes`)",
        ),
        (
            Tally(12, 2, 1, unsafe_fixes=2),
            CHECK,
            "Found 2 findings in 1 file (2 fixable with `torchdevice fix --unsafe-fixes`)",
        ),
        (
            Tally(12, 5, 3, safe_fixes=2, unsafe_fixes=1),
            UNSAFE_CHECK,
            "Found 5 findings in 3 files (3 fixable with `torchdevice fix --unsafe-fixes`)",
        ),
        (Tally(12, 0, 0, errors=1), CHECK, "No findings in 12 files; 1 file failed (see above)"),
        (
            Tally(3, 0, 0, not_shown=1),
            CHECK,
            "All checks passed (3 files); 1 likely finding not shown (`--confidence medium`)",
        ),
        (
            Tally(3, 2, 1, safe_fixes=2, not_shown=2),
            CHECK,
            "Found 2 findings in 1 file (2 fixable with `torchdevice fix`); "
            "2 likely findings not shown (`--confidence medium`)",
        ),
        (
            Tally(3, 0, 0, not_shown=2, shown_with="low"),
            CHECK,
            "All checks passed (3 files); 2 guesses not shown (`--confidence low`)",
        ),
        (
            Tally(3, 0, 0, off_by_default=4),
            CHECK,
            "All checks passed (3 files); 4 findings of rules off by default not shown (`--select TDV`)",
        ),
        (
            Tally(3, 1, 1, not_shown=1, off_by_default=1),
            CHECK,
            "Found 1 finding in 1 file; 1 likely finding not shown (`--confidence medium`); "
            "1 finding of rules off by default not shown (`--select TDV`)",
        ),
        (Tally(12, 2, 2, errors=2), CHECK, "Found 2 findings in 2 files; 2 files failed (see above)"),
        (Tally(12, 0, 0, fixed=3, files_fixed=2), FIX, "Fixed 3 findings in 2 files; all checks passed (12 files)"),
        (Tally(12, 0, 0, fixed=1, files_fixed=1), FIX, "Fixed 1 finding in 1 file; all checks passed (12 files)"),
        (Tally(12, 2, 1, fixed=3, files_fixed=2), FIX, "Fixed 3 findings in 2 files; 2 remaining in 1 file"),
        # A safe fix that remains was left out (the fixed code would not parse): not offered again.
        (Tally(12, 1, 1, safe_fixes=1), FIX, "Found 1 finding in 1 file"),
        (
            Tally(12, 2, 1, unsafe_fixes=1, fixed=3, files_fixed=2),
            FIX,
            "Fixed 3 findings in 2 files; 2 remaining in 1 file (1 fixable with `torchdevice fix --unsafe-fixes`)",
        ),
        (
            Tally(12, 1, 1, unsafe_fixes=1, fixed=3, files_fixed=2),
            UNSAFE_FIX,
            "Fixed 3 findings in 2 files; 1 remaining in 1 file",
        ),
        (Tally(12, 0, 0, fixed=3, files_fixed=2), DIFF, "Would fix 3 findings in 2 files; none would remain"),
        (Tally(12, 2, 1, fixed=3, files_fixed=2), DIFF, "Would fix 3 findings in 2 files; 2 would remain in 1 file"),
        (Tally(12, 0, 0), DIFF, "All checks passed (12 files)"),
    ],
)
def test_the_summary_line(tally: Tally, mode: Mode, line: str) -> None:
    assert summary(tally, mode) == line
