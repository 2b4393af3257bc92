"""The project's speed targets, each judged from the figures: what was measured, and whether it was met."""

from __future__ import annotations

import os
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .corpus import SourceFile
from .figures import Figures, change, minus, number, percent, ratio, times

LATENCY_MAX_LINES = 2_000  # the single-file target is about files an editor lints as you type


@dataclass(frozen=True)
class Target:
    target: str
    measured: str
    met: bool | None  # None: for information, or not measured


def throughput(figures: Figures) -> Target:
    get = figures.get
    plugin_only = ratio(minus(get("torchfix"), get("floor")), minus(get("tdv"), get("floor")))
    return Target(
        "Throughput ≥ 5× TorchFix (all rules)",
        f"plugin alone (flake8 CPU s minus the floor's): {times(plugin_only)}; whole `flake8 --select` run: "
        f"CPU {times(ratio(get('torchfix'), get('tdv')))}, "
        f"wall {times(ratio(get('torchfix', 'wall_s'), get('tdv', 'wall_s')))}; "
        f"`torchdevice check` vs TorchFix: CPU {times(ratio(get('torchfix'), get('check')))}, "
        f"wall {times(ratio(get('torchfix', 'wall_s'), get('check', 'wall_s')))}",
        None if plugin_only is None else plugin_only >= 5,
    )


def _overhead_over(figures: Figures, parse_key: str) -> tuple[float | None, str]:
    get = figures.get
    # Negative when the engine, whose own parse is faster, beats the bare parse: not noise to hide.
    cpu = change(get("engine_parsed"), get(parse_key))
    wall = change(get("engine_parsed", "wall_s"), get(parse_key, "wall_s"))
    return cpu, f"CPU {percent(cpu)} (parse alone {number(get(parse_key))} s; wall {percent(wall)})"


def analysis_overhead(figures: Figures, phases: dict[str, Any] | None) -> Target:
    bare_overhead, over_bare = _overhead_over(figures, "libcst_parsed")
    paused_overhead, over_paused = _overhead_over(figures, "libcst_as_engine_parsed")
    text = (
        f"(g) vs (e) on the {len(figures.parsed_ids):,} files parsed, engine {number(figures.get('engine_parsed'))} "
        f"s CPU: over the bare parse {over_bare}; over the parse as the engine runs it "
        f"(GC paused, common nodes built faster) {over_paused}"
    )
    # The one-pass phase breakdown decides when it ran; without it, the stricter of the two floors.
    overhead = paused_overhead if paused_overhead is not None else bare_overhead
    if phases is not None and "totals" in phases and phases["totals"]["parse"]:
        totals = phases["totals"]
        overhead = (totals["analysis"] + totals["rules"] + totals["positions"]) / totals["parse"]
        text = f"{percent(overhead)} in one pass (phases: analysis + rules + positions over parse); " + text
    return Target(
        "Analysis ≤ +50% over bare `libcst.parse_module` (the files we parse)",
        text,
        None if overhead is None else overhead <= 0.5,
    )


def ideal_speedup(costs: Sequence[float], workers: int) -> float:
    """Serial time over the makespan when files go, in order, to whichever worker is free first."""
    finish = [0.0] * workers
    for cost in costs:
        finish[finish.index(min(finish))] += cost
    return sum(costs) / max(finish) if max(finish) else 1.0


def largest_first_bound(figures: Figures) -> dict[str, float] | None:
    """The best speed-up two workers can reach taking the largest file first, and that file's share."""
    engine_cpu = figures.per_file("engine", "cpu_times")
    if engine_cpu is None or sum(engine_cpu) <= 0:
        return None
    return {"largest_first": ideal_speedup(sorted(engine_cpu)[::-1], 2), "share": max(engine_cpu) / sum(engine_cpu)}


