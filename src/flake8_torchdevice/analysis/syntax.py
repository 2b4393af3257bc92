"""Walking libcst trees fast, and the small syntactic helpers every layer shares.

libcst's visitor machinery rebuilds every node it visits and costs about as much as the parse;
reading the child fields directly costs a tenth of it. Node types are compared exactly
(``type(node) is cst.Call``): libcst's classes are ABCs, slow to ``isinstance``, never subclassed.
"""

from __future__ import annotations

import dataclasses
import functools
import operator
import typing
from collections.abc import Callable, Collection, Iterator, Sequence
from typing import cast

import libcst as cst
from libcst._nodes import op as _operators
from libcst._nodes import whitespace as _whitespace

from ..knowledge import api
from ..notebooks import CELL_END_MARKER
from .imports import dotted_name
from .literals import string_value


def _child_fields(node_type: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(node_type) if _may_hold_code(f.type))


def _may_hold_code(annotation: object) -> bool:
    """Can a field declared so hold code? Not a string, a literal, a sentinel, a bracket, an
    operator token (``+``, ``=``, ``,``) or whitespace (comments and blank lines included):
    skipping those spares a call for every name, number and operator, and for the end of every
    statement line."""
    arguments = typing.get_args(annotation)
    if typing.get_origin(annotation) is typing.Literal:
        return False
    if arguments:  # Optional[...], Union[...], Sequence[...]
        return any(_may_hold_code(argument) for argument in arguments)
    if not isinstance(annotation, type):
        return True  # a form we do not read: keep the field
    return annotation not in _NEVER_CODE and getattr(annotation, "__module__", "") not in _TOKEN_MODULES


_NEVER_CODE = frozenset(
    {
        str,
        bool,
        type(None),
        cst.MaybeSentinel,
        cst.Asynchronous,
        cst.LeftSquareBracket,
        cst.RightSquareBracket,
        cst.LeftCurlyBrace,
        cst.RightCurlyBrace,
        cst.LeftParen,
        cst.RightParen,
    }
)
# libcst's modules of operator tokens and of whitespace: no class of either holds code.
_TOKEN_MODULES = frozenset({_operators.__name__, _whitespace.__name__})


@functools.cache
def is_a(kind: type, base: type) -> bool:
    """``issubclass``, remembered: asked millions of times about a few hundred types."""
    return issubclass(kind, base)


_IS_NODE: dict[type, bool] = {}


def _is_node(kind: type) -> bool:
    known = _IS_NODE.get(kind)
    if known is None:
        known = _IS_NODE[kind] = issubclass(kind, cst.CSTNode)
    return known


def _field_reader(node_type: type) -> Callable[[cst.CSTNode], tuple[object, ...]] | None:
    """Reads every field of ``node_type`` that can hold code in one call (None: there is none)."""
    names = _child_fields(node_type)
    if not names:
        return None
    if len(names) == 1:
        read_one = operator.attrgetter(names[0])
        return lambda node: (read_one(node),)
    return operator.attrgetter(*names)


_READERS: dict[type, Callable[[cst.CSTNode], tuple[object, ...]] | None] = {}


def children(node: cst.CSTNode) -> list[cst.CSTNode]:
    """The child nodes that can hold code (not whitespace, commas or parentheses), in order."""
    node_type = type(node)
    try:
        read = _READERS[node_type]
    except KeyError:
        read = _READERS[node_type] = _field_reader(node_type)
    found: list[cst.CSTNode] = []
    if read is None:  # a name, a number, a string: most nodes
        return found
    for value in read(node):
        kind = type(value)
        if kind is tuple or kind is list:
            found.extend(cast("Sequence[cst.CSTNode]", value))  # libcst's sequence fields hold only nodes
        elif _is_node(kind):  # not None or a sentinel
            found.append(cast(cst.CSTNode, value))
    return found


# What starts a scope of its own inside a function's body.
_OWN_SCOPES = (cst.FunctionDef, cst.ClassDef, cst.Lambda)


