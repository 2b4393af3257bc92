"""The linter never lies about positions.

For every finding on every fixture, and on transformed copies of every fixture (CRLF line endings,
tabs for indentation, a BOM, multi-byte text on the line before and in front of the node on the
same line), the reported line and 0-based character column are where the offending node's own
text starts. Checked with the internal API (the node's code must be the source at that position,
and libcst's PositionProvider must agree), then through the flake8 plugin class and real flake8 in
a subprocess, which prints columns 1-based and in characters.
"""

from __future__ import annotations

import io
import re
import subprocess
import sys
import tokenize
from collections.abc import Callable

import pytest
from robustness_support import BOM, NEWLINE, fixture_paths, position_errors, python_parses, read_source

from flake8_torchdevice.engine import check_source, lint_source
from flake8_torchdevice.plugin import TorchDeviceChecker

FIXTURES = fixture_paths()
FIXTURE_IDS = [f"{path.parent.name}/{path.name}" for path in FIXTURES]
MULTIBYTE_COMMENT = "# é中文 naïve 🔥 — ü\n"  # 2-, 3- and 4-byte UTF-8; 🔥 is two UTF-16 units
MULTIBYTE_PREFIX = "ü = 'naïve 中文 🔥'; "
COMPOUND_STARTS = {
    "if", "elif", "else", "for", "while", "with", "def", "class", "try", "except", "finally",
    "async", "match", "case", "type", "@",
}  # fmt: skip

Found = tuple[int, int, str]  # line, 0-based column, code
Variant = Callable[[str], tuple[str, Callable[[Found], Found]] | None]


def found(source: str) -> list[Found]:
    return sorted((d.line, d.column, d.code) for d in lint_source(source))


# Each variant returns the transformed text and where each original finding must move, or None
# when the transformation does not apply to this fixture.


def with_crlf(source: str):
    return NEWLINE.sub("\r\n", source), lambda hit: hit


def with_lone_cr(source: str):
    return NEWLINE.sub("\r", source), lambda hit: hit


def with_bom(source: str):
    return BOM + source, lambda hit: hit  # columns count from after the BOM, as flake8 does


