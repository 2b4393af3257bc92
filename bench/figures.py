"""The figures every table and target reads: one row per measurement (medians over the runs),
and, from the in-process loops, rows for the files the pre-filter passes and those it skips."""

from __future__ import annotations

import statistics
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from .corpus import SourceFile
from .measure import Measurement

# The in-process loops whose per-file times are split by what the pre-filter does with each file.
_SPLIT_LOOPS = (
    ("engine", "(g) engine", ("parsed", "skipped")),
    ("libcst", "(e) libcst parse", ("parsed",)),
    ("libcst_as_engine", "(e) libcst parse as the engine runs it,", ("parsed",)),
)


@dataclass
class Figures:
    measurements: dict[str, Measurement]
    files: list[SourceFile]
    # key -> {"label", "files", "lines", "wall_s", "cpu_s", "peak_mib"}, in the order of the table.
    rows: dict[str, dict[str, Any]] = field(default_factory=dict)

    @property
    def parsed_ids(self) -> list[int]:
        return [index for index, item in enumerate(self.files) if item.relevant]

    @property
    def skipped_ids(self) -> list[int]:
        return [index for index, item in enumerate(self.files) if not item.relevant]

    def get(self, key: str, column: str = "cpu_s") -> float | None:
        return self.rows[key][column] if key in self.rows else None

    def per_file(self, key: str, column: str) -> list[float] | None:
        """An in-process loop's time for each file (the median over the runs), in the order of ``files``."""
        measurement = self.measurements.get(key)
        if measurement is None:
            return None
        columns = [sample.detail[column] for sample in measurement.samples]
        return [statistics.median(values) for values in zip(*columns)]

    def add_row(
        self, key: str, label: str, count: int, lines: int, wall: float, cpu: float | None, peak: float | None
    ) -> None:
        self.rows[key] = {
            "label": label,
            "files": count,
            "lines": lines,
            "wall_s": wall,
            "cpu_s": cpu,
            "peak_mib": peak,
        }


def figures(measurements: Sequence[Measurement], files: list[SourceFile]) -> Figures:
    result = Figures({measurement.key: measurement for measurement in measurements}, files)
    for measurement in measurements:
        result.add_row(
            measurement.key,
            measurement.label,
            measurement.files,
            measurement.lines,
            measurement.wall(),
            measurement.cpu(),
            measurement.peak_mib(),
        )
        result.rows[measurement.key]["walls"] = [sample.wall for sample in measurement.samples]
    for key, label, parts in _SPLIT_LOOPS:
        times, cpu_times = result.per_file(key, "times"), result.per_file(key, "cpu_times")
        if times is None or cpu_times is None:
            continue
        for part in parts:
            ids = result.parsed_ids if part == "parsed" else result.skipped_ids
            verb = "passes" if part == "parsed" else "skips"
            result.add_row(
                f"{key}_{part}",
                f"&nbsp;&nbsp;{label} on the files the pre-filter {verb}",
                len(ids),
                sum(files[index].lines for index in ids),
                sum(times[index] for index in ids),
                sum(cpu_times[index] for index in ids),
                None,
            )
    return result


def minus(left: float | None, right: float | None) -> float | None:
    return None if left is None or right is None else left - right


def change(value: float | None, base: float | None) -> float | None:
    """``value`` relative to ``base``: +0.25 for a quarter more, negative when it is less."""
    return None if value is None or not base else (value - base) / base


def ratio(numerator: float | None, denominator: float | None) -> float | None:
    if numerator is None or not denominator or numerator / denominator <= 0:
        return None  # a negative difference is noise: the plugin cost less than the run-to-run spread
    return numerator / denominator


def number(value: float | None, digits: int = 2) -> str:
    return "-" if value is None else f"{value:,.{digits}f}"


def times(value: float | None) -> str:
    return "-" if value is None else f"{value:.2f}×"


def percent(value: float | None) -> str:
    return "-" if value is None else f"{100 * value:+.0f}%"
