"""The plugin through real flake8, in subprocesses: file mode, stdin mode, noqa, select."""

import json
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import pytest

from flake8_torchdevice.engine import lint_source
from runtime_checks.fixtures import FIXTURES_ROOT

STDIN_RUNS = Path(__file__).resolve().parent / "flake8_stdin_runs.py"

_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<column>\d+): (?P<code>TDV\d{3}) (?P<message>.*)$")


def flake8(*args, stdin=None, cwd=None):
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--torchdevice-confidence=low", *args],
        input=stdin,
        capture_output=True,
        text=True,
        cwd=cwd,
    )
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    return result.stdout


def parse(output):
    found = defaultdict(list)
    for line in output.splitlines():
        match = _LINE.match(line)
        if match:
            path = Path(match["path"])
            found[f"{path.parent.name}/{path.name}"].append(
                (int(match["line"]), int(match["column"]) - 1, match["code"], match["message"])
            )
    return found


def read(path):
    return path.read_bytes().decode("utf-8")  # without newline translation: CRLF fixtures stay CRLF


def engine_view(path):
    return [(d.line, d.column, d.code, d.message) for d in lint_source(read(path))]


# One flake8 process over the fixtures directory, and one for every fixture's stdin run, shared by
# the per-fixture tests below (xdist keeps them on one worker, so each process starts once).
over_the_fixtures = pytest.mark.xdist_group("flake8_over_fixtures")


@pytest.fixture(scope="module")
def flake8_over_fixtures():
    return flake8("--select=TDV", str(FIXTURES_ROOT))


@pytest.fixture(scope="module")
def flake8_over_stdin(all_fixtures):
    """{fixture name: result} of ``flake8 --select=TDV --stdin-display-name NAME -`` on each fixture."""
    runs = [
        {
            "args": ["--isolated", "--torchdevice-confidence=low", "--select=TDV", "--stdin-display-name", f.name, "-"],
            "stdin": read(f.path),
        }
        for f in all_fixtures
    ]
    completed = subprocess.run(
        [sys.executable, str(STDIN_RUNS)], input=json.dumps(runs), capture_output=True, text=True, check=True
    )
    return {fixture.name: result for fixture, result in zip(all_fixtures, json.loads(completed.stdout))}


@over_the_fixtures
def test_file_mode_matches_the_engine(fixture, flake8_over_fixtures):
    assert sorted(parse(flake8_over_fixtures)[fixture.name]) == engine_view(fixture.path)


@over_the_fixtures
def test_stdin_mode_matches_file_mode(fixture, flake8_over_stdin):
    result = flake8_over_stdin[fixture.name]
    assert result["status"] in (0, 1), result["stderr"]
    assert "Traceback" not in result["stderr"], result["stderr"]
    assert sorted(parse(result["stdout"])[fixture.name]) == engine_view(fixture.path)


def test_one_process_runs_stdin_as_separate_flake8_runs():
    """The shared process must not leak one run's input or options into the next."""
    first = 'import torch\nx = torch.zeros(3, device="cuda")\n'
    second = "import torch\nx = torch.zeros(3)\nx.cuda()\n"
    runs = [
        {
            "args": ["--isolated", "--torchdevice-confidence=low", "--select=TDV", "--stdin-display-name", "a.py", "-"],
            "stdin": first,
        },
        {
            "args": [
                "--isolated",
                "--torchdevice-confidence=low",
                "--select=TDV002",
                "--stdin-display-name",
                "b.py",
                "-",
            ],
            "stdin": second,
        },
        {"args": ["--isolated", "--no-such-option"], "stdin": ""},
        {
            "args": ["--isolated", "--torchdevice-confidence=low", "--select=TDV", "--stdin-display-name", "c.py", "-"],
            "stdin": "import numpy\n",
        },
    ]
    completed = subprocess.run(
        [sys.executable, str(STDIN_RUNS)], input=json.dumps(runs), capture_output=True, text=True, check=True
    )
    a, b, usage_error, c = json.loads(completed.stdout)
    assert (a["status"], re.findall(r"^a\.py:2:\d+: (TDV\d+)", a["stdout"], re.M)) == (1, ["TDV001"])
    assert (b["status"], re.findall(r"^b\.py:\d+:\d+: (TDV\d+)", b["stdout"], re.M)) == (1, ["TDV002"])
    assert usage_error["status"] is None and "SystemExit" in usage_error["stderr"]
    assert (c["status"], c["stdout"]) == (0, "")


SNIPPET = 'import torch\nx = torch.zeros(3, device="cuda"){noqa}\n'


