"""The analysis tested on its own: ``# reveal: <value>`` lines in tests/analysis/*.py.

In the style of mypy's ``reveal_type``: a line ending in ``# reveal: tensor {cpu}`` states
what the analysis must infer for the expression on that line: the argument of a ``reveal(...)``
call if there is one, else the value assigned, returned or evaluated by the line's statement.
The text is ``describe(value)``: the kind, then the places (``{cpu}``, ``may{cpu, device}``,
``{module:self}`` for wherever the module is, ``?`` for a place the code does not show), then
``grad`` / ``0-dim`` / ``cuda-check`` when they hold.
"""

from __future__ import annotations

import collections.abc
import dataclasses
import re
import typing
from pathlib import Path

import libcst as cst
import pytest

from flake8_torchdevice.analysis import Analysis, analyse, positions_of
from flake8_torchdevice.analysis.queries import describe

REVEALS = Path(__file__).parent / "analysis"
_REVEAL = re.compile(r"#\s*reveal:\s*(?P<expected>.+?)\s*$")


def reveal_files() -> list[Path]:
    return sorted(REVEALS.glob("*.py"))


def revealed_expression(line: cst.SimpleStatementLine) -> cst.BaseExpression | None:
    for call in _calls(line):
        if type(call.func) is cst.Name and call.func.value == "reveal" and call.args:
            return call.args[0].value
    statement = line.body[0]
    if type(statement) in (cst.Assign, cst.AnnAssign, cst.Expr, cst.Return):
        return statement.value
    if type(statement) is cst.AugAssign:
        return statement.target
    return None


def _calls(node: cst.CSTNode) -> list[cst.Call]:
    found = [node] if type(node) is cst.Call else []
    for child in node.children:
        found.extend(_calls(child))
    return found


def reveals(path: Path, analyser: typing.Callable[[cst.Module], Analysis] = analyse) -> list[tuple[int, str, str]]:
    """(line, expected, revealed) for every reveal line of a file, analysed by ``analyser`` (the
    file alone, or with what its project says of it: tests/test_projects.py)."""
    source = path.read_text(encoding="utf-8")
    module = cst.parse_module(source)
    analysis = analyser(module)
    lines = [node for node in _statement_lines(module)]
    positions = positions_of(module, lines)
    by_line = {positions[id(node)][0]: node for node in lines if id(node) in positions}
    found = []
    for number, text in enumerate(source.splitlines(), start=1):
        match = _REVEAL.search(text)
        if match is None:
            continue
        line = by_line.get(number)
        expression = revealed_expression(line) if line is not None else None
        revealed = describe(analysis.value_of(expression)) if expression is not None else "<no expression>"
        found.append((number, match.group("expected"), revealed))
    return found


def _statement_lines(node: cst.CSTNode) -> list[cst.SimpleStatementLine]:
    if type(node) is cst.SimpleStatementLine:
        return [node]
    lines = []
    for child in node.children:
        lines.extend(_statement_lines(child))
    return lines


@pytest.mark.parametrize("path", reveal_files(), ids=lambda path: path.name)
def test_reveals(path: Path) -> None:
    mismatches = [
        f"{path.name}:{line}: expected {expected!r}, revealed {revealed!r}"
        for line, expected, revealed in reveals(path)
        if expected != revealed
    ]
    assert not mismatches, "\n".join(mismatches)


def test_there_are_enough_reveals() -> None:
    assert sum(len(reveals(path)) for path in reveal_files()) >= 150


