"""The rules that run only when selected: each rule's ``enabled_by_default`` reads it from here.

It lives outside ``rules/`` because the flake8 adapter decides the selection when flake8 starts,
for every run, and importing the rules would load libcst even for a file that never mentions
torch. Why each of these rules is off is in its own documentation.
"""

from collections.abc import Iterable

# A rule is on when its high findings were right at least nine times in ten at its first looks
# (code it was not tuned on; ``precision`` in each rule, docs/precision.md). TDV001 came on at
# round 9 (its high findings, sure only where the project's code shows it runs without CUDA, were
# right 17 times in 17 in rounds 7-9) and went off again at round 10: 37 of 67 over rounds 7-14.
# TDV009 came on at round 10 (high: 3 of 3 in rounds 8 and 10), fell short at round 13 (0 of 1)
# and again at round 14 (0 of 1: a store into one NumPy element, fixed since): off, 3 of 5.
# TDV004's high findings were right 60 times in 111 over rounds 7-14; TDV005's 13 in 34. TDV010
# came on after three first looks since its last fix (5 right of 5). TDV013 is new: no first look
# has found anything for it. TDV012 was right 1 of 1 at round 14 (10 of 11 in all). TDV002, TDV003
# and TDV006 fell short on one cause each (rounds 7 and 11); at round 13 TDV002 (0 of 2) and TDV010
# (0 of 2) fell short on causes fixed since, and stayed on for the next first look to decide: at
# round 14 TDV002 was right 2 of 2; TDV006's 5 sure findings were debatable (batches of a torchtext
# whose version decides, graded likely since), TDV010 found nothing. TDV007 is a performance rule:
# right 34 of 34 at round 14, but most of its findings run once, where the copy costs nothing.
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
