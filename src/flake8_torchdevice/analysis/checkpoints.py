"""What a ``torch.load`` reads, as far as the code around it says: a model's state (its result
reaches ``load_state_dict``, or the names it is read from and into say so: ``ckpt``,
``checkpoint``, ``state_dict``, ``weights``, a ``.pth`` file), or some other file (a dataset's
cache, embeddings, constants, fitted statistics). A model's state is what training on a GPU
leaves on the GPU; other files are written from data, on the CPU as a rule (rounds 24 to 28:
PyG caches, ESM embeddings, normalisers were most of the false loads)."""

from __future__ import annotations

import re

import libcst as cst

from .literals import string_value
from .syntax import children, every_node

# Words (of a name split at ``_`` and capitals) that say a file holds a model's state.
_MODEL_STATE_WORDS = frozenset(
    "ckpt checkpoint checkpoints state sd weights weight params parameters model models net network "
    "pretrained pretrain snapshot resume restore optimizer optim generator discriminator encoder decoder "
    "backbone agent policy actor critic".split()
)
# Extensions of model files: ``generator.pth.tar``, ``last.ckpt``, ``pytorch_model.bin``.
_MODEL_FILE = re.compile(r"\.(pth|ckpt|bin)\b", re.IGNORECASE)
# Calls that put what they are given into a model (or an optimizer): ``model.load_state_dict(sd)``.
_LOADS_INTO = frozenset({"load_state_dict", "load_checkpoint", "set_state_dict", "load_weights"})
_WORDS = re.compile(r"[a-z]+|[A-Z][a-z]*")


def path_to(root: cst.CSTNode, target: cst.CSTNode) -> list[cst.CSTNode] | None:
    """The nodes from ``root`` down to ``target``, both included."""
    pending: list[list[cst.CSTNode]] = [[root]]
    while pending:
        path = pending.pop()
        if path[-1] is target:
            return path
        pending.extend([*path, child] for child in children(path[-1]))
    return None


def reads_model_state(scope: cst.CSTNode, load: cst.Call, path: cst.BaseExpression | None, scope_name: str) -> bool:
    """Does the code around ``load`` (in ``scope``, a function named ``scope_name`` or the module)
    say it reads a model's state: it hands the result to ``load_state_dict`` (directly, or a name
    bound to it), or the names of the result, of the load itself (``load_checkpoint``, an alias),
    of the path, or of the function that returns the load say so?"""
    ancestors = path_to(scope, load) or []
    if any(_loads_into_a_model(node) for node in ancestors):
        return True
    bound = _bound_names(ancestors)
    returned = any(type(node) is cst.Return for node in ancestors)
    named = [*bound, *_names_in(load.func), *_names_in(path), *([scope_name] if returned else [])]
    if any(_says_model_state(name) for name in named):
        return True
    handed = (node for node in every_node(scope) if _loads_into_a_model(node))
    return any(name in bound for call in handed for name in _names_in(call))


def _loads_into_a_model(node: cst.CSTNode) -> bool:
    return type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in _LOADS_INTO


def _bound_names(ancestors: list[cst.CSTNode]) -> list[str]:
    """The names the statement that holds the load binds (``ckpt``, ``self.data``, ``sd_hf``)."""
    for node in reversed(ancestors):
        if type(node) is cst.Assign:
            return [name for target in node.targets for name in _names_in(target.target)]
        if type(node) is cst.AnnAssign:
            return _names_in(node.target)
    return []


def _names_in(node: cst.CSTNode | None) -> list[str]:
    """The identifiers and strings written in ``node``: ``args.ckpt_path`` gives ``args`` and
    ``ckpt_path``; ``"generator.pth.tar"`` itself."""
    if node is None:
        return []
    found = []
    for part in every_node(node):
        if type(part) is cst.Name:
            found.append(part.value)
        elif isinstance(part, cst.BaseString) and (text := string_value(part)) is not None:
            found.append(text)
    return found


def _says_model_state(name: str) -> bool:
    if _MODEL_FILE.search(name):
        return True
    return any(word.lower() in _MODEL_STATE_WORDS for word in _WORDS.findall(name))
