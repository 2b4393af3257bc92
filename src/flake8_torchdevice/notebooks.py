"""Jupyter notebooks as one virtual Python module, and back.

The code cells are joined, in order, into one module, so names flow between cells as they do in a
kernel (a device chosen in cell 1 is known in cell 3). Each cell is followed by a marker comment,
and a line map takes each line of the module back to (cell number, line in that cell); cell numbers
are 1-based positions in the notebook's list of cells, Markdown and raw cells included: the number
VS Code shows ("Cell 3 of 12") and ruff prints (``nb.ipynb:cell 3:4:5``). Not the execution count
(``[7]``), which changes with every run and is missing from cells never run.

IPython syntax is not Python: a cell starting with a cell magic (``%%time``) is skipped whole; a line
magic (``%matplotlib``, ``pip install x``), a shell line (``!pip``), ``x = !ls``, ``x = %who_ls`` and
help (``torch.zeros?``) become a numbered ``pass`` placeholder with the same indentation, so line
numbers hold. A cell that is still not Python (a syntax error) is skipped whole, as a kernel would
run none of it. Writing a
fixed module back restores those lines and changes only the ``source`` of the cells whose code
changed; the rest of the file stays byte-for-byte as it was, or nothing is written.
"""

from __future__ import annotations

import ast
import io
import json
import re
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any

# What the virtual module's own comments start with (the project index reads past them: they name
# "torchdevice", not a device).
OWN_COMMENT = "# torchdevice:"
_PLACEHOLDER = "pass  " + OWN_COMMENT + " IPython line {}"
_PLACEHOLDER_LINE = re.compile(r"^[ \t]*pass  # torchdevice: IPython line (\d+)(?:\r\n|\r|\n)?$")
# The comment that ends each cell in the virtual module (``analysis.syntax`` reads it too: the last
# expression of a cell is displayed, not discarded).
CELL_END_MARKER = OWN_COMMENT + " end of cell"
_CELL_END = CELL_END_MARKER + " {}"
# IPython's automagic: ``pip install x`` and ``conda install x`` run as ``%pip`` and ``%conda``.
_AUTOMAGIC = re.compile(r"^(?:pip|conda)\s+\w")
_MAGIC_ASSIGNMENT = re.compile(r"^[\w.]+\s*=\s*[%!]")
_HELP = re.compile(r"^(?:\?{1,2}[\w.*]+|[\w.*]+\?{1,2})$")


class NotANotebook(ValueError):
    """The file is not a notebook this module can read."""


@dataclass(frozen=True)
class _CodeCell:
    number: int  # 1-based position in the notebook's cell list
    original: str  # the cell's code as stored
    code: str  # the code the linter reads: placeholders instead of IPython lines, ends with a newline


@dataclass(frozen=True)
class Notebook:
    text: str  # the file as read
    document: dict[str, Any]
    cells: tuple[_CodeCell, ...]
    source: str  # the virtual module
    line_map: tuple[tuple[int, int], ...]  # module line - 1 -> (cell number, line in cell)

    def locate(self, line: int) -> tuple[int | None, int]:
        """(cell number, line in that cell) of a line of the virtual module."""
        if not self.line_map:
            return None, line
        return self.line_map[min(max(line, 1), len(self.line_map)) - 1]

    def line_name(self, line: int, seen_from: int | None) -> str:
        """A line of the virtual module as a message names it to a reader of the cell ``seen_from``:
        "line 3" in that cell, "cell 2, line 8" in another."""
        cell, line_in_cell = self.locate(line)
        return f"line {line_in_cell}" if cell in (seen_from, None) else f"cell {cell}, line {line_in_cell}"

    def rewritten(self, fixed_source: str) -> str | None:
        """The notebook's text with ``fixed_source`` put back into its cells; None when that cannot be
        done without touching anything else (markers lost, or formatting this module cannot reproduce)."""
        fixed_cells = _split_cells(fixed_source, [cell.number for cell in self.cells])
        if fixed_cells is None:
            return None
        changed = {
            cell.number: _restored(cell, fixed) for cell, fixed in zip(self.cells, fixed_cells) if fixed != cell.code
        }
        if not changed:
            return self.text
        dump = _serializer(self.text, self.document)
        if dump is None:
            return None
        cells = [
            _with_source(cell, changed[number]) if number in changed else cell
            for number, cell in enumerate(self.document["cells"], 1)
        ]
        return dump({**self.document, "cells": cells})


def parse_notebook(text: str) -> Notebook:
    try:
        document = json.loads(text)
    except ValueError as error:
        raise NotANotebook(f"not valid JSON: {error}") from error
    if not isinstance(document, dict) or not isinstance(document.get("cells"), list):
        raise NotANotebook("no list of cells")
    cells = tuple(_code_cells(document)) if _is_python(document) else ()
    line_map = [(cell.number, line) for cell in cells for line in range(1, len(physical_lines(cell.code)) + 2)]
    source = "".join(cell.code + _CELL_END.format(cell.number) + "\n" for cell in cells)
    return Notebook(text, document, cells, source, tuple(line_map))


def _is_python(document: dict[str, Any]) -> bool:
    metadata = document.get("metadata") or {}
    kernel, info = metadata.get("kernelspec") or {}, metadata.get("language_info") or {}
    language = kernel.get("language") or info.get("name")
    return language is None or str(language).lower() == "python"


