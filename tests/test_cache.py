"""The result cache (project/cache.py): a warm run parses nothing and prints the same bytes; every
input of a result changes its key; a bad entry is a miss; concurrent writers leave a whole entry;
fix, standard input and --no-cache never write one; flake8 and the command agree on a warm cache."""

import json
import multiprocessing
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from flake8_torchdevice import engine
from flake8_torchdevice.cli import main
from flake8_torchdevice.confidence import Confidence
from flake8_torchdevice.plugin import TorchDeviceChecker
from flake8_torchdevice.project import cache
from flake8_torchdevice.project.cache import CACHE_DIR_NAME, ResultCache, result_key
from flake8_torchdevice.reports import Report
from flake8_torchdevice.settings import Settings

ROOT = Path(__file__).resolve().parent.parent
EXAMPLES = ROOT / "examples"
FIXTURES = ROOT / "tests" / "fixtures"
# TDV001 at 2:23, TDV002 at 4:1, TDV003 at 6:16 (test_cli.py's BUGGY), one silenced by noqa.
# TDV001 and TDV002 are off by default: ``check`` selects them.
BUGGY = (
    "import torch\n"
    'device = torch.device("cuda")\n'
    "bias = torch.zeros(3)\n"
    "bias.to(device)  # noqa: TDV002\n"
    "scores = torch.rand(4, device=device)\n"
    "array = scores.numpy()\n"
)
NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "metadata": {}, "source": ["# Training"]},
        {
            "cell_type": "code",
            "metadata": {},
            "source": ["import torch\n", "x = torch.zeros(3)\n", "x.to('cuda')\n", "print(x)"],
        },
    ],
    "metadata": {},
    "nbformat": 4,
    "nbformat_minor": 5,
}
FORMATS = ("text", "json", "sarif", "github")


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project with two buggy files and a notebook, made the working directory."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CI", raising=False)
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "train.py").write_text(BUGGY, encoding="utf-8")
    (tmp_path / "pkg" / "model.py").write_text(BUGGY.replace("bias", "weight"), encoding="utf-8")
    (tmp_path / "pkg" / "clean.py").write_text("import os\n", encoding="utf-8")
    (tmp_path / "pkg" / "notes.ipynb").write_text(json.dumps(NOTEBOOK), encoding="utf-8")
    return tmp_path


@pytest.fixture
def parses(monkeypatch):
    """How many files the engine parsed in this process since the test began."""
    calls = []
    parse = engine.parse_module

    def counted(source):
        calls.append(source)
        return parse(source)

    monkeypatch.setattr(engine, "parse_module", counted)
    return calls


def check(capsys, *args):
    status = main(["check", "--confidence", "low", "--extend-select", "TDV001,TDV002", *args])
    captured = capsys.readouterr()
    return status, captured.out, captured.err


def entries(directory):
    return sorted((directory / f"v{cache.FORMAT}" / "results").rglob("*.json"))


# A warm run


def test_a_warm_run_parses_nothing_and_prints_the_same(project, capsys, parses, tmp_path_factory):
    directory = tmp_path_factory.mktemp("cache")
    cold = check(capsys, "--cache-dir", str(directory), ".")
    assert len(parses) == 3  # the two Python files and the notebook; clean.py is never parsed
    assert len(entries(directory)) == 4  # clean.py's empty result is kept too
    parses.clear()
    warm = check(capsys, "--cache-dir", str(directory), ".")
    assert parses == []
    assert warm == cold
    assert cold[0] == 1 and "notes.ipynb:cell 2:3:" in cold[1]


