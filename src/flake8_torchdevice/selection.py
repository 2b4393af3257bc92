"""The rules that run only when selected: each rule's ``enabled_by_default`` reads it from here.

It lives outside ``rules/`` because the flake8 adapter decides the selection when flake8 starts,
for every run, and importing the rules would load libcst even for a file that never mentions
torch. Why each of these rules is off is in its own documentation.
"""

from collections.abc import Iterable

# A rule is on when its high findings were right at least nine times in ten at its first looks
# (code it was not tuned on; ``precision`` in each rule, docs/precision.md). TDV001 came on at
# round 9 (its high findings, sure only where the project's code shows it runs without CUDA, were
# right 17 times in 17 in rounds 7-9) and went off again at round 10: 22 of 43 over rounds 7-13.
# TDV009 came on at round 10 (high: 3 of 3 in rounds 8 and 10). TDV004's high findings were right
# 53 times in 91 over rounds 7-13; TDV005's 13 in 34. TDV010 came on after three first looks since
# its last fix (5 right of 5). TDV013 is new: no first look has measured it. TDV012 was right 2 of
# 2 at round 13 (9 of 10 in all). TDV002, TDV003 and TDV006 fell short on one cause each (rounds 7
# and 11); at round 13 TDV002 (0 of 2), TDV009 (0 of 1) and TDV010 (0 of 2) fell short, each on
# causes fixed since. They stay on until the next first look measures them: one that falls short
# again on code first seen goes off.
OFF_BY_DEFAULT = frozenset({"TDV001", "TDV004", "TDV005", "TDV007", "TDV008", "TDV013"})


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
