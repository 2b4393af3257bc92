"""One bad file never takes down a run, and a fix never loses work.

Each hostile input sits among ordinary files: the run must not hang or print a traceback, must
report the other files' findings, give one clear line for the bad one, and exit with the
documented status (1 for findings, TDV900 included; 2 when a file or directory could not be read
or written).
"""

import json
import os
import signal
import stat
import subprocess
import sys
import time
from pathlib import Path

import pytest

from flake8_torchdevice import engine, fixes, runner
from flake8_torchdevice.cli import main
from flake8_torchdevice.plugin import OWN_PROCESS_ABOVE
from flake8_torchdevice.sources import DEFAULT_MEMORY_BUDGET_MIB, largest_file

# A finding of a rule on by default, at 2:56.
BUGGY = 'import torch\ntorch.nn.Linear(2, 2).load_state_dict({}, map_location="cpu")\n'
BUGGY_CODE = "TDV011"
FIXABLE = "import torch\nbias = torch.zeros(3)\nbias.to(device)\n"  # TDV002, fixed in place
FIXED = "import torch\nbias = torch.zeros(3)\nbias = bias.to(device)\n"
FIX = ("fix", "--extend-select", "TDV002")  # FIXABLE's rule is off by default
# Long enough to need worker processes (more than 20 files would choose them too).
ORDINARY = [f"ok_{index}.py" for index in range(4)]
TORCHDEVICE = [sys.executable, "-m", "flake8_torchdevice"]
# Generous: these commands take a second or two; the limit only turns a hang into a failure.
HANG = 120
LINUX = sys.platform.startswith("linux")


@pytest.fixture
def project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CI", raising=False)
    for name in ORDINARY:
        (tmp_path / name).write_text(BUGGY)
    return tmp_path


def command(*args, timeout=HANG):
    """The command in a child process: a hang fails the test instead of stopping the suite."""
    return subprocess.run([*TORCHDEVICE, *args], capture_output=True, text=True, timeout=timeout)


def ordinary_findings(out):
    return sorted(line.split(":")[0] for line in out.splitlines() if f": {BUGGY_CODE} " in line)


def assert_others_reported(result):
    assert ordinary_findings(result.stdout) == ORDINARY, result.stdout + result.stderr
    assert "Traceback" not in result.stderr and "internal error" not in result.stderr, result.stderr


# --- files that are not files ----------------------------------------------------------------


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs on this platform")
@pytest.mark.parametrize("named", [True, False], ids=["named", "found-in-a-walk"])
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_fifo_named_like_python_is_one_line_not_a_hang(project, named, jobs):
    os.mkfifo(project / "pipe.py")
    result = command("check", "--jobs", jobs, *(["pipe.py", *ORDINARY] if named else ["."]))
    assert_others_reported(result)
    assert "pipe.py: cannot read: not a regular file (a FIFO)" in result.stderr
    assert result.returncode == 2


@pytest.mark.skipif(not os.path.exists("/dev/zero"), reason="no /dev/zero on this platform")
@pytest.mark.parametrize("named", [True, False], ids=["named", "found-in-a-walk"])
def test_a_link_to_dev_zero_is_one_line_not_a_memory_error(project, named):
    (project / "zero.py").symlink_to("/dev/zero")
    result = command("check", *(["zero.py", *ORDINARY] if named else ["."]))
    assert_others_reported(result)
    assert "zero.py: cannot read: not a regular file (a character device)" in result.stderr
    assert result.returncode == 2


