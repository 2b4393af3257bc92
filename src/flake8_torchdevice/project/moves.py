"""Helpers that return an argument moved to a device, read with ``ast``: the one a project writes
once and calls from every file (``to_device(batch, device)``).

The reading is parametric: it names the parameter whose value comes back moved and the
parameter naming where to (or CUDA itself), so a file calling the helper substitutes what it
passes, as a call of its own function would bind its parameters. It recognises what such helpers
are made of, every ``return`` being one of:

- the moved parameter moved: ``batch.to(device)``, ``batch.to(device=device, non_blocking=True)``,
  ``x.cuda()`` (CUDA itself);
- its parts moved, in one comprehension over it, with no filter (``{k: v.to(device) for k, v
  in batch.items()}``, ``[t.to(device) for t in batch]``, ``tuple(...)`` or ``type(batch)(...)``
  of one), or handed to the helper itself with the same device (``to_device(v, device)``, the
  recursive form);
- the parameter unchanged where it is not of some kinds: after (or in the ``else`` of) ``if``s
  that test it is one and return (``if isinstance(x, torch.Tensor): return x.to(device)``); the
  move then holds for those kinds only (a list handed back as it is was not moved);
- a local name bound once to one of the above;
- a call of another helper of its file that moves, or of a function defined inside it (the
  recursive helper wrapped in one that checks the batch is not empty), given a part and the same
  device; an empty ``{}``, ``[]`` or ``()`` where the batch is empty (``if not batch:``).

Neither parameter may be rebound; anything else says nothing, and the call is read as any
unknown function's.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from dataclasses import dataclass

from ..imported import DICT, MAPPING, SEQUENCE, TENSOR
from .names import dotted
from .nodes import own_nodes

# A parameter: its position among the positional ones (-1 for a keyword-only one), and its name.
Parameter = tuple[int, str]

# The kinds of argument a helper may tell apart, by the type an ``isinstance`` test names.
_KINDS = {
    "Tensor": TENSOR,
    **dict.fromkeys(("Mapping", "MutableMapping"), MAPPING),
    **dict.fromkeys(("dict", "OrderedDict", "defaultdict"), DICT),
    **dict.fromkeys(("list", "tuple", "Sequence", "MutableSequence", "Iterable", "Collection"), SEQUENCE),
}
# Methods that change a collection in place: a name bound to one is not what it was bound to.
_MUTATORS = frozenset({"append", "extend", "insert", "update", "setdefault", "add", "__setitem__"})
_REBUILDERS = frozenset({"tuple", "list", "dict", "set"})
_PARTS = frozenset({"items", "values"})


@dataclass(frozen=True)
class Move:
    """What a helper returns: the ``moved`` parameter's value, moved to where ``device`` names
    (None: CUDA), when that value is of one of ``kinds`` (empty: of any kind; a helper that hands
    back what it does not know unchanged moves only the kinds it tests for)."""

    moved: Parameter
    device: Parameter | None
    kinds: tuple[str, ...] = ()


def read_move(function: ast.FunctionDef, nodes: list[ast.AST], known: Mapping[str, Move]) -> Move | None:
    """The move every value the function (``nodes``, its own) returns makes, if they all make the
    same one; a call of one of the ``known`` helpers of its file, or of a function defined inside
    it, counts as the move that helper makes."""
    if not _may_move(nodes, known):
        return None
    returned = returned_values(nodes)
    if not returned:
        return None
    known = {**known, **_inner_movers(nodes, known)}
    bound = _bound_once(nodes)
    target = next((found for value in returned if (found := _first_target(value, bound, known)) is not None), None)
    parameters = _parameters(function)
    device = parameters.get(target) if target else None
    rebound = _rebound(nodes)
    if target is None or (target and (device is None or target in rebound)):
        return None
    for moved in parameters.values():
        if moved == device or moved[1] in rebound:
            continue
        reader = _MoveReader(function, Move(moved, device), nodes, bound, known)
        if all(reader.returns_moved(value) for value in returned) and reader.ends_returning(function):
            return Move(moved, device, tuple(sorted(reader.kinds)) if reader.kinds is not None else ())
    return None


def _may_move(nodes: list[ast.AST], known: Mapping[str, Move]) -> bool:
    """Could the function be a mover at all: it calls ``.to`` or ``.cuda``, a ``known`` mover, or
    one it defines (most functions do none of these, and the index reads every one)."""
    for node in nodes:
        if isinstance(node, ast.Attribute) and node.attr in ("to", "cuda"):
            return True
        if isinstance(node, ast.FunctionDef) or (isinstance(node, ast.Name) and node.id in known):
            return True
    return False


def returned_values(nodes: list[ast.AST]) -> list[ast.expr]:
    """What a function (``nodes``, its own) returns; empty when it may return ``None`` (a bare
    ``return``)."""
    returned = [node.value for node in nodes if isinstance(node, ast.Return)]
    return [] if any(value is None for value in returned) else [value for value in returned if value is not None]


def _inner_movers(nodes: list[ast.AST], known: Mapping[str, Move]) -> dict[str, Move]:
    """The functions defined inside a function (``nodes``, its own) that move an argument."""
    found = {}
    for node in nodes:
        if isinstance(node, ast.FunctionDef):
            move = read_move(node, own_nodes(node), known)
            if move is not None:
                found[node.name] = move
    return found


def _parameters(function: ast.FunctionDef) -> dict[str, Parameter]:
    arguments = function.args
    positional = [*arguments.posonlyargs, *arguments.args]
    found = {argument.arg: (position, argument.arg) for position, argument in enumerate(positional)}
    found.update({argument.arg: (-1, argument.arg) for argument in arguments.kwonlyargs})
    return found


def _first_target(value: ast.expr, bound: Mapping[str, ast.expr], known: Mapping[str, Move]) -> str | None:
    """Where the first ``.to()`` / ``.cuda()`` / call of a ``known`` mover in ``value`` (a local
    name read through what it is bound to) moves: a name, or ``""`` for CUDA."""
    if isinstance(value, ast.Name) and value.id in bound:
        value = bound[value.id]
    for node in ast.walk(value):
        target = _move_target(node)
        if target is None and isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in known:
            target = _handed_device(node, known[node.func.id])
        if target is not None:
            return target
    return None


def _handed_device(call: ast.Call, mover: Move) -> str | None:
    """The name ``call`` passes ``mover`` its device under (``""``: the mover moves to CUDA)."""
    if mover.device is None:
        return ""
    passed = _passed(call, *mover.device)
    return passed.id if isinstance(passed, ast.Name) else None


def _move_target(node: ast.AST) -> str | None:
    """For ``x.to(device)`` / ``x.to(device=device)``, ``"device"``; for ``x.cuda()`` or
    ``x.to("cuda")``, ``""``; None for anything else."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return None
    if node.func.attr == "cuda":
        return ""
    if node.func.attr != "to":
        return None
    named = [keyword.value for keyword in node.keywords if keyword.arg == "device"]
    target = named[0] if named else (node.args[0] if node.args else None)
    if isinstance(target, ast.Name):
        return target.id
    if isinstance(target, ast.Constant) and isinstance(target.value, str) and target.value.startswith("cuda"):
        return ""
    return None