@pytest.mark.parametrize(
    "noqa, reported",
    [("", True), ("  # noqa: TDV001", False), ("  # noqa", False), ("  # noqa: TDV002", True)],
)
def test_noqa(noqa, reported):
    out = flake8("--select=TDV", "--stdin-display-name", "x.py", "-", stdin=SNIPPET.format(noqa=noqa))
    assert ("TDV001" in out) is reported


def test_select_and_extend_ignore(tmp_path):
    source = "import torch\nx = torch.zeros(3)\nx.cuda()\n"
    both = flake8("--select=TDV", "--stdin-display-name", "x.py", "-", stdin=source)
    assert {"TDV001", "TDV002"} <= set(re.findall(r"TDV\d{3}", both))
    only_002 = flake8("--select=TDV002", "--stdin-display-name", "x.py", "-", stdin=source)
    assert set(re.findall(r"TDV\d{3}", only_002)) == {"TDV002"}
    ignored = flake8("--select=TDV", "--extend-ignore=TDV001", "--stdin-display-name", "x.py", "-", stdin=source)
    assert set(re.findall(r"TDV\d{3}", ignored)) == {"TDV002"}


def test_guard_functions_option():
    source = (
        "import torch\n"
        "from mylib import is_torch_cuda_available\n"
        "if is_torch_cuda_available():\n"
        "    torch.cuda.synchronize()\n"
    )
    plain = flake8("--select=TDV", "--stdin-display-name", "x.py", "-", stdin=source)
    assert "TDV001" not in plain  # the name mentions CUDA, which already counts as a check
    source = source.replace("is_torch_cuda_available", "accelerated")
    plain = flake8("--select=TDV", "--stdin-display-name", "x.py", "-", stdin=source)
    assert "TDV001" in plain
    configured = flake8(
        "--select=TDV",
        "--torchdevice-guard-functions=accelerated",
        "--stdin-display-name",
        "x.py",
        "-",
        stdin=source,
    )
    assert "TDV001" not in configured


def test_report_unknown_receivers_option():
    source = "import torch\ndef f(x, device):\n    x.to(device)\n"
    assert "TDV002" not in flake8("--select=TDV", "--stdin-display-name", "x.py", "-", stdin=source)
    opted = flake8(
        "--select=TDV",
        "--torchdevice-report-unknown-receivers",
        "--stdin-display-name",
        "x.py",
        "-",
        stdin=source,
    )
    assert "TDV002" in opted


def test_syntax_error_is_left_to_flake8():
    out = flake8("--select=E9,TDV", "--stdin-display-name", "x.py", "-", stdin="import torch\ndef (:\n")
    assert "E999" in out and "TDV" not in out


LINT_WITHOUT_TORCH = """
import sys
from flake8_torchdevice.plugin import TorchDeviceChecker
assert list(TorchDeviceChecker(None, ["import numpy\\n", "x = numpy.ones(3)\\n"]).run()) == []
print("libcst" in sys.modules)
print(len(list(TorchDeviceChecker(None, ["import torch\\n", "torch.device('cuda')\\n"]).run())))
print("libcst" in sys.modules)
"""


def test_a_file_without_torch_never_loads_libcst():
    """An editor starts flake8 for each file: one that cannot hold a finding must not pay for libcst."""
    result = subprocess.run([sys.executable, "-c", LINT_WITHOUT_TORCH], capture_output=True, text=True)
    assert result.stdout.split() == ["False", "1", "True"], result.stderr


def test_rules_off_by_default_say_so_in_their_documentation():
    from flake8_torchdevice.rules import ALL_RULES
    from flake8_torchdevice.selection import OFF_BY_DEFAULT

    assert {rule.code for rule in ALL_RULES if "Off by default" in rule.documentation()} == OFF_BY_DEFAULT
    assert {rule.code for rule in ALL_RULES if not rule.enabled_by_default} == OFF_BY_DEFAULT


# A file with findings of a default rule (TDV011 on ``map_location=`` given to ``load_state_dict``)
# and of three rules that are off by default (TDV002 on the discarded ``.cuda()``; TDV001 on that
# ``.cuda()``, likely here; TDV004 on ``torch.load``, which comes first: TDV004 leaves alone a load
# that runs only after an unchecked ``.cuda()``).
_DEFAULT_AND_OFF = (
    "import torch\ny = torch.load('a.pt')\nx = torch.zeros(3)\nx.cuda()\n"
    "model = torch.nn.Linear(4, 2)\nmodel.load_state_dict({}, map_location='cpu')\n"
)
_ITS_CODES = {"TDV001", "TDV002", "TDV004", "TDV011"}


