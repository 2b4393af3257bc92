"""Lazy initialisation: code that builds something once and keeps it (``if self.proj is None:
self.proj = nn.Linear(...)``), so that it does not run at every call of the method around it."""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence

import libcst as cst

from .imports import dotted_name
from .literals import string_value
from .syntax import children, own_attribute, own_nodes, statements

# Containers whose items a module registers (moved, trained and saved with it).
_MODULE_CONTAINERS = frozenset({"ModuleDict", "ModuleList"})
# ``lazily_set``'s answer for a block that runs once: every attribute it sets is kept.
EVERY_ATTRIBUTE = frozenset({"*"})


def returns_once_done(statement: cst.CSTNode, body: Sequence[cst.CSTNode], owner: str) -> bool:
    """``if self.built: return`` in a body that sets ``self.built = True``: what follows runs once."""
    if type(statement) is not cst.If or statement.orelse is not None:
        return False
    flag = own_attribute(dotted_name(statement.test), owner)
    last = statements(statement.body)[-1]
    returns = type(last) is cst.SimpleStatementLine and type(last.body[-1]) is cst.Return
    return flag is not None and returns and sets_flag(body, owner, flag)


def lazily_set(
    test: cst.BaseExpression, body: cst.BaseSuite, owner: str | None, methods: Mapping[str, cst.FunctionDef]
) -> frozenset[str]:
    """The attributes of ``owner`` that an ``if`` finds not set yet, so that its block sets them
    once and they are kept: ``self.x is None``, ``not hasattr(self, "x")``, ``key not in
    self.layers`` where the block registers what it builds (``self.add_module(...)``); every one
    under ``if not self.built:`` (alone or as a condition of an ``and``) in a block that sets
    ``self.built = True``, itself or in the method of the class (``methods``) it calls on ``self``."""
    if owner is None:
        return frozenset()
    block = statements(body)
    for flag in _unset_flags(test, owner):
        called = (statements(method.body) for method in _called_on(block, owner, methods))
        if sets_flag(block, owner, flag) or any(sets_flag(done, owner, flag) for done in called):
            return EVERY_ATTRIBUTE
    return frozenset({*_unset_attributes(test, owner), *_cached_by_key(test, owner, block, methods)})


def _unset_flags(test: cst.BaseExpression, owner: str) -> Iterator[str]:
    """``x`` of ``not self.x``, alone or as a condition of an ``and``."""
    if type(test) is cst.BooleanOperation and type(test.operator) is cst.And:
        yield from _unset_flags(test.left, owner)
        yield from _unset_flags(test.right, owner)
    elif type(test) is cst.UnaryOperation and type(test.operator) is cst.Not:
        flag = own_attribute(dotted_name(test.expression), owner)
        if flag is not None:
            yield flag


def _called_on(
    block: Sequence[cst.CSTNode], owner: str, methods: Mapping[str, cst.FunctionDef]
) -> Iterator[cst.FunctionDef]:
    """The methods of ``methods`` that ``block`` calls on ``owner`` (``self.build(x)``)."""
    for statement in block:
        for node in own_nodes(statement):
            if type(node) is cst.Call and type(node.func) is cst.Attribute and dotted_name(node.func.value) == owner:
                method = methods.get(node.func.attr.value)
                if method is not None:
                    yield method


def _cached_by_key(
    test: cst.BaseExpression, owner: str, block: Sequence[cst.CSTNode], methods: Mapping[str, cst.FunctionDef]
) -> Iterator[str]:
    """``layers`` of ``key not in self.layers``, where the block registers the module it builds
    (``self.add_module(name, layer)``) or the cache registers what it holds (``self.layers =
    nn.ModuleDict()`` in ``__init__``): a cache of layers, each built once for its key."""
    if type(test) is not cst.Comparison:
        return
    registers = _registers_a_module(block, owner)
    for target in test.comparisons:
        cache = own_attribute(dotted_name(target.comparator), owner)
        if cache is None or type(target.operator) is not cst.NotIn:
            continue
        if registers or _made_a_module_container(cache, methods.get("__init__")):
            yield cache


def _made_a_module_container(attribute: str, init: cst.FunctionDef | None) -> bool:
    """Does ``__init__`` make ``self.<attribute>`` an ``nn.ModuleDict`` / ``nn.ModuleList``?"""
    if init is None or not init.params.params:
        return False
    target = f"{init.params.params[0].name.value}.{attribute}"
    return any(
        type(node) is cst.Assign
        and type(node.value) is cst.Call
        and (dotted_name(node.value.func) or "").rsplit(".", 1)[-1] in _MODULE_CONTAINERS
        and any(dotted_name(assigned.target) == target for assigned in node.targets)
        for node in own_nodes(init.body)
    )


def _registers_a_module(block: Sequence[cst.CSTNode], owner: str) -> bool:
    registering = {f"{owner}.add_module", f"{owner}.register_module"}
    return any(
        type(node) is cst.Call and dotted_name(node.func) in registering
        for statement in block
        for node in own_nodes(statement)
    )


def sets_flag(body: Sequence[cst.CSTNode], owner: str, flag: str) -> bool:
    """Does ``body`` (not the functions in it) assign ``True`` to ``owner.flag``?"""
    return any(
        type(node) is cst.Assign
        and type(node.value) is cst.Name
        and node.value.value == "True"
        and any(dotted_name(target.target) == f"{owner}.{flag}" for target in node.targets)
        for statement in body
        for node in own_nodes(statement)
    )


def _unset_attributes(test: cst.BaseExpression, self_name: str) -> set[str]:
    """Attributes a test finds unset: ``self.x is None``, ``not hasattr(self, "x")``."""
    found: set[str] = set()
    stack: list[cst.CSTNode] = [test]
    while stack:
        node = stack.pop()
        if type(node) is cst.Comparison:
            name = dotted_name(node.left)
            if name is not None and name.startswith(self_name + "."):
                found.add(name.split(".", 1)[1])
        elif type(node) is cst.Call and dotted_name(node.func) in ("hasattr", "getattr") and len(node.args) >= 2:
            attribute = string_value(node.args[1].value)
            if attribute is not None:
                found.add(attribute)
        stack.extend(children(node))
    return found
