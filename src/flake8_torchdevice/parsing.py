"""libcst's parse, building the same tree faster, with the cyclic GC paused meanwhile.

Two process-wide settings change while the engine works on a file, and come back after:

- the cyclic garbage collector is off (see ``cyclic_gc_paused``);
- while the parser builds the tree, the classes of most of its nodes (whitespace, names,
  literals, punctuation, calls) are built by a faster ``__init__`` (see ``_parsing_init``). It
  writes the same fields, and runs the same checks except those the tokenizer has made: every
  libcst node checks its own fields as it is built (that is how libcst refuses a hand-built
  invalid tree, and some syntax errors the parser lets through, such as a bare ``except:``
  before another handler); the parser cuts whitespace and newlines from the source with the
  very patterns their checks test, and its tokenizer (a port of CPython's) has already matched
  numbers and strings against the lexical rules their checks test again. (Not names: it
  accepts identifiers, such as ``x\u200c``, that the running Python refuses and ``Name``'s
  check refuses too.) So the trees, and the files refused, are the same. Parsing timm's
  davit.py (962 lines) takes 13 % fewer instructions than libcst's own parse (393 against 452
  million, callgrind).

Both apply only in processes the linter owns (``ownership.py``: the command and its worker
processes, the language server's worker), never in one that other code shares: a flake8 run,
an editor, an application that calls the engine. There libcst parses as it always does.

Threads may lint at once: a setting changes when the first of them starts and comes back when
the last one ends. (Meanwhile another thread's hand-built whitespace and literal nodes are not
checked.)
"""

from __future__ import annotations

import dataclasses
import functools
import gc
import threading
import types
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Generic, TypeVar, cast

import libcst as cst

from .ownership import owns_this_process

_Saved = TypeVar("_Saved")


class ProcessSetting(Generic[_Saved]):
    """A process-wide setting changed while at least one caller is inside; ``owned_only``: and
    only in a process the linter owns."""

    def __init__(
        self, change: Callable[[], _Saved], restore: Callable[[_Saved], None], owned_only: bool = False
    ) -> None:
        self._change = change
        self._restore = restore
        self._owned_only = owned_only
        self._lock = threading.Lock()
        self._inside = 0
        self._saved: _Saved | None = None

    @contextmanager
    def __call__(self) -> Iterator[None]:
        if self._owned_only and not owns_this_process():
            yield
            return
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
cyclic_gc_paused = ProcessSetting(_pause_gc, _resume_gc, owned_only=True)


# The classes of most nodes the parser builds: 89 % of the 1.4 million nodes of the benchmark's
# sample (SimpleWhitespace alone 41 %, Name 9 %). Only they get a parsing ``__init__``:
# generating one takes about as long as it saves on 200 nodes, and the next class down makes
# 1 % of the nodes.
_BUILT_MOST = (
    *(cst.SimpleWhitespace, cst.Newline, cst.TrailingWhitespace, cst.ParenthesizedWhitespace, cst.EmptyLine),
    *(cst.Name, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString),
    *(cst.Comma, cst.Dot, cst.AssignEqual, cst.LeftSquareBracket, cst.RightSquareBracket),
    *(cst.Arg, cst.Element, cst.Attribute, cst.Call, cst.SimpleStatementLine, cst.AssignTarget, cst.Assign),
)

# Whitespace and newlines, numbers and strings: the parser cuts whitespace and newlines from the
# source with the very patterns their checks test, and its tokenizer (a port of CPython's) has
# matched numbers and strings against the lexical rules their checks test again. Not names: the
# tokenizer takes identifiers (``x\u200c``) that the running Python, and ``Name``'s check, refuse.
_MATCHED_BY_THE_TOKENIZER = frozenset(
    {cst.SimpleWhitespace, cst.Newline, cst.Integer, cst.Float, cst.Imaginary, cst.SimpleString}
)


