"""The linter's robustness invariants, shared by test_robustness, test_positions and test_corpus_scan.

* ``position_errors``: every finding's reported (line, column) is where the offending node's own
  text starts in the source (columns are 0-based character offsets; parentheses around the node
  are not its own text), cross-checked against libcst's ``PositionProvider``.
* ``fix_errors``: ``fix_source(..., unsafe=True)`` never raises, its result parses, fixing again
  changes nothing, line endings keep their kind, and only lines of findings change.

Each returns a list of human-readable problems (empty when the invariant holds), so a test can
assert on it and a corpus scan can collect them.
"""

from __future__ import annotations

import ast
import difflib
import re
import warnings
from collections.abc import Iterable
from pathlib import Path

import libcst as cst
from libcst.metadata import MetadataWrapper, PositionProvider

from flake8_torchdevice.analysis import positions_of
from flake8_torchdevice.engine import CheckedSource, check_source
from flake8_torchdevice.fixes import fix_rounds, fix_source
from flake8_torchdevice.settings import Settings

FIXTURES_ROOT = Path(__file__).resolve().parent / "fixtures"
NEWLINE = re.compile(r"\r\n|\r|\n")  # what libcst (and our positions) count as a line break
BOM = "\ufeff"


def fixture_paths() -> list[Path]:
    return sorted(FIXTURES_ROOT.glob("TDV*/*.py"))


def read_source(path: Path) -> str:
    # Bytes, decoded without newline translation: CRLF fixtures stay CRLF.
    return path.read_bytes().decode("utf-8")


def source_lines(source: str) -> list[str]:
    """Lines as positions count them; a leading BOM is not text (libcst and flake8 drop it)."""
    if source.startswith(BOM):
        source = source[1:]
    return NEWLINE.split(source)


def own_code(module: cst.Module, node: cst.CSTNode) -> str:
    """The node's code without the parentheses that wrap it (positions exclude those)."""
    if getattr(node, "lpar", None):
        node = node.with_changes(lpar=[], rpar=[])
    return module.code_for_node(node)


def position_errors(source: str, checked: CheckedSource, cross_check: bool = True) -> list[str]:
    """Where a reported position does not start the reported node's text."""
    if checked.module is None:
        return [] if not checked.findings else ["findings without a module"]
    module = checked.module
    lines = source_lines(source)
    positions = positions_of(module, (finding.node for finding in checked.findings))
    reported = {id(finding): (d.line, d.column) for finding, d in checked.located}
    oracle = None
    if cross_check and checked.findings:
        oracle = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    errors = []
    for finding in checked.findings:
        label = f"{finding.code} {type(finding.node).__name__}"
        if id(finding.node) not in positions:
            errors.append(f"{label}: positions_of found no position (the engine would report 1:0)")
            continue
        line, column = positions[id(finding.node)]
        if reported.get(id(finding)) != (line, column):
            errors.append(f"{label} at {line}:{column}: no diagnostic carries this position")
        if not 1 <= line <= len(lines) or not 0 <= column <= len(lines[line - 1]):
            errors.append(f"{label} at {line}:{column}: outside the file ({len(lines)} lines)")
            continue
        first = NEWLINE.split(own_code(module, finding.node), 1)[0]
        at = lines[line - 1][column:]
        if not first.strip() or not at.startswith(first):
            errors.append(f"{label} at {line}:{column}: node starts {first!r}, the source there is {at!r}")
        if oracle is not None:
            start = oracle[finding.node].start
            if (start.line, start.column) != (line, column):
                errors.append(f"{label}: reported {line}:{column}, libcst PositionProvider says {start}")
    return errors


