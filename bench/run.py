"""Speed benchmark: flake8-torchdevice against TorchFix, flake8's own floor and bare parsers.

Lints the same files with every tool, in one run, and prints a Markdown table of wall and
CPU seconds, lines per second, peak memory and the ratios the project's targets are stated in.

    python bench/run.py                  # every file of every corpus, 3 runs, medians
    python bench/run.py --quick          # 1 run on a fixed sample (about 4,000 lines per corpus)
    python bench/run.py --max-lines 40000 --runs 3 --json bench.json

Corpora (third-party code, kept outside the repository, never committed): the timm, kornia,
monai and torch-geometric wheels, downloaded with ``pip download --no-deps`` and unpacked by
``scripts/corpora.py`` under ``~/.cache/torchdevice-corpora``, and the Python sources of the
installed torch package (found with ``importlib.util.find_spec``, never imported).

Measurements, each on the same files:
  (a) flake8 --select=TDV        flake8 + pyflakes + pycodestyle + our plugin, -j1 and flake8's default
  (b) flake8 --select=E9         flake8's floor: flake8 + pyflakes + pycodestyle, no extension
  (c) torchdevice check          our command (all rules, JSON output), --jobs 1 and its default
  (d) flake8 --select=TOR        flake8 + pyflakes + pycodestyle + TorchFix 0.7.0, flake8's default -j
  (e) libcst.parse_module loop   in-process, one file after the other; again with the cyclic
                                 GC paused, as the engine runs it (the floor its overhead is judged on)
  (f) ast.parse loop             in-process
  (g) engine.lint_source loop    in-process, one worker; time split between the files the
                                 pre-filter skips and the files parsed
  (h) phase breakdown            one pass timing parse / analysis walk / each rule / positions
flake8 runs through ``bench/flake8_only.py``, which hides the other installed flake8 extensions:
flake8 runs every installed plugin whatever ``--select`` says, so without it the TorchFix timing
would include ours and the reverse.

TorchFix is needed for (d). When the running environment lacks it, it is installed with
``sys.executable -m pip install --no-deps --target <cache>/bench-tools torchfix==0.7.0`` and put on
PYTHONPATH for (d) only: TorchFix 0.7.0 pins ``libcst<1.6``, and installing it into the
environment with its dependencies would downgrade the libcst our linter runs on. ``--no-install``
skips (d) instead.

Wall times of the subprocess measurements include interpreter start-up and plugin loading;
the in-process loops (e)-(h) time only the calls, sources already read and decoded. Peak memory:
``ru_maxrss`` of the subprocess tree from ``os.wait4`` (the largest single process of the tree,
not the sum over parallel workers), and for (g) ``getrusage(RUSAGE_SELF)`` inside the worker,
read before the files, after the ten largest (linted first) and after all files.
"""

from __future__ import annotations

import argparse
import ast
import datetime
import gc
import importlib.metadata
import importlib.util
import io
import json
import os
import platform
import random
import re
import statistics
import subprocess
import sys
import tempfile
import time
import tokenize
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

try:
    import resource
except ImportError:  # Windows: no peak-memory figures
    resource = None  # type: ignore[assignment]

BENCH = Path(__file__).resolve().parent
REPOSITORY = BENCH.parent
sys.path.insert(0, str(REPOSITORY / "scripts"))

import corpora  # noqa: E402  (scripts/corpora.py: pinned wheels, unpacked outside the repository)

WHEEL_CORPORA = ("timm", "kornia", "monai", "torch-geometric")
TORCH_CORPUS = "torch"  # the installed torch package's own sources
ALL_CORPORA = (*WHEEL_CORPORA, TORCH_CORPUS)
TORCHFIX = "torchfix==0.7.0"
TOOLS_DIR = corpora.DEFAULT_DEST / "bench-tools"
QUICK_LINES_PER_CORPUS = 4_000
LATENCY_MAX_LINES = 2_000
# Memory: the RSS peak after this many of the largest files is the bound the peak after all files
# must stay within.
HEAVIEST_FILES = 10
STDIN_REPEATS = 5
FLAKE8_ONLY = BENCH / "flake8_only.py"
OUR_DISTRIBUTION = "flake8-torchdevice"
TORCHFIX_DISTRIBUTION = "TorchFix"
_WARM_UP = "import torch\nx = torch.zeros(3).to('cuda')\nx.numpy()\n"


# ---------------------------------------------------------------------------------------- files
def read_source(path: Path) -> str:
    """Decode a file as Python does (PEP 263 cookie, BOM), replacing undecodable bytes."""
    data = path.read_bytes()
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        encoding = "utf-8"
    try:
        return data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return data.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class SourceFile:
    path: str
    corpus: str
    lines: int
    relevant: bool  # passes the engine's pre-filter (mentions torch or cuda): parsed and analysed


def torch_sources() -> Path | None:
    """The installed torch package's folder, found without importing torch."""
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


