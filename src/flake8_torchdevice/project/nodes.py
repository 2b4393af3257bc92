"""Walks of ``ast`` trees for the index, which walks nearly every file of a project.

``ast.walk`` goes through two generators per node (``iter_child_nodes`` over ``iter_fields``);
reading each node's ``_fields`` in one loop visits the same nodes in about half the time, and
the index's cost is mostly these walks once a file is parsed.
"""

from __future__ import annotations

import ast

# Statements that define a function or a class: a name, and a scope of its own.
DEFINITIONS = (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)
# Scopes of their own: what runs inside them is not the enclosing function's code.
_SCOPES = (*DEFINITIONS, ast.Lambda)
# Nodes that only say how a name is used or which operator applies (a fifth of a typical tree):
# no reader of the index looks for one, so the walks leave them out.
_MARKERS = (ast.expr_context, ast.operator, ast.boolop, ast.unaryop, ast.cmpop)


def descendants(*roots: ast.AST) -> list[ast.AST]:
    """The roots and every node below them that ``ast.walk`` finds (in another order), but the
    markers of how a name is used (``ast.Load``) and of operators (``ast.Add``)."""
    return _walk(list(roots), enter_scopes=True)


def own_nodes(function: ast.FunctionDef | ast.AsyncFunctionDef) -> list[ast.AST]:
    """The nodes of the function's body, not those of functions or classes defined inside it
    (those definitions themselves are included), nor the markers ``descendants`` leaves out."""
    return _walk(list(function.body), enter_scopes=False)


def _walk(pending: list[ast.AST], enter_scopes: bool) -> list[ast.AST]:
    found: list[ast.AST] = []
    while pending:
        node = pending.pop()
        found.append(node)
        if not enter_scopes and isinstance(node, _SCOPES):
            continue
        for name in node._fields:
            child = getattr(node, name, None)
            if type(child) is list:
                pending.extend(item for item in child if isinstance(item, ast.AST) and not isinstance(item, _MARKERS))
            elif isinstance(child, ast.AST) and not isinstance(child, _MARKERS):
                pending.append(child)
    return found