def parallel_speedup(figures: Figures, jobs: int | None) -> Target:
    get = figures.get
    cores = os.cpu_count() or 1
    parallel = ratio(get("check_j1", "wall_s"), get("check", "wall_s"))
    text = (
        f"{times(parallel)} (`flake8 --select=TDV` -j1 → -j{jobs or cores}: "
        f"{times(ratio(get('tdv_j1', 'wall_s'), get('tdv', 'wall_s')))})"
    )
    bound = largest_first_bound(figures)
    if bound is not None:
        text += (
            f"; from the per-file CPU times, 2 workers taking the largest file first (as the command "
            f"does) allow at most {times(bound['largest_first'])}; the largest file is "
            f"{100 * bound['share']:.0f}% of the work"
        )
    return Target(
        f"`torchdevice check` ≥ 1.7× faster with 2 workers than 1 (wall; {cores} cores here)",
        text,
        None if parallel is None else parallel >= 1.7,
    )


def percentile(values: Sequence[float], fraction: float) -> float:
    ordered = sorted(values)
    if not ordered:
        return float("nan")
    position = min(len(ordered) - 1, max(0, round(fraction * (len(ordered) - 1))))
    return ordered[position]


def latencies(figures: Figures) -> dict[str, dict[str, Any]]:
    """Per-file times of the engine and the parse loops on the files an editor would lint."""
    small = [index for index in figures.parsed_ids if figures.files[index].lines <= LATENCY_MAX_LINES]
    result = {}
    for name, key, column in (
        ("cpu", "engine", "cpu_times"),
        ("wall", "engine", "times"),
        ("parse_cpu", "libcst", "cpu_times"),
        ("engine_parse_cpu", "libcst_as_engine", "cpu_times"),
    ):
        values = figures.per_file(key, column)
        if values is None:
            continue
        chosen = [values[index] for index in small]
        result[name] = {
            "files": len(chosen),
            "median_ms": 1000 * statistics.median(chosen) if chosen else None,
            "p95_ms": 1000 * percentile(chosen, 0.95),
            "max_ms": 1000 * max(chosen, default=0.0),
        }
    return result


def stdin_figures(figures: Figures, stdin: dict[str, float], typical: SourceFile) -> dict[str, Any]:
    engine_wall = figures.per_file("engine", "times") or []
    result = {
        "file": typical.path,
        "lines": typical.lines,
        "tdv_ms": 1000 * stdin["tdv"],
        "floor_ms": 1000 * stdin["floor"],
        "lint_source_ms": 1000 * engine_wall[figures.files.index(typical)],
    }
    if "tdv_plain" in stdin:
        result["tdv_plain_ms"] = 1000 * stdin["tdv_plain"]
    return result


def single_file_latency(latency: dict[str, Any]) -> Target:
    cpu = latency["cpu"]
    text = (
        f"`lint_source` per file, {cpu['files']:,} parsed files ≤ {LATENCY_MAX_LINES:,} lines: "
        f"p95 {number(cpu['p95_ms'], 0)} ms CPU ({number(latency['wall']['p95_ms'], 0)} ms wall), "
        f"median {number(cpu['median_ms'], 0)} ms, max {number(cpu['max_ms'], 0)} ms"
    )
    if "parse_cpu" in latency:
        text += f"; libcst parse alone: p95 {number(latency['parse_cpu']['p95_ms'], 0)} ms"
    if "engine_parse_cpu" in latency:
        text += f" ({number(latency['engine_parse_cpu']['p95_ms'], 0)} ms as the engine runs it)"
    if "stdin" in latency:
        stdin = latency["stdin"]
        text += (
            f"; `flake8 --select=TDV -` on a typical file ({stdin['lines']} lines, "
            f"{Path(stdin['file']).name}): {stdin['tdv_ms']:.0f} ms wall, of which "
            f"{stdin['lint_source_ms']:.0f} ms is `lint_source`; flake8's floor on stdin "
            f"{stdin['floor_ms']:.0f} ms"
        )
        if "tdv_plain_ms" in stdin:
            text += f"; on a file without torch {stdin['tdv_plain_ms']:.0f} ms (libcst never imported)"
    return Target(
        f"Single-file p95 < 100 ms (files ≤ {LATENCY_MAX_LINES:,} lines)",
        text,
        cpu["p95_ms"] < 100 if cpu["files"] else None,
    )


