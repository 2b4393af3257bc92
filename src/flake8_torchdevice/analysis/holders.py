"""Which top-level definition or block holds each node, for grading findings by where they are:
the functions, classes and methods nothing in the project refers to (code that may never run),
and a module's self-test (its ``__main__`` block and what only it calls)."""

from __future__ import annotations

from collections.abc import Set as AbstractSet

import libcst as cst

from .syntax import every_node, statements, tests_main


def definitions_holding(module: cst.Module, names: AbstractSet[str]) -> dict[int, str]:
    """Each node (by ``id``) of the top-level functions and classes of ``module`` named in ``names``,
    and of the methods named there as ``Class.method``: the name of the one that holds it."""
    held: dict[int, str] = {}
    for part in module.body:
        if not isinstance(part, (cst.FunctionDef, cst.ClassDef)):
            continue
        if part.name.value in names:
            held.update((id(inner), part.name.value) for inner in every_node(part))
        elif isinstance(part, cst.ClassDef):
            for method in statements(part.body):
                if isinstance(method, cst.FunctionDef) and f"{part.name.value}.{method.name.value}" in names:
                    held.update((id(inner), f"{part.name.value}.{method.name.value}") for inner in every_node(method))
    return held


# Names a program that reads its command line uses: its parser, ``sys.argv``, a CLI library.
_COMMAND_LINE = frozenset({"argparse", "ArgumentParser", "argv", "Fire", "click", "typer", "docopt", "hydra"})


def self_test_holding(module: cst.Module) -> dict[int, str]:
    """Each node (by ``id``) of the module's ``if __name__ == "__main__":`` blocks and of the top-level
    functions only they call (pytorchcv's ``_test()``): ``__main__``, or the function's name. None
    where the module reads a command line (``argparse``, ``sys.argv``, ``fire.Fire``): the block is
    a program then (Deformable-DETR's ``main.py``, whose argument parser other scripts import)."""
    blocks = [part for part in module.body if type(part) is cst.If and tests_main(part.test)]
    if not blocks:
        return {}
    held = {id(node): "__main__" for block in blocks for node in every_node(block)}
    named = {id(part.name) for part in module.body if isinstance(part, (cst.FunctionDef, cst.ClassDef))}
    read = [node for node in every_node(module) if type(node) is cst.Name and id(node) not in named]
    if any(node.value in _COMMAND_LINE for node in read):
        return {}
    outside = {node.value for node in read if id(node) not in held}
    only_there = {node.value for node in read if id(node) in held} - outside
    for part in module.body:
        if type(part) is cst.FunctionDef and part.name.value in only_there:
            held.update((id(node), part.name.value) for node in every_node(part))
    return held