@pytest.mark.parametrize("output", FORMATS)
@pytest.mark.parametrize("paths", [[EXAMPLES], [FIXTURES]], ids=["examples", "fixtures"])
def test_output_is_byte_identical_with_and_without_a_warm_cache(output, paths, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(ROOT)  # the paths printed are relative, as a user runs it
    relative = [str(path.relative_to(ROOT)) for path in paths]
    arguments = ["--format", output, "--select", "TDV", "--jobs", "2", *relative]
    uncached = check(capsys, "--no-cache", *arguments)
    cold = check(capsys, "--cache-dir", str(tmp_path), *arguments)
    warm = check(capsys, "--cache-dir", str(tmp_path), *arguments)
    assert uncached == cold == warm
    assert uncached[0] == 1


def test_an_edited_file_alone_is_parsed_again(project, capsys, parses):
    check(capsys, ".")
    parses.clear()
    edited = BUGGY + "bias.to(device)\n"  # TDV002 again, without a noqa
    (project / "pkg" / "train.py").write_text(edited, encoding="utf-8")
    out = check(capsys, ".")[1]
    assert len(parses) == 1 and "train.py:7:" in out


# What the key covers


def test_every_input_of_a_result_changes_its_key(monkeypatch):
    data, settings, codes = BUGGY.encode(), Settings(), frozenset({"TDV001", "TDV002"})
    key = result_key(data, settings, codes)
    changed = [
        result_key(data + b"\n", settings, codes),
        result_key(data, Settings(confidence=Confidence.HIGH), codes),
        result_key(data, Settings(guard_functions=frozenset({"has_gpu"})), codes),
        result_key(data, Settings(runs_without_cuda=True), codes),
        result_key(data, settings, codes | {"TDV003"}),
        result_key(data, settings, codes, context="beliefs: supports the CPU"),
        result_key(data, settings, codes, form="flake8 findings"),
    ]
    monkeypatch.setattr(cache, "tool_identity", lambda: "another version of the linter")
    changed.append(result_key(data, settings, codes))
    assert len({key, *changed}) == len(changed) + 1


def test_stable_repr_sorts_sets_wherever_they_are():
    assert cache.stable_repr(({"b", "a"}, [frozenset({2, 1})])) == "({'a', 'b'}, ({1, 2}))"


def test_the_key_is_stable_across_orders_and_processes():
    names = ["has_gpu", "is_torch_cuda_available", "accelerated"]
    settings = Settings(guard_functions=frozenset(names))
    key = result_key(b"x", settings, ["TDV002", "TDV001"])
    assert key == result_key(b"x", Settings(guard_functions=frozenset(reversed(names))), ["TDV001", "TDV002"])
    script = (
        "from flake8_torchdevice.project.cache import result_key\n"
        "from flake8_torchdevice.settings import Settings\n"
        f"print(result_key(b'x', Settings(guard_functions=frozenset({names!r})), ['TDV001', 'TDV002']))\n"
    )
    hashed_otherwise = {**os.environ, "PYTHONHASHSEED": "12345"}  # another order of the frozenset
    other = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=hashed_otherwise)
    assert other.stdout.strip() == key


def test_the_tool_identity_covers_the_package_source():
    identity = cache.tool_identity()
    assert len(identity) == 64 and identity == cache.tool_identity()
    assert (cache._PACKAGE / "rules").is_dir() and cache._PACKAGE.name == "flake8_torchdevice"


def test_settings_selection_and_tool_changes_miss(project, capsys, parses, monkeypatch):
    check(capsys, ".")
    for arguments in (["--guard-functions", "has_gpu"], ["--ignore", "TDV002"], ["--memory-budget", "1024"]):
        parses.clear()
        check(capsys, *arguments, ".")
        assert len(parses) == 3, arguments
    monkeypatch.setattr(cache, "tool_identity", lambda: "the linter, upgraded")
    parses.clear()
    check(capsys, ".")
    assert len(parses) == 3


def test_a_wider_selection_reports_what_it_selects(project, capsys):
    narrow = check(capsys, "--select", "TDV002", ".")[1]
    wide = check(capsys, "--select", "TDV002,TDV003", ".")[1]
    assert "TDV003" not in narrow and "TDV003" in wide


# Entries that are not what they should be


