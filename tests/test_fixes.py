"""Autofixes: every fixing rule's .in.py -> .out.py pairs, idempotency, and safe file writing."""

import os
from pathlib import Path

import pytest

from flake8_torchdevice import fixes
from flake8_torchdevice.cli import main
from flake8_torchdevice.fixes import FixOutcome, fix_rounds, fix_source
from flake8_torchdevice.rules import ALL_RULES, RULES_BY_CODE
from runtime_checks.fixed import declared_good, fixed_program
from runtime_checks.fixtures import discover, load_fixture

PAIRS_ROOT = Path(__file__).parent / "fixtures" / "fixes"
PAIRS = sorted(PAIRS_ROOT.glob("*.in.py"))
# A rule documents its fix under "## Fix", starting with "Safe" or "Unsafe".
FIXING = {rule.code: rule.sections()["Fix"] for rule in ALL_RULES if "Fix" in rule.sections()}
UNSAFE = {code for code, text in FIXING.items() if text.startswith("Unsafe")}


def code_of(pair):
    return pair.name.split("_", 1)[0]


def expected_of(pair):
    return pair.with_name(pair.name.replace(".in.py", ".out.py")).read_text(encoding="utf-8")


def test_every_fixing_rule_has_fix_pairs():
    assert FIXING, "no rule documents a fix"
    assert {code_of(pair) for pair in PAIRS} == set(FIXING)
    for pair in PAIRS:
        assert pair.with_name(pair.name.replace(".in.py", ".out.py")).exists(), pair.name


@pytest.mark.parametrize("pair", PAIRS, ids=lambda pair: pair.name[: -len(".in.py")])
def test_fix_turns_in_into_out(pair):
    """A pair named ``*_unsafe`` shows a rule's unsafe fix: it is applied with --unsafe-fixes only."""
    rules = (RULES_BY_CODE[code_of(pair)],)
    unsafe = code_of(pair) in UNSAFE or pair.name.endswith("_unsafe.in.py")
    if unsafe:
        assert fix_source(pair.read_text(encoding="utf-8"), rules=rules).source != expected_of(pair)
    outcome = fix_source(pair.read_text(encoding="utf-8"), rules=rules, unsafe=unsafe)
    assert outcome.source == expected_of(pair)
    assert outcome.applied > 0
    assert outcome.remaining == []


@pytest.mark.parametrize("pair", PAIRS, ids=lambda pair: pair.name[: -len(".in.py")])
def test_fixing_the_output_changes_nothing(pair):
    expected = expected_of(pair)
    outcome = fix_source(expected, rules=(RULES_BY_CODE[code_of(pair)],), unsafe=True)
    assert (outcome.source, outcome.applied) == (expected, 0)


def test_moving_a_random_draw_to_the_device_is_an_unsafe_fix():
    """On the device, torch.randn draws from the device's generator: a seeded run gets other numbers."""
    source = "import torch\nnoise = torch.randn(2, 3).to(device=device)\n"
    rules = (RULES_BY_CODE["TDV007"],)
    assert fix_source(source, rules=rules).applied == 0
    assert fix_source(source, rules=rules, unsafe=True).source.endswith("torch.randn(2, 3, device=device)\n")


def test_moving_to_another_tensor_is_not_fixed():
    """``.to(other)`` also converts the dtype, and ``device=<tensor>`` raises: no fix at all."""
    source = "import torch\nref = torch.ones(2, device=device)\nmask = torch.zeros(2).to(ref)\n"
    outcome = fix_source(source, rules=(RULES_BY_CODE["TDV007"],), unsafe=True)
    assert (outcome.applied, [d.fix for d in outcome.remaining]) == (0, [None])


def test_a_finding_a_fix_reveals_is_fixed_in_the_next_round():
    """``x = x.to(device)`` puts ``x`` on the device: only then is ``x.numpy()`` a finding."""
    source = (
        "import torch\n"
        'device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'
        "x = torch.zeros(3)\n"
        "x.to(device)\n"
        "print(x.numpy())\n"
    )
    rounds = list(fix_rounds(source, unsafe=True))
    assert [[(d.line, d.code) for d in one.checked.diagnostics] for one in rounds] == [
        [(4, "TDV002")],
        [(5, "TDV003")],
        [],
    ]
    outcome = fix_source(source, unsafe=True)
    assert (outcome.applied, outcome.remaining) == (2, [])
    assert outcome.source.endswith("x = x.to(device)\nprint(x.cpu().numpy())\n")