def _code_cells(document: dict[str, Any]) -> Iterator[_CodeCell]:
    for number, cell in enumerate(document["cells"], 1):
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        original = _cell_text(cell.get("source", ""))
        if not original.strip() or original.lstrip().startswith("%%"):
            continue
        lines = physical_lines(original)
        code = "".join(
            _placeholder(line, index) if ipython else line
            for index, (line, ipython) in enumerate(zip(lines, _ipython_lines(lines)))
        )
        if _is_valid_python(code):  # a kernel runs nothing of a cell with a syntax error
            yield _CodeCell(number, original, code if code.endswith(("\n", "\r")) else code + "\n")


def _is_valid_python(code: str) -> bool:
    """Does the cell compile? CPython's parser, a small fraction of libcst's cost, tells; one broken
    cell (a half-edited line, shell text without ``!``) would otherwise leave the notebook unread."""
    try:
        ast.parse(code)
    except (SyntaxError, ValueError):  # ValueError: a null byte
        return False
    return True


def _cell_text(source: Any) -> str:
    return "".join(source) if isinstance(source, list) else str(source)


def physical_lines(text: str) -> list[str]:
    """Lines with their endings, split where Python splits them (\\n, \\r\\n, \\r)."""
    return io.StringIO(text, newline="").readlines()


def _ipython_lines(lines: Sequence[str]) -> Iterator[bool]:
    """For each line, whether it is IPython syntax; only a line that starts a statement can be."""
    continuation = _Continuation()
    for line in lines:
        ipython = continuation.at_statement_start and _is_ipython(line.strip())
        if not ipython:
            continuation.read(line)
        yield ipython


def _is_ipython(line: str) -> bool:
    if line.startswith(("%", "!")):
        return True
    return any(pattern.match(line) for pattern in (_HELP, _MAGIC_ASSIGNMENT, _AUTOMAGIC))


class _Continuation:
    """Whether the next line continues a statement: open brackets, a string, a trailing backslash."""

    def __init__(self) -> None:
        self.depth = 0
        self.quote = ""
        self.backslash = False

    @property
    def at_statement_start(self) -> bool:
        return self.depth == 0 and not self.quote and not self.backslash

    def read(self, line: str) -> None:
        self.backslash = False
        index = 0
        while index < len(line):
            char = line[index]
            if self.quote:
                index = self._in_string(line, index)
                continue
            if char == "#":
                return
            if char in "'\"":
                self.quote = char * 3 if line.startswith(char * 3, index) else char
                index += len(self.quote)
                continue
            if char == "\\" and index == len(line.rstrip("\r\n")) - 1:
                self.backslash = True
            elif char in "([{":
                self.depth += 1
            elif char in ")]}":
                self.depth = max(0, self.depth - 1)
            index += 1

    def _in_string(self, line: str, index: int) -> int:
        if line[index] == "\\":
            return index + 2
        if line.startswith(self.quote, index):
            end = index + len(self.quote)
            self.quote = ""
            return end
        if len(self.quote) == 1 and line[index] in "\r\n":
            self.quote = ""  # an unterminated one-line string: a syntax error the parser will report
        return index + 1


def _placeholder(line: str, index: int) -> str:
    body = line.rstrip("\r\n")
    return body.removesuffix(body.lstrip()) + _PLACEHOLDER.format(index) + line.removeprefix(body)


def _split_cells(source: str, numbers: Sequence[int]) -> list[str] | None:
    """The module's text between cell markers, one string per cell; None if the markers moved."""
    cells: list[str] = []
    current: list[str] = []
    for line in physical_lines(source):
        if len(cells) < len(numbers) and line.rstrip("\r\n") == _CELL_END.format(numbers[len(cells)]):
            cells.append("".join(current))
            current = []
        else:
            current.append(line)
    return cells if len(cells) == len(numbers) and not current else None


def _restored(cell: _CodeCell, fixed: str) -> str:
    """The fixed code with its IPython lines back, and without the newline the module added."""
    originals = physical_lines(cell.original)
    lines = []
    for line in physical_lines(fixed):
        placeholder = _PLACEHOLDER_LINE.match(line)
        lines.append(originals[int(placeholder.group(1))] if placeholder else line)
    text = "".join(lines)
    return text[:-1] if not cell.original.endswith(("\n", "\r")) and text.endswith("\n") else text


def _with_source(cell: dict[str, Any], code: str) -> dict[str, Any]:
    return {**cell, "source": physical_lines(code) if isinstance(cell.get("source"), list) else code}


def _serializer(text: str, document: dict[str, Any]) -> Callable[[dict[str, Any]], str] | None:
    """The ``json.dumps`` settings that reproduce ``text`` exactly (Jupyter writes indent 1, no ASCII escapes)."""
    newline = "\r\n" if "\r\n" in text else "\n"
    trailing = newline if text.endswith(newline) else ""
    for indent in (1, 2, 4, None):
        for ensure_ascii in (False, True):

            def dump(value: dict[str, Any], indent: int | None = indent, ensure_ascii: bool = ensure_ascii) -> str:
                return json.dumps(value, indent=indent, ensure_ascii=ensure_ascii).replace("\n", newline) + trailing

            if dump(document) == text:
                return dump
    return None