def collect(names: Sequence[str], dest: Path) -> dict[str, list[Path]]:
    found: dict[str, list[Path]] = {}
    wheels = [name for name in names if name in WHEEL_CORPORA]
    if wheels:
        found.update(corpora.corpus_files(dest, wheels))
    if TORCH_CORPUS in names:
        root = torch_sources()
        if root is None:
            print("torch is not installed: the torch corpus is left out")
        else:
            found[TORCH_CORPUS] = sorted(root.rglob("*.py"))
    return {name: found[name] for name in names if name in found}


def describe(found: dict[str, list[Path]], max_lines: int | None) -> list[SourceFile]:
    """Every file, or per corpus a fixed random sample of about ``max_lines`` lines."""
    from flake8_torchdevice.engine import could_have_findings

    files: list[SourceFile] = []
    for name, paths in found.items():
        if max_lines is not None:
            paths = list(paths)
            random.Random(f"torchdevice-bench-{name}").shuffle(paths)
        chosen, total = [], 0
        for path in paths:
            if max_lines is not None and total >= max_lines:
                break
            source = read_source(path)
            lines = len(source.splitlines())
            chosen.append(SourceFile(str(path), name, lines, could_have_findings(source)))
            total += lines
        files.extend(sorted(chosen, key=lambda item: item.path))
    return files


# -------------------------------------------------------------------------- timing subprocesses
@dataclass
class Sample:
    wall: float  # seconds
    cpu: float | None  # user + system seconds of the whole process tree
    peak_kib: int | None  # ru_maxrss of the largest process of the tree
    returncode: int
    output_lines: int
    detail: dict[str, Any] = field(default_factory=dict)  # what an in-process worker reported


def _peak_kib(maxrss: int) -> int:
    return maxrss // 1024 if sys.platform == "darwin" else maxrss  # macOS counts bytes


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
            peak: int | None = _peak_kib(usage.ru_maxrss)
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


_REPORT_LINE = re.compile(r"^.+?:\d+:\d+: [A-Z]+\d+ ", re.MULTILINE)


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

    def wall(self) -> float:
        return statistics.median(sample.wall for sample in self.samples)

    def cpu(self) -> float | None:
        values = [sample.cpu for sample in self.samples if sample.cpu is not None]
        return statistics.median(values) if values else None

    def peak_mib(self) -> float | None:
        values = [sample.peak_kib for sample in self.samples if sample.peak_kib is not None]
        return max(values) / 1024 if values else None


# ------------------------------------------------------------------------------ in-process workers
def _maxrss_kib() -> int | None:
    return _peak_kib(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) if resource else None


def _timed_loop(
    function: Callable[[str], Any],
    sources: list[str],
    order: Sequence[int],
    after_leaders: Callable[[], None] | None = None,
    leaders: int = 1,
) -> dict[str, list]:
    """Per file: wall seconds and CPU seconds of this process (the CPU figure resists a busy machine)."""
    times, cpu_times, errors = [0.0] * len(sources), [0.0] * len(sources), []
    clock, cpu_clock = time.perf_counter, time.process_time
    for position, index in enumerate(order):
        start, cpu_start = clock(), cpu_clock()
        try:
            function(sources[index])
        except Exception:
            errors.append(index)
        times[index], cpu_times[index] = clock() - start, cpu_clock() - cpu_start
        if position == leaders - 1 and after_leaders is not None:
            after_leaders()
    return {"times": times, "cpu_times": cpu_times, "errors": errors}


def worker(kind: str, list_file: Path, out_file: Path) -> None:
    paths = [Path(line) for line in list_file.read_text().splitlines() if line]
    sources = [read_source(path) for path in paths]
    order = list(range(len(sources)))
    result: dict[str, Any] = {}
    if kind == "ast":
        ast.parse("x = 1\n")
        result.update(_timed_loop(ast.parse, sources, order))
    elif kind in ("libcst", "libcst_gc_paused"):
        import libcst

        libcst.parse_module(_WARM_UP)
        if kind == "libcst_gc_paused":
            gc.disable()  # as the engine does around each file: the fair floor for its overhead
        result.update(_timed_loop(libcst.parse_module, sources, order))
    elif kind == "engine":
        from flake8_torchdevice import engine

        engine.lint_source(_WARM_UP)
        relevant = [index for index in order if engine.could_have_findings(sources[index])]
        # The largest files first: the peak after them is the bound to compare the end with. Several,
        # because the most memory-hungry tree is not always the longest text.
        heaviest = sorted(relevant, key=lambda index: -len(sources[index]))[:HEAVIEST_FILES]
        first = set(heaviest)
        order = [*heaviest, *(index for index in order if index not in first)]
        findings: list[int] = []
        result["rss_kib_before"] = _maxrss_kib()

        def lint(source: str) -> None:
            findings.append(len(engine.lint_source(source)))

        def after_largest() -> None:
            result["rss_kib_after_largest"] = _maxrss_kib()

        result.update(_timed_loop(lint, sources, order, after_largest, max(1, len(heaviest))))
        result["rss_kib_after_all"] = _maxrss_kib()
        result["largest"] = [str(paths[index]) for index in heaviest]
        result["findings"] = sum(findings)
    elif kind == "phases":
        result.update(_phases(sources))
    else:
        raise SystemExit(f"unknown worker {kind}")
    out_file.write_text(json.dumps(result))