def _member_setter(cls: type, name: str) -> Callable[[object, object], None] | None:
    """The slot that holds field ``name`` of ``cls``, as a setter; None when it is no slot."""
    for owner in cls.__mro__:
        if name in vars(owner):
            slot = vars(owner)[name]
            return slot.__set__ if isinstance(slot, types.MemberDescriptorType) else None
    return None


def _parsing_init(cls: type[cst.CSTNode]) -> Callable[..., None] | None:
    """An ``__init__`` that does for ``cls`` what its dataclass ``__init__`` does, faster, and
    without a check the tokenizer has made; None where ``cls`` is not as expected.

    The dataclass's own ``__init__`` goes through ``object.__setattr__`` once per field (the
    class is frozen), then ``__post_init__``, then ``_validate``. This one writes the slots
    directly, then calls ``_validate`` where the class has a check the tokenizer has not made.
    Like ``dataclasses`` itself it is generated from the fields, so the parameters, their order
    and their defaults are the dataclass's. A subclass that inherits it (another thread's own
    node class) gets its ``__post_init__`` as before.
    """
    original = vars(cls).get("__init__")
    fields = dataclasses.fields(cls)
    code = getattr(original, "__code__", None)
    if original is None or code is None:
        return None
    if code.co_varnames[1 : code.co_argcount] != tuple(field.name for field in fields):
        return None
    # The generated code's own names start with an underscore; no field's name does (a field
    # named ``type`` would hide the builtin).
    if any(field.name.startswith("_") or field.name == "self" for field in fields):
        return None
    namespace: dict[str, object] = {"_cls": cls, "_type": type, "_no_value": _NO_VALUE}
    parameters, body = ["self"], []
    for index, field in enumerate(fields):
        setter = _member_setter(cls, field.name)
        if setter is None or not field.init or field.kw_only is True:
            return None
        namespace[f"_set_{index}"] = setter
        if field.default is not dataclasses.MISSING:
            namespace[f"_default_{index}"] = field.default
            parameters.append(f"{field.name}=_default_{index}")
        elif field.default_factory is not dataclasses.MISSING:
            namespace[f"_factory_{index}"] = field.default_factory
            parameters.append(f"{field.name}=_no_value")
            body.append(f"if {field.name} is _no_value: {field.name} = _factory_{index}()")
        else:
            parameters.append(field.name)
        body.append(f"_set_{index}(self, {field.name})")
    body.append("if _type(self) is not _cls: self.__post_init__()")
    if cls._validate is not cst.CSTNode._validate and cls not in _MATCHED_BY_THE_TOKENIZER:
        body.append("else: self._validate()")
    source = f"def __init__({', '.join(parameters)}):\n" + "".join(f"    {line}\n" for line in body)
    exec(source, namespace)  # our own generated text, as dataclasses does; never the linted code
    # Named, annotated and signed as the dataclass's (errors name its qualified name).
    return functools.update_wrapper(cast(Callable[..., None], namespace["__init__"]), original)


class _NoValue:
    def __repr__(self) -> str:
        return "<factory>"  # as a dataclass's signature shows a default made by a factory


_NO_VALUE = _NoValue()

# For each class built most, the ``__init__`` to use while parsing.
_PARSING_INITS = {cls: init for cls in _BUILT_MOST if (init := _parsing_init(cls)) is not None}


def _use_parsing_inits() -> dict[type, object]:
    """Returns the ``__init__`` each class had, to put back (whatever it was then)."""
    previous: dict[type, object] = {cls: vars(cls)["__init__"] for cls in _PARSING_INITS}
    for cls, init in _PARSING_INITS.items():
        setattr(cls, "__init__", init)  # noqa: B010  (mypy refuses assigning a method)
    return previous


def _put_back(previous: dict[type, object]) -> None:
    for cls, init in previous.items():
        setattr(cls, "__init__", init)  # noqa: B010


_parsing_inits_in_use = ProcessSetting(_use_parsing_inits, _put_back, owned_only=True)


def parse_module(source: str) -> cst.Module:
    """``libcst.parse_module``: the same tree, built faster."""
    with _parsing_inits_in_use():
        return cst.parse_module(source)