@pytest.mark.parametrize(
    ("config", "expected"),
    [
        ("", {"TDV011"}),
        # The black-compatible ignore list replaces flake8's default ignore list: it must not turn
        # on the rules that are off by default.
        ("ignore = E203, W503\n", {"TDV011"}),
        ("extend-ignore = E203\n", {"TDV011"}),
        ("extend-select = TDV004\n", {"TDV004", "TDV011"}),
        ("select = E,F,W,TDV\n", {"TDV001", "TDV002", "TDV004", "TDV011"}),
        ("select = E,F,W\nextend-select = TDV001\n", {"TDV001"}),
        ("select = E,F,W\n", set()),
        ("extend-select = TDV\nextend-ignore = TDV004\n", {"TDV001", "TDV002", "TDV011"}),
    ],
)
def test_the_selection_flake8_reads_from_a_configuration(tmp_path, config, expected):
    """flake8 runs the rules the command runs for the same selection (``config.selected_codes``)."""
    from flake8_torchdevice.config import selected_codes

    (tmp_path / "setup.cfg").write_text("[flake8]\ntorchdevice-confidence = low\n" + config)
    (tmp_path / "train.py").write_text(_DEFAULT_AND_OFF)
    result = subprocess.run([sys.executable, "-m", "flake8", "train.py"], capture_output=True, text=True, cwd=tmp_path)
    assert "Traceback" not in result.stderr, result.stderr
    assert set(re.findall(r"TDV\d{3}", result.stdout)) == expected
    values = dict(line.split(" = ") for line in config.splitlines())

    def ours(key):  # the command knows only its own codes
        return [prefix.strip() for prefix in values.get(key, "").split(",") if prefix.strip().startswith("T")]

    select = ours("select") if "select" in values else None
    command = selected_codes(select, ours("ignore") + ours("extend-ignore"), ours("extend-select"))
    assert expected == command & _ITS_CODES


def test_flake8_reports_sure_findings_unless_asked_for_more():
    """The same default as the command: high confidence; ``--torchdevice-confidence`` shows more."""
    source = "import torch\n\nx = torch.zeros(3).cuda()\n"

    def codes(*options):
        result = subprocess.run(
            [
                sys.executable,
                "-m",
                "flake8",
                "--isolated",
                "--select=TDV001",
                *options,
                "--stdin-display-name",
                "x.py",
                "-",
            ],
            input=source,
            capture_output=True,
            text=True,
        )
        return re.findall(r"TDV\d{3}", result.stdout)

    assert codes() == []
    assert codes("--torchdevice-confidence=medium") == ["TDV001"]


def test_the_runs_without_cuda_option():
    source = "import torch\n\nx = torch.zeros(3).cuda()\n"
    options = ["--select=TDV001", "--torchdevice-runs-without-cuda", "--stdin-display-name", "x.py"]
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", *options, "-"],
        input=source,
        capture_output=True,
        text=True,
    )
    assert re.findall(r"TDV\d{3}", result.stdout) == ["TDV001"]


def test_a_project_that_runs_without_cuda_turns_tdv001_on(tmp_path):
    (tmp_path / "setup.cfg").write_text("[flake8]\ntorchdevice-runs-without-cuda = true\n")
    (tmp_path / "train.py").write_text("import torch\n\nx = torch.zeros(3).cuda()\n")
    result = subprocess.run([sys.executable, "-m", "flake8", "train.py"], capture_output=True, text=True, cwd=tmp_path)
    assert re.findall(r"TDV\d{3}", result.stdout) == ["TDV001"]


def test_projects_linted_at_once_keep_their_own_beliefs(tmp_path):
    """As the command does (tests/test_cli.py): each repository given is read as its own project."""
    falls_back = 'import torch\n\ndevice = "cuda" if torch.cuda.is_available() else "cpu"\nx = torch.zeros(3).cuda()\n'
    stops = "import sys\nimport torch\n\nif not torch.cuda.is_available():\n    sys.exit(1)\n"
    for name, text in (("cpu_repo", falls_back), ("gpu_repo", stops)):
        (tmp_path / name / ".git").mkdir(parents=True)
        (tmp_path / name / "launch.py").write_text(text)
    (tmp_path / "gpu_repo" / "train.py").write_text("import torch\n\nx = torch.zeros(3).cuda()\n")
    alone = flake8("--select=TDV001", "cpu_repo", cwd=tmp_path) + flake8("--select=TDV001", "gpu_repo", cwd=tmp_path)
    together = flake8("--select=TDV001", "cpu_repo", "gpu_repo", cwd=tmp_path)
    assert sorted(together.splitlines()) == sorted(alone.splitlines()) and len(alone.splitlines()) == 2
    assert "requires CUDA" in together and "falls back to the CPU" in together
