"""The Markdown the benchmark prints, and the JSON summary it writes with ``--json``."""

from __future__ import annotations

import os
from dataclasses import asdict
from typing import Any

from .corpus import SourceFile
from .figures import Figures, number
from .targets import Target

_HEADER = ["Measurement", "Files", "Lines", "Wall s", "CPU s", "Lines/s (wall)", "Lines/CPU-s", "Peak RSS MiB"]
# The subprocess runs whose output is counted as a sanity check, and the loops whose parse errors are.
_COUNTED_RUNS = ("tdv", "tdv_j1", "floor", "torchfix")
_PARSE_LOOPS = ("libcst", "libcst_as_engine", "ast")


def preamble(info: dict[str, str], files: list[SourceFile], runs: int) -> list[str]:
    """The machine, the versions, the files and how busy the machine was."""
    out = [f"- **{key}**: {value}" for key, value in info.items()]
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
    return out


def measurement_table(figures: Figures) -> str:
    rows = [_HEADER, ["---"] + ["---:"] * (len(_HEADER) - 1)]
    for row in figures.rows.values():
        wall, cpu, lines = row["wall_s"], row["cpu_s"], row["lines"]
        rows.append(
            [
                row["label"],
                f"{row['files']:,}",
                f"{lines:,}",
                number(wall, 3 if wall < 1 else 2),
                number(cpu, 3 if cpu is not None and cpu < 1 else 2),
                f"{lines / wall:,.0f}" if wall else "-",
                f"{lines / cpu:,.0f}" if cpu else "-",
                number(row["peak_mib"], 0),
            ]
        )
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)


def target_table(targets: list[Target]) -> str:
    rows = ["| Target | Measured | Met |", "| --- | --- | --- |"]
    for target in targets:
        met = "-" if target.met is None else ("yes" if target.met else "**no**")
        rows.append(f"| {target.target} | {target.measured} | {met} |")
    return "\n".join(rows)


def phase_table(phases: dict[str, Any], files: list[SourceFile]) -> str:
    if "error" in phases:
        return f"Phase breakdown unavailable: {phases['error']}"
    totals, per_rule = phases["totals"], phases["per_rule"]
    whole = sum(totals.values())
    rows = ["| Phase (one pass, in-process) | Seconds | Share |", "| --- | ---: | ---: |"]
    labels = (
        ("prefilter", f"pre-filter (substring search, all {len(files):,} files)"),
        ("parse", f"libcst parse ({phases['parsed']:,} files)"),
        ("analysis", "analysis walk"),
        ("rules", f"rules (all {len(per_rule)})"),
        ("positions", "positions of reported nodes"),
        ("other", "the engine outside these stages: depth checks, freeing the analysis, bookkeeping"),
    )
    for key, label in labels:
        rows.append(f"| {label} | {totals[key]:.2f} | {100 * totals[key] / whole:.1f}% |")
    for code, seconds in sorted(per_rule.items(), key=lambda item: -item[1]):
        rows.append(f"| &nbsp;&nbsp;{code} | {seconds:.3f} | {100 * seconds / whole:.1f}% |")
    rows.append(f"| total | {whole:.2f} | 100% |")
    return "\n".join(rows)


def output_counts(figures: Figures) -> dict[str, Any]:
    """How many findings or errors each tool reported on the last run: equal counts are a sanity check."""
    measurements = figures.measurements
    counts: dict[str, Any] = {
        key: measurements[key].samples[-1].output_lines for key in _COUNTED_RUNS if key in measurements
    }
    if "engine" in measurements:
        counts["engine findings"] = measurements["engine"].samples[-1].detail.get("findings")
    for key in _PARSE_LOOPS:
        if key in measurements:
            counts[f"{key} parse errors"] = len(measurements[key].samples[-1].detail.get("errors", []))
    return counts


def stray_output(figures: Figures) -> list[str]:
    lines = []
    for key in ("tdv", "tdv_j1", "torchfix"):
        measurement = figures.measurements.get(key)
        stray = measurement.samples[-1].detail.get("stray_lines", 0) if measurement else 0
        if stray:
            lines.append(
                f"**{key}: {stray} output lines outside flake8's `path:line:column: CODE message` format** "
                "(a message that spans lines?)"
            )
    return lines


def markdown(
    info: dict[str, str],
    figures: Figures,
    runs: int,
    targets: list[Target],
    phases: dict[str, Any] | None,
) -> str:
    parts = ["\n".join(preamble(info, figures.files, runs)), measurement_table(figures), target_table(targets)]
    if phases is not None:
        parts.append(phase_table(phases, figures.files))
    counts = ", ".join(f"{key} {value}" for key, value in output_counts(figures).items())
    parts.append("\n".join([f"Reports (sanity check): {counts}", *stray_output(figures)]))
    return "\n\n".join(parts)


def summary(
    info: dict[str, str],
    figures: Figures,
    targets: list[Target],
    extras: dict[str, Any],
    phases: dict[str, Any] | None,
) -> dict[str, Any]:
    """Every figure, for ``--json``; ``extras`` holds the latency, memory and speed-up details."""
    result: dict[str, Any] = {"machine": info, "measurements": figures.rows, **extras}
    result["targets"] = [{"target": t.target, "measured": t.measured, "met": t.met} for t in targets]
    if phases is not None:
        result["phases"] = phases
    result["output_counts"] = output_counts(figures)
    for key in ("engine", "libcst", "ast"):  # per file, in the order of result["files"]
        values = figures.per_file(key, "cpu_times")
        if values is not None:
            result.setdefault("per_file_cpu_s", {})[key] = values
    result["files"] = [asdict(item) for item in figures.files]
    return result