def _phases(sources: list[str]) -> dict[str, Any]:
    """Time the engine's stages separately, the way ``engine.check_source`` chains them."""
    import libcst

    from flake8_torchdevice import engine
    from flake8_torchdevice.analysis import analyse, positions_of
    from flake8_torchdevice.rules import ALL_RULES
    from flake8_torchdevice.settings import Settings

    settings = Settings()
    clock = time.process_time  # CPU seconds: the shares hold on a busy machine
    totals: dict[str, float] = {"prefilter": 0.0, "parse": 0.0, "analysis": 0.0, "positions": 0.0}
    per_rule = {rule.code: 0.0 for rule in ALL_RULES}
    parsed = failed = reported = 0
    engine.lint_source(_WARM_UP)
    gc.disable()  # the engine pauses the cyclic GC around each file
    for source in sources:
        start = clock()
        relevant = engine.could_have_findings(source)
        totals["prefilter"] += clock() - start
        if not relevant:
            continue
        start = clock()
        try:
            module = libcst.parse_module(source)
        except Exception:
            failed += 1
            continue
        totals["parse"] += clock() - start
        parsed += 1
        previous = sys.getrecursionlimit()
        sys.setrecursionlimit(max(previous, getattr(engine, "_RECURSION_LIMIT", 0)))
        try:
            start = clock()
            analysis = analyse(module, settings.guard_functions)
            totals["analysis"] += clock() - start
            findings = []
            for rule in ALL_RULES:
                start = clock()
                findings.extend(rule().check(analysis, settings))
                per_rule[rule.code] += clock() - start
            start = clock()
            positions_of(module, (finding.node for finding in findings))
            totals["positions"] += clock() - start
            reported += len(findings)
        except Exception:
            failed += 1
        finally:
            sys.setrecursionlimit(previous)
    totals["rules"] = sum(per_rule.values())
    return {"totals": totals, "per_rule": per_rule, "parsed": parsed, "failed": failed, "findings": reported}


# ---------------------------------------------------------------------------------------- tools
def version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def torchfix_path(install: bool) -> tuple[str | None, str]:
    """(extra PYTHONPATH entry or "" when TorchFix is in the environment, or None; a note)."""
    if version(TORCHFIX_DISTRIBUTION) != "not installed":
        return "", f"TorchFix {version(TORCHFIX_DISTRIBUTION)} from the running environment"
    if (TOOLS_DIR / "torchfix" / "torchfix.py").exists():
        return str(TOOLS_DIR), f"TorchFix from {TOOLS_DIR}"
    if not install:
        return None, "TorchFix not installed and --no-install given: (d) skipped"
    command = [
        sys.executable,
        "-m",
        "pip",
        "install",
        "--quiet",
        "--no-deps",
        "--target",
        str(TOOLS_DIR),
        TORCHFIX,
    ]
    if importlib.util.find_spec("yaml") is None:  # TorchFix's one dependency besides flake8 and libcst
        command.append("PyYAML")
    print(f"installing {TORCHFIX} (without its libcst<1.6 pin) into {TOOLS_DIR}:\n    {' '.join(command)}")
    completed = subprocess.run(command)
    if completed.returncode != 0:
        return None, f"pip could not install {TORCHFIX}: (d) skipped"
    return str(TOOLS_DIR), f"TorchFix installed by this script into {TOOLS_DIR}"


def torchdevice_command() -> list[str] | None:
    """``python -m flake8_torchdevice check`` when the command exists in this environment."""
    command = [sys.executable, "-m", "flake8_torchdevice", "check"]
    try:
        completed = subprocess.run([*command, "--help"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return command if completed.returncode == 0 and "--jobs" in completed.stdout else None


def _environment(extra_path: str | None = None, plugins: str = "") -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "BENCH_FLAKE8_PLUGINS")}
    if extra_path:
        env["PYTHONPATH"] = extra_path
    env["BENCH_FLAKE8_PLUGINS"] = plugins
    return env