def with_tabs(source: str):
    """Every leading run of 4-space units becomes tabs; columns shrink by 3 per unit."""
    pieces = re.split(r"(\r\n|\r|\n)", source)
    shift: dict[int, int] = {}
    for index in range(0, len(pieces), 2):
        match = re.match(r"((?:    )+)(?![ \t])", pieces[index])
        if match:
            end = match.end()
            units = end // 4
            pieces[index] = "\t" * units + pieces[index][end:]
            shift[index // 2 + 1] = 3 * units
    text = "".join(pieces)
    if not shift or not python_parses(text):
        return None
    return text, lambda hit: (hit[0], hit[1] - shift.get(hit[0], 0), hit[2])


def with_comment_line_first(source: str):
    return MULTIBYTE_COMMENT + source, lambda hit: (hit[0] + 1, hit[1], hit[2])


def _simple_statement_starts(source: str) -> dict[int, int]:
    """{line: column} of the first token of every logical line that is a simple statement, but a
    string (a docstring: with a statement in front of it, it would no longer be one)."""
    starts: dict[int, int] = {}
    at_start = True
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type in (tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT):
            at_start = True
        elif token.type in (tokenize.NL, tokenize.COMMENT, tokenize.ENDMARKER):
            continue
        elif at_start:
            at_start = False
            if token.string not in COMPOUND_STARTS and token.string != "from" and token.type != tokenize.STRING:
                starts[token.start[0]] = token.start[1]
    return starts


def with_multibyte_prefix(source: str):
    """``ü = 'naïve 中文 🔥'; `` in front of every simple statement: same line, later columns."""
    starts = _simple_statement_starts(source)
    pieces = re.split(r"(\r\n|\r|\n)", source)
    for line, column in starts.items():
        text = pieces[2 * (line - 1)]
        pieces[2 * (line - 1)] = text[:column] + MULTIBYTE_PREFIX + text[column:]
    text = "".join(pieces)
    if not starts or not python_parses(text):
        return None

    def move(hit: Found) -> Found:
        line, column, code = hit
        if line in starts and column >= starts[line]:
            column += len(MULTIBYTE_PREFIX)
        return line, column, code

    return text, move


VARIANTS: dict[str, Variant] = {
    "crlf": with_crlf,
    "lone-cr": with_lone_cr,
    "bom": with_bom,
    "tabs": with_tabs,
    "multibyte-comment-line": with_comment_line_first,
    "multibyte-prefix": with_multibyte_prefix,
}


@pytest.mark.parametrize("path", FIXTURES, ids=FIXTURE_IDS)
def test_every_finding_points_at_its_node(path):
    source = read_source(path)
    checked = check_source(source)
    assert position_errors(source, checked) == []


@pytest.mark.parametrize("variant", VARIANTS)
@pytest.mark.parametrize("path", FIXTURES, ids=FIXTURE_IDS)
def test_transformed_fixture_positions(path, variant):
    source = read_source(path)
    transformed = VARIANTS[variant](source)
    if transformed is None:
        pytest.skip(f"{variant} does not apply to this fixture")
    text, move = transformed
    checked = check_source(text)
    assert sorted(move(hit) for hit in found(source)) == found(text)
    assert position_errors(text, checked) == []


def test_the_multibyte_variants_really_move_columns():
    """Guards the test above against a transformation that silently does nothing."""
    moved = 0
    for path in FIXTURES:
        source = read_source(path)
        for variant in (with_multibyte_prefix, with_tabs):
            transformed = variant(source)
            if transformed is not None:
                _text, move = transformed
                moved += sum(move(hit) != hit for hit in found(source))
    assert moved > 100


def plugin_view(source: str) -> list[Found]:
    lines = io.StringIO(source, newline="").readlines()  # flake8 hands lines with their endings
    return sorted((line, column, text.split()[0]) for line, column, text, _ in TorchDeviceChecker(None, lines).run())


@pytest.mark.parametrize("variant", VARIANTS)
def test_plugin_class_matches_the_engine_on_variants(variant):
    for path in FIXTURES:
        transformed = VARIANTS[variant](read_source(path))
        if transformed is not None:
            assert plugin_view(transformed[0]) == found(transformed[0]), path


_FLAKE8_LINE = re.compile(r"^(?P<path>.+?):(?P<line>\d+):(?P<column>\d+): (?P<code>TDV\d{3}) ")


def test_flake8_prints_the_same_positions_on_variants(tmp_path):
    """Real flake8 reading real files: 1-based character columns, after decoding, for every variant."""
    expected: dict[str, list[Found]] = {}
    for variant in ("crlf", "bom", "tabs", "multibyte-prefix"):
        folder = tmp_path / variant
        folder.mkdir()
        for path in FIXTURES:
            if not path.name.startswith("bad_"):
                continue
            source = read_source(path)
            transformed = VARIANTS[variant](source)
            if transformed is None:
                continue
            text, move = transformed
            target = folder / f"{path.parent.name}_{path.name}"
            target.write_bytes(text.encode("utf-8"))
            expected[str(target)] = sorted(move(hit) for hit in found(source))
    result = subprocess.run(
        [sys.executable, "-m", "flake8", "--isolated", "--torchdevice-confidence=low", "--select=TDV", str(tmp_path)],
        capture_output=True,
        text=True,
        encoding="utf-8",
    )
    assert result.returncode in (0, 1), result.stderr
    assert "Traceback" not in result.stderr, result.stderr
    printed: dict[str, list[Found]] = {name: [] for name in expected}
    for line in result.stdout.splitlines():
        match = _FLAKE8_LINE.match(line)
        assert match, line
        printed[match["path"]].append((int(match["line"]), int(match["column"]) - 1, match["code"]))
    assert {name: sorted(hits) for name, hits in printed.items()} == expected
    assert sum(map(len, expected.values())) > 300


POSITION_CASES = {
    # name: (source, the text each finding must start with, in order)
    "after an emoji": ('import torch\ns = "🔥🔥"; x = torch.zeros(3, device="cuda")\n', ['"cuda"']),
    "after a form feed": ('import torch\n\x0c\nx = torch.zeros(3, device="cuda")\n', ['"cuda"']),
    "form feed indent": ('import torch\nif x:\n\x0c    y = torch.zeros(3, device="cuda")\n', ['"cuda"']),
    "parenthesised node": ('import torch\nx = torch.zeros(3, device=( ( "cuda" ) ))\n', ['"cuda"']),
    "line continuation": ('import torch\nx = torch.zeros(3, \\\n    device="cuda")\n', ['"cuda"']),
    "multi-line string before": ('import torch\ns = """a\né\n中"""; x = torch.zeros(3, device="cuda")\n', ['"cuda"']),
    "mixed endings": ('import torch\r\ny = 1\rx = torch.zeros(3)\nx.cuda()\r\n', ["x.cuda()", "cuda()"]),
    "no final newline": ('import torch\nx = torch.zeros(3, device="cuda")', ['"cuda"']),
    "tab inside the line": ('import torch\nx =\ttorch.zeros(3,\tdevice="cuda")\n', ['"cuda"']),
    "comment with CR-less LF": ('import torch  # é\nt = torch.ones(2)\nt.to(torch.float16)\n', ["t.to(torch.float16)"]),
}  # fmt: skip


@pytest.mark.parametrize("name", POSITION_CASES)
def test_position_edge_cases(name):
    source, starts = POSITION_CASES[name]
    checked = check_source(source)
    assert position_errors(source, checked) == []
    lines = NEWLINE.split(source)
    assert len(checked.diagnostics) == len(starts), checked.diagnostics
    for diagnostic, start in zip(checked.diagnostics, starts):
        assert lines[diagnostic.line - 1].startswith(start, diagnostic.column)
