"""What the calls of a file's functions and classes, anywhere in the project, have in common.

Plain data handed from ``project/`` (which finds the calls with ``ast``, project/callers.py) to
the analysis (which weighs a default or a guard with it), through ``Settings``: neither layer
imports the other, and the result cache's key covers it (a caller edited in another file that
changes what every call does re-lints the callee's file, and one that changes nothing does not).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class CallFacts:
    """What every call in the project of one function (or class: its constructor) does."""

    calls: int  # calls found in the project, the defining file's own included
    # The parameters with a CUDA default that every call passes (by keyword, by position, or
    # possibly through ``*args`` / ``**kwargs``): their defaults never take effect.
    passed: frozenset[str] = frozenset()
    # Every call runs under a CUDA check, or in a function every call of which does.
    guarded: bool = False
    # Every call is in the defining file (of an application's function, or a library's private one): the
    # file's own calls are all of them, and the analysis, which sees them better, weighs them.
    only_here: bool = False
    # A library's public definition: its users call it too, unseen, and may take its defaults.
    public: bool = False
    # Of those, one a package's ``__init__`` re-exports: the API its users are shown.
    # What the project's own calls pass says nothing of what theirs do.
    api: bool = False


@dataclass(frozen=True)
class FileCallers:
    """The ``CallFacts`` of a file's top-level functions and classes that other files call, by name."""

    facts: tuple[tuple[str, CallFacts], ...] = ()
    # Its top-level functions and classes that nothing in the project refers to: code that never
    # runs (project/references.py).
    unreferenced: tuple[str, ...] = ()
    # Another file of the project imports the module: its ``if __name__ == "__main__":`` block is
    # a self-test a developer runs by hand, not the program its users run.
    imported: bool = False

    def of(self, name: str) -> CallFacts | None:
        return next((facts for defined, facts in self.facts if defined == name), None)


NO_CALLERS = FileCallers()
