"""Facts from the file's own call sites: a function walked again as one of its calls runs it.

The recording walk of a function sees its parameters as the body shows them, mostly unknown:
``def show(t): return t.numpy()`` says nothing of where ``t`` is. Its callers in the file often
do (``show(x)`` with ``x`` moved to the device), and a helper whose result depends on how it is
called (``h=None`` → a fresh CPU tensor, otherwise the caller's ``h``) is only wrong for some
calls. So each call of a file's function or method recorded with a tensor whose place is known
is a *call context*: the function is walked once more, recording into facts of its own, with the
parameters the call informs bound to what it passes (its defaults for what it omits). Those
places are marked guessed: the link from a call site into the body is inferred, so a finding
that rests on it is only likely. Rules read each context as an analysis of its own and keep
what the plain walk did not find, citing the call (``engine``).

Bounded: contexts are walked once per distinct binding, at most ``MAX_CONTEXTS_PER_FUNCTION``
per function and ``MAX_CONTEXTS`` per file; a context walk records call sites too, so a chain of
helpers is followed as far as the caps allow. In simple mode (past a unit's budget) nothing is
recorded.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import libcst as cst

from .definitions import FunctionInfo
from .domain import NOWHERE, Kind, Origin, Value, with_module
from .facts import Facts
from .syntax import statements

if TYPE_CHECKING:
    from .parts import InterpreterParts as _Base
else:
    _Base = object

MAX_CONTEXTS_PER_FUNCTION = 3
MAX_CONTEXTS = 24
# Arguments whose place a call site can tell the body about.
_PLACED_KINDS = frozenset({Kind.TENSOR, Kind.OUTPUT, Kind.ARRAYLIKE, Kind.BATCH, Kind.MODULE, Kind.DEVICE})


@dataclass(frozen=True)
class CallSite:
    """A call of a file's function, with what it binds to each parameter."""

    node: cst.Call
    function: FunctionInfo
    bound: tuple[tuple[str, Value], ...]


@dataclass(frozen=True)
class CallContext:
    """The facts of a function's body as the call ``site`` runs it."""

    site: cst.Call
    facts: Facts


def informed_parameters(parameters: dict[str, Value], site: CallSite) -> dict[str, Value]:
    """The parameters a call tells more about than the body does, bound to what it passes (its
    places marked guessed, the call as their origin); empty unless it tells where a tensor,
    module or device is, the sign that where things are matters to the call."""
    informed = {}
    for name, value in site.bound:
        own = parameters.get(name)
        # A value of no known kind still says where it is when the call moved it (``x.to(device)``).
        tells = value.kind is not Kind.UNKNOWN or value.places != NOWHERE
        if own is not None and tells and not _placed_by_the_body(own, name):
            informed[name] = passed_by(value, site.node)
    if not any(value.kind in _PLACED_KINDS and value.places != NOWHERE for value in informed.values()):
        return {}
    return informed


def _placed_by_the_body(value: Value, name: str) -> bool:
    """Does the body say where a parameter is (an input of ``forward()`` is where its module is)?
    A module parameter is "wherever it is" (``with_module(name)``), which says nothing."""
    return value.places != NOWHERE and value.places != with_module(name)


def passed_by(value: Value, call: cst.Call) -> Value:
    """``value`` as a parameter sees it: every place marked inferred, the call as its origin."""
    if value.places == NOWHERE:
        return value
    places = frozenset(replace(place, guessed=True) for place in value.places)
    return value.placed(places, Origin(call, "passed"))


class ContextWalker(_Base):
    """The part of the interpreter that records call sites and walks the call contexts."""

    call_sites: list[CallSite]

    def note_call_site(self, info: FunctionInfo, node: cst.Call, bound: dict[str, Value]) -> None:
        """A call of a file's function met by a recording walk."""
        if self.recording and not self.simple and bound:
            self.call_sites.append(CallSite(node, info, tuple(bound.items())))

    def walk_contexts(self) -> list[CallContext]:
        """Walk every informative call site's context, within the caps."""
        contexts: list[CallContext] = []
        walked: dict[str, set[tuple[tuple[str, Value], ...]]] = {}
        while self.call_sites and len(contexts) < MAX_CONTEXTS:
            site = self.call_sites.pop(0)
            info = site.function
            informed = informed_parameters(self.parameter_values(info), site)
            seen = walked.setdefault(info.key, set())
            binding = tuple(sorted(informed.items()))
            if not informed or binding in seen or len(seen) >= MAX_CONTEXTS_PER_FUNCTION:
                continue
            seen.add(binding)
            contexts.append(CallContext(site.node, self._context_facts(info, informed)))
        return contexts

    def _context_facts(self, info: FunctionInfo, informed: dict[str, Value]) -> Facts:
        """Record ``info``'s body into facts of its own, its parameters informed by a call."""
        saved_facts, pending = self.facts, len(self.pending)
        self.facts = Facts()
        try:
            self_value = self.self_value(info)
            arguments = self.parameter_values(info) | informed
            entry = self.entry_state(info, self.globals_state(), self_value, arguments)
            with self.frame_for(info, self_value):
                self.walk_unit(lambda: self.block(statements(info.node.body)), entry)
            return self.facts
        finally:
            self.facts = saved_facts
            del self.pending[pending:]  # its nested functions are recorded by the plain walk
