"""Containers written element by element: what ``container[key] = value`` leaves in the name, and
lists joined by ``+`` or repeated by ``*``.

A store under a literal key replaces that one element of a dict; a store under a key the code
computes replaces an element no literal key names (the code's spelled keys keep theirs). A loop over
every key of a container that stores under each key (``for key, item in batch.items():
batch[key] = item.to(device)``, ``for i in range(len(xs)): xs[i] = ...``) replaces every
element: after that store, every element is the stored value."""

from __future__ import annotations

import libcst as cst

from .domain import UNKNOWN, Kind, Value, any_element, mapping, sequence
from .imports import dotted_name
from .syntax import bound_names, own_nodes, statements


def stored_into(container: Value, key: int | str | None, value: Value, every_element: bool) -> Value | None:
    """The container after ``container[key] = value``; ``None`` where its name keeps its value (a
    tensor written in place stays where it is)."""
    kind = container.kind
    if every_element:
        if kind is Kind.MAPPING:
            return mapping((), value)
        if kind is Kind.SEQUENCE:
            return sequence(item=value)
        if kind is Kind.BATCH and value.places:  # a batch's elements are tensors
            return Value(kind=Kind.BATCH, places=value.places, origin=value.origin)
        return None
    grown = value if container.item is None else any_element((container.item, value))
    if kind is Kind.SEQUENCE:
        return sequence(item=grown)
    if kind is not Kind.MAPPING:
        return None
    if type(key) is str:
        return mapping((*((k, v) for k, v in container.items if k != key), (key, value)), container.item)
    # A key the code computes is most often one of a few it names elsewhere (``for key in
    # ("mask",)``): the entries under the keys it spells stay what they were.
    return mapping(container.items, grown)


def every_element_stores(loop: cst.For) -> tuple[str, frozenset[int]] | None:
    """A loop over every key of a container that puts a value under the key of each iteration, on
    every pass (at the top of a body without ``break`` or ``continue``): the container, and those
    stores by ``id`` of their target. None for any other loop."""
    iterated = _keys_iterated(loop)
    if iterated is None or _leaves_early(loop.body) or _rebinds(loop.body, iterated[1]):
        return None
    container, key = iterated
    found: set[int] = set()
    for line in statements(loop.body):
        if type(line) is not cst.SimpleStatementLine:
            continue
        for small in line.body:
            if type(small) is cst.Assign and len(small.targets) == 1:
                target = small.targets[0].target
                if type(target) is cst.Subscript and _indexes(target, container, key):
                    found.add(id(target))
    return (container, frozenset(found)) if found else None


def _keys_iterated(loop: cst.For) -> tuple[str, str] | None:
    """``(container, key)`` where the loop's key name runs over every key (or index) of the
    container: ``for k in d``, ``d.keys()``, ``for k, v in d.items()``, ``for i in range(len(xs))``,
    ``for i, x in enumerate(xs)``."""
    target, iterable = loop.target, loop.iter
    if type(target) is cst.Tuple and len(target.elements) == 2:
        key = target.elements[0].value
        items_of = _receiver(iterable, "items")
        if items_of is not None:
            return _named(items_of, key)
        enumerated = _sole_argument(iterable, "enumerate")
        return _named(enumerated, key) if enumerated is not None else None
    keys_of = _receiver(iterable, "keys")
    if keys_of is not None:
        return _named(keys_of, target)
    counted = _sole_argument(iterable, "range")
    if counted is not None:
        measured = _sole_argument(counted, "len")
        return _named(measured, target) if measured is not None else None
    return _named(iterable, target)


def _receiver(node: cst.BaseExpression, method: str) -> cst.BaseExpression | None:
    """``d`` of ``d.method()``."""
    if type(node) is cst.Call and not node.args and type(node.func) is cst.Attribute:
        return node.func.value if node.func.attr.value == method else None
    return None


def _sole_argument(node: cst.BaseExpression, function: str) -> cst.BaseExpression | None:
    """``x`` of ``function(x)``."""
    if type(node) is cst.Call and len(node.args) == 1 and not node.args[0].keyword and not node.args[0].star:
        return node.args[0].value if type(node.func) is cst.Name and node.func.value == function else None
    return None


def _named(container: cst.BaseExpression, key: cst.BaseExpression) -> tuple[str, str] | None:
    name = dotted_name(container)
    return (name, key.value) if name is not None and type(key) is cst.Name else None


def _indexes(target: cst.Subscript, container: str, key: str) -> bool:
    if dotted_name(target.value) != container or len(target.slice) != 1:
        return False
    index = target.slice[0].slice
    return type(index) is cst.Index and type(index.value) is cst.Name and index.value.value == key


def _rebinds(body: cst.BaseSuite, name: str) -> bool:
    """Is ``name`` bound anew in the body (``key = f"{key}_gpu"``): then a store under it is no
    longer under the key the loop is at."""
    for node in own_nodes(body):
        targets: list[cst.BaseExpression] = []
        if type(node) is cst.Assign:
            targets = [target.target for target in node.targets]
        elif (
            type(node) is cst.AugAssign
            or type(node) is cst.AnnAssign
            or type(node) is cst.NamedExpr
            or type(node) is cst.For
        ):
            targets = [node.target]
        if any(name in bound_names(target) for target in targets):
            return True
    return False


def _leaves_early(body: cst.BaseSuite) -> bool:
    return any(type(node) is cst.Break or type(node) is cst.Continue for node in own_nodes(body))


def joined_lists(left: Value, right: Value, repeated: bool) -> Value:
    """``[t] * n``: the same elements, repeated; ``a + b``: the elements of both (one the code
    does not show may add any)."""
    sides = [side for side in (left, right) if side.kind is Kind.SEQUENCE or not repeated]
    return sequence(item=any_element([side.element() if side.kind is Kind.SEQUENCE else UNKNOWN for side in sides]))