def _reports(path="x.py"):
    return [
        Report(path, None, 2, 23, "TDV001", 'hard-coded "cuda" fails', None, "medium"),
        Report(path, 3, 4, 1, "TDV002", "assign it: `x = x.to(d)` — é", "safe", "high"),
    ]


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b'{"tool": "flake8-torchdevice", "key": ',  # truncated
        b"\xff\xfe\x00",
        b"[" * 100_000 + b"]" * 100_000,  # deeper than the JSON parser goes
        b"null",
        b'{"tool": "flake8-torchdevice", "key": "another", "reports": []}',
        b'{"tool": "something else", "key": "KEY", "reports": []}',
        b'{"tool": "flake8-torchdevice", "key": "KEY", "reports": [[null, 1, 1, "TDV001", "m", null]]}',
        b'{"tool": "flake8-torchdevice", "key": "KEY", "reports": [[null, true, 1, "TDV001", "m", null, "high"]]}',
        b'{"tool": "flake8-torchdevice", "key": "KEY", "reports": [[null, 1, 1, 2, "m", null, "high"]]}',
        b'{"tool": "flake8-torchdevice", "key": "KEY", "reports": {}}',
    ],
    ids=lambda content: content[:40].decode("latin-1"),
)
def test_a_bad_entry_is_a_miss(content, tmp_path):
    store = ResultCache(tmp_path)
    key = "ab" + "0" * 62
    store.store(key, _reports())
    entry = tmp_path / f"v{cache.FORMAT}" / "results" / "ab" / f"{key}.json"
    entry.write_bytes(content.replace(b"KEY", key.encode()))
    assert store.load(key, "x.py") is None


def test_an_entry_round_trips_and_takes_its_path_from_the_reader(tmp_path):
    store = ResultCache(tmp_path)
    store.store("cd" + "1" * 62, _reports("a.py"))
    assert store.load("cd" + "1" * 62, "b.py") == _reports("b.py")
    assert store.load("cd" + "2" * 62, "b.py") is None


def test_a_corrupt_entry_is_linted_again_and_replaced(project, capsys, parses, tmp_path_factory):
    directory = tmp_path_factory.mktemp("cache")
    expected = check(capsys, "--cache-dir", str(directory), ".")
    for entry in entries(directory):
        entry.write_bytes(entry.read_bytes()[:-2])
    parses.clear()
    assert check(capsys, "--cache-dir", str(directory), ".") == expected
    assert len(parses) == 3
    parses.clear()
    assert check(capsys, "--cache-dir", str(directory), ".") == expected
    assert parses == []


def test_a_cache_that_cannot_be_written_is_no_error(project, capsys, parses):
    (project / "not-a-folder").write_text("")
    expected = check(capsys, "--no-cache", ".")
    assert check(capsys, "--cache-dir", "not-a-folder", ".") == expected
    assert check(capsys, "--cache-dir", "not-a-folder/sub", ".") == expected


def _store_repeatedly(directory, key, times):
    store = ResultCache(Path(directory))
    for _ in range(times):
        store.store(key, _reports())


def test_concurrent_writers_of_one_key_leave_a_whole_entry(tmp_path):
    key = "ef" + "3" * 62
    context = multiprocessing.get_context("spawn")
    writers = [context.Process(target=_store_repeatedly, args=(str(tmp_path), key, 300)) for _ in range(2)]
    for writer in writers:
        writer.start()
    store = ResultCache(tmp_path)
    seen = set()
    while any(writer.is_alive() for writer in writers):
        loaded = store.load(key, "x.py")
        assert loaded in (None, _reports())
        seen.add(loaded is None)
    for writer in writers:
        writer.join()
        assert writer.exitcode == 0
    assert store.load(key, "x.py") == _reports()
    assert not list((tmp_path / f"v{cache.FORMAT}" / "results" / "ef").glob("*.tmp"))  # no temporary file left behind


