"""Renderers for the command's reports: text, JSON, SARIF 2.1.0 and GitHub workflow commands.

Pure functions from reports to text. Columns are 1-based everywhere, as flake8 prints them. A
finding in a notebook names its cell: ``nb.ipynb:cell 3:4:5`` in text (ruff's form), ``"cell": 3`` in JSON; SARIF
and GitHub locate it in the file without a line (their lines are the file's, not the cell's) and
say the cell and line in the message.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any
from urllib.parse import quote

from . import __version__
from .catalogue import CodeInfo
from .reports import Report

TOOL_NAME = "torchdevice"
INFORMATION_URI = "https://pypi.org/project/flake8-torchdevice/"
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def text(reports: Sequence[Report], rules: Sequence[CodeInfo], root: Path) -> str:
    return "".join(f"{_position(report)}: {report.code} {report.message}\n" for report in reports)


def json_list(reports: Sequence[Report], rules: Sequence[CodeInfo], root: Path) -> str:
    keys = ("path", "cell", "line", "column", "code", "message", "fix", "confidence")
    return json.dumps([{key: getattr(report, key) for key in keys} for report in reports], indent=2) + "\n"


def github(reports: Sequence[Report], rules: Sequence[CodeInfo], root: Path) -> str:
    lines = []
    for report in reports:
        where = f"file={_property(report.path)}"
        if report.cell is None:
            where += f",line={report.line},col={report.column}"
        lines.append(f"::error {where},title={_property(report.code)}::{_data(_message(report))}\n")
    return "".join(lines)


def sarif(reports: Sequence[Report], rules: Sequence[CodeInfo], root: Path) -> str:
    index = {rule.code: position for position, rule in enumerate(rules)}
    run = {
        "tool": {
            "driver": {
                "name": TOOL_NAME,
                "version": __version__,
                "informationUri": INFORMATION_URI,
                "rules": [_sarif_rule(rule) for rule in rules],
            }
        },
        "columnKind": "unicodeCodePoints",
        "results": [_sarif_result(report, index, root) for report in reports],
    }
    return json.dumps({"$schema": SARIF_SCHEMA, "version": "2.1.0", "runs": [run]}, indent=2) + "\n"


FORMATS: dict[str, Callable[[Sequence[Report], Sequence[CodeInfo], Path], str]] = {
    "text": text,
    "json": json_list,
    "sarif": sarif,
    "github": github,
}


def statistics(reports: Sequence[Report], rules: Sequence[CodeInfo]) -> str:
    """One line per code: how many findings, the code, the rule's summary (flake8's --statistics)."""
    summaries = {rule.code: rule.summary for rule in rules}
    counts = Counter(report.code for report in reports)
    return "".join(f"{counts[code]:<5} {code} {summaries.get(code, '')}".rstrip() + "\n" for code in sorted(counts))


def _position(report: Report) -> str:
    cell = "" if report.cell is None else f"cell {report.cell}:"
    return f"{report.path}:{cell}{report.line}:{report.column}"


def _message(report: Report) -> str:
    if report.cell is None:
        return report.message
    return f"cell {report.cell}, line {report.line}, column {report.column}: {report.message}"


def _sarif_rule(info: CodeInfo) -> dict:
    # SARIF carries each rule's documentation, which lives in its class: only this format pays for
    # importing the rules (and libcst and the analysis with them).
    from .docs import documented, explain

    rule = documented(info.code)
    documentation = explain(rule)
    return {
        "id": info.code,
        "name": info.name,
        "shortDescription": {"text": info.summary},
        "fullDescription": {"text": rule.sections().get("What it does", info.summary)},
        "help": {"text": documentation, "markdown": documentation},
        "defaultConfiguration": {"level": "error"},
    }


# A finding's confidence as SARIF grades a result: how serious (level) and how likely (rank, 0-100).
_SARIF_LEVELS = {"high": "error", "medium": "warning", "low": "note"}
_SARIF_RANKS = {"high": 90.0, "medium": 60.0, "low": 30.0}


def _sarif_result(report: Report, index: dict[str, int], root: Path) -> dict:
    location: dict = {"artifactLocation": _artifact(report.path, root)}
    if report.cell is None:
        location["region"] = {"startLine": report.line, "startColumn": report.column}
    result: dict[str, Any] = {
        "ruleId": report.code,
        "level": _SARIF_LEVELS[report.confidence],
        "rank": _SARIF_RANKS[report.confidence],
        "message": {"text": _message(report)},
        "locations": [{"physicalLocation": location}],
        "properties": {"confidence": report.confidence},
    }
    if report.code in index:
        result["ruleIndex"] = index[report.code]
    return result


def _artifact(path: str, root: Path) -> dict:
    """A URI relative to the project root when the file is under it, else an absolute file URI."""
    absolute = Path(os.path.abspath(path))
    try:
        relative = absolute.relative_to(os.path.abspath(root))
    except ValueError:
        return {"uri": absolute.as_uri()}
    return {"uri": quote(relative.as_posix()), "uriBaseId": "%SRCROOT%"}


def _data(value: str) -> str:
    """Escape a workflow command's message."""
    return value.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _property(value: str) -> str:
    """Escape a workflow command's property value."""
    return _data(value).replace(":", "%3A").replace(",", "%2C")
