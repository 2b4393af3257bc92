"""The rules that run only when selected: each rule's ``enabled_by_default`` reads it from here.

It lives outside ``rules/`` because the flake8 adapter decides the selection when flake8 starts,
for every run, and importing the rules would load libcst even for a file that never mentions
torch. Why each of these rules is off is in its own documentation.
"""

from collections.abc import Iterable

# A rule is on when its high findings were right at least nine times in ten at its latest first
# looks (code it was not tuned on; ``precision`` in each rule, docs/precision.md) and no cause of a
# false finding that an earlier first look showed is still open. TDV001 came on at round 9: its
# findings are high only where the project's code shows it runs without CUDA (or the user says
# so), and those were right 17 times in 17 in rounds 7-9; rounds 5-6's false ones (CUDA-kernel
# projects, multi-process code launched elsewhere) have their causes fixed. TDV004's high findings
# on the same grounds were right 40 times in 46 (87%): it stays off. TDV010 came on after three
# first looks since its last fix (5 right of 5). TDV013 is new: no first look has measured it.
OFF_BY_DEFAULT = frozenset({"TDV004", "TDV005", "TDV007", "TDV008", "TDV009", "TDV013"})


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
