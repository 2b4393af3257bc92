"""Dotted names in ``ast`` trees, read through a file's imports: one reading for the index, the
call reader and the class reader."""

from __future__ import annotations

import ast
import re
import sys
from collections.abc import Mapping

# A Python identifier, as a word of a string or a README names one.
IDENTIFIER = re.compile(r"[A-Za-z_]\w*")

# Packages whose names are never the project's: torch's, NumPy's and the standard library's.
NOT_THE_PROJECT = frozenset({"torch", "numpy", *sys.stdlib_module_names})


def dotted(node: ast.AST) -> str | None:
    """``a.b.c`` for a chain of attributes on a name, as the code spells it; None for anything else."""
    parts: list[str] = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    parts.append(node.id)
    return ".".join(reversed(parts))


def read_through(spelled: str, aliases: Mapping[str, str]) -> str | None:
    """What ``spelled`` stands for when its first part is an import; None for a local name."""
    head, _, rest = spelled.partition(".")
    target = aliases.get(head)
    if target is None:
        return None
    return f"{target}.{rest}" if rest else target


def qualified(node: ast.AST, aliases: Mapping[str, str]) -> str | None:
    """The dotted name a name or attribute chain stands for, its first part read through ``aliases``."""
    spelled = dotted(node)
    if spelled is None:
        return None
    return read_through(spelled, aliases) or spelled


def names_the_cpu(node: ast.AST) -> bool:
    """``"cpu"``, ``torch.device("cpu")``."""
    if isinstance(node, ast.Constant):
        return isinstance(node.value, str) and node.value.lower() == "cpu"
    return isinstance(node, ast.Call) and bool(node.args) and names_the_cpu(node.args[0])
