"""libcst's parse without the checks that cannot fail on it, and the cyclic GC paused meanwhile.

Two process-wide settings change while the engine works on a file, and come back after:

- the cyclic garbage collector is off (see ``cyclic_gc_paused``);
- while the parser builds the tree, nodes of the classes whose checks cannot refuse what it
  builds skip them. Every libcst node checks its own fields as it is built (that is how libcst
  refuses a hand-built invalid tree, and some syntax errors the parser lets through, such as a
  bare ``except:`` before another handler). Most nodes are whitespace, names and literals: the
  parser cuts whitespace and newlines from the source with the very patterns their checks test,
  and its tokenizer (a port of CPython's) has already matched names, numbers and strings against
  the lexical rules their checks test again; most other classes check nothing. Skipping those
  took timm's davit.py (962 lines) from 68 to 61 ms (best of 9, alternating with the checked
  parse); every other check still runs, so the trees,
  and the files refused, are the same.

Threads may lint at once: a setting changes when the first of them starts and comes back when
the last one ends. (Meanwhile another thread's hand-built whitespace, name and literal nodes are not checked.)
"""

from __future__ import annotations

import gc
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar

import libcst as cst

_Saved = TypeVar("_Saved")


class _ProcessSetting(Generic[_Saved]):
    """A process-wide setting changed while at least one caller is inside."""

    def __init__(self, change: Callable[[], _Saved], restore: Callable[[_Saved], None]) -> None:
        self._change = change
        self._restore = restore
        self._lock = threading.Lock()
        self._inside = 0
        self._saved: _Saved | None = None

    @contextmanager
    def __call__(self) -> Iterator[None]:
        with self._lock:
            if self._inside == 0:
                self._saved = self._change()
            self._inside += 1
        try:
            yield
        finally:
            with self._lock:
                self._inside -= 1
                if self._inside == 0:
                    self._restore(self._saved)  # type: ignore[arg-type]  # set by the first caller


def _pause_gc() -> bool:
    was_enabled = gc.isenabled()
    gc.disable()
    return was_enabled


def _resume_gc(was_enabled: bool) -> None:
    if was_enabled:
        gc.enable()


# libcst builds hundreds of thousands of nodes without reference cycles (reference counting
# frees them); meanwhile the collector, triggered by the allocations, walks the growing tree
# again and again and finds nothing. Pausing it made the engine about 7 % faster on the
# benchmark's 201,689-line sample (the p95 per-file time fell from 90 to 78 ms). Any cycle made
# meanwhile is collected once the collector is back on.
cyclic_gc_paused = _ProcessSetting(_pause_gc, _resume_gc)


def _classes_whose_checks_cannot_fail() -> frozenset[type]:
    """Whitespace and newlines, names and literals (matched by the tokenizer and the parser with
    the rules their checks test), and the classes that check nothing of their own. Exact classes:
    a subclass may check more."""
    checks_nothing = {
        cls
        for cls in vars(cst).values()
        if isinstance(cls, type) and issubclass(cls, cst.CSTNode) and cls._validate is cst.CSTNode._validate
    }
    tokens = {cst.SimpleWhitespace, cst.Newline, cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString}
    return frozenset(checks_nothing | tokens)


_NEED_NO_CHECK = _classes_whose_checks_cannot_fail()


def _checked_unless_it_cannot_fail(node: cst.CSTNode) -> None:
    """A node's ``__post_init__`` while the parser builds the tree."""
    if type(node) not in _NEED_NO_CHECK:
        node._validate()


def _skip_checks_that_cannot_fail() -> object:
    checked = vars(cst.CSTNode)["__post_init__"]
    setattr(cst.CSTNode, "__post_init__", _checked_unless_it_cannot_fail)  # noqa: B010  (mypy refuses assigning a method)
    return checked


def _check_all_again(checked: object) -> None:
    setattr(cst.CSTNode, "__post_init__", checked)  # noqa: B010


_checks_that_cannot_fail_skipped = _ProcessSetting(_skip_checks_that_cannot_fail, _check_all_again)


def parse_module(source: str) -> cst.Module:
    """``libcst.parse_module``, without the checks that cannot fail on what the parser builds."""
    with _checks_that_cannot_fail_skipped():
        return cst.parse_module(source)