def _line_ranges(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> set[int]:
    wanted = list(nodes)
    if not wanted:
        return set()
    ranges = MetadataWrapper(module, unsafe_skip_copy=True).resolve(PositionProvider)
    lines: set[int] = set()
    for node in wanted:
        code_range = ranges.get(node)
        if code_range is not None:
            lines.update(range(code_range.start.line, code_range.end.line + 1))
    return lines


def finding_lines(checked: CheckedSource) -> set[int]:
    """Every line a finding reported, of a reported node, or of a fix's target (1-based)."""
    if checked.module is None:
        return set()
    nodes = [finding.node for finding in checked.findings]
    nodes += [finding.fix.target for finding in checked.findings if finding.fix is not None]
    return {d.line for d in checked.diagnostics} | _line_ranges(checked.module, nodes)


def _newline_kinds(text: str) -> set[str]:
    return set(NEWLINE.findall(text))


def _final_line_break(text: str) -> str:
    ending = NEWLINE.findall(text[-2:])
    return ending[-1] if ending and text.endswith(ending[-1]) else ""


def python_parses(source: str) -> bool:
    """Does the running Python parse it? (Its SyntaxWarnings, like ``3(x)``, are not our business.)"""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            ast.parse(source)
        except (SyntaxError, ValueError):
            return False
    return True


def changed_lines(before: str, after: str) -> set[int]:
    """1-based lines of ``before`` that ``after`` replaced or deleted, or next to which it inserted."""
    old = NEWLINE.split(before)
    new = NEWLINE.split(after)
    changed: set[int] = set()
    for tag, i1, i2, _, _ in difflib.SequenceMatcher(None, old, new, autojunk=False).get_opcodes():
        if tag in ("replace", "delete"):
            changed.update(range(i1 + 1, i2 + 1))
        elif tag == "insert":
            changed.add(max(i1, 1))  # text inserted after line i1: that line was edited
    return changed


def fix_errors(source: str, settings: Settings = Settings()) -> list[str]:
    """What fixing ``source`` (unsafe fixes too) damaged (an empty list when it damaged nothing)."""
    try:
        rounds = list(fix_rounds(source, settings, unsafe=True))
    except Exception as error:
        return [f"fix_source raised {type(error).__name__}: {error}"]
    fixed = rounds[-1].after
    if sum(one.applied for one in rounds) == 0:
        return [] if fixed == source else ["no fix applied but the text changed"]
    errors = []
    try:
        cst.parse_module(fixed)
    except Exception as error:
        errors.append(f"the fixed text does not parse with libcst: {error}")
    if python_parses(source) and not python_parses(fixed):
        errors.append("the fixed text is not valid Python any more")
    if not _newline_kinds(fixed) <= _newline_kinds(source):
        errors.append(f"line endings changed: {_newline_kinds(source)} -> {_newline_kinds(fixed)}")
    if fixed.startswith(BOM) != source.startswith(BOM):
        errors.append("the byte order mark was dropped or added")
    if _final_line_break(fixed) != _final_line_break(source):
        errors.append(f"the final line break changed: {_final_line_break(source)!r} -> {_final_line_break(fixed)!r}")
    again = fix_source(fixed, settings, unsafe=True)
    if again.source != fixed or again.applied:
        errors.append(f"not idempotent: a second fix applied {again.applied} more")
    # A round may fix what the previous one revealed (``x = x.to(d)`` puts the ``x`` of a later
    # ``x.numpy()`` on ``d``): each round changes only lines the findings of its own text are on.
    for number, one in enumerate(rounds, start=1):
        allowed = finding_lines(one.checked)
        outside = sorted(changed_lines(one.before, one.after) - allowed)
        if outside:
            errors.append(f"round {number}: lines {outside} changed but no finding is on them ({sorted(allowed)})")
    return errors


def fix_report(source: str, path: str = "<source>") -> str:
    before = NEWLINE.split(source)
    after = NEWLINE.split(fix_source(source, unsafe=True).source)
    return "\n".join(difflib.unified_diff(before, after, path, path + " (fixed)", lineterm=""))


def findings_by_line(checked: CheckedSource) -> dict[tuple[int, str], int]:
    counts: dict[tuple[int, str], int] = {}
    for diagnostic in checked.diagnostics:
        counts[(diagnostic.line, diagnostic.code)] = counts.get((diagnostic.line, diagnostic.code), 0) + 1
    return counts


# --- scanning real code (test_corpus_scan) -------------------------------------------------------

_TDV900_KINDS = (("libcst could not parse", "libcst rejected"), ("nested too deeply", "too deep"))


def scan_file(path: str) -> dict[str, object]:
    """Lint one real file as users get it (plus a ``# torch`` line so the analysis really runs).

    Never raises: whatever escapes is returned as ``{"escaped": traceback}``.
    """
    import io
    import tokenize
    import traceback

    result: dict[str, object] = {"path": path, "outcome": "analysed", "findings": 0, "problems": []}
    try:
        data = Path(path).read_bytes()
        try:
            encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
            source = data.decode(encoding)
        except (SyntaxError, LookupError, UnicodeDecodeError):
            result["outcome"] = "undecodable"
            return result
        source += "\n# torch\n"
        checked = check_source(source)
        unanalysable = [d for d in checked.diagnostics if d.code == "TDV900"]
        if unanalysable:
            message = unanalysable[0].message
            kind = next((name for key, name in _TDV900_KINDS if key in message), "internal error")
            result["outcome"] = kind
            result["python_parses"] = python_parses(source)
            if kind == "internal error":
                result["problems"] = [f"{message}\n{_raw_traceback(source)}"]
            return result
        result["findings"] = len(checked.findings)
        problems = position_errors(source, checked, cross_check=False)
        if checked.findings:
            problems += fix_errors(source)
        result["problems"] = problems
    except BaseException:
        result["outcome"] = "escaped"
        result["problems"] = [traceback.format_exc()]
    return result


def _raw_traceback(source: str) -> str:
    """The traceback the engine swallowed: the same steps without its safety net."""
    import traceback

    from flake8_torchdevice import engine

    try:
        module = cst.parse_module(source)
        with engine._recursion_limit_raised():
            findings = engine._run_rules(module, Settings(), engine.ALL_RULES, engine.UNTIMED)
            engine._locate(module, engine._unique(findings))
    except BaseException:
        return traceback.format_exc()
    return "(not reproduced without the engine's safety net)"
