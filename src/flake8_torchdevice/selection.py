"""The rules that run only when selected: each rule's ``enabled_by_default`` reads it from here.

It lives outside ``rules/`` because the flake8 adapter decides the selection when flake8 starts,
for every run, and importing the rules would load libcst even for a file that never mentions
torch. Why each of these rules is off is in its own documentation.
"""

from collections.abc import Iterable

# A rule is on when it was right at least nine times in ten at its latest first look (code it was
# not tuned on; ``precision`` in each rule, docs/precision.md) and no cause of a false finding that
# an earlier first look showed is still open. TDV001 and TDV004 reached nine in ten at round 8
# (high: 8 of 8, 17 of 18) but neither before (round 7: 7 of 31, 21 of 28) nor after (round 9: 8 of
# 13, 3 of 4). A project that must run without CUDA turns TDV001 on (``runs-without-cuda``), and
# any project either rule (``extend-select``).
# TDV010 came on after three first looks since its last fix (5 right of 5).
# TDV013 is new: no first look has measured it.
OFF_BY_DEFAULT = frozenset({"TDV001", "TDV004", "TDV005", "TDV007", "TDV008", "TDV009", "TDV013"})


# What a project that says it runs without CUDA (``runs-without-cuda``) turns on: a hard-coded
# CUDA device fails on the machines it supports. TDV004 stays opt-in: its false findings on code
# first seen were loads of files written on the same machine, not projects that need GPUs.
ON_WITHOUT_CUDA = frozenset({"TDV001"})


def explicitly_selected(prefixes: Iterable[str]) -> frozenset[str]:
    """The off-by-default codes that one of ``prefixes`` (a select or extend-select) names.

    Only an explicit selection turns such a rule on, in both front ends: an ``ignore`` list that
    leaves it out (``ignore = E203, W503``) does not.
    """
    cleaned = [prefix.strip().upper() for prefix in prefixes if prefix.strip()]
    return frozenset(code for code in OFF_BY_DEFAULT if any(code.startswith(prefix) for prefix in cleaned))