def memory(figures: Figures) -> dict[str, Any]:
    """The engine loop's RSS peak before any file, after the largest files (linted first), after all."""
    if "engine" not in figures.measurements:
        return {}
    details = [sample.detail for sample in figures.measurements["engine"].samples]
    before, largest, after = (
        max(detail.get(key) or 0 for detail in details) / 1024
        for key in ("rss_kib_before", "rss_kib_after_largest", "rss_kib_after_all")
    )
    return {
        "before_mib": before,
        "after_largest_mib": largest,
        "after_all_mib": after,
        "largest": details[0].get("largest") or [],
    }


def memory_bound(figures: Figures, peaks: dict[str, Any]) -> Target:
    before, largest, after, heaviest = (
        peaks[key] for key in ("before_mib", "after_largest_mib", "after_all_mib", "largest")
    )
    largest_lines = next((item.lines for item in figures.files if heaviest and item.path == heaviest[0]), 0)
    return Target(
        "Peak memory bounded by the largest file",
        f"(g)'s RSS peak (getrusage): {before:.0f} MiB after imports and reading every source → "
        f"{largest:.0f} MiB after the {len(heaviest)} largest files "
        f"(the largest {largest_lines:,} lines, {Path(heaviest[0] if heaviest else '-').name}) → "
        f"{after:.0f} MiB after all {len(figures.files):,} files",
        after - largest <= max(16.0, 0.1 * (largest - before)),
    )


def flake8_over_floor(figures: Figures) -> Target:
    get = figures.get
    return Target(
        "(info) `flake8 --select=TDV` / flake8's floor `--select=E9`",
        f"CPU {times(ratio(get('tdv'), get('floor')))} (-j1 {times(ratio(get('tdv_j1'), get('floor_j1')))}); "
        f"wall {times(ratio(get('tdv', 'wall_s'), get('floor', 'wall_s')))} "
        f"(-j1 {times(ratio(get('tdv_j1', 'wall_s'), get('floor_j1', 'wall_s')))})",
        None,
    )


def warm_cache(figures: Figures) -> Target:
    get = figures.get
    share = ratio(get("cache_warm"), get("cache_cold"))
    against_today = ", ".join(
        f"{name} {times(ratio(get(key), get('cache_off')))}"
        for name, key in (("cold", "cache_cold"), ("warm", "cache_warm"), ("one file edited", "cache_edited"))
    )
    return Target(
        "Warm `torchdevice check` (nothing changed) ≤ 5% of a cold one (CPU)",
        f"warm / cold: {_share(share)} ({number(get('cache_warm'))} s / {number(get('cache_cold'))} s CPU, "
        f"start-up alone {number(get('cache_start'))} s); against `check --no-cache`, CPU: {against_today}",
        None if share is None else share <= 0.05,
    )


def edited_file_cost(figures: Figures) -> Target:
    """What one edited file adds to a warm run, against linting that file alone, start-up included:
    a warm run imports neither libcst nor the analysis, and the edited file brings both back, as
    a run on that file alone loads them (``cache_start`` shows how much of that is start-up)."""
    get = figures.get
    added = minus(get("cache_edited"), get("cache_warm"))
    alone = get("cache_one_file")
    return Target(
        "One edited file costs about that file (within 50%, and 50 ms of noise, CPU)",
        f"edited − warm: {number(added, 3)} s CPU; the file alone: {number(alone, 3)} s CPU "
        f"(`check --no-cache` on it, start-up included: {number(get('cache_start'), 3)} s of it for a two-line file)",
        None if added is None or alone is None else added <= 1.5 * alone + 0.05,
    )


def _share(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:.1f}%"


def evaluate(
    figures: Figures, jobs: int | None, phases: dict[str, Any] | None, latency: dict[str, Any], peaks: dict[str, Any]
) -> list[Target]:
    targets = [throughput(figures), analysis_overhead(figures, phases), parallel_speedup(figures, jobs)]
    if "cache_warm" in figures.measurements:
        targets += [warm_cache(figures), edited_file_cost(figures)]
    if "cpu" in latency and "wall" in latency:
        targets.append(single_file_latency(latency))
    if peaks:
        targets.append(memory_bound(figures, peaks))
    targets.append(flake8_over_floor(figures))
    return targets
