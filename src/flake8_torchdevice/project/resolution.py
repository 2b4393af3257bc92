"""Names, as a file of the project imports them, resolved to the project's definitions.

A dotted name is looked up as the project's module names it (``layout.module_name``), read through
a package's re-exports (``from .utils import to_device`` in ``pkg/__init__.py`` makes
``pkg.to_device`` the same function), or, for a script that imports its neighbours (``from utils
import f`` in ``scripts/train.py``), through its own folder or one above it.
"""

from __future__ import annotations

from collections.abc import Mapping

# Re-exports followed from one package to the next before a name is given up on.
_MAX_HOPS = 8


class Resolver:
    """Dotted names, as the project's files import them, to the definitions they name."""

    def __init__(self, defined: Mapping[str, object], exports: Mapping[str, Mapping[str, str]]) -> None:
        self._defined = defined
        self._exports = exports

    def resolve(self, dotted: str, folder: str) -> str | None:
        """The definition ``dotted`` names, as the project's module names it or as a neighbour of
        a file in ``folder`` does, or of a folder above it (a script in a sub-project's top folder
        puts that folder on ``sys.path``: ``from utils.tools import f`` in ``sub/exp/main.py`` is
        ``sub/utils/tools.py``), the nearest first; None for anything else."""
        found = self._followed(dotted)
        parts = folder.split(".") if folder else []
        while found is None and parts:
            found = self._followed(".".join([*parts, dotted]))
            parts.pop()
        return found

    def reached_through(self, dotted: str, folder: str) -> set[str]:
        """Definitions that a longer name reaches into: ``Trainer`` in ``Trainer.from_config``."""
        parts = dotted.split(".")
        prefixes = (".".join(parts[:end]) for end in range(1, len(parts)))
        return {key for prefix in prefixes if (key := self.resolve(prefix, folder)) is not None}

    def _followed(self, dotted: str) -> str | None:
        for _ in range(_MAX_HOPS):
            if dotted in self._defined:
                return dotted
            module, _, name = dotted.rpartition(".")
            target = self._exports.get(module, {}).get(name)
            if target is None or target == dotted:
                return None
            dotted = target
        return None