def test_two_runs_at_once_share_a_cache(project, tmp_path_factory):
    directory = tmp_path_factory.mktemp("cache")
    for index in range(30):
        (project / "pkg" / f"copy_{index}.py").write_text(BUGGY + f"# {index}\n", encoding="utf-8")
    # TDV002 and TDV003 (off by default) selected: every Python file has a finding (TDV003; its
    # TDV002 is silenced), and so has the notebook (its TDV002).
    command = [sys.executable, "-m", "flake8_torchdevice", "check", "--extend-select", "TDV002,TDV003"]
    command += ["--cache-dir", str(directory), "--jobs", "2", "."]
    runs = [subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outputs = [run.communicate() for run in runs]
    assert outputs[0] == outputs[1] and "Found 33 findings in 33 files" in outputs[0][0]
    again = subprocess.run(command, capture_output=True, text=True)
    assert (again.stdout, again.stderr) == outputs[0]
    assert len(entries(directory)) == 34


# Where it lives, and when it is written


def test_the_cache_folder_is_tagged_and_ignored_by_git(project, capsys, tmp_path_factory):
    directory = tmp_path_factory.mktemp("cache") / "made" / "here"
    check(capsys, "--cache-dir", str(directory), ".")
    assert (directory / "CACHEDIR.TAG").read_text().startswith("Signature: 8a477f597d28d172789f06886806bc55")
    assert (directory / ".gitignore").read_text() == "*\n"


def test_a_folder_that_exists_gets_no_tags(project, capsys):
    """``--cache-dir .`` keeps its entries under v<FORMAT>/, and writes no .gitignore into the project."""
    check(capsys, "--cache-dir", ".", ".")
    assert len(entries(project)) == 4
    assert not (project / ".gitignore").exists() and not (project / "CACHEDIR.TAG").exists()


def test_no_cache_writes_nothing(project, capsys, monkeypatch, tmp_path_factory):
    directory = tmp_path_factory.mktemp("cache") / "unused"
    monkeypatch.setenv("TORCHDEVICE_CACHE_DIR", str(directory))
    check(capsys, "--no-cache", ".")
    (project / "pyproject.toml").write_text("[tool.torchdevice]\ncache = false\n")
    check(capsys, ".")
    assert not directory.exists() and not (project / CACHE_DIR_NAME).exists()


def test_the_default_folder_is_next_to_the_configuration(project, capsys, monkeypatch):
    monkeypatch.delenv("TORCHDEVICE_CACHE_DIR")
    (project / "pyproject.toml").write_text("[tool.torchdevice]\nextend-select = ['TDV001']\n")
    monkeypatch.chdir(project / "pkg")
    check(capsys, ".")
    assert (project / CACHE_DIR_NAME / "CACHEDIR.TAG").is_file() and not (project / "pkg" / CACHE_DIR_NAME).exists()


def test_without_a_configuration_the_folder_is_in_the_working_directory(project, capsys, monkeypatch):
    monkeypatch.delenv("TORCHDEVICE_CACHE_DIR")
    check(capsys, ".")
    assert len(entries(project / CACHE_DIR_NAME)) == 4


def test_the_flag_beats_the_environment_which_beats_the_configuration(project, capsys, monkeypatch):
    (project / "pyproject.toml").write_text('[tool.torchdevice]\ncache-dir = "configured"\n')
    monkeypatch.chdir(project / "pkg")  # the configured folder is relative to pyproject.toml
    monkeypatch.delenv("TORCHDEVICE_CACHE_DIR")
    check(capsys, ".")
    assert (project / "configured" / "CACHEDIR.TAG").is_file()
    monkeypatch.setenv("TORCHDEVICE_CACHE_DIR", str(project / "from-environment"))
    check(capsys, ".")
    assert (project / "from-environment" / "CACHEDIR.TAG").is_file()
    check(capsys, "--cache-dir", str(project / "from-flag"), ".")
    assert (project / "from-flag" / "CACHEDIR.TAG").is_file()


def test_a_configured_cache_dir_must_be_a_path(project, capsys):
    (project / "pyproject.toml").write_text("[tool.torchdevice]\ncache-dir = 3\n")
    status, _, err = check(capsys, ".")
    assert status == 2 and "cache-dir must be a path" in err


def test_fixing_neither_reads_nor_writes_the_cache(project, capsys, monkeypatch, tmp_path_factory):
    directory = tmp_path_factory.mktemp("cache")
    monkeypatch.setenv("TORCHDEVICE_CACHE_DIR", str(directory))
    # TDV003 (off by default) is the finding fixed here: selected in every run.
    check(capsys, "--extend-select", "TDV003", ".")
    before = {entry: entry.stat().st_mtime_ns for entry in entries(directory)}
    fixing = ["fix", "--confidence", "low", "--unsafe-fixes", "--extend-select", "TDV003", "pkg/train.py"]
    assert main(fixing) in (0, 1)
    capsys.readouterr()
    assert "array = scores.cpu().numpy()" in (project / "pkg" / "train.py").read_text()
    assert {entry: entry.stat().st_mtime_ns for entry in entries(directory)} == before
    # The fixed file is a new key: its stale TDV003 is not read back.
    assert "TDV003" not in check(capsys, "--extend-select", "TDV003", "pkg/train.py")[1]


def test_standard_input_is_never_cached(project, capsys, monkeypatch, tmp_path_factory):
    directory = tmp_path_factory.mktemp("cache") / "unused"
    monkeypatch.setenv("TORCHDEVICE_CACHE_DIR", str(directory))
    monkeypatch.setattr(sys, "stdin", _Stdin(BUGGY.encode()))
    status, out, _ = check(capsys, "--stdin-filename", "train.py", "-")
    assert status == 1 and "train.py:2:23:" in out
    assert not directory.exists()


class _Stdin:
    def __init__(self, data):
        self.buffer = _Buffer(data)


class _Buffer:
    def __init__(self, data):
        self._data = data

    def read(self):
        return self._data


# Pruning


def test_entries_not_read_for_a_month_are_pruned_once_a_day(tmp_path):
    store = ResultCache(tmp_path)
    old, fresh = "aa" + "4" * 62, "bb" + "5" * 62
    store.store(old, _reports())
    store.store(fresh, _reports())
    month_ago = time.time() - 31 * 24 * 3600
    os.utime(tmp_path / f"v{cache.FORMAT}" / "results" / "aa" / f"{old}.json", (month_ago, month_ago))
    assert store.prune() == 1
    assert store.load(old, "x.py") is None and store.load(fresh, "x.py") == _reports()
    store.store(old, _reports())
    os.utime(tmp_path / f"v{cache.FORMAT}" / "results" / "aa" / f"{old}.json", (month_ago, month_ago))
    assert store.prune() == 0  # pruned less than a day ago
    assert store.load(old, "x.py") == _reports()  # a read makes it fresh again
    assert store.prune(now=time.time() + 2 * 24 * 3600) == 0


def test_pruning_an_empty_cache_makes_nothing(tmp_path):
    assert ResultCache(tmp_path / "none").prune() == 0
    assert not (tmp_path / "none").exists()


# The flake8 plugin


def flake8(*args, cwd=None):
    command = [sys.executable, "-m", "flake8", "--isolated", "--torchdevice-confidence=low", "--select=TDV", *args]
    result = subprocess.run(command, capture_output=True, text=True, cwd=cwd)
    assert "Traceback" not in result.stderr, result.stderr
    return result.stdout


def test_flake8_and_the_command_agree_on_a_warm_cache(capsys, monkeypatch, tmp_path_factory):
    directory = tmp_path_factory.mktemp("cache")
    monkeypatch.chdir(ROOT)
    paths = ["examples", "tests/fixtures"]
    cold = flake8(f"--torchdevice-cache-dir={directory}", *paths)
    written = {entry: entry.stat().st_mtime_ns for entry in entries(directory)}
    warm = flake8(f"--torchdevice-cache-dir={directory}", *paths)
    assert warm == cold and cold
    assert {entry: entry.stat().st_mtime_ns for entry in entries(directory)} == written  # read, not rewritten
    main(["check", "--cache-dir", str(directory), "--quiet", "--confidence", "low", "--select", "TDV", *paths])
    out = capsys.readouterr().out
    main(["check", "--cache-dir", str(directory), "--quiet", "--confidence", "low", "--select", "TDV", *paths])
    assert capsys.readouterr().out == out == warm


def test_noqa_works_in_both_front_ends_on_a_warm_cache(project, capsys, tmp_path_factory):
    directory = tmp_path_factory.mktemp("cache")
    for _ in range(2):
        command = check(capsys, "--cache-dir", str(directory), "--quiet", "--select", "TDV", "pkg/train.py")[1]
        plugin = flake8(f"--torchdevice-cache-dir={directory}", "pkg/train.py")
        assert command == plugin and "TDV002" not in plugin and "TDV003" in plugin
    # flake8 applies noqa after the plugin: its entries hold what noqa silences.
    assert "TDV002" in flake8(f"--torchdevice-cache-dir={directory}", "--disable-noqa", "pkg/train.py")


def test_flake8_stdin_finds_what_the_file_has_and_writes_nothing(project, tmp_path_factory):
    directory = tmp_path_factory.mktemp("cache")
    from_file = flake8(f"--torchdevice-cache-dir={directory}", "pkg/train.py")
    before = entries(directory)
    command = [sys.executable, "-m", "flake8", "--isolated", "--torchdevice-confidence=low", "--select=TDV"]
    stdin = subprocess.run(
        [*command, f"--torchdevice-cache-dir={directory}", "--stdin-display-name", "pkg/train.py", "-"],
        input=BUGGY,
        capture_output=True,
        text=True,
    )
    assert stdin.stdout == from_file and before
    assert entries(directory) == before
    edited = subprocess.run(
        [*command, f"--torchdevice-cache-dir={directory}", "--stdin-display-name", "pkg/train.py", "-"],
        input=BUGGY + "y = torch.zeros(1).cuda().numpy()\n",
        capture_output=True,
        text=True,
    )
    assert ":7:" in edited.stdout and entries(directory) == before


def test_flake8_no_cache_writes_nothing(project, tmp_path_factory):
    directory = tmp_path_factory.mktemp("cache") / "unused"
    assert flake8(f"--torchdevice-cache-dir={directory}", "--torchdevice-no-cache", "pkg")
    assert not directory.exists() and not (project / CACHE_DIR_NAME).exists()


def test_the_plugin_on_a_warm_cache_parses_nothing(project, monkeypatch, parses, tmp_path_factory):
    monkeypatch.setattr(TorchDeviceChecker, "cache", ResultCache(tmp_path_factory.mktemp("cache")))
    monkeypatch.setattr(TorchDeviceChecker, "turned_on", frozenset({"TDV002", "TDV003"}))  # off by default
    path = project / "pkg" / "train.py"
    lines = path.read_text().splitlines(keepends=True)
    cold = list(TorchDeviceChecker(None, lines, str(path)).run())
    assert len(parses) == 1 and [text.split()[0] for _, _, text, _ in cold] == ["TDV002", "TDV003"]
    warm = list(TorchDeviceChecker(None, lines, str(path)).run())
    assert warm == cold and len(parses) == 1


def test_the_plugin_keys_the_turned_on_rules(project, monkeypatch, parses, tmp_path_factory):
    monkeypatch.setattr(TorchDeviceChecker, "cache", ResultCache(tmp_path_factory.mktemp("cache")))
    path = project / "pkg" / "resume.py"
    path.write_text(BUGGY + 'state = torch.load("last.pt")\n', encoding="utf-8")
    lines = path.read_text().splitlines(keepends=True)
    monkeypatch.setattr(TorchDeviceChecker, "turned_on", frozenset())
    default = list(TorchDeviceChecker(None, lines, str(path)).run())
    monkeypatch.setattr(TorchDeviceChecker, "turned_on", frozenset({"TDV004"}))
    with_tdv004 = list(TorchDeviceChecker(None, lines, str(path)).run())
    assert len(parses) == 2 and len(with_tdv004) == len(default) + 1


def test_a_copied_project_reuses_the_entries(project, capsys, parses, tmp_path_factory):
    """Keyed by content, not path: a fresh clone or a renamed file hits."""
    directory = tmp_path_factory.mktemp("cache")
    check(capsys, "--cache-dir", str(directory), "pkg")
    shutil.copytree(project / "pkg", project / "renamed")
    parses.clear()
    out = check(capsys, "--cache-dir", str(directory), "renamed")[1]
    assert parses == [] and "renamed/train.py:2:23:" in out.replace(os.sep, "/")


# What a warm run imports: start-up is most of its cost, and libcst with the analysis alone would be
# several times the rest of it. Run in a fresh interpreter, as a user runs it.
ANALYSING = (
    "libcst",
    "flake8_torchdevice.analysis",
    "flake8_torchdevice.engine",
    "flake8_torchdevice.rules",
    "flake8_torchdevice.knowledge",
    "flake8_torchdevice.project.index",
    "flake8_torchdevice.project.calls",
    "flake8_torchdevice.project.inference",
)
# The modules the interpreter holds at its exit go to their own pipe: stdout holds the findings.
REPORTING_IMPORTS = (
    "import atexit, json, os, sys\n"
    "atexit.register(lambda: os.write({pipe}, json.dumps(sorted(sys.modules)).encode()))\n"
    "{run}\n"
)


def imported_by(run, arguments, prefixes=ANALYSING):
    """The modules starting with ``prefixes`` that a fresh interpreter imported running ``run``
    (Python code that ends the process) with ``arguments``, and what it printed."""
    reader, writer = os.pipe()
    command = [sys.executable, "-c", REPORTING_IMPORTS.format(pipe=writer, run=run), *arguments]
    with os.fdopen(reader, "rb") as pipe:
        process = subprocess.Popen(command, pass_fds=(writer,), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
        os.close(writer)
        modules = json.loads(pipe.read())
        out, err = process.communicate()
    assert b"Traceback" not in err, err.decode()
    return {name for name in modules if name.startswith(prefixes)}, out.decode()


def test_a_warm_run_imports_neither_libcst_nor_the_analysis(project, tmp_path_factory):
    directory = tmp_path_factory.mktemp("cache")
    command = "from flake8_torchdevice.cli import main; sys.exit(main())"
    arguments = ["check", "--cache-dir", str(directory), "--jobs", "1", "--select", "TDV", "--confidence", "low", "."]
    cold, cold_out = imported_by(command, arguments, (*ANALYSING, "multiprocessing"))
    warm, warm_out = imported_by(command, arguments, (*ANALYSING, "multiprocessing"))
    assert {"libcst", "flake8_torchdevice.project.index"} <= cold
    assert warm == set() and warm_out == cold_out and "TDV003" in warm_out


def test_a_warm_flake8_run_imports_neither_libcst_nor_the_analysis(project, tmp_path_factory):
    directory = tmp_path_factory.mktemp("cache")
    command = "from flake8.main.cli import main; sys.exit(main())"
    arguments = ["--isolated", "--select=TDV", "--torchdevice-confidence=low", f"--torchdevice-cache-dir={directory}"]
    cold, cold_out = imported_by(command, [*arguments, "-j1", "pkg"])
    warm, warm_out = imported_by(command, [*arguments, "-j1", "pkg"])
    assert "libcst" in cold and warm == set()
    assert warm_out == cold_out and "TDV003" in warm_out