@pytest.mark.parametrize("pair", [p for p in PAIRS if code_of(p) in UNSAFE], ids=lambda pair: pair.name)
def test_unsafe_fixes_apply_only_when_asked(pair):
    source = pair.read_text(encoding="utf-8")
    outcome = fix_source(source, rules=(RULES_BY_CODE[code_of(pair)],), unsafe=False)
    assert (outcome.source, outcome.applied) == (source, 0)
    assert outcome.remaining


def test_every_fixing_rule_repairs_bad_fixtures_that_the_runtime_companion_then_runs():
    """The runs themselves are in test_runtime_checks (the real suite runs every fixed copy)."""
    repaired = {fixture.code for fixture in discover() if fixed_program(fixture) is not None}
    assert repaired == set(FIXING)


def test_a_fixed_program_declares_itself_good_and_keeps_its_code(tmp_path):
    bad = tmp_path / "TDV003" / "bad_scores.py"
    bad.parent.mkdir()
    bad.write_bytes(
        b'# runtime: raises TypeError "numpy" on accelerator\r\n'
        b"import torch\r\n"
        b"scores = torch.rand(4, device=device)\r\n"
        b"array = scores.numpy()  # expect: TDV003\r\n"
    )
    fixed = fixed_program(load_fixture(bad))
    assert fixed == (
        "# runtime: passes\r\nimport torch\r\nscores = torch.rand(4, device=device)\r\narray = scores.cpu().numpy()\r\n"
    )


def test_declaring_good_leaves_other_comments_and_strings_alone():
    source = 's = "# expect: TDV003"  # a note\n# runtime: raises TypeError "numpy" on any\nx = 1  # expect: TDV003\n'
    assert declared_good(source) == '# runtime: passes\ns = "# expect: TDV003"  # a note\nx = 1\n'


BUGGY = (
    "import torch\n"
    "\n"
    'device = torch.device("mps")\n'
    "bias = torch.zeros(3)\n"
    "bias.to(device)\n"
    "mask = torch.ones(2).to(device)\n"
)
# Selected explicitly: which rules are on by default is not what these tests are about.
BOTH_RULES = ("--select", "TDV002,TDV007")
FIXED = (
    "import torch\n"
    "\n"
    'device = torch.device("mps")\n'
    "bias = torch.zeros(3)\n"
    "bias = bias.to(device)\n"
    "mask = torch.ones(2, device=device)\n"
)