def test_an_unreadable_directory_is_one_line_and_the_rest_is_linted(project, monkeypatch, capsys):
    locked = project / "locked"
    locked.mkdir()
    (locked / "hidden.py").write_text(BUGGY)
    locked.chmod(0)
    if os.geteuid() == 0:  # root reads it anyway: make the listing fail as it does for anyone else
        real_scandir = os.scandir

        def scandir(path="."):
            if os.path.abspath(path) == str(locked):
                raise PermissionError(13, "Permission denied", str(path))
            return real_scandir(path)

        monkeypatch.setattr(os, "scandir", scandir)
    try:
        status = main(["check", "."])
    finally:
        locked.chmod(0o755)
    captured = capsys.readouterr()
    assert ordinary_findings(captured.out) == ORDINARY
    assert "locked: cannot read: Permission denied" in captured.err
    assert "internal error" not in captured.err
    assert status == 2


def test_our_own_failure_on_one_file_spares_the_others(project, monkeypatch, capsys):
    (project / "trips.py").write_text("import torch\n# trip the linter\n")
    real_lint = engine.lint_source

    def lint_source(source, *args):
        if "trip the linter" in source:
            raise ZeroDivisionError("a bug of ours")
        return real_lint(source, *args)

    monkeypatch.setattr(engine, "lint_source", lint_source)
    status = main(["check", "."])
    captured = capsys.readouterr()
    assert ordinary_findings(captured.out) == ORDINARY
    assert "trips.py: internal error, please report it:" in captured.err and "ZeroDivisionError" in captured.err
    assert status == 2


# --- files too large for the memory budget ------------------------------------------------------


