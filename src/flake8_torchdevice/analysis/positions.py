"""Line and column of the nodes we report, computed only for those nodes.

libcst's ``PositionProvider`` computes a range for every node of the file. We need
positions for the handful of nodes a rule reports, usually none, so we replay the
module's code generation only until the last wanted node has started and stop there.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from contextlib import contextmanager, suppress

import libcst as cst
from libcst._nodes.internal import CodegenState

Position = tuple[int, int]  # 1-based line, 0-based column in characters


class _AllFound(Exception):
    """Stops code generation once every wanted node has a position."""


class _PositionRecorder(CodegenState):
    def __init__(self, module: cst.Module, wanted: Iterable[cst.CSTNode]) -> None:
        super().__init__(default_indent=module.default_indent, default_newline=module.default_newline)
        self.wanted = {id(node) for node in wanted}
        self.found: dict[int, Position] = {}
        self.line = 1
        self.column = 0

    def add_indent_tokens(self) -> None:
        for token in self.indent_tokens:
            self.add_token(token)

    def add_token(self, value: str) -> None:
        newlines = value.count("\n") + value.count("\r") - value.count("\r\n")
        if newlines:
            self.line += newlines
            self.column = len(value) - max(value.rfind("\n"), value.rfind("\r")) - 1
        else:
            self.column += len(value)

    @contextmanager
    def record_syntactic_position(
        self,
        node: cst.CSTNode,
        *,
        start_node: cst.CSTNode | None = None,
        end_node: cst.CSTNode | None = None,
    ) -> Iterator[None]:
        key = id(node)
        if key in self.wanted and key not in self.found:
            self.found[key] = (self.line, self.column)
            if len(self.found) == len(self.wanted):
                raise _AllFound
        yield


def positions_of(module: cst.Module, nodes: Iterable[cst.CSTNode]) -> dict[int, Position]:
    """Map ``id(node)`` to the start of each node's own text (parentheses excluded)."""
    recorder = _PositionRecorder(module, nodes)
    if not recorder.wanted:
        return {}
    with suppress(_AllFound):
        module._codegen(recorder)
    return recorder.found