@pytest.fixture
def buggy(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "train.py"
    path.write_bytes(BUGGY.encode())
    return path


def test_fix_writes_the_file_then_a_second_fix_changes_nothing(buggy, capsys):
    assert main(["fix", *BOTH_RULES, "train.py"]) == 0
    assert buggy.read_text() == FIXED
    assert capsys.readouterr().out == "Fixed 2 findings in 1 file; all checks passed (1 file)\n"
    assert main(["fix", *BOTH_RULES, "train.py"]) == 0
    assert buggy.read_text() == FIXED
    assert capsys.readouterr().out == "All checks passed (1 file)\n"


@pytest.mark.parametrize("newline", ["\r\n", "\r"], ids=["crlf", "cr"])
def test_fix_keeps_the_file_mode_and_line_endings(buggy, newline):
    buggy.write_bytes(BUGGY.replace("\n", newline).encode())
    os.chmod(buggy, 0o754)
    assert main(["check", "--fix", *BOTH_RULES, "train.py"]) == 0
    assert buggy.read_bytes() == FIXED.replace("\n", newline).encode()  # the final one too
    assert buggy.stat().st_mode & 0o777 == 0o754


def test_diff_prints_and_writes_nothing(buggy, capsys):
    assert main(["fix", "--diff", *BOTH_RULES, "train.py"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("--- train.py\n+++ train.py\n")
    assert "-bias.to(device)\n-mask = torch.ones(2).to(device)\n+bias = bias.to(device)\n" in out
    assert buggy.read_text() == BUGGY


def test_an_interrupted_write_leaves_the_original_and_no_temporary_file(buggy, monkeypatch, capsys):
    rename = os.replace

    def interrupted(source, destination):
        if Path(destination).name != "train.py":  # the cache's own writes go on
            return rename(source, destination)
        assert Path(source).read_text() == FIXED  # the temporary file was fully written
        raise OSError("simulated crash before the rename")

    monkeypatch.setattr(os, "replace", interrupted)
    assert main(["fix", *BOTH_RULES, "train.py"]) == 2
    assert buggy.read_text() == BUGGY
    assert sorted(p.name for p in buggy.parent.iterdir()) == ["train.py"]
    assert "cannot write: simulated crash" in capsys.readouterr().err


def test_a_fix_that_would_not_parse_is_left_out(buggy, monkeypatch, capsys):
    def broken(source, settings, rules, unsafe):
        return FixOutcome(source + "def (:\n", 1, [])

    monkeypatch.setattr(fixes, "fix_source", broken)
    assert main(["fix", *BOTH_RULES, "train.py"]) == 1
    assert buggy.read_text() == BUGGY
    captured = capsys.readouterr()
    assert "fixes left out: the fixed code would not parse" in captured.err
    assert "TDV002" in captured.out  # the findings are still reported


def test_unsafe_fixes_flag(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    path = tmp_path / "load.py"
    path.write_text('import torch\n\nstate = torch.load("model.pt")\n')
    assert main(["fix", "--select", "TDV004", "--confidence", "medium", "load.py"]) == 1
    assert "map_location" not in path.read_text()
    assert main(["fix", "--select", "TDV004", "--confidence", "medium", "--unsafe-fixes", "load.py"]) == 0
    assert path.read_text() == 'import torch\n\nstate = torch.load("model.pt", map_location="cpu")\n'


def test_a_symbolic_link_stays_a_link(buggy):
    link = buggy.with_name("link.py")
    link.symlink_to(buggy.name)
    assert main(["fix", *BOTH_RULES, "link.py"]) == 0
    assert link.is_symlink() and buggy.read_text() == FIXED


def test_creating_a_tensor_that_requires_grad_on_the_device_is_an_unsafe_fix():
    """Moved, it is a non-leaf copy on an accelerator; made there, a leaf an optimizer accepts."""
    source = "import torch\nweights = torch.zeros(3, requires_grad=True).to(device)\n"
    rules = (RULES_BY_CODE["TDV007"],)
    assert fix_source(source, rules=rules).applied == 0
    fixed = fix_source(source, rules=rules, unsafe=True).source
    assert fixed.endswith("torch.zeros(3, requires_grad=True, device=device)\n")
    literal_false = "import torch\nweights = torch.zeros(3, requires_grad=False).to(device)\n"
    assert fix_source(literal_false, rules=rules).applied == 1


def test_assigning_a_converted_attribute_back_is_an_unsafe_fix_and_none_for_a_parameter():
    """``self.weight = self.weight.to(d)`` raises TypeError on a GPU when ``weight`` is a parameter:
    unsafe for an attribute the code does not show, not offered for one it shows is a parameter."""
    template = (
        "import torch\nfrom torch import nn\n\n\nclass Scaled(nn.Module):\n"
        "    def __init__(self, weight):\n        super().__init__()\n        self.weight = {made}\n\n"
        "    def place(self, device):\n        self.weight.to(device)\n"
    )
    rules = (RULES_BY_CODE["TDV002"],)
    plain = template.format(made="torch.ones(3)")
    assert fix_source(plain, rules=rules).applied == 0
    assert "self.weight = self.weight.to(device)" in fix_source(plain, rules=rules, unsafe=True).source
    parameter = template.format(made="nn.Parameter(torch.ones(3))")
    assert fix_source(parameter, rules=rules, unsafe=True).applied == 0
    buffer = template.format(made="nn.Buffer(torch.ones(3))")  # a buffer takes a plain tensor
    assert "self.weight = self.weight.to(device)" in fix_source(buffer, rules=rules, unsafe=True).source
