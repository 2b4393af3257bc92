"""What is run and how it is timed: every measurement is a subprocess, timed from outside.

Wall times include interpreter start-up and plugin loading; CPU seconds and peak memory come from
``os.wait4`` (user + system time of the whole process tree, ``ru_maxrss`` of its largest single
process). The in-process workers (``workers.py``) report their own per-file times instead.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .corpus import SourceFile
from .workers import peak_kib

BENCH = Path(__file__).resolve().parent
RUN = BENCH / "run.py"
FLAKE8_ONLY = BENCH / "flake8_only.py"
OUR_DISTRIBUTION = "flake8-torchdevice"
TORCHFIX_DISTRIBUTION = "TorchFix"
_REPORT_LINE = re.compile(r"^.+?:\d+:\d+: [A-Z]+\d+ ", re.MULTILINE)


@dataclass
class Sample:
    wall: float  # seconds
    cpu: float | None  # user + system seconds of the whole process tree
    peak_kib: int | None  # ru_maxrss of the largest process of the tree
    returncode: int
    output_lines: int
    detail: dict[str, Any] = field(default_factory=dict)  # what an in-process worker reported


@dataclass
class Measurement:
    key: str
    label: str
    command: list[str]
    env: dict[str, str]
    files: int
    lines: int
    worker: bool = False  # an in-process loop: its time is the sum of the per-file times it reports
    samples: list[Sample] = field(default_factory=list)
    # Run, untimed, before each sample: the result cache emptied, primed or a file edited.
    prepare: Callable[[Measurement], None] | None = None

    def wall(self) -> float:
        return statistics.median(sample.wall for sample in self.samples)

    def cpu(self) -> float | None:
        values = [sample.cpu for sample in self.samples if sample.cpu is not None]
        return statistics.median(values) if values else None

    def peak_mib(self) -> float | None:
        values = [sample.peak_kib for sample in self.samples if sample.peak_kib is not None]
        return max(values) / 1024 if values else None


def run_timed(command: Sequence[str], env: dict[str, str], cwd: str, stdin: Path | None = None) -> Sample:
    with ExitStack() as stack:
        out, err = (
            stack.enter_context(tempfile.TemporaryFile()),
            stack.enter_context(tempfile.TemporaryFile()),
        )
        stdin_file = stack.enter_context(open(stdin, "rb")) if stdin else subprocess.DEVNULL
        start = time.perf_counter()
        process = subprocess.Popen(command, stdin=stdin_file, stdout=out, stderr=err, cwd=cwd, env=env)
        if hasattr(os, "wait4"):
            _, status, usage = os.wait4(process.pid, 0)
            wall = time.perf_counter() - start
            process.returncode = os.waitstatus_to_exitcode(status)
            cpu: float | None = usage.ru_utime + usage.ru_stime
            peak: int | None = peak_kib(usage.ru_maxrss)
        else:
            process.wait()
            wall, cpu, peak = time.perf_counter() - start, None, None
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(errors="replace"), err.read().decode(errors="replace")
    if "critical error" in stderr or "Traceback" in stderr:
        raise RuntimeError(f"{' '.join(command[:6])} ... failed:\n{stderr[-3000:]}")
    reports = len(_REPORT_LINE.findall(stdout))
    stray = len(stdout.splitlines()) - reports  # e.g. a message that spans lines breaks flake8's format
    return Sample(wall, cpu, peak, process.returncode, reports, {"stray_lines": stray})


def environment(extra_path: str | None = None, plugins: str = "") -> dict[str, str]:
    """This environment, with ``extra_path`` as PYTHONPATH and the flake8 plugins ``flake8_only`` keeps."""
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "BENCH_FLAKE8_PLUGINS")}
    if extra_path:
        env["PYTHONPATH"] = extra_path
    env["BENCH_FLAKE8_PLUGINS"] = plugins
    return env


def worker_command(kind: str, list_file: Path) -> list[str]:
    return [sys.executable, str(RUN), "--worker", kind, str(list_file)]


def plan(
    files: list[SourceFile],
    list_file: Path,
    torchfix: str | None,
    check: list[str] | None,
    skip: set[str],
    jobs: int | None,
) -> list[Measurement]:
    """The measurements; ``jobs`` replaces each tool's default worker count in the parallel runs."""
    paths = [item.path for item in files]
    flake8_jobs, check_jobs = ([f"-j{jobs}"], ["--jobs", str(jobs)]) if jobs else ([], [])
    parallel = f"-j{jobs}" if jobs else "default -j"
    count, lines = len(files), sum(item.lines for item in files)
    flake8 = [sys.executable, str(FLAKE8_ONLY), "--isolated"]
    ours, floor = environment(plugins=OUR_DISTRIBUTION), environment()

    def measurement(key: str, label: str, command: list[str], env: dict[str, str], worker: bool = False) -> Measurement:
        return Measurement(key, label, command, env, count, lines, worker)

    # Without its result cache, our plugin and command do all their work on every run.
    plugin = [*flake8, "--torchdevice-no-cache", "--select=TDV"]
    measurements = [
        measurement("tdv_j1", "(a) flake8 --select=TDV -j1", [*plugin, "-j1", *paths], ours),
        measurement("tdv", f"(a) flake8 --select=TDV ({parallel})", [*plugin, *flake8_jobs, *paths], ours),
        measurement("floor_j1", "(b) flake8 --select=E9 -j1 (floor)", [*flake8, "--select=E9", "-j1", *paths], floor),
        measurement(
            "floor",
            f"(b) flake8 --select=E9 (floor, {parallel})",
            [*flake8, "--select=E9", *flake8_jobs, *paths],
            floor,
        ),
    ]
    if check is not None:
        base = [*check, "--no-cache", "--format", "json", "--select", "TDV", "--exit-zero"]
        check_label = f"(c) torchdevice check ({'--jobs ' + str(jobs) if jobs else 'default jobs'})"
        measurements += [
            measurement("check_j1", "(c) torchdevice check --jobs 1", [*base, "--jobs", "1", *paths], floor),
            measurement("check", check_label, [*base, *check_jobs, *paths], floor),
        ]
    if torchfix is not None:
        command = [*flake8, "--select=TOR", *flake8_jobs, *paths]
        env = environment(torchfix or None, TORCHFIX_DISTRIBUTION)
        measurements.append(measurement("torchfix", f"(d) TorchFix: flake8 --select=TOR ({parallel})", command, env))
    for key, label in (
        ("libcst", "(e) libcst.parse_module loop"),
        ("libcst_as_engine", "(e) the parse as the engine runs it (GC paused, common nodes built faster)"),
        ("ast", "(f) ast.parse loop"),
        ("engine", "(g) engine.lint_source loop, 1 worker"),
    ):
        measurements.append(measurement(key, label, worker_command(key, list_file), floor, worker=True))
    return [measurement for measurement in measurements if measurement.key not in skip]