def _rebound(nodes: list[ast.AST]) -> set[str]:
    """Names the function assigns to (or deletes, or binds in a loop or ``with``)."""
    found = set()
    for node in nodes:
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            found.add(node.id)
    return found


class _MoveReader:
    """Checks returned values against one move: ``moved`` to ``device`` (None: CUDA)."""

    def __init__(
        self,
        function: ast.FunctionDef,
        move: Move,
        nodes: list[ast.AST],
        bound: Mapping[str, ast.expr],
        known: Mapping[str, Move],
    ) -> None:
        self._moved = move.moved
        self._device = move.device
        self._movers = {**known, function.name: move}  # itself: ``to_device(v, device)``, recursively
        self._bound = bound
        self._ruled_out = _kinds_ruled_out(function, nodes, move.moved[1])
        self._when_empty = _where_empty(nodes, move.moved[1])
        # The kinds of value every return seen so far moves (None: any).
        self.kinds: frozenset[str] | None = None

    def returns_moved(self, value: ast.expr) -> bool:
        if isinstance(value, ast.Name) and value.id == self._moved[1]:  # where it is none of some kinds
            return self._holds_for(self._ruled_out.get(id(value), frozenset()))
        return self._moves(value, frozenset({self._moved[1]}))

    def ends_returning(self, function: ast.FunctionDef) -> bool:
        """Where the function may run off its end (returning ``None``), the move holds only for
        the kinds of value that an ``if`` before returned for."""
        if not _may_run_off(function.body):
            return True
        tests = (statement for statement in function.body if isinstance(statement, ast.If))
        return self._holds_for(frozenset().union(*(_kinds_returned_for(test, self._moved[1]) for test in tests)))

    def _holds_for(self, kinds: frozenset[str]) -> bool:
        """The move holds for ``kinds`` of value only (and those it held for so far)."""
        self.kinds = kinds if self.kinds is None else self.kinds & kinds
        return bool(self.kinds)

    def _moves(self, value: ast.expr, parts: frozenset[str]) -> bool:
        """``value`` is ``parts`` (the moved parameter, or names iterating over it) moved."""
        if isinstance(value, ast.Name) and value.id in self._bound:
            return self._moves(self._bound[value.id], parts)
        if isinstance(value, (ast.Tuple, ast.List, ast.Dict)) and not _elements(value):
            return id(value) in self._when_empty  # ``if not batch: return {}``: nothing to move
        if isinstance(value, (ast.Tuple, ast.List)):
            return all(self._moves(element, parts) for element in value.elts)
        if isinstance(value, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            inner = _iterated_parts(value.generators, parts)
            element = value.value if isinstance(value, ast.DictComp) else value.elt
            return inner is not None and self._moves(element, inner)
        if not isinstance(value, ast.Call):
            return False
        if _rebuilds(value.func, parts) and len(value.args) == 1:
            return not value.keywords and self._moves(value.args[0], parts)
        mover = self._movers.get(value.func.id) if isinstance(value.func, ast.Name) else None
        if mover is not None:
            return self._hands_on(value, parts, mover)
        target = _move_target(value)
        expected = "" if self._device is None else self._device[1]
        return target == expected and _part_of(value.func.value, parts)  # type: ignore[attr-defined]

    def _hands_on(self, call: ast.Call, parts: frozenset[str], mover: Move) -> bool:
        """``to_device(v, device)``: a mover (the helper itself, one of its file's, one defined
        inside it) given a part and the same device."""
        given = _passed(call, *mover.moved)
        if given is None or not _part_of(given, parts):
            return False
        whole = isinstance(given, ast.Name) and given.id == self._moved[1]  # not one of its parts
        if whole and mover.kinds and not self._holds_for(frozenset(mover.kinds)):
            return False
        if not whole and mover.kinds and mover.moved != self._moved:
            return False  # a part of a kind that mover hands back unchanged would stay where it was
        if mover.device is None or self._device is None:
            return mover.device is None and self._device is None
        device = _passed(call, *mover.device)
        return isinstance(device, ast.Name) and device.id == self._device[1]


def _rebuilds(func: ast.expr, parts: frozenset[str]) -> bool:
    """``tuple``, ``list``..., or ``type(batch)``: a collection of the same kind, from its elements."""
    if isinstance(func, ast.Name):
        return func.id in _REBUILDERS
    return (
        isinstance(func, ast.Call)
        and isinstance(func.func, ast.Name)
        and func.func.id == "type"
        and len(func.args) == 1
        and _part_of(func.args[0], parts)
    )


def _passed(call: ast.Call, position: int, name: str) -> ast.expr | None:
    if 0 <= position < len(call.args) and not any(isinstance(arg, ast.Starred) for arg in call.args[: position + 1]):
        return call.args[position]
    return next((keyword.value for keyword in call.keywords if keyword.arg == name), None)


def _part_of(node: ast.expr, parts: frozenset[str]) -> bool:
    """A name in ``parts`` (not ``batch["image"]``: one item moved is not the batch moved)."""
    return isinstance(node, ast.Name) and node.id in parts


def _elements(node: ast.Tuple | ast.List | ast.Dict) -> list[ast.expr | None]:
    return list(node.keys) if isinstance(node, ast.Dict) else list(node.elts)


def _where_empty(nodes: list[ast.AST], name: str) -> set[int]:
    """The ids of the nodes that run only where ``name`` is empty: the body of ``if not batch:``
    or ``if len(batch) == 0:``."""
    found: set[int] = set()
    for node in nodes:
        if isinstance(node, ast.If) and _tests_empty(node.test, name):
            found.update(id(inner) for statement in node.body for inner in ast.walk(statement))
    return found


def _tests_empty(test: ast.expr, name: str) -> bool:
    if isinstance(test, ast.UnaryOp) and isinstance(test.op, ast.Not):
        return isinstance(test.operand, ast.Name) and test.operand.id == name
    if not isinstance(test, ast.Compare) or len(test.ops) != 1 or not isinstance(test.ops[0], ast.Eq):
        return False
    counted = test.left
    return (
        isinstance(counted, ast.Call)
        and isinstance(counted.func, ast.Name)
        and counted.func.id == "len"
        and len(counted.args) == 1
        and _part_of(counted.args[0], frozenset({name}))
        and isinstance(test.comparators[0], ast.Constant)
        and test.comparators[0].value == 0
    )


def _iterated_parts(generators: list[ast.comprehension], parts: frozenset[str]) -> frozenset[str] | None:
    """``parts`` and the names one comprehension binds to their parts (``for k, v in
    batch.items()``: ``k`` and ``v``); None when it iterates over anything else, or filters."""
    if len(generators) != 1 or generators[0].ifs or generators[0].is_async:  # a filter or a flattening
        return None  # moves only some parts
    generator = generators[0]
    iterated = generator.iter
    if isinstance(iterated, ast.Call) and isinstance(iterated.func, ast.Attribute):
        if iterated.func.attr not in _PARTS or iterated.args:
            return None
        iterated = iterated.func.value
    if not _part_of(iterated, parts):
        return None
    return parts | {node.id for node in ast.walk(generator.target) if isinstance(node, ast.Name)}


def _bound_once(nodes: list[ast.AST]) -> Mapping[str, ast.expr]:
    """Local names assigned exactly once, by a plain ``name = value``, to what they hold, and
    never changed in place after (``moved = []``, then ``moved.append(t)``, is not ``[]``)."""
    counts: dict[str, int] = {}
    values: dict[str, ast.expr] = {}
    for node in nodes:
        if isinstance(node, ast.Name) and not isinstance(node.ctx, ast.Load):
            counts[node.id] = counts.get(node.id, 0) + 1
        elif (
            isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and not isinstance(node.ctx, ast.Load)
        ):
            counts[node.value.id] = 2  # ``moved[k] = ...``
        elif isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.attr in _MUTATORS:
            counts[node.value.id] = 2
        if isinstance(node, ast.Assign) and len(node.targets) == 1 and isinstance(node.targets[0], ast.Name):
            values[node.targets[0].id] = node.value
    return {name: value for name, value in values.items() if counts.get(name) == 1}


def _kinds_ruled_out(function: ast.FunctionDef, nodes: list[ast.AST], name: str) -> dict[int, frozenset[str]]:
    """For each node that runs only where ``name`` is not of some kinds (a tensor, a mapping, a
    sequence), by id, those kinds: the ``else`` of an ``if`` testing that it is one, and what
    follows such an ``if`` (and its ``elif``s) whose bodies return."""
    found: dict[int, frozenset[str]] = {}
    for node in nodes:
        kinds = _kinds_tested(node.test, name) if isinstance(node, ast.If) else frozenset()
        if not kinds or not isinstance(node, ast.If):
            continue
        ruled_out = [(statement, kinds) for statement in node.orelse]
        chain = _kinds_returned_for(node, name)
        ruled_out.extend((statement, chain) for statement in _statements_after([function, *nodes], node))
        for statement, kinds_there in ruled_out:
            for inner in ast.walk(statement):
                found[id(inner)] = found.get(id(inner), frozenset()) | kinds_there
    return found


def _kinds_returned_for(statement: ast.If, name: str) -> frozenset[str]:
    """The kinds of ``name`` for which an ``if``/``elif`` chain returns in the body of a test, so
    that what follows it never sees them."""
    if not statement.body or not isinstance(statement.body[-1], ast.Return):
        return frozenset()
    kinds = _kinds_tested(statement.test, name)
    if len(statement.orelse) == 1 and isinstance(statement.orelse[0], ast.If):
        kinds |= _kinds_returned_for(statement.orelse[0], name)
    return kinds


def _may_run_off(body: list[ast.stmt]) -> bool:
    """Control may reach the end of ``body`` (read simply: it does not end in a ``return`` or a
    ``raise``, or an ``if`` whose branches all do)."""
    last = body[-1] if body else None
    if isinstance(last, (ast.Return, ast.Raise)):
        return False
    if isinstance(last, ast.If):
        return not last.orelse or _may_run_off(last.body) or _may_run_off(last.orelse)
    return True


def _statements_after(nodes: list[ast.AST], statement: ast.stmt) -> list[ast.stmt]:
    """The statements after ``statement`` in the block of ``nodes`` holding it."""
    for node in nodes:
        for field in ("body", "orelse", "finalbody"):
            block = getattr(node, field, None)
            if isinstance(block, list) and statement in block:
                return block[block.index(statement) + 1 :]
    return []


def _kinds_tested(test: ast.expr, name: str) -> frozenset[str]:
    """What ``test`` checks ``name`` is: ``isinstance(x, torch.Tensor)``, ``torch.is_tensor(x)``
    and ``hasattr(x, "to")`` a tensor, ``isinstance(x, (list, tuple))`` a sequence..."""
    if not isinstance(test, ast.Call) or len(test.args) not in (1, 2):
        return frozenset()
    subject = test.args[0]
    if not isinstance(subject, ast.Name) or subject.id != name:
        return frozenset()
    called = dotted(test.func) or ""
    if called == "isinstance" and len(test.args) == 2:
        types = test.args[1].elts if isinstance(test.args[1], ast.Tuple) else [test.args[1]]
        return frozenset(_KINDS[spelled] for spelled in map(_spelled, types) if spelled in _KINDS)
    if called == "hasattr" and len(test.args) == 2:
        return frozenset({TENSOR} if isinstance(test.args[1], ast.Constant) and test.args[1].value == "to" else ())
    return frozenset({TENSOR} if called.endswith("is_tensor") and len(test.args) == 1 else ())


def _spelled(node: ast.expr) -> str:
    return (dotted(node) or "").rsplit(".", 1)[-1]
