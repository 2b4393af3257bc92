"""The in-process measurements, each run in a subprocess of its own (``run.py --worker KIND``).

Each worker reads the files first, then times only the calls, one file after the other, and
writes what it measured as JSON for the parent to read.

    ast                ast.parse per file
    libcst             libcst.parse_module per file
    libcst_as_engine   the parse as the engine runs it (GC paused, common nodes built faster): the fair floor
    engine             engine.lint_source per file, the largest files first (for the memory bound)
    phases             engine.check_source with stage timings: where the engine's time goes
"""

from __future__ import annotations

import ast
import gc
import json
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from .corpus import read_source

try:
    import resource
except ImportError:  # Windows: no peak-memory figures
    resource = None  # type: ignore[assignment]

# The memory bound: the RSS peak after this many of the largest files is what the peak after all
# files must stay within. Several, because the most memory-hungry tree is not always the longest text.
HEAVIEST_FILES = 10
_WARM_UP = "import torch\nx = torch.zeros(3).to('cuda')\nx.numpy()\n"


def peak_kib(maxrss: int) -> int:
    return maxrss // 1024 if sys.platform == "darwin" else maxrss  # macOS counts bytes


def _maxrss_kib() -> int | None:
    return peak_kib(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss) if resource else None


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


def _parse_loop(sources: list[str], parse: Callable[[str], Any], gc_paused: bool = False) -> dict[str, Any]:
    parse("x = 1\n")  # warm up: the first call pays for lazy imports
    if gc_paused:
        gc.disable()
    return _timed_loop(parse, sources, range(len(sources)))


def _engine_loop(sources: list[str], paths: list[Path]) -> dict[str, Any]:
    from flake8_torchdevice import engine
    from flake8_torchdevice.prefilter import could_have_findings

    engine.lint_source(_WARM_UP)
    relevant = [index for index, source in enumerate(sources) if could_have_findings(source)]
    heaviest = sorted(relevant, key=lambda index: -len(sources[index]))[:HEAVIEST_FILES]
    first = set(heaviest)
    order = [*heaviest, *(index for index in range(len(sources)) if index not in first)]
    findings: list[int] = []
    result: dict[str, Any] = {"rss_kib_before": _maxrss_kib()}

    def lint(source: str) -> None:
        findings.append(len(engine.lint_source(source)))

    def after_largest() -> None:
        result["rss_kib_after_largest"] = _maxrss_kib()

    result.update(_timed_loop(lint, sources, order, after_largest, max(1, len(heaviest))))
    result["rss_kib_after_all"] = _maxrss_kib()
    result["largest"] = [str(paths[index]) for index in heaviest]
    result["findings"] = sum(findings)
    return result


def _phases(sources: list[str]) -> dict[str, Any]:
    """CPU seconds per engine stage, from the engine's own stage timings, over one pass."""
    from flake8_torchdevice import engine
    from flake8_torchdevice.prefilter import could_have_findings
    from flake8_torchdevice.rules import ALL_RULES
    from flake8_torchdevice.timings import ANALYSE, PARSE, POSITIONS, StageTimings

    engine.lint_source(_WARM_UP)
    timings = StageTimings()
    clock = time.process_time
    prefilter = checking = 0.0
    parsed = failed = reported = 0
    for source in sources:
        start = clock()
        relevant = could_have_findings(source)
        prefilter += clock() - start
        if not relevant:
            continue
        start = clock()
        checked = engine.check_source(source, timings=timings)
        checking += clock() - start
        if any(diagnostic.code == "TDV900" for diagnostic in checked.diagnostics):
            failed += 1
        else:
            parsed += 1
            reported += len(checked.diagnostics)
        del checked  # freeing this file's tree is not the next file's work: outside the clock
    seconds = timings.seconds
    per_rule = {rule.code: seconds[rule.code] for rule in ALL_RULES}
    totals = {
        "prefilter": prefilter,
        "parse": seconds[PARSE],
        "analysis": seconds[ANALYSE],
        "rules": sum(per_rule.values()),
        "positions": seconds[POSITIONS],
    }
    # What check_source spent outside its stages: the depth checks before the parse, freeing the
    # analysis when the rules are done, bookkeeping.
    totals["other"] = max(0.0, checking - sum(value for key, value in totals.items() if key != "prefilter"))
    return {"totals": totals, "per_rule": per_rule, "parsed": parsed, "failed": failed, "findings": reported}


def worker(kind: str, list_file: Path, out_file: Path) -> None:
    paths = [Path(line) for line in list_file.read_text().splitlines() if line]
    sources = [read_source(path) for path in paths]
    if kind == "ast":
        result = _parse_loop(sources, ast.parse)
    elif kind == "libcst":
        import libcst

        result = _parse_loop(sources, libcst.parse_module)
    elif kind == "libcst_as_engine":
        from flake8_torchdevice.parsing import parse_module

        result = _parse_loop(sources, parse_module, gc_paused=True)
    elif kind == "engine":
        result = _engine_loop(sources, paths)
    elif kind == "phases":
        result = _phases(sources)
    else:
        raise SystemExit(f"unknown worker {kind}")
    out_file.write_text(json.dumps(result))