def _copied_tree(paths: list[str], destination: Path) -> list[str]:
    """The files copied under ``destination`` with their paths below the folder they share."""
    common = Path(os.path.commonpath([os.path.abspath(path) for path in paths]))
    common = common if common.is_dir() else common.parent
    copies = []
    for path in paths:
        target = destination / Path(os.path.abspath(path)).relative_to(common)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
        copies.append(str(target))
    return copies


def cache_plan(files: list[SourceFile], check: list[str], edited: SourceFile, cwd: str) -> list[Measurement]:
    """``torchdevice check --jobs 1`` with its result cache: cold (emptied before each run), warm
    (nothing changed since the last run) and with ``edited`` changed (one file linted again),
    against the same command without the cache; and that file alone, and the command's start-up,
    for what linting one file costs."""
    base = [*check, "--format", "json", "--select", "TDV", "--exit-zero", "--jobs", "1"]
    # The files are linted from a copy of their tree, so that the edited one stays in its project
    # (the project's root and beliefs are the same in every run) without touching the corpus.
    paths = _copied_tree([item.path for item in files], Path(cwd) / "tree")
    copy = Path(paths[[item.path for item in files].index(edited.path)])
    count, lines = len(files), sum(item.lines for item in files)
    cold_dir, warm_dir = str(Path(cwd) / "cache-cold"), str(Path(cwd) / "cache-warm")
    # Start-up includes what the first parse sets up (libcst's native parser, the engine's own
    # node constructors): a tiny torch file pays it, an empty one would not.
    tiny = Path(cwd) / "tiny.py"
    tiny.write_text("import torch\nx = torch.zeros(3)\n")
    env = environment()

    def emptied(measurement: Measurement) -> None:
        shutil.rmtree(cold_dir, ignore_errors=True)

    def primed(measurement: Measurement) -> None:
        if not Path(warm_dir).exists():
            run_timed([*base, "--cache-dir", warm_dir, *paths], env, cwd)

    def edit(measurement: Measurement) -> None:
        primed(measurement)
        with copy.open("a") as file:  # a new comment each run: a new key each time
            file.write(f"\n# edited before run {len(measurement.samples) + 1}\n")

    def measurement(
        key: str, label: str, arguments: list[str], prepare: Callable[[Measurement], None] | None = None
    ) -> Measurement:
        return Measurement(key, label, [*base, *arguments], env, count, lines, prepare=prepare)

    alone = [
        Measurement(
            "cache_one_file", "(c) that file alone, --no-cache", [*base, "--no-cache", str(copy)], env, 1, edited.lines
        ),
        Measurement(
            "cache_start",
            "(c) start-up: a two-line torch file, --no-cache",
            [*base, "--no-cache", str(tiny)],
            env,
            1,
            2,
        ),
    ]
    return [
        measurement("cache_off", "(c) torchdevice check --jobs 1 --no-cache", ["--no-cache", *paths]),
        measurement("cache_cold", "(c) the same, cache cold (empty)", ["--cache-dir", cold_dir, *paths], emptied),
        measurement(
            "cache_warm", "(c) the same, cache warm (nothing changed)", ["--cache-dir", warm_dir, *paths], primed
        ),
        measurement(
            "cache_edited",
            f"(c) the same, cache warm, one file edited ({edited.lines:,} lines)",
            ["--cache-dir", warm_dir, *paths],
            edit,
        ),
        *alone,
    ]


