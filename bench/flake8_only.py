"""Run flake8 with only some of the installed plugins: flake8's own (pyflakes, pycodestyle) plus those named.

flake8 runs every installed plugin on every file whatever ``--select`` says, and only filters
their output; so in an environment holding both flake8-torchdevice and TorchFix, timing
``flake8 --select=TOR`` would also time our plugin, and the reverse. This wrapper hides the
other extensions from flake8's plugin discovery, so each timing covers flake8 itself and the one
plugin measured.

    BENCH_FLAKE8_PLUGINS="flake8-torchdevice" python bench/flake8_only.py --select=TDV FILES
    BENCH_FLAKE8_PLUGINS="" python bench/flake8_only.py --select=E9 FILES   # flake8's floor

The filter is installed at import time (not under ``__main__``) so that it also holds in
flake8's ``-j`` worker processes, whether they are forked or spawned (a spawned worker
re-imports this file).
"""

from __future__ import annotations

import os
import re
import sys

from flake8.plugins import finder

# flake8 and its own dependencies: pyflakes (F), pycodestyle (E, W), mccabe (C90), its reporters.
_ALWAYS = frozenset({"flake8", "mccabe", "pyflakes", "pycodestyle"})


def _normalise(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


_KEPT = _ALWAYS | {_normalise(name) for name in os.environ.get("BENCH_FLAKE8_PLUGINS", "").split(",") if name}
_find_importlib_plugins = finder._find_importlib_plugins


def _only_kept_plugins():  # type: ignore[no-untyped-def]
    return (plugin for plugin in _find_importlib_plugins() if _normalise(plugin.package) in _KEPT)


finder._find_importlib_plugins = _only_kept_plugins

if __name__ == "__main__":
    from flake8.main.cli import main

    sys.exit(main())
