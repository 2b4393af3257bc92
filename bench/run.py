"""Speed benchmark: flake8-torchdevice against TorchFix, flake8's own floor and bare parsers.

Lints the same files with every tool, in one run, and prints a Markdown table of wall and
CPU seconds, lines per second, peak memory and the ratios the project's targets are stated in.

    python bench/run.py                  # every file of every corpus, 3 runs, medians
    python bench/run.py --quick          # 1 run on a fixed sample (about 4,000 lines per corpus)
    python bench/run.py --max-lines 40000 --runs 3 --json bench.json

Measurements, each on the same files:
  (a) flake8 --select=TDV        flake8 + pyflakes + pycodestyle + our plugin, -j1 and flake8's default
  (b) flake8 --select=E9         flake8's floor: flake8 + pyflakes + pycodestyle, no extension
  (c) torchdevice check          our command (all rules, JSON output), --jobs 1 and its default, without
                                 its result cache; and --jobs 1 with the cache cold, warm, and warm with
                                 one file edited (key ``cache``)
  (d) flake8 --select=TOR        flake8 + pyflakes + pycodestyle + TorchFix 0.7.0, flake8's default -j
  (e) libcst.parse_module loop   in-process, one file after the other; again as the engine parses
                                 (GC paused, common nodes built faster: the floor for its overhead)
  (f) ast.parse loop             in-process
  (g) engine.lint_source loop    in-process, one worker; time split between the files the
                                 pre-filter skips and the files parsed
  (h) phase breakdown            one pass, timed by the engine itself per stage: parse, analysis,
                                 each rule, positions
flake8 runs through ``bench/flake8_only.py``, which hides the other installed flake8 extensions:
flake8 runs every installed plugin whatever ``--select`` says, so without it the TorchFix timing
would include ours and the reverse.

The parts: ``corpus`` (which files), ``measure`` (what runs, timed from outside), ``workers``
(the in-process loops), ``tools`` (versions, TorchFix), ``figures`` (medians per measurement),
``targets`` (each target judged) and ``report`` (Markdown and JSON).
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

# Run as a script (python bench/run.py), this folder is on sys.path, not the repository root.
sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench import measure, report, targets, tools
from bench.corpus import ALL_CORPORA, AVAILABLE_CORPORA, DEFAULT_DEST, SourceFile, collect, describe
from bench.figures import figures
from bench.workers import worker

QUICK_LINES_PER_CORPUS = 4_000
STDIN_REPEATS = 5
MEASUREMENT_KEYS = "tdv_j1, tdv, floor_j1, floor, check_j1, check, cache, torchfix, libcst, ast, engine, phases, stdin"


def arguments(argv: Sequence[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(
        description=(__doc__ or "").split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument(
        "--quick",
        action="store_true",
        help=f"1 run on about {QUICK_LINES_PER_CORPUS:,} lines per corpus (under two minutes)",
    )
    parser.add_argument("--runs", type=int, help="runs of every measurement (default 3; --quick: 1)")
    parser.add_argument("--max-lines", type=int, help="per corpus, a fixed random sample of about this many lines")
    parser.add_argument(
        "--corpora",
        default=",".join(ALL_CORPORA),
        help=f"comma-separated (default {','.join(ALL_CORPORA)}; any corpus of scripts/corpora.py, e.g. avalanche)",
    )
    parser.add_argument("--dest", type=Path, default=DEFAULT_DEST, help="corpora cache directory")
    parser.add_argument(
        "--skip", default="", help=f"comma-separated measurement keys to leave out ({MEASUREMENT_KEYS})"
    )
    parser.add_argument(
        "--jobs", type=int, help="workers of the parallel runs (default: each tool's own default, all cores)"
    )
    parser.add_argument("--no-install", action="store_true", help="do not pip-install TorchFix when missing")
    parser.add_argument("--json", type=Path, help="also write every figure to this JSON file")
    parser.add_argument("--worker", nargs=3, metavar=("KIND", "LIST", "OUT"), help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    unknown = sorted(set(args.corpora.split(",")) - set(AVAILABLE_CORPORA) - {""})
    if unknown:
        parser.error(f"unknown corpus {', '.join(unknown)}; choose from {', '.join(AVAILABLE_CORPORA)}")
    return args


def progress(text: str, end: str = "\n") -> None:
    print(text, end=end, file=sys.stderr, flush=True)


def typical_files(files: list[SourceFile]) -> tuple[SourceFile | None, SourceFile | None]:
    """For the stdin latency: the median-sized torch file an editor would lint, and a file without torch."""
    candidates = sorted(
        (item for item in files if item.relevant and item.lines <= targets.LATENCY_MAX_LINES),
        key=lambda item: item.lines,
    )
    typical = candidates[len(candidates) // 2] if candidates else None
    plain = next((item for item in files if not item.relevant and item.lines >= 50), None)
    return typical, plain


def main(argv: Sequence[str] | None = None) -> int:
    args = arguments(argv)
    if args.worker:
        worker(args.worker[0], Path(args.worker[1]), Path(args.worker[2]))
        return 0
    runs = args.runs or (1 if args.quick else 3)
    max_lines = args.max_lines or (QUICK_LINES_PER_CORPUS if args.quick else None)
    skip = {key for key in args.skip.split(",") if key}

    started = time.perf_counter()
    info = tools.machine()
    files = describe(collect([name for name in args.corpora.split(",") if name], args.dest), max_lines)
    if not files:
        print("no files to measure", file=sys.stderr)
        return 2
    scope = "every file" if max_lines is None else f"a fixed sample of about {max_lines:,} lines per corpus"
    print(f"measuring {len(files):,} files, {sum(item.lines for item in files):,} lines ({scope}), {runs} run(s)")
    torchfix, torchfix_note = tools.torchfix_path(not args.no_install) if "torchfix" not in skip else (None, "skipped")
    info["TorchFix"] = torchfix_note if torchfix is None else f"{tools.TORCHFIX.split('==')[1]} ({torchfix_note})"
    check = tools.torchdevice_command()
    if check is None:
        print("(c) torchdevice check: not available (python -m flake8_torchdevice check does not run): skipped")
        info["torchdevice check"] = "not available"
    phases: dict[str, Any] | None = None
    stdin: dict[str, float] | None = None
    typical, plain = typical_files(files)
    with tempfile.TemporaryDirectory(prefix="torchdevice-bench-") as cwd:
        list_file = Path(cwd) / "files.txt"
        list_file.write_text("\n".join(item.path for item in files) + "\n")
        measurements = measure.plan(files, list_file, torchfix, check, skip, args.jobs)
        if check is not None and typical is not None and "cache" not in skip:
            measurements += measure.cache_plan(files, check, typical, cwd)
        for run in range(runs):
            for measurement in measurements:
                progress(f"[run {run + 1}/{runs}] {measurement.label} ...", end=" ")
                measurement.samples.append(measure.sample(measurement, cwd))
                progress(f"{measurement.samples[-1].wall:.1f} s")
        if "phases" not in skip:
            progress("[once] phase breakdown ...", end=" ")
            phases = measure.phases(list_file, cwd)
            progress("done")
        if "stdin" not in skip and typical is not None:
            progress("[once] flake8 stdin latency ...", end=" ")
            stdin = measure.stdin_latency(typical, plain, cwd, 3 if args.quick else STDIN_REPEATS)
            progress("done")
    info["load average at end"] = tools.load_average()
    info["benchmark wall time"] = f"{time.perf_counter() - started:.0f} s"

    measured = figures(measurements, files)
    latency = targets.latencies(measured)
    if stdin is not None and typical is not None and "engine" in measured.measurements:
        latency["stdin"] = targets.stdin_figures(measured, stdin, typical)
    peaks = targets.memory(measured)
    judged = targets.evaluate(measured, args.jobs, phases, latency, peaks)
    print()
    print(report.markdown(info, measured, runs, judged, phases))
    if args.json:
        extras = {"latency": latency, "memory": peaks, "ideal_speedup_2_workers": targets.largest_first_bound(measured)}
        args.json.write_text(json.dumps(report.summary(info, measured, judged, extras, phases), indent=1) + "\n")
        print(f"\nfigures written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
