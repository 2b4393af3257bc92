"""Results as a table for the terminal, JSON for machines, and Markdown for a reader.

All three say the same thing from the same Results; the tables and the Markdown share their rows.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Sequence
from datetime import UTC, datetime

from .devices import Device
from .equivalence import DIFFERENT, Equivalence, summary
from .runner import FixtureResult, PairResult, Results
from .verdicts import MISMATCH, NEEDS_DATA, NOT_APPLICABLE, VERDICTS, Verdict

# Enough of a failed run's output to show where it failed, not a screenful of one long print.
TAIL_LINES = 6
TAIL_WIDTH = 200


def verdict_cell(verdict: Verdict) -> str:
    if verdict.kind == MISMATCH:
        return "MISMATCH"
    if verdict.kind == NOT_APPLICABLE:
        return "n/a: no data on meta" if verdict.needs == NEEDS_DATA else f"n/a: needs {verdict.needs}"
    return verdict.kind


def header(results: Results) -> list[str]:
    return ["rule", "fixture", "linter", *(device.label for device in results.devices), "cross-check"]


def rows(results: Results) -> list[list[str]]:
    return [
        [
            result.fixture.code,
            result.fixture.path.name,
            ", ".join(result.linter_codes) or "clean",
            *(verdict_cell(run.verdict) for run in result.runs.values()),
            "FAIL" if result.cross_check else "ok",
        ]
        for result in results.fixtures
    ]


def equivalence_cell(verdict: Equivalence) -> str:
    return "DIFFERENT" if verdict.kind == DIFFERENT else verdict.kind


def equivalence_header(results: Results) -> list[str]:
    return ["fix (safe fixes only)", *(device.label for device in results.devices)]


def equivalence_rows(results: Results) -> list[list[str]]:
    return [
        [compared.pair.name, *(equivalence_cell(verdict) for verdict in compared.verdicts.values())]
        for compared in results.equivalence
    ]


def equivalence_counts(results: Results) -> dict[str, int]:
    return summary([verdict for compared in results.equivalence for verdict in compared.verdicts.values()])


def verdict_counts(results: Results) -> Counter:
    counts = Counter({kind: 0 for kind in VERDICTS})
    counts.update(run.verdict.kind for result in results.fixtures for run in result.runs.values())
    return counts


def summary_line(results: Results) -> str:
    counts = verdict_counts(results)
    verdicts = ", ".join(f"{counts[kind]} {kind}" for kind in VERDICTS)
    disagreements = sum(bool(result.cross_check) for result in results.fixtures)
    devices = ", ".join(device.label for device in results.devices)
    compared = ", ".join(f"{count} {kind}" for kind, count in equivalence_counts(results).items())
    return (
        f"{len(results.fixtures)} fixtures x {len(results.devices)} devices ({devices}) "
        f"in {results.seconds:.1f} s: {verdicts}; "
        f"{disagreements} cross-check failures; {len(results.fixture_errors)} fixture errors; "
        f"{len(results.equivalence)} fixes compared before and after: {compared}"
    )


def problems(results: Results) -> list[str]:
    """One line per mismatch, cross-check failure and malformed fixture, with the output's last lines."""
    lines = [f"fixture error: {error}" for error in results.fixture_errors]
    for result in results.fixtures:
        for device in results.devices:
            device_run = result.runs[device.name]
            if device_run.verdict.kind == MISMATCH:
                lines.append(f"mismatch: {result.fixture.name} on {device.label}: {device_run.verdict.reason}")
                lines.extend(f"    | {line}" for line in _last_lines(device_run.run.output_tail))
        if result.cross_check:
            lines.append(f"cross-check: {result.fixture.name}: {result.cross_check}")
    for compared in results.equivalence:
        for device in results.devices:
            if compared.verdicts[device.name].kind == DIFFERENT:
                reason = compared.verdicts[device.name].reason
                lines.append(f"safe fix not equivalent: {compared.pair.name} on {device.label}: {reason}")
    return lines