def oversized(path, budget_mib):
    """A torch file just past what the budget allows, dense enough to need gigabytes if parsed."""
    line = "x = a + b - c * d / e + f - g * h + torch.i\n"
    path.write_text("import torch\n" + line * (largest_file(budget_mib) // len(line) + 1))


@pytest.mark.parametrize(
    "budget, limit, jobs",
    [(64, "32 KiB", "1"), (64, "32 KiB", "2"), (DEFAULT_MEMORY_BUDGET_MIB, "2.0 MiB", "2")],
    ids=["64-in-process", "64-workers", "default"],
)
def test_a_file_too_large_for_the_budget_is_one_tdv900_and_is_never_read(project, budget, limit, jobs):
    oversized(project / "huge.py", budget)
    flag = [] if budget == DEFAULT_MEMORY_BUDGET_MIB else ["--memory-budget", str(budget)]
    result = command("check", *flag, "--jobs", jobs, ".")
    assert_others_reported(result)
    (line,) = [line for line in result.stdout.splitlines() if line.startswith("huge.py")]
    assert line.startswith("huge.py:1:1: TDV900 could not analyse this file (")
    assert f"more than the {limit} that a memory budget of {budget} MiB allows; raise the budget" in line
    assert result.returncode == 1


def test_a_notebook_whose_code_is_too_large_for_the_budget_is_one_tdv900(project, capsys):
    code = "import torch\n" + "x = torch.zeros(3)\n" * 40  # 773 characters; a 1 MiB budget allows 512
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None, "source": code}
    notebook = {"cells": [cell], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    (project / "big.ipynb").write_text(json.dumps(notebook))
    assert main(["check", "--memory-budget", "1", "big.ipynb"]) == 1
    out = capsys.readouterr().out
    assert out.startswith("big.ipynb:1:1: TDV900 could not analyse this file (its code cells: ")
    assert "bytes, more than the 512 bytes that a memory budget of 1 MiB allows" in out


PEAK_MEMORY = """
import resource, subprocess, sys
completed = subprocess.run(sys.argv[1:], capture_output=True, text=True)
sys.stdout.write(completed.stdout)
print("exit", completed.returncode, "peak", resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


@pytest.mark.skipif(not LINUX, reason="ru_maxrss is in KiB on Linux")
@pytest.mark.parametrize("jobs", ["1", "2"])
def test_peak_memory_stays_under_the_budget_with_an_oversized_file(project, jobs):
    """A 512 KiB file of dense code would need about 800 MiB to parse; under a 128 MiB budget it
    is not read.

    The budget covers each process of the run, interpreter included: the largest process (the
    command, or one of its workers) must stay below it."""
    oversized(project / "huge.py", 1024)
    for index in range(30):
        (project / f"small_{index}.py").write_text(BUGGY)
    measured = subprocess.run(
        [sys.executable, "-c", PEAK_MEMORY, *TORCHDEVICE, "check", "--memory-budget", "128", "--jobs", jobs, "."],
        capture_output=True,
        text=True,
        timeout=HANG,
    )
    *findings, last = measured.stdout.splitlines()
    _, status, _, peak_kib = last.split()
    assert status == "1"
    assert sum(BUGGY_CODE in line for line in findings) == len(ORDINARY) + 30
    assert any(line.startswith("huge.py:1:1: TDV900") for line in findings)
    assert int(peak_kib) < 128 * 1024


@pytest.mark.skipif(not LINUX, reason="the address-space limit of workers is Linux's")
def test_in_flake8_a_file_denser_than_the_budget_assumes_gets_tdv900_not_flake8_s_memory(project):
    """flake8's process is shared with other plugins and has no memory limit: a large file is
    analysed in a worker process of ours, under the budget, and gets TDV900 when it needs more."""
    budget = 1024
    size = min(largest_file(budget), 3 * OWN_PROCESS_ABOVE)
    assert size > OWN_PROCESS_ABOVE
    (project / "dense.py").write_text("import torch\n" + "x\n" * (size // 2 - 10))
    (project / "light.py").write_text(BUGGY + "# padding\n" * (OWN_PROCESS_ABOVE // 10))
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--select", "TDV", f"--torchdevice-memory-budget={budget}", "."],
        capture_output=True,
        text=True,
        timeout=HANG * 2,
    )
    lines = result.stdout.splitlines()
    assert any(line.startswith("./dense.py:1:1: TDV900 could not analyse this file (") for line in lines), result
    assert any(line.startswith("./light.py:2:") and f" {BUGGY_CODE} " in line for line in lines), result
    assert "Traceback" not in result.stderr


@pytest.mark.skipif(not LINUX, reason="the address-space limit of workers is Linux's")
def test_a_file_denser_than_the_budget_assumes_kills_only_its_worker(project):
    """Under the size limit, but 2-byte statements make libcst's tree 4 KiB per byte: the worker
    hits its memory limit (libcst aborts), the file gets TDV900, the others are reported."""
    limit = largest_file(128)
    (project / "dense.py").write_text("import torch\n" + "x\n" * (limit // 2 - 10))
    result = command("check", "--memory-budget", "128", "--jobs", "2", ".")
    assert_others_reported(result)
    (line,) = [line for line in result.stdout.splitlines() if line.startswith("dense.py")]
    assert line.startswith("dense.py:1:1: TDV900 could not analyse this file (")
    assert result.stderr == ""  # not even the native parser's "memory allocation failed"
    assert result.returncode == 1


# --- workers that die ---------------------------------------------------------------------------


def kill_the_worker_on(marker, monkeypatch):
    """Workers are forked from this process: a patched runner kills the one given a file holding ``marker``."""
    real_process_file = runner.process_file

    def process_file(path, options):
        if marker in path.read_text():
            os.kill(os.getpid(), signal.SIGKILL)
        return real_process_file(path, options)

    monkeypatch.setattr(runner, "process_file", process_file)


@pytest.mark.skipif(not LINUX, reason="workers are forked, and inherit the patch, on Linux")
def test_a_file_that_kills_its_worker_is_one_tdv900_and_the_run_goes_on(project, monkeypatch, capsys):
    (project / "deadly.py").write_text("import torch\n# kills its worker\n")
    kill_the_worker_on("kills its worker", monkeypatch)
    status = main(["check", "--jobs", "2", "."])
    captured = capsys.readouterr()
    assert ordinary_findings(captured.out) == ORDINARY
    assert "deadly.py:1:1: TDV900 could not analyse this file (the process analysing it was killed by SIGKILL" in (
        captured.out
    )
    assert status == 1


@pytest.mark.skipif(not LINUX, reason="workers are forked, and inherit the patch, on Linux")
def test_fix_mode_survives_a_dead_worker_and_prints_its_summary(project, monkeypatch, capsys):
    for name in ORDINARY:
        (project / name).write_text(FIXABLE)
    (project / "deadly.py").write_text("import torch\n# kills its worker\n")
    kill_the_worker_on("kills its worker", monkeypatch)
    status = main([*FIX, "--jobs", "2", "."])
    captured = capsys.readouterr()
    assert all((project / name).read_text() == FIXED for name in ORDINARY)
    assert "Fixed 4 findings in 4 files; 1 remaining in 1 file" in captured.out  # the remaining one: TDV900
    assert status == 1


SLOW_FILE = "import torch\n" + "x = torch.zeros(3).to(d)\n" * 20_000


@pytest.mark.skipif(not LINUX, reason="workers die with their parent at once on Linux (prctl)")
def test_workers_die_with_their_parent(project):
    for index in range(6):
        (project / f"slow_{index}.py").write_text(SLOW_FILE)
    process = subprocess.Popen([*TORCHDEVICE, "check", "--jobs", "2", "."], stdout=subprocess.DEVNULL)
    workers = wait_for(lambda: children(process.pid) if len(children(process.pid)) == 2 else None)
    process.kill()
    process.wait()
    assert wait_for(lambda: not any(Path(f"/proc/{pid}").exists() for pid in workers)), workers


def children(pid):
    """The processes whose parent is ``pid``, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            # The field after the command's parenthesised name: state, then the parent's id.
            fields = (entry / "stat").read_text().rpartition(")")[2].split()
        except (OSError, ValueError):
            continue
        if entry.name.isdigit() and int(fields[1]) == pid:
            found.append(int(entry.name))
    return found


def wait_for(condition, seconds=HANG):
    """Poll until ``condition()`` is true: how long it takes is not what is tested."""
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        value = condition()
        if value:
            return value
        time.sleep(0.05)
    return condition()


# --- a fix never loses work or bypasses permissions ------------------------------------------


@pytest.fixture
def fixable(project):
    path = project / "train.py"
    path.write_text(FIXABLE)
    return path


def edit_while_fixing(monkeypatch, edit):
    """Run ``edit`` between the moment fix reads the file and the moment it would write it."""
    real_fix = fixes.fix_source

    def fix_source(*args, **kwargs):
        outcome = real_fix(*args, **kwargs)
        edit()
        return outcome

    monkeypatch.setattr(fixes, "fix_source", fix_source)


def test_an_edit_made_while_fix_runs_is_kept(fixable, monkeypatch, capsys):
    edited = FIXABLE + "print('typed while fix ran')\n"
    edit_while_fixing(monkeypatch, lambda: fixable.write_text(edited))
    assert main([*FIX, "train.py"]) == 1
    assert fixable.read_text() == edited
    captured = capsys.readouterr()
    assert "train.py: not fixed: it changed since it was read; run fix again" in captured.err
    assert captured.out.endswith("Found 1 finding in 1 file\n")
    assert [name for name in os.listdir(fixable.parent) if name.endswith(".tmp")] == []


def test_an_editor_saving_by_rename_while_fix_runs_is_kept_too(fixable, monkeypatch, capsys):
    saved = fixable.with_name("saved.tmp-editor")
    edited = FIXABLE.replace("bias.to", "# a new comment\nbias.to")

    def save_by_rename():
        saved.write_text(edited)
        os.replace(saved, fixable)

    edit_while_fixing(monkeypatch, save_by_rename)
    assert main([*FIX, "train.py"]) == 1
    assert fixable.read_text() == edited
    assert "not fixed: it changed since it was read" in capsys.readouterr().err


def test_two_fix_runs_at_once_fix_and_count_each_finding_once(fixable, monkeypatch, capsys):
    """The second run reads the file, then the first one fixes it: the second writes nothing and
    counts nothing."""
    real_fix = fixes.fix_source
    first_run_done = []

    def fix_source(*args, **kwargs):
        outcome = real_fix(*args, **kwargs)
        if not first_run_done:
            first_run_done.append(True)
            monkeypatch.setattr(fixes, "fix_source", real_fix)
            assert main([*FIX, "train.py"]) == 0  # the other run, finishing first
        return outcome

    monkeypatch.setattr(fixes, "fix_source", fix_source)
    main([*FIX, "train.py"])
    out = capsys.readouterr().out
    assert fixable.read_text() == FIXED
    assert out.count("Fixed 1 finding in 1 file") == 1
    assert out.endswith("Found 1 finding in 1 file\n")  # the second run, which fixed nothing


def test_a_read_only_file_is_not_rewritten_even_by_root(fixable, capsys):
    fixable.chmod(0o444)
    assert main([*FIX, "train.py"]) == 2
    assert fixable.read_text() == FIXABLE
    assert stat.S_IMODE(fixable.stat().st_mode) == 0o444
    assert "train.py: cannot write: the file is read-only; not fixed" in capsys.readouterr().err


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root can give a file away")
def test_a_file_of_another_owner_keeps_its_owner(fixable):
    os.chown(fixable, 12345, 23456)
    fixable.chmod(0o664)
    assert main([*FIX, "train.py"]) == 0
    status = fixable.stat()
    assert fixable.read_text() == FIXED
    assert (status.st_uid, status.st_gid, stat.S_IMODE(status.st_mode)) == (12345, 23456, 0o664)


@pytest.mark.skipif(not hasattr(os, "geteuid") or os.geteuid() != 0, reason="only root can give a file away")
def test_a_file_whose_owner_cannot_be_kept_is_not_rewritten(fixable, monkeypatch, capsys):
    """Someone else's group-writable file, fixed by a user who may write it but not give files away
    (os.chown refuses, as it does for anyone but root): the rename would make it theirs."""
    os.chown(fixable, 12345, 23456)
    fixable.chmod(0o666)

    def chown(path, uid, gid):
        raise PermissionError(1, "Operation not permitted", str(path))

    monkeypatch.setattr(os, "chown", chown)
    assert main([*FIX, "train.py"]) == 2
    assert fixable.read_text() == FIXABLE
    assert "cannot write: it belongs to user 12345, group 23456; rewriting it would change that" in (
        capsys.readouterr().err
    )
    assert [name for name in os.listdir(fixable.parent) if name.endswith(".tmp")] == []


# --- the two front ends agree -------------------------------------------------------------------

NOT_UTF8 = b'import torch\n# caf\xe9\nx = torch.zeros(3, device="cuda")\n'
UNKNOWN_COOKIE = b'# coding: klingon\nimport torch\nx = torch.zeros(3, device="cuda")\n'


def flake8(*args, stdin=None):
    return subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--torchdevice-confidence=low", "--select=TDV", *args],
        input=stdin,
        capture_output=True,
        timeout=HANG,
    )


@pytest.mark.parametrize("content", [NOT_UTF8, UNKNOWN_COOKIE], ids=["not-utf8", "unknown-cookie"])
def test_a_file_python_cannot_decode_is_one_tdv900_in_both_front_ends(project, content):
    (project / "legacy.py").write_bytes(content)
    ours = command("check", "--quiet", "legacy.py")
    theirs = flake8("legacy.py")
    assert ours.stdout == theirs.stdout.decode()
    assert ours.stdout.startswith("legacy.py:1:1: TDV900 could not analyse this file (cannot decode it: ")
    assert ours.stdout.count("\n") == 1


def test_an_editor_buffer_is_linted_even_if_the_saved_file_is_not_utf8(project):
    (project / "legacy.py").write_bytes(NOT_UTF8)
    buffer = NOT_UTF8.replace(b"\xe9", "é".encode())  # the editor sends its buffer as UTF-8
    result = flake8("--stdin-display-name", "legacy.py", "-", stdin=buffer)
    assert [line.split()[1] for line in result.stdout.decode().splitlines()] == ["TDV001"]


def test_the_memory_budget_is_the_same_in_both_front_ends(project):
    oversized(project / "huge.py", 1)
    ours = command("check", "--quiet", "--memory-budget", "1", "huge.py")
    theirs = flake8("--torchdevice-memory-budget", "1", "huge.py")
    assert ours.stdout == theirs.stdout.decode()
    assert ours.stdout.startswith("huge.py:1:1: TDV900 could not analyse this file (")


# --- .gitignore and named directories -------------------------------------------------------------


def test_a_named_directory_under_an_ignored_one_is_searched(project, capsys):
    """pyenv keeps its Pythons under versions/, which its own .gitignore ignores."""
    (project / ".git").mkdir()
    (project / ".gitignore").write_text("/versions/\n*.pyc\n")
    library = project / "versions" / "3.11" / "lib"
    library.mkdir(parents=True)
    (library / "module.py").write_text(BUGGY)
    (library / "module.pyc").write_text(BUGGY)  # not a source file anyway
    (library / "__pycache__").mkdir()
    assert main(["check", "versions/3.11/lib"]) == 1
    assert capsys.readouterr().out.startswith(f"versions/3.11/lib/module.py:2:56: {BUGGY_CODE} ")
    assert main(["check", "."]) == 1  # from the top, versions/ stays ignored
    assert "versions/" not in capsys.readouterr().out


def test_jupyter_autosaved_copies_are_not_linted(project, capsys):
    """``.ipynb_checkpoints/`` holds Jupyter's autosaves of the notebooks beside it: not the code."""
    for name in ORDINARY:
        (project / name).unlink()
    (project / ".ipynb_checkpoints").mkdir()
    (project / ".ipynb_checkpoints" / "model-checkpoint.py").write_text(BUGGY)
    (project / "model.py").write_text(BUGGY)
    assert main(["check", "."]) == 1
    assert ".ipynb_checkpoints" not in capsys.readouterr().out


def test_when_ignore_rules_hide_every_file_the_command_says_so_and_how_to_search(project, capsys):
    for name in ORDINARY:
        (project / name).unlink()
    (project / ".gitignore").write_text("generated/\n")
    (project / "generated").mkdir()
    (project / "generated" / "model.py").write_text(BUGGY)
    assert main(["check", "."]) == 0
    err = capsys.readouterr().err
    assert "no Python files or notebooks found: 1 file(s) or folder(s) ignored by .gitignore" in err
    assert "--no-respect-gitignore" in err
    assert main(["check", "--no-respect-gitignore", "."]) == 1
    assert capsys.readouterr().out.startswith(f"generated/model.py:2:56: {BUGGY_CODE} ")


def test_respect_gitignore_and_memory_budget_in_pyproject(project, capsys):
    (project / ".gitignore").write_text("ok_*.py\n")
    oversized(project / "huge.py", 1)
    (project / "pyproject.toml").write_text("[tool.torchdevice]\nrespect-gitignore = false\nmemory-budget = 1\n")
    assert main(["check", "."]) == 1
    out = capsys.readouterr().out
    assert ordinary_findings(out) == ORDINARY
    assert "huge.py:1:1: TDV900" in out and "memory budget of 1 MiB" in out


@pytest.mark.parametrize("value", ["0", "true", "'4096'", "1.5"])
def test_a_memory_budget_must_be_a_positive_whole_number(project, capsys, value):
    (project / "pyproject.toml").write_text(f"[tool.torchdevice]\nmemory-budget = {value}\n")
    assert main(["check", "."]) == 2
    assert "memory-budget must be a positive whole number" in capsys.readouterr().err
