"""What a boolean says about CUDA (its polarity), and what it says once two paths meet."""

from __future__ import annotations

import enum


class Polarity(enum.Enum):
    """What a boolean says about CUDA: usable when true (POSITIVE), when false (NEGATIVE), nothing."""

    NONE = 0
    POSITIVE = 1
    NEGATIVE = 2

    def flipped(self) -> Polarity:
        if self is Polarity.POSITIVE:
            return Polarity.NEGATIVE
        if self is Polarity.NEGATIVE:
            return Polarity.POSITIVE
        return self


def joined_polarity(left: Polarity, left_truth: bool | None, right: Polarity, right_truth: bool | None) -> Polarity:
    """A flag where two paths meet, each with its polarity and its constant truth (None: not a
    constant): the same check on both; or a check on one and, on the other, the constant that
    leaves the check's CUDA branch alone (``fast = False``, then ``if torch.cuda.is_available():
    fast = True``): the flag is still true only where CUDA is."""
    if left is right:
        return left
    for check, constant, truth in ((left, right, right_truth), (right, left, left_truth)):
        # False never takes the branch a POSITIVE check guards; True never the one a NEGATIVE does.
        if constant is Polarity.NONE and truth is not None and truth is (check is Polarity.NEGATIVE):
            return check
    return Polarity.NONE