def own_nodes(body: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """Every node of a function's body but those of the functions, classes and lambdas in it."""
    pending = [body]
    while pending:
        node = pending.pop()
        yield node
        pending.extend(child for child in children(node) if type(child) not in _OWN_SCOPES)


def every_node(root: cst.CSTNode) -> Iterator[cst.CSTNode]:
    """``root`` and every node under it, those of nested functions and classes too."""
    pending = [root]
    while pending:
        node = pending.pop()
        yield node
        pending.extend(children(node))


def path_to(root: cst.CSTNode, target: cst.CSTNode) -> list[cst.CSTNode] | None:
    """The nodes from ``root`` down to ``target``, both included."""
    pending: list[list[cst.CSTNode]] = [[root]]
    while pending:
        path = pending.pop()
        if path[-1] is target:
            return path
        pending.extend([*path, child] for child in children(path[-1]))
    return None


def statements(suite: cst.BaseSuite) -> Sequence[cst.BaseStatement]:
    if type(suite) is cst.IndentedBlock:
        return suite.body
    # ``if x: y`` on one line: a BaseSuite that is not an IndentedBlock is a SimpleStatementSuite.
    return [cst.SimpleStatementLine(body=cast(cst.SimpleStatementSuite, suite).body)]


def surely_assigned(body: Sequence[cst.BaseStatement], owner: str) -> frozenset[str]:
    """The attributes of ``owner`` (``self``) that ``body`` assigns on every path that leaves it
    normally: at its top level, in a ``with`` block, or in both arms of an ``if``. Nothing after
    a statement that may return counts (a path leaves before it), nor loops, ``try`` or ``match``."""
    assigned: set[str] = set()
    for statement in body:
        if any(type(node) is cst.Return for node in own_nodes(statement)):
            break
        assigned |= _assigned_by(statement, owner)
    return frozenset(assigned)


def _assigned_by(statement: cst.BaseStatement, owner: str) -> frozenset[str]:
    if type(statement) is cst.SimpleStatementLine:
        return frozenset(name for small in statement.body for name in _assigned_by_small(small, owner))
    if type(statement) is cst.With:
        return surely_assigned(statements(statement.body), owner)
    if type(statement) is cst.If and statement.orelse is not None:
        orelse = statement.orelse
        other = [orelse] if type(orelse) is cst.If else statements(orelse.body)
        return surely_assigned(statements(statement.body), owner) & surely_assigned(other, owner)
    return frozenset()


def _assigned_by_small(small: cst.BaseSmallStatement, owner: str) -> Iterator[str]:
    """``self.x = ...``, ``self.x += ...``, ``self.register_buffer("x", ...)``."""
    targets: list[cst.BaseExpression] = []
    if type(small) is cst.Assign:
        targets = [target.target for target in small.targets]
    elif type(small) is cst.AugAssign or (type(small) is cst.AnnAssign and small.value is not None):
        targets = [small.target]
    elif type(small) is cst.Expr and type(small.value) is cst.Call:
        func = small.value.func
        if type(func) is cst.Attribute and type(func.value) is cst.Name and func.value.value == owner:
            registered = registered_attribute(small.value, func.attr.value)
            if registered is not None:
                yield registered
    for target in targets:
        if type(target) is cst.Attribute and type(target.value) is cst.Name and target.value.value == owner:
            yield target.attr.value


def registered_attribute(call: cst.Call, method: str) -> str | None:
    """The attribute ``self.<method>(...)`` assigns by name, if it is one of a module's
    registering methods (``self.register_buffer("mask", m)``: ``mask``)."""
    if method not in api.REGISTERING_METHODS or not call.args:
        return None
    return string_value(call.args[0].value)


def bound_names(target: cst.CSTNode) -> Iterator[str]:
    """Names bound by an assignment, ``for`` or comprehension target."""
    if type(target) is cst.Name:
        yield target.value
    elif type(target) is cst.Tuple or type(target) is cst.List:
        for element in target.elements:
            yield from bound_names(element.value)
    elif type(target) is cst.StarredElement:
        yield from bound_names(target.value)


def all_params(params: cst.Parameters) -> Iterator[cst.Param]:
    yield from params.posonly_params
    yield from params.params
    if type(params.star_arg) is cst.Param:
        yield params.star_arg
    yield from params.kwonly_params
    if params.star_kwarg is not None:
        yield params.star_kwarg


def keyword_argument(call: cst.Call, name: str) -> cst.BaseExpression | None:
    for arg in call.args:
        if arg.keyword is not None and arg.keyword.value == name:
            return arg.value
    return None


def positional_argument(call: cst.Call, index: int) -> cst.BaseExpression | None:
    positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    return positional[index] if index < len(positional) else None


def docstring(node: cst.Module | cst.FunctionDef | cst.ClassDef) -> str | None:
    """The docstring of a module, function or class, if it has one."""
    body = node.body if type(node) is cst.Module else cast(cst.BaseSuite, node.body).body
    first = body[0] if body else None
    if type(first) is cst.SimpleStatementLine:
        first = first.body[0] if first.body else None
    if type(first) is not cst.Expr:
        return None
    if type(first.value) is cst.SimpleString:  # nearly always: read without compiling it
        return string_value(first.value)
    try:
        return node.get_docstring(clean=False)
    except Exception:  # an odd string literal: no docstring we can read
        return None


def fits_tensor_move(call: cst.Call, method: str) -> bool:
    """Could this call of ``method`` be a tensor's ``.to()`` / ``.cuda()`` / ``.cpu()``, by its arguments?"""
    return api.fits_tensor_move(method, *_argument_shape(call))


def fits_module_method(call: cst.Call, method: str) -> bool:
    """Could this call of ``method`` be ``nn.Module``'s (``model.train(False)``, not ``train(dataset=d)``)?"""
    return api.fits_module_method(method, *_argument_shape(call))


def _argument_shape(call: cst.Call) -> tuple[int, frozenset[str], bool]:
    """How many positional arguments a call passes, its keywords, and whether it unpacks any."""
    positional = sum(1 for arg in call.args if arg.keyword is None and not arg.star)
    keywords = frozenset(arg.keyword.value for arg in call.args if arg.keyword is not None)
    return positional, keywords, any(arg.star for arg in call.args)


def range_stop(iterable: cst.BaseExpression) -> cst.BaseExpression | None:
    """``n`` in ``range(n)`` or ``range(start, n)``: the body runs only when it is above the start."""
    if type(iterable) is not cst.Call or type(iterable.func) is not cst.Name or iterable.func.value != "range":
        return None
    positional = [arg.value for arg in iterable.args if arg.keyword is None and not arg.star]
    return positional[1] if len(positional) >= 2 else positional[0] if positional else None


def literal_index(node: cst.Subscript) -> int | str | None:
    """``x[0]``, ``x[-1]``, ``batch["image"]``: the one literal index of a subscript."""
    if len(node.slice) != 1 or type(node.slice[0].slice) is not cst.Index:
        return None
    index = node.slice[0].slice.value
    if type(index) is cst.Integer:
        return int(index.value, 0)
    if (
        type(index) is cst.UnaryOperation
        and type(index.operator) is cst.Minus
        and type(index.expression) is cst.Integer
    ):
        return -int(index.expression.value, 0)
    return string_value(index)


def ends_a_notebook_cell(module: cst.Module, statement: cst.Expr) -> bool:
    """Is ``statement`` the last line of a notebook's cell, at its top level? Jupyter displays the
    value of such an expression: it is not discarded. The cell's end marker is then the first line
    after it: the next statement's first leading line, or the module's footer."""
    body = module.body
    for index, line in enumerate(body):
        if type(line) is cst.SimpleStatementLine and line.body[-1] is statement:
            after = body[index + 1].leading_lines if index + 1 < len(body) else module.footer
            comment = after[0].comment if after else None
            return comment is not None and comment.value.startswith(CELL_END_MARKER)
    return False


def runs_as_a_program(module: cst.Module, functions: Collection[str]) -> bool:
    """Is the module run rather than imported, so that its functions have no other callers? A
    notebook's cells (``notebooks.py``: the last cell's end marker is the module's footer), or a
    module that loops over its own functions as it is executed (``for epoch in ...: train(...)``):
    a module others import does not train at import."""
    if any(line.comment is not None and line.comment.value.startswith(CELL_END_MARKER) for line in module.footer):
        return True
    for statement in module.body:
        if type(statement) in (cst.For, cst.While):
            calls = (node for node in own_nodes(statement) if type(node) is cst.Call)
            if any(type(call.func) is cst.Name and call.func.value in functions for call in calls):
                return True
    return False


def own_attribute(dotted: str | None, owner: str | None) -> str | None:
    """``x`` of ``self.x``, one level down, where ``owner`` is the name ``self`` goes by."""
    root, _, attribute = (dotted or "").partition(".")
    return attribute if owner is not None and root == owner and attribute and "." not in attribute else None


def opens_a_file(call: cst.Call) -> bool:
    """``open(path, "rb")``: the builtin, by its name (an imported ``open`` qualifies otherwise)."""
    return type(call.func) is cst.Name and call.func.value == "open"


def passes_false(node: cst.Call) -> bool:
    """``x.requires_grad_(False)``: the first argument is the name ``False``."""
    return bool(node.args) and type(node.args[0].value) is cst.Name and node.args[0].value.value == "False"


def type_string_receiver(node: cst.BaseExpression) -> cst.BaseExpression | None:
    """``other`` in ``other.type()``: the type string of a tensor, which names its device too."""
    if type(node) is not cst.Call or node.args or type(node.func) is not cst.Attribute:
        return None
    return node.func.value if node.func.attr.value == "type" else None


def tests_main(test: cst.BaseExpression) -> bool:
    """``__name__ == "__main__"``."""
    return (
        type(test) is cst.Comparison
        and dotted_name(test.left) == "__name__"
        and any(string_value(target.comparator) == "__main__" for target in test.comparisons)
    )


def spawns_one_per_gpu(call: cst.Call) -> bool:
    """``mp.spawn(worker, nprocs=torch.cuda.device_count())``: one process per CUDA device."""
    return any(
        arg.keyword is not None
        and arg.keyword.value == "nprocs"
        and "device_count" in (dotted_name(arg.value.func) or "")
        for arg in call.args
        if type(arg.value) is cst.Call
    )


def is_collective(call: cst.Call) -> bool:
    """``dist.all_reduce(t)``, ``torch.distributed.broadcast(t, 0)``: a collective of a process group."""
    func = call.func
    if type(func) is not cst.Attribute or func.attr.value not in api.COLLECTIVES:
        return False
    return (dotted_name(func.value) or "").rsplit(".", 1)[-1] in ("dist", "distributed")


def runs_a_collective_every_call(function: cst.FunctionDef) -> bool:
    """Does the function run a collective in a statement of its own body that every call reaches:
    none before it may leave (an ``if`` or ``try`` holding a ``return`` or ``raise``), and it is
    not inside a block (``if dist.is_initialized():``)? Then it runs inside a process group only:
    the collective raises anywhere else."""
    for statement in statements(function.body):
        if type(statement) is cst.SimpleStatementLine:
            if any(type(node) is cst.Call and is_collective(node) for node in own_nodes(statement)):
                return True
        elif any(type(node) in (cst.Return, cst.Raise) for node in own_nodes(statement)):
            return False  # a path may leave before any collective runs
    return False


def passes(call: cst.Call, name: str, index: int | None) -> bool:
    """Does the call pass the parameter ``name`` (at ``index``, if positional), or may it?"""
    if any(arg.star for arg in call.args):
        return True  # ``f(*args, **kwargs)`` forwards whatever it was given
    if any(arg.keyword is not None and arg.keyword.value == name for arg in call.args):
        return True
    positional = [arg for arg in call.args if arg.keyword is None]
    return index is not None and 0 <= index < len(positional)
