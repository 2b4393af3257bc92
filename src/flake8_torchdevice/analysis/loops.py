"""Loops (part of the interpreter): iterate the body to a fixpoint, and record the last pass.

The body is walked from the state before the loop; the state at the end of the body (and at
each ``continue``) is joined back into the loop head until the head stops changing, or for at
most ``LOOP_PASSES`` passes, after which the names the loop rebinds are widened to unknown and
the body is walked once more from there. Each pass records into a draft, and only the pass
that walked from the final head keeps its draft, so every fact in a loop holds for every
iteration. A loop inside more than ``DRAFTED_NESTING`` others finds its fixpoint without
recording and then walks once more, recording (its passes would otherwise multiply with every
level). A loop met while not recording (in a summary, in simple mode, in such a pass) is walked
once from a widened head: linear, and never a guess.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import libcst as cst

from .domain import ARRAY_KINDS, UNKNOWN, Kind, Value, tensor
from .facts import Facts
from .frames import Pending
from .literals import constant_truth
from .shapes import row
from .state import State
from .syntax import range_stop, statements

if TYPE_CHECKING:
    from .parts import InterpreterParts as _Base
else:
    _Base = object

LOOP_PASSES = 3
# Loops inside more enclosing loops than this run their fixpoint without drafts.
DRAFTED_NESTING = 2

Body = Callable[[State], State]


@dataclass
class Draft:
    """What one pass over a loop body recorded, kept until the pass is known to be the last."""

    facts: Facts
    pending: list[Pending]


class LoopWalker(_Base):
    def iterated(self, value: Value) -> Value:
        """What ``for x in value`` binds to ``x``."""
        kind = value.kind
        if kind is Kind.LOADER:  # its batches, as knowledge/libraries says
            return value.element()
        if kind is Kind.BATCH:
            return tensor(value.places, value.origin)
        if kind in ARRAY_KINDS:  # a module's output: its tuple of tensors, or the rows of its tensor
            kind = Kind.TENSOR if kind is Kind.OUTPUT else kind
            return row(value, Value(kind=kind, places=value.places, grad=value.grad, origin=value.origin))
        if kind is Kind.SEQUENCE:
            return value.element()
        return UNKNOWN

    def for_loop(self, node: cst.For) -> None:
        element = self.iterated(self.evaluate(node.iter))

        bound = range_stop(node.iter)
        rewritten = self.definitions.rewritten_containers.get(id(node))
        ends: list[State] = []

        def body(head: State) -> State:
            # ``for i in range(torch.cuda.device_count()):`` runs only where a device is counted.
            self.state = head if bound is None else self.narrow(head, bound, True).copy()
            self.bind_target(node.target, element)
            self.block(statements(node.body))
            ends.append(self.state)
            return self.state

        head, breaks = self._run(node, body)
        replaced = ends[-1].get(rewritten) if rewritten is not None and ends else None
        if rewritten is not None and replaced is not None:  # every element replaced, on every pass
            head = head.copy()
            head.bind(rewritten, replaced)
        self._leave(head, breaks, node.orelse)

    def while_loop(self, node: cst.While) -> None:
        def body(head: State) -> State:
            self.state = head
            self.evaluate(node.test)
            self.state = self.narrow(self.state, node.test, True).copy()
            self.block(statements(node.body))
            return self.state

        head, breaks = self._run(node, body)
        self.state = head
        self.evaluate(node.test)
        exit_state = self.narrow(self.state, node.test, False)
        always = constant_truth(node.test) is True  # ``while True:`` is left only by ``break``
        self._leave(_nowhere(head) if always else exit_state, breaks, node.orelse)

    # ------------------------------------------------------------------ the driver
    def _run(self, node: cst.For | cst.While, body: Body) -> tuple[State, list[State]]:
        """The loop head that holds for every iteration joined with where the last pass ends,
        and the states at ``break``s."""
        before = self.state
        if self.recording and not self.simple:
            return self._fixpoint(node, before, body)
        head = self._widened(node, before)
        end, breaks = self._pass(head, body)
        return head.join(end), breaks

    def _fixpoint(self, node: cst.For | cst.While, before: State, body: Body) -> tuple[State, list[State]]:
        """Walk the body until its head stops changing. Each pass records into a draft: the pass
        that finds the head unchanged walked from the final head, so its draft is the record
        (a separate recording pass would walk the same body from the same state again)."""
        drafted = len(self.frame.breaks) < DRAFTED_NESTING
        head = before
        for _ in range(LOOP_PASSES):
            end, breaks, draft = self._trial_pass(head, body, drafted)
            if before.join(end).same_as(head):
                if draft is None:
                    break  # found without recording: one recording pass from this head
                self.facts.update(draft.facts)
                self.pending.extend(draft.pending)
                return head.join(end), breaks
            head = before.join(end)
        else:
            head = self._widened(node, head)
        end, breaks = self._pass(head, body)
        return head.join(end), breaks

    def _trial_pass(self, head: State, body: Body, drafted: bool) -> tuple[State, list[State], Draft | None]:
        """A pass whose records count only if it is the last: kept in a draft, or, for a loop
        nested deeper than ``DRAFTED_NESTING``, not recorded at all (its own loops then run once,
        widened). Drafts at every level would cost passes to the power of the depth."""
        if not drafted:
            self.recording = False
            try:
                end, breaks = self._pass(head, body)
            finally:
                self.recording = True
            return end, breaks, None
        saved = (self.facts, self.pending)
        draft = Draft(Facts(), [])
        self.facts, self.pending = draft.facts, draft.pending
        try:
            end, breaks = self._pass(head, body)
        finally:
            self.facts, self.pending = saved
        return end, breaks, draft

    def _pass(self, head: State, body: Body) -> tuple[State, list[State]]:
        """One walk of the body: the state where iterations continue, and the ``break`` states."""
        frame = self.frame
        frame.breaks.append([])
        frame.continues.append([])
        try:
            end = body(head.copy())
        finally:
            breaks = frame.breaks.pop()
            continues = frame.continues.pop()
        for state in continues:
            end = end.join(state)
        return end, breaks

    def _widened(self, node: cst.For | cst.While, state: State) -> State:
        widened = state.copy()
        for name in self.definitions.loop_targets.get(id(node), ()):
            if widened.get(name) is not None:
                widened.bind(name, UNKNOWN)
        return widened

    def _leave(self, exit_state: State, breaks: list[State], orelse: cst.Else | None) -> None:
        """After the loop: the normal exit (through ``else``, if any) joined with every break."""
        self.state = exit_state.copy()
        if orelse is not None and self.state.reachable:
            self.block(statements(orelse.body))
        for state in breaks:
            self.state = self.state.join(state)


def _nowhere(state: State) -> State:
    left = state.copy()
    left.reachable = False
    return left
