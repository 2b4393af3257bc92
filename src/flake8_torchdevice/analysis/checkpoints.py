"""What a ``torch.load`` reads, as far as the code around it says: a model's state (its result
reaches ``load_state_dict``, or the names it is read from and into say so: ``ckpt``,
``checkpoint``, ``state_dict``, ``weights``, a ``.pth`` file), or some other file (a dataset's
cache, embeddings, constants, fitted statistics). A model's state is what training on a GPU
leaves on the GPU; other files are written from data, on the CPU as a rule (rounds 24 to 28:
PyG caches, ESM embeddings, normalisers were most of the false loads)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TypeGuard

import libcst as cst

from .imports import dotted_name
from .literals import string_value
from .syntax import children, every_node, path_to

# Words (of a name split at ``_`` and capitals) that say a file holds a model's state.
_MODEL_STATE_WORDS = frozenset(
    "ckpt checkpoint checkpoints state sd weights weight params parameters model models net network "
    "pretrained pretrain snapshot resume restore optimizer optim generator discriminator encoder decoder "
    "backbone agent policy actor critic".split()
)
# Words that say a file holds data, whatever else its names say: ``pretrained`` word vectors
# (``emb``), fitted statistics (``norm_params``, ``mean``), class weights, a dataset's cache.
_DATA_WORDS = frozenset(
    "data dataset datasets emb embs embedding embeddings vocab vectors features feats stats statistics mean std "
    "norm normalizer cache cached processed class classes label labels sample samples index indices".split()
)
# Extensions of model files: ``generator.pth.tar``, ``last.ckpt``, ``pytorch_model.bin``.
_MODEL_FILE = re.compile(r"\.(pth|ckpt|bin)\b", re.IGNORECASE)
# Calls that put what they are given into a model (or an optimizer): ``model.load_state_dict(sd)``.
_LOADS_INTO = frozenset({"load_state_dict", "load_checkpoint", "set_state_dict", "load_weights"})
# A name's words: ``sd_hf`` gives sd, hf; ``modelState`` model, State; ``CHECKPOINT_PATH`` CHECKPOINT, PATH.
_WORDS = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+")


def reads_model_state(scope: cst.CSTNode, load: cst.Call, path: cst.BaseExpression | None, scope_name: str) -> bool:
    """Does the code around ``load`` (in ``scope``, a function named ``scope_name`` or the module)
    say it reads a model's state: it hands the result to ``load_state_dict`` (directly, or a name
    bound to it), or the names of the result, of the load itself (``load_checkpoint``, an alias),
    of the path, or of the function that returns the load say so?"""
    ancestors = path_to(scope, load) or []
    if any(_loads_into_a_model(node) for node in ancestors):
        return True
    bound = _bound_targets(ancestors)
    handed = (node for node in every_node(scope) if _loads_into_a_model(node))
    if any(name in bound for call in handed for name in _references_in(call.args)):
        return True
    returned = any(type(node) is cst.Return for node in ancestors)
    own = [target.rsplit(".", 1)[-1] for target in bound]  # ``self.mean``: ``mean``, not ``self``
    named = [*own, *_names_in(load.func), *_names_in(path), *([scope_name] if returned else [])]
    words = {word.lower() for name in named for word in _WORDS.findall(name)}
    if words & _DATA_WORDS:  # ``pretrained = torch.load(emb_file)``: word vectors
        return False
    return bool(words & _MODEL_STATE_WORDS) or any(_MODEL_FILE.search(name) for name in named)


def _loads_into_a_model(node: cst.CSTNode) -> TypeGuard[cst.Call]:
    return type(node) is cst.Call and type(node.func) is cst.Attribute and node.func.attr.value in _LOADS_INTO


def _bound_targets(ancestors: list[cst.CSTNode]) -> set[str]:
    """What the statement that holds the load binds, whole (``ckpt``, ``self.data``, ``sd_hf``)."""
    for node in reversed(ancestors):
        if type(node) is cst.Assign:
            return {name for target in node.targets for name in _references_in([target.target])}
        if type(node) is cst.AnnAssign:
            return _references_in([node.target])
    return set()


def _references_in(nodes: Sequence[cst.CSTNode]) -> set[str]:
    """The names and attribute paths written in ``nodes``, whole and outermost only (``ckpt`` of
    ``ckpt["model"]``; ``self.mean`` and ``self.std`` of a tuple, not ``self``)."""
    found: set[str] = set()
    pending = list(nodes)
    while pending:
        part = pending.pop()
        name = dotted_name(part) if type(part) is cst.Name or type(part) is cst.Attribute else None
        if name is not None:
            found.add(name)
        else:  # ``ckpt["model"]``, ``f(x).y``: the references inside it
            pending.extend(children(part))
    return found


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
