"""What the project says of the classes and helpers a file imports from its other files: plain data.

Handed from ``project/`` (which decides it with ``ast`` over every file, project/classes.py) to
the analysis (which builds a module, or declines to guess one, with it), through ``Settings``, as
``callers.py`` hands over what the calls of a file's functions have in common; neither layer
imports the other, and the result cache's key covers it.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class ImportedClass:
    # An ``nn.Module`` (a base, in some file, is one), or a plain class (every base is plain).
    module: bool
    # Its constructor takes a device, or a method moves ``self``: not known to start on the CPU.
    places_itself: bool = False
    # A module that keeps no parameter, buffer or submodule (a loss holding an ``eps``): moving
    # an instance moves nothing.
    holds_no_tensors: bool = False
    # The parameters its ``__init__`` replaces with the CPU where CUDA is not available, by name
    # (project/classes.py).
    replaces_without_cuda: tuple[str, ...] = ()


# What a helper function of another file returns (project/helpers.py reads it): tensors it makes
# on the CPU; its first argument, moved to CUDA when a GPU is there; an argument moved to CUDA, or
# to the device another argument names (``to_device(batch, device)``).
MAKES_CPU_TENSORS = "makes CPU tensors"
MOVES_TO_CUDA_WHEN_AVAILABLE = "moves its first argument to CUDA when one is there"
MOVES_TO_CUDA = "moves an argument to CUDA"
MOVES_TO_ITS_DEVICE_ARGUMENT = "moves an argument to the device another argument names"
# The kinds of value a helper that moves tells apart (``isinstance(x, Mapping)``). ``dict`` apart:
# a tokenizer's ``BatchEncoding`` is a mapping but no ``dict``, so a helper testing for ``dict``
# hands it back unchanged.
TENSOR, MAPPING, DICT, SEQUENCE = "tensor", "mapping", "dict", "sequence"


@dataclass(frozen=True)
class ImportedHelper:
    returns: str  # one of the four above
    # Where it is defined (``utils.py``), for a message to cite.
    path: str
    # The parameters a move is about, as (position among the positional ones or -1, name): the
    # one returned moved, then the one naming the device.
    parameters: tuple[tuple[int, str], ...] = ()
    # The kinds of value the move holds for (empty: any): a helper that hands back what it does
    # not test for unchanged moves only what it tests for.
    kinds: tuple[str, ...] = ()


@dataclass(frozen=True)
class ImportedSaver:
    """A function of another file, or a class whose instances it calls, that saves a file
    (``torch.save``) under some of its arguments (project/savers.py reads it)."""

    # (position among the positional arguments, or -1 for a keyword-only one; parameter name)
    saves_under: tuple[tuple[int, str], ...]
    path: str  # where it is defined


def decoded_parameters(rows: Iterable[Any]) -> tuple[tuple[int, str], ...]:
    """Parameters as a cache holds them (lists of [position, name]): ``saves_under``, ``parameters``."""
    return tuple((int(position), str(name)) for position, name in rows)


@dataclass(frozen=True)
class ImportedClasses:
    """The project's verdicts on the class names a file uses, and on the helper functions (and
    savers) of its other files that it calls, by the name as the file spells it (``Net``, ``models.Net``,
    ``to_gpu``); names the project says nothing of are left out."""

    classes: tuple[tuple[str, ImportedClass], ...] = ()
    helpers: tuple[tuple[str, ImportedHelper], ...] = ()
    savers: tuple[tuple[str, ImportedSaver], ...] = ()


NO_IMPORTED_CLASSES = ImportedClasses()
