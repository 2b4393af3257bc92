"""Summaries do not depend on the order they are asked in (``analysis/memo.py``).

Before the functions of a file are recorded, every summary of it (each function with the values
its body is recorded with, each class's module-ness and table of attributes) is asked for in a
given order: the source order, the reverse, shuffled with fixed seeds. The value of every
expression and every finding must come out as when nothing is asked beforehand. Before summaries
were keyed by definition and kept only when complete, classes named alike shared answers, a
function of a recursive cycle kept what it computed while the other was in progress, and a call
cut by the depth cap kept its cut answer for every depth: each gave different values by order.
"""

from __future__ import annotations

import random
from pathlib import Path

import libcst as cst
import pytest

import flake8_torchdevice.analysis as analysis_package
from flake8_torchdevice.analysis import analyse
from flake8_torchdevice.analysis.definitions import ClassInfo, FunctionInfo
from flake8_torchdevice.analysis.interpreter import Interpreter
from flake8_torchdevice.analysis.queries import describe
from flake8_torchdevice.analysis.state import State
from flake8_torchdevice.engine import check_source

ROOT = Path(__file__).parent.parent
# The reveal files (same-named classes and mutual recursion in order.py, a model five modules
# deep in transformer.py), and the examples: model and training files as users write them.
FILES = sorted((ROOT / "tests" / "analysis").glob("*.py")) + sorted((ROOT / "examples").glob("*.py"))
ORDERS = ["forward", "reversed", "seed 1", "seed 2", "seed 3"]


class _AskingFirst(Interpreter):
    """An interpreter that asks for every summary, in ``order``, once the module body is walked
    (so that summaries see the module's final globals, as the recorded functions do)."""

    order = "forward"

    def record_function(self, info: FunctionInfo, outer: State) -> None:
        if self.order:
            self._ask_for_every_summary(self.order)
            self.order = ""
        super().record_function(info, outer)

    def _ask_for_every_summary(self, order: str) -> None:
        definitions: list[FunctionInfo | ClassInfo] = [
            *self.definitions.functions.values(),
            *self.definitions.classes_by_key.values(),
        ]
        if order == "reversed":
            definitions.reverse()
        elif order.startswith("seed"):
            random.Random(int(order.split()[1])).shuffle(definitions)
        for definition in definitions:
            if isinstance(definition, ClassInfo):
                self.is_module_class(definition)
                self._table(definition)
            else:
                self._summarise(definition, self.parameter_values(definition), self.self_value(definition))


def _outcome(source: str, module: cst.Module) -> tuple[list[str], list[tuple[int, int, str, str]]]:
    """Every expression's value, in the order of the tree, and every finding."""
    analysis = analyse(module)
    values = [describe(analysis.value_of(node)) for node in _expressions(module)]
    findings = [(d.line, d.column, d.code, d.message) for d in check_source(source).diagnostics]
    return values, findings


def _expressions(node: cst.CSTNode) -> list[cst.CSTNode]:
    found = [node] if isinstance(node, cst.BaseExpression) else []
    for child in node.children:
        found.extend(_expressions(child))
    return found


@pytest.mark.parametrize("path", FILES, ids=lambda path: path.name)
def test_summaries_do_not_depend_on_the_order_they_are_asked_in(path: Path, monkeypatch) -> None:
    source = path.read_text(encoding="utf-8")
    module = cst.parse_module(source)
    as_analysed = _outcome(source, module)
    assert as_analysed[0].count("unknown") < len(as_analysed[0])
    monkeypatch.setattr(analysis_package, "Interpreter", _AskingFirst)
    for order in ORDERS:
        monkeypatch.setattr(_AskingFirst, "order", order)
        values, findings = _outcome(source, module)
        differing = [i for i, (got, expected) in enumerate(zip(values, as_analysed[0])) if got != expected]
        assert not differing, f"{order}: {len(differing)} values differ, the first {values[differing[0]]!r}"
        assert findings == as_analysed[1], order
