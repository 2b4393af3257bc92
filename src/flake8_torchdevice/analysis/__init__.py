"""What the code means, computed once per file and read by every rule through ``queries``.

Layers, each in its own module: ``domain`` (values and places), ``state`` (the flow state),
``conditions`` (narrowing), ``definitions`` (what the file defines, and evidence), the
interpreter (``interpreter``, ``statements``, ``loops``, ``expressions``, ``calls``,
``methods``, and ``summaries`` of the file's functions and classes, remembered in ``memo``;
``parts`` declares what they use of each other, for mypy), ``facts`` (what is recorded) and
``queries`` (the face rules see). What it knows of torch's API is data in ``flake8_torchdevice.knowledge``, which the
project index reads too.
"""

from __future__ import annotations

import libcst as cst

from ..callers import NO_CALLERS, FileCallers
from ..imported import NO_IMPORTED_CLASSES, ImportedClasses
from .holders import self_test_holding
from .interpreter import Interpreter
from .positions import positions_of
from .queries import Analysis


def analyse(
    module: cst.Module,
    guard_functions: frozenset[str] = frozenset(),
    callers: FileCallers = NO_CALLERS,
    project_classes: ImportedClasses = NO_IMPORTED_CLASSES,
) -> Analysis:
    """Analyse a parsed module: one syntactic pass, then the flow analysis. ``callers`` says what
    the project's calls of its functions, in other files, have in common, ``project_classes``
    what the classes it imports from them are (plain data)."""
    interpreter = Interpreter(module, guard_functions, callers, project_classes)
    facts = interpreter.run()
    return Analysis(module, interpreter.imports, interpreter.definitions, facts)


__all__ = ["Analysis", "analyse", "positions_of", "self_test_holding"]