# ---------------------------------------------------------------------------------- the benchmark
def plan(
    files: list[SourceFile],
    list_file: Path,
    torchfix: str | None,
    check: list[str] | None,
    skip: set,
    jobs: int | None,
):
    """The measurements; ``jobs`` replaces each tool's default worker count in the parallel runs."""
    paths = [item.path for item in files]
    flake8_jobs, check_jobs = ([f"-j{jobs}"], ["--jobs", str(jobs)]) if jobs else ([], [])
    parallel = f"-j{jobs}" if jobs else "default -j"
    count, lines = len(files), sum(item.lines for item in files)
    flake8 = [sys.executable, str(FLAKE8_ONLY), "--isolated"]
    worker_command = [sys.executable, str(Path(__file__).resolve()), "--worker"]
    measurements = [
        Measurement(
            "tdv_j1",
            "(a) flake8 --select=TDV -j1",
            [*flake8, "--select=TDV", "-j1", *paths],
            _environment(plugins=OUR_DISTRIBUTION),
            count,
            lines,
        ),
        Measurement(
            "tdv",
            f"(a) flake8 --select=TDV ({parallel})",
            [*flake8, "--select=TDV", *flake8_jobs, *paths],
            _environment(plugins=OUR_DISTRIBUTION),
            count,
            lines,
        ),
        Measurement(
            "floor_j1",
            "(b) flake8 --select=E9 -j1 (floor)",
            [*flake8, "--select=E9", "-j1", *paths],
            _environment(),
            count,
            lines,
        ),
        Measurement(
            "floor",
            f"(b) flake8 --select=E9 (floor, {parallel})",
            [*flake8, "--select=E9", *flake8_jobs, *paths],
            _environment(),
            count,
            lines,
        ),
    ]
    if check is not None:
        base = [*check, "--format", "json", "--select", "TDV", "--exit-zero"]
        measurements += [
            Measurement(
                "check_j1",
                "(c) torchdevice check --jobs 1",
                [*base, "--jobs", "1", *paths],
                _environment(),
                count,
                lines,
            ),
            Measurement(
                "check",
                f"(c) torchdevice check ({'--jobs ' + str(jobs) if jobs else 'default jobs'})",
                [*base, *check_jobs, *paths],
                _environment(),
                count,
                lines,
            ),
        ]
    if torchfix is not None:
        measurements.append(
            Measurement(
                "torchfix",
                f"(d) TorchFix: flake8 --select=TOR ({parallel})",
                [*flake8, "--select=TOR", *flake8_jobs, *paths],
                _environment(torchfix or None, TORCHFIX_DISTRIBUTION),
                count,
                lines,
            )
        )
    for key, label in (
        ("libcst", "(e) libcst.parse_module loop"),
        ("libcst_gc_paused", "(e) libcst.parse_module loop, cyclic GC paused (as the engine runs it)"),
        ("ast", "(f) ast.parse loop"),
        ("engine", "(g) engine.lint_source loop, 1 worker"),
    ):
        measurements.append(
            Measurement(key, label, [*worker_command, key, str(list_file)], _environment(), count, lines, worker=True)
        )
    return [measurement for measurement in measurements if measurement.key not in skip]


def sample(measurement: Measurement, cwd: str) -> Sample:
    if not measurement.worker:
        return run_timed(measurement.command, measurement.env, cwd)
    out_file = Path(cwd) / f"{measurement.key}.json"
    result = run_timed([*measurement.command, str(out_file)], measurement.env, cwd)
    result.detail = json.loads(out_file.read_text())
    result.wall = sum(result.detail["times"])  # the calls only; start-up and reading excluded
    result.cpu = sum(result.detail["cpu_times"])
    return result


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
            run_timed([*flake8, f"--select={select}", "-"], _environment(plugins=plugins), cwd, Path(source.path)).wall
            for _ in range(repeats)
        ]
        results[key] = statistics.median(times)
    return results


def ideal_speedup(costs: Sequence[float], workers: int) -> float:
    """Serial time over the makespan when files go, in order, to whichever worker is free first."""
    finish = [0.0] * workers
    for cost in costs:
        finish[finish.index(min(finish))] += cost
    return sum(costs) / max(finish) if max(finish) else 1.0


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    position = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[position]


def machine() -> dict[str, str]:
    cores = os.cpu_count() or 1
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    commit = subprocess.run(
        ["git", "-C", str(REPOSITORY), "describe", "--always", "--dirty"], capture_output=True, text=True
    ).stdout.strip()
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.system()} {platform.machine()}, {cores} cores ({usable} usable)",
        "load average at start": " ".join(f"{value:.2f}" for value in os.getloadavg())
        if hasattr(os, "getloadavg")
        else "-",
        "python": platform.python_version(),
        "flake8-torchdevice": f"{version(OUR_DISTRIBUTION)} ({commit or 'no git'})",
        "libcst": version("libcst"),
        "flake8": f"{version('flake8')} (pycodestyle {version('pycodestyle')}, pyflakes {version('pyflakes')})",
        "torch (corpus)": version("torch"),
        "TorchFix": version(TORCHFIX_DISTRIBUTION),
    }