def test_a_unit_past_its_budget_is_analysed_again_simply(monkeypatch) -> None:
    """Past its step budget a function is walked once more in simple mode: loops in one widened
    pass, no summaries. It finishes, and what a loop rebinds is unknown rather than guessed."""
    from flake8_torchdevice.analysis import interpreter

    source = (
        "import torch\n"
        "def helper():\n"
        "    return torch.zeros(1)\n"
        "def work(device):\n"
        "    state = torch.zeros(3)\n"
        "    for step in range(3):\n"
        "        for inner in range(3):\n"
        "            state = state.to(device)\n"
        "    made = helper()\n"
        "    return state, made\n"
    )
    module = cst.parse_module(source)
    calls = [node for node in _calls(module) if type(node.func) is cst.Name and node.func.value == "helper"]
    monkeypatch.setattr(interpreter, "UNIT_BUDGET", 5)
    analysis = analyse(module)
    assert describe(analysis.value_of(calls[0])) == "unknown"  # no summaries in simple mode
    monkeypatch.setattr(interpreter, "UNIT_BUDGET", 60_000)
    assert describe(analyse(module).value_of(calls[0])) == "tensor {cpu}"


def _node_types_only(annotation: object) -> bool:
    if typing.get_origin(annotation) is typing.Union:
        return all(_node_types_only(argument) for argument in typing.get_args(annotation))
    return isinstance(annotation, type) and issubclass(annotation, cst.CSTNode)


def test_children_skip_whitespace() -> None:
    """The end of a statement line (its trailing whitespace, comment and newline) holds no code:
    ``children()`` does not read it, nor the whitespace of a one-line suite or a decorator."""
    from flake8_torchdevice.analysis.syntax import _child_fields

    assert _child_fields(cst.SimpleStatementLine) == ("body",)
    assert _child_fields(cst.SimpleStatementSuite) == ("body",)
    assert _child_fields(cst.Decorator) == ("decorator",)
    assert _child_fields(cst.TrailingWhitespace) == ()


def test_sequence_fields_hold_only_nodes() -> None:
    """``children()`` takes a sequence field's items as they are, unchecked: every sequence
    field libcst declares holds nodes (a check against a libcst upgrade that adds another)."""
    from flake8_torchdevice.analysis.syntax import _child_fields

    node_classes = [item for item in vars(cst).values() if isinstance(item, type) and issubclass(item, cst.CSTNode)]
    offending = []
    for node_class in node_classes:
        if not dataclasses.is_dataclass(node_class):
            continue
        hints = typing.get_type_hints(node_class)
        for name in _child_fields(node_class):
            declared = [hints[name], *typing.get_args(hints[name])]
            sequences = [form for form in declared if typing.get_origin(form) in (collections.abc.Sequence, list)]
            offending += [f"{node_class.__name__}.{name}" for form in sequences if not _node_types_only(*form.__args__)]
    assert node_classes and not offending


@pytest.mark.parametrize(
    ("annotation", "kind"),
    [
        ("torch.Tensor", "tensor"),
        ("float", "scalar"),
        ("Optional[torch.Tensor]", None),  # may be None: not narrowed yet, so not taken for a tensor
        ("TokenBatch", "object"),  # a class of the project's, no module
        ("TokenBatch | PairBatch", "object"),
        ("Optional[TokenBatch]", "object"),
        ("Net", None),  # an ``nn.Module`` of the project's: a module, as its use says
        ("Wrapper", None),  # from ``.wrappers``: maybe a class, maybe an alias of a tensor type
        ("np.ndarray", None),
        ("Any", None),
        ("TensorType", None),  # some library's tensor type
        ("None", None),
    ],
)
def test_what_an_annotation_says_a_parameter_is(annotation: str, kind: str | None) -> None:
    from flake8_torchdevice.analysis.annotations import annotation_kind
    from flake8_torchdevice.analysis.imports import ImportTable

    imports = ImportTable()
    lines = ("import torch", "import numpy as np", "from typing import Any, Optional", "from .wrappers import Wrapper")
    for line in lines:
        imports.record(cst.parse_statement(line).body[0])
    plain = {"TokenBatch", "PairBatch"}
    found = annotation_kind(cst.parse_expression(annotation), imports, lambda node: getattr(node, "value", "") in plain)
    assert (found.value if found is not None else None) == kind
