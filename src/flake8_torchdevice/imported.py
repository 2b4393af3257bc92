"""What the project says of the classes a file imports from its other files: plain data.

Handed from ``project/`` (which decides it with ``ast`` over every file, project/classes.py) to
the analysis (which builds a module, or declines to guess one, with it), through ``Settings``, as
``callers.py`` hands over what the calls of a file's functions have in common; neither layer
imports the other, and the result cache's key covers it.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class ImportedClass:
    # An ``nn.Module`` (a base, in some file, is one), or a plain class (every base is plain).
    module: bool
    # Its constructor takes a device, or a method moves ``self``: not known to start on the CPU.
    places_itself: bool = False


@dataclass(frozen=True)
class ImportedClasses:
    """The project's verdicts on the class names a file uses, by the name as the file spells it
    (``Net``, ``models.Net``); names the project says nothing of are left out."""

    classes: tuple[tuple[str, ImportedClass], ...] = ()


NO_IMPORTED_CLASSES = ImportedClasses()
