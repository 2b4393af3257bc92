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

Where a function's every call is known (nothing outside the file calls it: a private helper, a
script's or a notebook's function) and each one was walked as a context, the contexts are every
way the function runs: a guess of the plain walk that no context repeats rests on an input no call
passes (``closed_functions``; ``add_noise(img)`` fed CPU batches only).

Bounded: contexts are walked once per distinct binding, at most ``MAX_CONTEXTS_PER_FUNCTION``
per function and ``MAX_CONTEXTS`` per file; a context walk records call sites too, so a chain of
helpers is followed as far as the caps allow. In simple mode (past a unit's budget) nothing is
recorded.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

import libcst as cst

from .definitions import Definitions, FunctionInfo
from .domain import NOWHERE, Kind, Origin, Value, with_module
from .facts import CallContext, Facts
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
class NotedCall:
    """A call of a file's function as one recording walk met it: in the plain walk of ``caller``
    (None: the module) or in a context of it; ``site`` is what it binds, None where it can tell
    the body nothing (no arguments, or met in simple mode)."""

    node: cst.Call
    caller: str | None
    in_context: bool
    site: CallSite | None


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
    if not any(_tells_where(value) for value in informed.values()):
        return {}
    return informed


def _tells_where(value: Value) -> bool:
    """A tensor, module or device whose place is known, or a loader (its batches' place is
    knowledge: a DataLoader of CPU tensors yields CPU batches)."""
    return (value.kind in _PLACED_KINDS and value.places != NOWHERE) or value.kind is Kind.LOADER


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
    # Every call of a file's functions the recording walks met, by callee key; the callees some
    # of whose runs no context stands for (a call past the caps, a context walked in simple mode).
    noted_calls: dict[str, list[NotedCall]]
    partly_walked: set[str]
    in_context: bool

    def note_call_site(self, info: FunctionInfo, node: cst.Call, bound: dict[str, Value]) -> None:
        """A call of a file's function met by a recording walk."""
        if not self.recording:
            return
        caller = self.frame.function.key if self.frame.function is not None else None
        site = CallSite(node, info, tuple(bound.items())) if bound and not self.simple else None
        self.noted_calls.setdefault(info.key, []).append(NotedCall(node, caller, self.in_context, site))
        if site is not None:
            self.call_sites.append(site)

    def walk_contexts(self) -> list[CallContext]:
        """Walk every informative call site's context, within the caps."""
        contexts: list[CallContext] = []
        walked: dict[str, set[tuple[tuple[str, Value], ...]]] = {}
        while self.call_sites:
            site = self.call_sites.pop(0)
            info = site.function
            informed = informed_parameters(self.parameter_values(info), site)
            seen = walked.setdefault(info.key, set())
            binding = tuple(sorted(informed.items()))
            if not informed or binding in seen:
                continue
            if len(seen) >= MAX_CONTEXTS_PER_FUNCTION or len(contexts) >= MAX_CONTEXTS:
                self.partly_walked.add(info.key)
                continue
            seen.add(binding)
            contexts.append(CallContext(site.node, self._context_facts(info, informed)))
        return contexts

    def closed_functions(self) -> frozenset[str]:
        """The functions whose contexts are every way they run (see the module's docstring)."""
        closure = _Closure(self.definitions, self.noted_calls, frozenset(self.partly_walked), self._informs)
        return frozenset(key for key in self.noted_calls if closure.closed(key, frozenset()))

    def _informs(self, call: NotedCall) -> bool:
        """Was the call walked as a context (it tells the body where something is)? Asked, as
        ``walk_contexts`` asks, once every walk is done, and only of the calls that decide."""
        site = call.site
        return site is not None and bool(informed_parameters(self.parameter_values(site.function), site))

    def _context_facts(self, info: FunctionInfo, informed: dict[str, Value]) -> Facts:
        """Record ``info``'s body into facts of its own, its parameters informed by a call."""
        saved_facts, pending = self.facts, len(self.pending)
        self.facts, self.in_context = Facts(), True
        try:
            self_value = self.self_value(info)
            arguments = self.parameter_values(info) | informed
            entry = self.entry_state(info, self.globals_state(), self_value, arguments)
            with self.frame_for(info, self_value):
                self.walk_unit(lambda: self.block(statements(info.node.body)), entry)
            if self.simple:
                self.partly_walked.add(info.key)
            return self.facts
        finally:
            self.facts, self.in_context = saved_facts, False
            del self.pending[pending:]  # its nested functions are recorded by the plain walk


class _Closure:
    """Which functions run only as their walked contexts: a function is closed when nothing
    outside the file calls it and every call of it is covered (plain data; recursive methods, no
    closures, so that nothing of the tree is left in a reference cycle)."""

    def __init__(
        self,
        definitions: Definitions,
        noted: dict[str, list[NotedCall]],
        partly: frozenset[str],
        informs: Callable[[NotedCall], bool],
    ) -> None:
        self.definitions, self.noted, self.partly, self.informs = definitions, noted, partly, informs
        self.functions = {info.key: info for info in definitions.functions.values()}
        self.verdicts: dict[str, bool] = {}

    def closed(self, key: str, visiting: frozenset[str]) -> bool:
        if key not in self.verdicts:
            info = self.functions.get(key)
            self.verdicts[key] = (
                key not in visiting
                and info is not None
                and key not in self.partly
                and self.definitions.called_only_here(info)
                and all(self.covered(site, key, visiting | {key}) for site in self.definitions.calls_of(info))
            )
        return self.verdicts[key]

    def covered(self, site: cst.Call, key: str, visiting: frozenset[str]) -> bool:
        """Is every run of the call ``site`` a walked context? Where its plain walk told the body
        nothing, its caller must itself run only as its contexts, which all did."""
        noted = [call for call in self.noted.get(key, []) if call.node is site]
        plain = [call for call in noted if not call.in_context]
        if plain and all(self.informs(call) for call in plain):
            return True
        contexts = [call for call in noted if call.in_context]
        callers = {call.caller for call in plain}
        caller = next(iter(callers)) if len(callers) == 1 else None
        return (
            bool(contexts)
            and all(self.informs(call) for call in contexts)
            and caller is not None
            and self.closed(caller, visiting)
        )