def _fmt(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def report(
    measurements: list[Measurement],
    jobs: int | None,
    files: list[SourceFile],
    runs: int,
    info: dict[str, Any],
    phases: dict[str, Any] | None,
    stdin: dict[str, float] | None,
    typical: SourceFile | None,
) -> tuple[str, dict[str, Any]]:
    by_key = {measurement.key: measurement for measurement in measurements}
    out: list[str] = [f"- **{key}**: {value}" for key, value in info.items()]
    summary: dict[str, Any] = {"machine": info}
    parsed_ids = [index for index, item in enumerate(files) if item.relevant]
    skipped_ids = [index for index, item in enumerate(files) if not item.relevant]
    per_corpus: dict[str, list[int]] = {}
    for item in files:
        entry = per_corpus.setdefault(item.corpus, [0, 0, 0])
        entry[0], entry[1], entry[2] = entry[0] + 1, entry[1] + item.lines, entry[2] + item.relevant
    out.append(
        "- **files**: "
        + "; ".join(
            f"{name} {n:,} files, {lines:,} lines ({relevant:,} files parsed)"
            for name, (n, lines, relevant) in per_corpus.items()
        )
    )
    out.append(f"- **runs**: {runs} (wall and CPU are medians over the runs; peak RSS is the maximum)")
    cores = os.cpu_count() or 1
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else 0.0
    if load > 0.5:
        out.append(
            f"- **note**: the machine was busy (1-minute load {load:.1f} on {cores} cores): wall times and "
            "the parallel speed-up are pessimistic; CPU seconds are the steadier figure"
        )
    out.append("")

    def per_file(key: str, column: str) -> list[float] | None:
        measurement = by_key.get(key)
        if measurement is None:
            return None
        columns = [sample.detail[column] for sample in measurement.samples]
        return [statistics.median(values) for values in zip(*columns)]

    header = [
        "Measurement",
        "Files",
        "Lines",
        "Wall s",
        "CPU s",
        "Lines/s (wall)",
        "Lines/CPU-s",
        "Peak RSS MiB",
    ]
    rows = [header, ["---"] + ["---:"] * (len(header) - 1)]
    table: dict[str, dict[str, Any]] = {}

    def add_row(
        key: str, label: str, count: int, lines: int, wall: float, cpu: float | None, peak: float | None
    ) -> None:
        table[key] = {
            "label": label,
            "files": count,
            "lines": lines,
            "wall_s": wall,
            "cpu_s": cpu,
            "peak_mib": peak,
        }
        rows.append(
            [
                label,
                f"{count:,}",
                f"{lines:,}",
                _fmt(wall, 3 if wall < 1 else 2),
                _fmt(cpu, 3 if cpu is not None and cpu < 1 else 2),
                f"{lines / wall:,.0f}" if wall else "-",
                f"{lines / cpu:,.0f}" if cpu else "-",
                _fmt(peak, 0),
            ]
        )

    for measurement in measurements:
        add_row(
            measurement.key,
            measurement.label,
            measurement.files,
            measurement.lines,
            measurement.wall(),
            measurement.cpu(),
            measurement.peak_mib(),
        )
        table[measurement.key]["walls"] = [sample.wall for sample in measurement.samples]
    for key, label in (
        ("engine", "(g) engine"),
        ("libcst", "(e) libcst parse"),
        ("libcst_gc_paused", "(e) libcst parse, GC paused,"),
    ):
        times, cpu_times = per_file(key, "times"), per_file(key, "cpu_times")
        if times is None or cpu_times is None:
            continue
        for ids, part in ((parsed_ids, "parsed"), (skipped_ids, "skipped")):
            if part == "skipped" and key != "engine":
                continue
            verb = "passes" if part == "parsed" else "skips"
            add_row(
                f"{key}_{part}",
                f"&nbsp;&nbsp;{label} on the files the pre-filter {verb}",
                len(ids),
                sum(files[index].lines for index in ids),
                sum(times[index] for index in ids),
                sum(cpu_times[index] for index in ids),
                None,
            )
    out.append("\n".join("| " + " | ".join(row) + " |" for row in rows))
    summary["measurements"] = table

    # ---------------------------------------------------------------- the targets
    def get(key: str, column: str = "cpu_s") -> float | None:
        return table[key][column] if key in table else None

    checks: list[tuple[str, str, bool | None]] = []
    plugin_only = _ratio(_minus(get("torchfix"), get("floor")), _minus(get("tdv"), get("floor")))
    checks.append(
        (
            "Throughput ≥ 5× TorchFix (all rules)",
            f"plugin alone (flake8 CPU s minus the floor's): {_x(plugin_only)}; whole `flake8 --select` run: "
            f"CPU {_x(_ratio(get('torchfix'), get('tdv')))}, "
            f"wall {_x(_ratio(get('torchfix', 'wall_s'), get('tdv', 'wall_s')))}; "
            f"`torchdevice check` vs TorchFix: CPU {_x(_ratio(get('torchfix'), get('check')))}, "
            f"wall {_x(_ratio(get('torchfix', 'wall_s'), get('check', 'wall_s')))}",
            None if plugin_only is None else plugin_only >= 5,
        )
    )

    def overhead_over(parse_key: str) -> tuple[float | None, str]:
        cpu = _ratio(_minus(get("engine_parsed"), get(parse_key)), get(parse_key))
        wall = _ratio(_minus(get("engine_parsed", "wall_s"), get(parse_key, "wall_s")), get(parse_key, "wall_s"))
        return cpu, f"CPU {_pct(cpu)} (parse alone {_fmt(get(parse_key))} s; wall {_pct(wall)})"

    bare_overhead, over_bare = overhead_over("libcst_parsed")
    paused_overhead, over_paused = overhead_over("libcst_gc_paused_parsed")
    text = (
        f"(g) vs (e) on the {len(parsed_ids):,} files parsed, engine {_fmt(get('engine_parsed'))} s CPU: "
        f"over the bare parse {over_bare}; over the parse with the cyclic GC paused as the engine runs "
        f"it {over_paused}"
    )
    # The one-pass phase breakdown decides when it ran; without it, the stricter of the two floors.
    overhead = paused_overhead if paused_overhead is not None else bare_overhead
    if phases is not None and "totals" in phases and phases["totals"]["parse"]:
        totals = phases["totals"]
        overhead = (totals["analysis"] + totals["rules"] + totals["positions"]) / totals["parse"]
        text = f"{_pct(overhead)} in one pass (phases: analysis + rules + positions over parse); " + text
    checks.append(
        (
            "Analysis ≤ +50% over bare `libcst.parse_module` (the files we parse)",
            text,
            None if overhead is None else overhead <= 0.5,
        )
    )
    parallel = _ratio(get("check_j1", "wall_s"), get("check", "wall_s"))
    workers = jobs or cores
    engine_wall, engine_cpu = per_file("engine", "times"), per_file("engine", "cpu_times")
    text = (
        f"{_x(parallel)} (`flake8 --select=TDV` -j1 → -j{workers}: "
        f"{_x(_ratio(get('tdv_j1', 'wall_s'), get('tdv', 'wall_s')))})"
    )
    if engine_cpu is not None and sum(engine_cpu) > 0:
        largest_first = ideal_speedup(sorted(engine_cpu)[::-1], 2)
        share = max(engine_cpu) / sum(engine_cpu)
        summary["ideal_speedup_2_workers"] = {"largest_first": largest_first, "share": share}
        text += (
            f"; from the per-file CPU times, 2 workers taking the largest file first (as the command "
            f"does) allow at most {_x(largest_first)}; the largest file is {100 * share:.0f}% of the work"
        )
    checks.append(
        (
            f"`torchdevice check` ≥ 1.7× faster with 2 workers than 1 (wall; {cores} cores here)",
            text,
            None if parallel is None else parallel >= 1.7,
        )
    )
    latency: dict[str, Any] = {}
    parse_cpu = per_file("libcst", "cpu_times")
    if engine_wall is not None and engine_cpu is not None:
        small = [index for index in parsed_ids if files[index].lines <= LATENCY_MAX_LINES]
        paused_parse_cpu = per_file("libcst_gc_paused", "cpu_times")
        for name, values in (
            ("cpu", engine_cpu),
            ("wall", engine_wall),
            ("parse_cpu", parse_cpu),
            ("paused_parse_cpu", paused_parse_cpu),
        ):
            if values is None:
                continue
            chosen = [values[index] for index in small]
            latency[name] = {
                "files": len(chosen),
                "median_ms": 1000 * statistics.median(chosen) if chosen else None,
                "p95_ms": 1000 * percentile(chosen, 0.95),
                "max_ms": 1000 * max(chosen, default=0.0),
            }
        cpu_latency = latency["cpu"]
        text = (
            f"`lint_source` per file, {cpu_latency['files']:,} parsed files ≤ {LATENCY_MAX_LINES:,} lines: "
            f"p95 {_fmt(cpu_latency['p95_ms'], 0)} ms CPU ({_fmt(latency['wall']['p95_ms'], 0)} ms wall), "
            f"median {_fmt(cpu_latency['median_ms'], 0)} ms, max {_fmt(cpu_latency['max_ms'], 0)} ms"
        )
        if "parse_cpu" in latency:
            text += f"; libcst parse alone: p95 {_fmt(latency['parse_cpu']['p95_ms'], 0)} ms"
        if "paused_parse_cpu" in latency:
            text += f" ({_fmt(latency['paused_parse_cpu']['p95_ms'], 0)} ms with the GC paused)"
        if stdin and typical:
            index = files.index(typical)
            latency["stdin"] = {
                "file": typical.path,
                "lines": typical.lines,
                "tdv_ms": 1000 * stdin["tdv"],
                "floor_ms": 1000 * stdin["floor"],
                "lint_source_ms": 1000 * engine_wall[index],
            }
            text += (
                f"; `flake8 --select=TDV -` on a typical file ({typical.lines} lines, "
                f"{Path(typical.path).name}): {1000 * stdin['tdv']:.0f} ms wall, of which "
                f"{1000 * engine_wall[index]:.0f} ms is `lint_source`; flake8's floor on stdin "
                f"{1000 * stdin['floor']:.0f} ms"
            )
            if "tdv_plain" in stdin:
                latency["stdin"]["tdv_plain_ms"] = 1000 * stdin["tdv_plain"]
                plain_ms = 1000 * stdin["tdv_plain"]
                text += f"; on a file without torch {plain_ms:.0f} ms (libcst never imported)"
        checks.append(
            (
                f"Single-file p95 < 100 ms (files ≤ {LATENCY_MAX_LINES:,} lines)",
                text,
                cpu_latency["p95_ms"] < 100 if cpu_latency["files"] else None,
            )
        )
    memory: dict[str, Any] = {}
    if "engine" in by_key:
        details = [sample.detail for sample in by_key["engine"].samples]
        before, largest, after = (
            max(detail.get(key) or 0 for detail in details) / 1024
            for key in ("rss_kib_before", "rss_kib_after_largest", "rss_kib_after_all")
        )
        heaviest = details[0].get("largest") or []
        largest_lines = next((item.lines for item in files if heaviest and item.path == heaviest[0]), 0)
        memory = {
            "before_mib": before,
            "after_largest_mib": largest,
            "after_all_mib": after,
            "largest": heaviest,
        }
        checks.append(
            (
                "Peak memory bounded by the largest file",
                f"(g)'s RSS peak (getrusage): {before:.0f} MiB after imports and reading every source → "
                f"{largest:.0f} MiB after the {len(heaviest)} largest files "
                f"(the largest {largest_lines:,} lines, {Path(heaviest[0] if heaviest else '-').name}) → "
                f"{after:.0f} MiB after all {len(files):,} files",
                after - largest <= max(16.0, 0.1 * (largest - before)),
            )
        )
    checks.append(
        (
            "(info) `flake8 --select=TDV` / flake8's floor `--select=E9`",
            f"CPU {_x(_ratio(get('tdv'), get('floor')))} (-j1 {_x(_ratio(get('tdv_j1'), get('floor_j1')))}); "
            f"wall {_x(_ratio(get('tdv', 'wall_s'), get('floor', 'wall_s')))} "
            f"(-j1 {_x(_ratio(get('tdv_j1', 'wall_s'), get('floor_j1', 'wall_s')))})",
            None,
        )
    )
    out.append("\n| Target | Measured | Met |\n| --- | --- | --- |")
    for target, measured, met in checks:
        out.append(f"| {target} | {measured} | {'-' if met is None else ('yes' if met else '**no**')} |")
    summary["targets"] = [{"target": target, "measured": measured, "met": met} for target, measured, met in checks]
    summary["latency"], summary["memory"] = latency, memory

    if phases is not None:
        out.append(_phase_table(phases, files))
        summary["phases"] = phases
    counts: dict[str, Any] = {
        key: by_key[key].samples[-1].output_lines for key in ("tdv", "tdv_j1", "floor", "torchfix") if key in by_key
    }
    if "engine" in by_key:
        counts["engine findings"] = by_key["engine"].samples[-1].detail.get("findings")
    for key in ("libcst", "libcst_gc_paused", "ast"):
        if key in by_key:
            counts[f"{key} parse errors"] = len(by_key[key].samples[-1].detail.get("errors", []))
    out.append("\nReports (sanity check): " + ", ".join(f"{key} {value}" for key, value in counts.items()))
    for key in ("tdv", "tdv_j1", "torchfix"):
        stray = by_key[key].samples[-1].detail.get("stray_lines", 0) if key in by_key else 0
        if stray:
            out.append(
                f"**{key}: {stray} output lines outside flake8's `path:line:column: CODE message` format** "
                "(a message that spans lines?)"
            )
    summary["output_counts"] = counts
    for key in ("engine", "libcst", "ast"):  # per file, in the order of summary["files"]
        values = per_file(key, "cpu_times")
        if values is not None:
            summary.setdefault("per_file_cpu_s", {})[key] = values
    return "\n".join(out), summary


def _phase_table(phases: dict[str, Any], files: list[SourceFile]) -> str:
    if "error" in phases:
        return f"\nPhase breakdown unavailable: {phases['error']}"
    totals, per_rule = phases["totals"], phases["per_rule"]
    whole = sum(value for key, value in totals.items() if key != "rules") + totals["rules"]
    rows = ["\n| Phase (one pass, in-process) | Seconds | Share |", "| --- | ---: | ---: |"]
    labels = (
        ("prefilter", f"pre-filter (substring search, all {len(files):,} files)"),
        ("parse", f"libcst parse ({phases['parsed']:,} files)"),
        ("analysis", "analysis walk"),
        ("rules", "rules (all " + str(len(per_rule)) + ")"),
        ("positions", "positions of reported nodes"),
    )
    for key, label in labels:
        rows.append(f"| {label} | {totals[key]:.2f} | {100 * totals[key] / whole:.1f}% |")
    for code, seconds in sorted(per_rule.items(), key=lambda item: -item[1]):
        rows.append(f"| &nbsp;&nbsp;{code} | {seconds:.3f} | {100 * seconds / whole:.1f}% |")
    rows.append(f"| total | {whole:.2f} | 100% |")
    return "\n".join(rows)


def _minus(left: float | None, right: float | None) -> float | None:
    return None if left is None or right is None else left - right


def _ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or not denominator or numerator / denominator <= 0:
        return None  # a negative difference is noise: the plugin cost less than the run-to-run spread
    return numerator / denominator


def _x(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}×"


def _pct(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:+.0f}%"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"1 run on about {QUICK_LINES_PER_CORPUS:,} lines per corpus (under two minutes)",
    )
    parser.add_argument("--runs", type=int, help="runs of every measurement (default 3; --quick: 1)")
    parser.add_argument("--max-lines", type=int, help="per corpus, a fixed random sample of about this many lines")
    parser.add_argument(
        "--corpora", default=",".join(ALL_CORPORA), help=f"comma-separated (default {','.join(ALL_CORPORA)})"
    )
    parser.add_argument("--dest", type=Path, default=corpora.DEFAULT_DEST, help="corpora cache directory")
    parser.add_argument(
        "--skip",
        default="",
        help="comma-separated measurement keys to leave out "
        "(tdv_j1, tdv, floor_j1, floor, check_j1, check, torchfix, libcst, ast, engine, phases, stdin)",
    )
    parser.add_argument(
        "--jobs", type=int, help="workers of the parallel runs (default: each tool's own default, all cores)"
    )
    parser.add_argument("--no-install", action="store_true", help="do not pip-install TorchFix when missing")
    parser.add_argument("--json", type=Path, help="also write every figure to this JSON file")
    parser.add_argument("--worker", nargs=3, metavar=("KIND", "LIST", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.worker:
        worker(args.worker[0], Path(args.worker[1]), Path(args.worker[2]))
        return 0
    names = [name for name in args.corpora.split(",") if name]
    unknown = sorted(set(names) - set(ALL_CORPORA))
    if unknown:
        parser.error(f"unknown corpus {', '.join(unknown)}; choose from {', '.join(ALL_CORPORA)}")
    runs = args.runs or (1 if args.quick else 3)
    max_lines = args.max_lines or (QUICK_LINES_PER_CORPUS if args.quick else None)
    skip = {key for key in args.skip.split(",") if key}

    started = time.perf_counter()
    info = machine()
    files = describe(collect(names, args.dest), max_lines)
    if not files:
        print("no files to measure", file=sys.stderr)
        return 2
    scope = "every file" if max_lines is None else f"a fixed sample of about {max_lines:,} lines per corpus"
    lines = sum(item.lines for item in files)
    print(f"measuring {len(files):,} files, {lines:,} lines ({scope}), {runs} run(s)")
    torchfix, torchfix_note = torchfix_path(not args.no_install) if "torchfix" not in skip else (None, "skipped")
    info["TorchFix"] = torchfix_note if torchfix is None else f"{TORCHFIX.split('==')[1]} ({torchfix_note})"
    check = torchdevice_command()
    if check is None:
        print("(c) torchdevice check: not available (python -m flake8_torchdevice check does not run): skipped")
        info["torchdevice check"] = "not available"
    with tempfile.TemporaryDirectory(prefix="torchdevice-bench-") as cwd:
        list_file = Path(cwd) / "files.txt"
        list_file.write_text("\n".join(item.path for item in files) + "\n")
        measurements = plan(files, list_file, torchfix, check, skip, args.jobs)
        for run in range(runs):
            for measurement in measurements:
                print(f"[run {run + 1}/{runs}] {measurement.label} ...", end=" ", file=sys.stderr, flush=True)
                measurement.samples.append(sample(measurement, cwd))
                print(f"{measurement.samples[-1].wall:.1f} s", file=sys.stderr, flush=True)
        phases = None
        if "phases" not in skip:
            print("[once] phase breakdown ...", end=" ", file=sys.stderr, flush=True)
            out_file = Path(cwd) / "phases.json"
            try:
                run_timed(
                    [
                        sys.executable,
                        str(Path(__file__).resolve()),
                        "--worker",
                        "phases",
                        str(list_file),
                        str(out_file),
                    ],
                    _environment(),
                    cwd,
                )
                phases = json.loads(out_file.read_text())
            except (RuntimeError, OSError, ValueError) as error:
                phases = {"error": str(error).splitlines()[-1]}
            print("done", file=sys.stderr, flush=True)
        stdin, typical = None, None
        candidates = sorted(
            (item for item in files if item.relevant and item.lines <= LATENCY_MAX_LINES),
            key=lambda item: item.lines,
        )
        if "stdin" not in skip and candidates:
            typical = candidates[len(candidates) // 2]
            plain = next((item for item in files if not item.relevant and item.lines >= 50), None)
            print("[once] flake8 stdin latency ...", end=" ", file=sys.stderr, flush=True)
            stdin = stdin_latency(typical, plain, cwd, 3 if args.quick else STDIN_REPEATS)
            print("done", file=sys.stderr, flush=True)
    info["load average at end"] = (
        " ".join(f"{value:.2f}" for value in os.getloadavg()) if hasattr(os, "getloadavg") else "-"
    )
    info["benchmark wall time"] = f"{time.perf_counter() - started:.0f} s"
    text, summary = report(measurements, args.jobs, files, runs, info, phases, stdin, typical)
    print()
    print(text)
    if args.json:
        summary["files"] = [asdict(item) for item in files]
        args.json.write_text(json.dumps(summary, indent=1) + "\n")
        print(f"\nfigures written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
