"""The flow state: everything the analysis knows at one point of a function, in one value.

Names (``x``) and attribute paths (``self.net``, ``args.device``) map to values; beside them,
the facts that narrow with conditions and meet at joins: whether a CUDA check guards this
point, whether grad is enabled, where a factory without ``device=`` allocates. A branch works
on a copy; where branches meet their states are joined; an unreachable state (after
``return``/``raise``) joins as nothing.

A function's state reads the module's names through ``outer`` (shared, never copied, never
written): branches copy and joins visit only the names the function itself binds.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

import libcst as cst

from ..knowledge.api import FX_TRACING_TESTS
from .domain import (
    CPU,
    CPU_PLACE,
    TENSOR_KINDS,
    Kind,
    Origin,
    Place,
    Value,
    must_be_on_cpu,
    on_the_cpu_in_a_branch,
)
from .imports import dotted_name
from .literals import constant_truth, is_none_literal
from .polarity import Polarity


class State:
    __slots__ = (
        "cuda_by_default",
        "cuda_checked",
        "cuda_refused",
        "cuda_required",
        "default_places",
        "grad_enabled",
        "legacy_places",
        "names",
        "outer",
        "owners",
        "reachable",
    )

    def __init__(
        self,
        names: dict[str, Value] | None = None,
        cuda_checked: bool = False,
        grad_enabled: bool = True,
        default_places: frozenset[Place] = CPU,
        reachable: bool = True,
        owners: set[str] | None = None,
        cuda_refused: bool = False,
        outer: dict[str, Value] | None = None,
        cuda_by_default: Origin | None = None,
        legacy_places: frozenset[Place] = CPU,
        cuda_required: bool = False,
    ) -> None:
        self.names: dict[str, Value] = names if names is not None else {}
        # The enclosing scope's names (the module's, for a function), read when ``names`` lacks one.
        self.outer = outer
        # Code here runs only where CUDA was checked for (``if torch.cuda.is_available():``).
        self.cuda_checked = cuda_checked
        # Code here runs only where CUDA is not in use (``if not use_cuda:``, ``if device == "cpu":``):
        # a device chosen by availability is the CPU here.
        self.cuda_refused = cuda_refused
        # Code here runs only after a use of CUDA that fails without it (``model.cuda()`` on every
        # path before): where CUDA is missing, the function has raised already.
        self.cuda_required = cuda_required
        # Code here runs where a flag's default chose CUDA (``if use_gpu:`` with ``use_gpu=True``):
        # the default, for a finding to cite.
        self.cuda_by_default = cuda_by_default
        # Must grad be enabled here (False under ``torch.no_grad()`` on some path).
        self.grad_enabled = grad_enabled
        # Where a factory without ``device=`` allocates (``with torch.device(d):`` changes it).
        self.default_places = default_places
        # Where ``torch.Tensor(data)`` allocates: only ``torch.set_default_tensor_type`` changes it
        # (the legacy constructor ignores ``set_default_device``: semantics/
        # holds_legacy_constructor_ignores_the_default_device.py).
        self.legacy_places = legacy_places
        self.reachable = reachable
        # Names with attribute paths bound (``self`` for ``self.net``): rebinding one forgets them.
        self.owners: set[str] = (
            owners if owners is not None else {name.split(".", 1)[0] for name in self.names if "." in name}
        )

    def copy(self) -> State:
        return State(
            dict(self.names),
            self.cuda_checked,
            self.grad_enabled,
            self.default_places,
            self.reachable,
            set(self.owners),
            self.cuda_refused,
            self.outer,
            self.cuda_by_default,
            self.legacy_places,
            self.cuda_required,
        )

    def get(self, name: str) -> Value | None:
        value = self.names.get(name)
        if value is None and self.outer is not None:
            return self.outer.get(name)
        return value

    def visible(self) -> dict[str, Value]:
        """Every name this state can read: its own over the enclosing ones."""
        return self.names if self.outer is None else {**self.outer, **self.names}

    def bind(self, name: str, value: Value) -> None:
        """Bind a name or attribute path; a rebound name forgets its old attributes."""
        names = self.names
        if "." in name:
            self.owners.add(name.split(".", 1)[0])
        elif name in self.owners:
            prefix = name + "."
            for key in [key for key in names if key.startswith(prefix)]:
                del names[key]
        names[name] = value

    def forget(self, name: str) -> None:
        self.names.pop(name, None)

    def join(self, other: State) -> State:
        """Both paths meet: a name bound on one path only keeps that binding (the other path
        would fail with NameError before using it)."""
        if not other.reachable:
            return self
        if not self.reachable:
            return other
        mine_names, theirs_names = self.names, other.names
        if self.cuda_refused != other.cuda_refused:
            # Where CUDA is not in use, a CPU tensor is where the device is: it cannot clash later.
            # Not one that path left as it was: on the other, CUDA's, it is on the CPU all the same.
            if self.cuda_refused:
                mine_names = _without_cpu(mine_names, theirs_names)
            else:
                theirs_names = _without_cpu(theirs_names, mine_names)
        names = dict(mine_names)
        for name, value in theirs_names.items():
            mine = names.get(name)
            if mine is None:
                mine = self.outer.get(name) if self.outer is not None else None
                names[name] = value if mine is None else mine.join(value)
            elif mine is not value:
                names[name] = mine.join(value)
        for name, mine in mine_names.items():  # bound here only on my path: the outer value on theirs
            if name not in theirs_names and self.outer is not None and name in self.outer:
                names[name] = mine.join(self.outer[name])
        if self.cuda_refused and other.cuda_checked:
            _decided_by_cuda(names, mine_names)
        elif other.cuda_refused and self.cuda_checked:
            _decided_by_cuda(names, theirs_names)
        if self.cuda_checked != other.cuda_checked:
            found, elsewhere = (mine_names, theirs_names) if self.cuda_checked else (theirs_names, mine_names)
            _set_where_cuda_was_found(names, found, elsewhere, self.outer or {})
        return State(
            names,
            self.cuda_checked and other.cuda_checked,
            self.grad_enabled and other.grad_enabled,
            self.default_places | other.default_places,
            owners=self.owners | other.owners,
            cuda_refused=self.cuda_refused and other.cuda_refused,
            outer=self.outer,
            cuda_by_default=self.cuda_by_default if self.cuda_by_default is other.cuda_by_default else None,
            legacy_places=self.legacy_places | other.legacy_places,
            cuda_required=self.cuda_required and other.cuda_required,
        )

    def same_as(self, other: State) -> bool:
        """Equal for the loop fixpoint (origins are not compared)."""
        return (
            self.reachable == other.reachable
            and self.cuda_checked == other.cuda_checked
            and self.cuda_refused == other.cuda_refused
            and self.cuda_required == other.cuda_required
            and self.cuda_by_default is other.cuda_by_default
            and self.grad_enabled == other.grad_enabled
            and self.default_places == other.default_places
            and self.legacy_places == other.legacy_places
            and self.names == other.names
        )


def _without_cpu(names: dict[str, Value], other_path: dict[str, Value]) -> dict[str, Value]:
    """The values of a path without CUDA, as the join sees them: one the path left as it was is the
    other path's, where CUDA is (``h`` on the module's device, only narrowed there by ``if
    torch.cuda.is_available(): ...``, can still clash later); one it made there loses its CPU."""
    kept = {}
    for name, value in names.items():
        other = other_path.get(name)
        if other is not None and (other is value or _narrowed_alike(value, other)):
            kept[name] = other
        else:
            kept[name] = value.without_cpu()
    return kept


def _narrowed_alike(refused: Value, other: Value) -> bool:
    """Is the value of the path without CUDA the other path's, only seen from there (``off_cuda``):
    the same origin, left as it was before the check on both paths?"""
    return other.origin is not None and other.origin is refused.origin and other.off_cuda() == refused


def unreachable() -> State:
    return State(reachable=False)


def mark_cpu_branches(joined: State, before: State, branches: tuple[State, ...]) -> None:
    """Where the branches of an ``if`` meet, a name one branch bound to a tensor made on the CPU
    (``else: b = torch.zeros(n)``) while the others put it elsewhere is on the CPU whenever that
    branch runs: the joined value says so, for a finding to cite what made it. 0-dim tensors are
    left out: they meet any device as operands."""
    for branch in branches:
        if not branch.reachable:
            continue
        for name, value in branch.names.items():
            if value.kind is not Kind.TENSOR or value.scalar or not must_be_on_cpu(value):
                continue
            meeting = joined.names.get(name)
            if value is before.get(name) or meeting is None or meeting.places == CPU or CPU_PLACE not in meeting.places:
                continue  # bound before the branch, on the CPU on every path, or not on the CPU at all
            joined.names[name] = on_the_cpu_in_a_branch(meeting, value.origin)


def refuted_by_a_value(state: State, test: cst.BaseExpression, truth: bool) -> bool:
    """Can ``test`` not be ``truth`` here: ``x is None`` (true) or ``x is not None`` (false) where
    ``x`` holds a tensor, a module or a device that the code made or a call passed, which is never
    None? A call that passes a state (``step(x, h)``) never runs the ``if h is None:`` branch that
    makes a fresh one. A parameter taken for a tensor by its use alone may still be None. And a
    constant: the branch of ``if False:`` never runs; nor, on real tensors, the branch a test
    takes only while torch.fx traces symbolically (``if is_torch_fx_proxy(ids):``)."""
    if constant_truth(test) is (not truth):
        return True
    if truth and type(test) is cst.Call and (dotted_name(test.func) or "").rsplit(".", 1)[-1] in FX_TRACING_TESTS:
        return True
    if type(test) is not cst.Comparison or len(test.comparisons) != 1:
        return False
    target = test.comparisons[0]
    if not is_none_literal(target.comparator):
        return False
    if type(target.operator) not in (cst.Is, cst.IsNot) or type(test.left) is not cst.Name:
        return False
    value = state.get(test.left.value)
    never_none = (
        value is not None
        and value.origin is not None
        and (value.kind in TENSOR_KINDS or value.kind in (Kind.MODULE, Kind.DEVICE))
    )
    return never_none and truth is (type(target.operator) is cst.Is)


def _set_where_cuda_was_found(
    joined: dict[str, Value], found: dict[str, Value], elsewhere: dict[str, Value], outer: Mapping[str, Value]
) -> None:
    """A constant that differs between the path where CUDA was found and the other (``cpu_only =
    True``, then ``if torch.cuda.is_available(): cpu_only = False``) is a check: true, or false,
    only with CUDA. A constant alone, where CUDA was found, is no check (``debug = False``)."""
    for name, value in found.items():
        other = elsewhere.get(name) or outer.get(name)
        if value.truth is not None and other is not None and other.truth is not None and value.truth is not other.truth:
            joined[name] = replace(joined[name], polarity=Polarity.POSITIVE if value.truth else Polarity.NEGATIVE)


def _decided_by_cuda(joined: dict[str, Value], refused: dict[str, Value]) -> None:
    """Where a path without CUDA meets one with it: a flag the first path turned off (``use_cuda =
    False``, a check there) is true only with CUDA, whatever its default was: a plain check."""
    for name, value in refused.items():
        if value.kind is Kind.SCALAR and value.polarity is Polarity.POSITIVE and value.origin is None:
            merged = joined.get(name)
            if merged is not None and merged.polarity is Polarity.POSITIVE:
                joined[name] = replace(merged, origin=None)