def text_report(results: Results) -> str:
    table = _aligned([header(results), *rows(results)])
    compared = _aligned([equivalence_header(results), *equivalence_rows(results)]) if results.equivalence else []
    return (
        "\n".join([*table, "", *compared, *([""] if compared else []), *problems(results), summary_line(results)])
        + "\n"
    )


def json_report(results: Results) -> str:
    return json.dumps(
        {
            **_facts(results),
            "fixtures": [_fixture_json(result) for result in results.fixtures],
            "fixture_errors": results.fixture_errors,
            "equivalence": [_pair_json(compared) for compared in results.equivalence],
            "summary": {
                **verdict_counts(results),
                "cross-check failures": sum(bool(result.cross_check) for result in results.fixtures),
                "fixture errors": len(results.fixture_errors),
                "equivalence": equivalence_counts(results),
            },
            "ok": results.ok,
        },
        indent=2,
    )


def markdown_report(results: Results) -> str:
    facts = _facts(results)
    lines = [
        f"# Runtime checks: torch {facts['torch']}, {facts['date']}",
        "",
        "Devices:",
        "",
        *(f"- {_device_words(device)}" for device in results.devices),
        "",
        summary_line(results),
        "",
        *_markdown_table([header(results), *rows(results)]),
    ]
    if results.equivalence:
        lines += [
            "",
            "## Safe fixes, before and after",
            "",
            *_markdown_table([equivalence_header(results), *equivalence_rows(results)]),
        ]
    found = problems(results)
    if found:
        lines += ["", "## Problems", "", "```", *found, "```"]
    return "\n".join(lines) + "\n"


def _facts(results: Results) -> dict:
    return {
        "torch": results.machine.torch_version,
        "date": datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "cuda_usable": results.machine.cuda_usable,
        "start_method": results.start_method,
        "timeout": results.timeout,
        "seconds": round(results.seconds, 2),
        "devices": [
            {"name": device.name, "simulated": device.simulated, "hardware": device.hardware}
            for device in results.devices
        ],
    }


def _fixture_json(result: FixtureResult) -> dict:
    return {
        "name": result.fixture.name,
        "rule": result.fixture.code,
        "path": str(result.fixture.path),
        "linter": list(result.linter_codes),
        "runs": {
            device: {
                "verdict": device_run.verdict.kind,
                "reason": device_run.verdict.reason,
                "needs": device_run.verdict.needs,
                "outcome": device_run.run.outcome.describe(),
                "exception": device_run.run.outcome.exception_type or None,
                "message": device_run.run.outcome.message,
                "seconds": round(device_run.run.seconds, 3),
                "output_tail": device_run.run.output_tail,
            }
            for device, device_run in result.runs.items()
        },
        "cross_check": result.cross_check,
    }


def _pair_json(compared: PairResult) -> dict:
    return {
        "name": compared.pair.name,
        "before": str(compared.pair.before),
        "runs": {
            device: {
                "verdict": verdict.kind,
                "reason": verdict.reason,
                "before": compared.runs[device][0].outcome.describe(),
                "after": compared.runs[device][1].outcome.describe(),
            }
            for device, verdict in compared.verdicts.items()
        },
    }


def _device_words(device: Device) -> str:
    if device.simulated:
        return f"{device.name}: simulated accelerator (torch's meta device holds no data; not real hardware)"
    return f"{device.name}: real, {device.hardware}" if device.hardware else f"{device.name}: real"


def _last_lines(text: str) -> list[str]:
    return [line[:TAIL_WIDTH] for line in text.rstrip().splitlines()[-TAIL_LINES:]]


def _aligned(table: Sequence[Sequence[str]]) -> list[str]:
    widths = [max(len(row[column]) for row in table) for column in range(len(table[0]))]
    return ["  ".join(cell.ljust(width) for cell, width in zip(row, widths)).rstrip() for row in table]


def _markdown_table(table: Sequence[Sequence[str]]) -> list[str]:
    head, *body = table
    return [_markdown_row(head), _markdown_row(["---"] * len(head)), *(_markdown_row(row) for row in body)]


def _markdown_row(cells: Sequence[str]) -> str:
    return "| " + " | ".join(cells) + " |"