def sample(measurement: Measurement, cwd: str) -> Sample:
    if measurement.prepare is not None:
        measurement.prepare(measurement)
    if not measurement.worker:
        return run_timed(measurement.command, measurement.env, cwd)
    out_file = Path(cwd) / f"{measurement.key}.json"
    result = run_timed([*measurement.command, str(out_file)], measurement.env, cwd)
    result.detail = json.loads(out_file.read_text())
    result.wall = sum(result.detail["times"])  # the calls only; start-up and reading excluded
    result.cpu = sum(result.detail["cpu_times"])
    return result


def phases(list_file: Path, cwd: str) -> dict[str, Any]:
    """The engine's stage timings over one pass (``workers._phases``), or ``{"error": why}``."""
    out_file = Path(cwd) / "phases.json"
    try:
        run_timed([*worker_command("phases", list_file), str(out_file)], environment(), cwd)
        return json.loads(out_file.read_text())
    except (RuntimeError, OSError, ValueError) as error:
        return {"error": str(error).splitlines()[-1]}


def stdin_latency(typical: SourceFile, plain: SourceFile | None, cwd: str, repeats: int) -> dict[str, float]:
    """``flake8 --select=TDV -`` on a typical file, as an editor starts it; the floor; and a file
    without torch, which the plugin answers without importing libcst."""
    runs = [("tdv", "TDV", OUR_DISTRIBUTION, typical), ("floor", "E9", "", typical)]
    if plain is not None:
        runs.append(("tdv_plain", "TDV", OUR_DISTRIBUTION, plain))
    results = {}
    for key, select, plugins, source in runs:
        flake8 = [sys.executable, str(FLAKE8_ONLY), "--isolated", "--stdin-display-name", source.path]
        times = [
            run_timed([*flake8, f"--select={select}", "-"], environment(plugins=plugins), cwd, Path(source.path)).wall
            for _ in range(repeats)
        ]
        results[key] = statistics.median(times)
    return results
