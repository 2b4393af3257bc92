"""How sure a finding is: the grade of the weakest link in the evidence that produced it.

Graded in the spirit of Infer's bug buckets. **high**: every link is written in the code (a
literal device, a factory with ``device=``, a ``.to()`` the code shows, a module the code moves).
**medium**: a link is inferred (a parameter's place taken from its call sites, a "may" join of
branches, a library convention such as "a DataLoader yields CPU batches"). **low**: a guess.

A run reports the findings at or above one level (``--confidence``, default high). It lives
outside ``rules/`` so that the front ends can read and print it without importing libcst.
"""

from __future__ import annotations

import enum


class Confidence(enum.IntEnum):
    LOW = 1
    MEDIUM = 2
    HIGH = 3

    @property
    def label(self) -> str:
        return self.name.lower()

    @classmethod
    def named(cls, name: str) -> Confidence:
        """The level called ``name`` (``"medium"``); ValueError names the levels for any other."""
        try:
            return cls[name.strip().upper()]
        except KeyError:
            levels = ", ".join(level.label for level in sorted(cls, reverse=True))
            raise ValueError(f"unknown confidence {name!r} (one of: {levels})") from None


# What a run reports unless told otherwise: only findings whose every link the code shows.
DEFAULT_CONFIDENCE = Confidence.HIGH
