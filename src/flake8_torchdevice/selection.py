"""The rules that run only when selected: each rule's ``enabled_by_default`` reads it from here.

It lives outside ``rules/`` because the flake8 adapter decides the selection when flake8 starts,
for every run, and importing the rules would load libcst even for a file that never mentions
torch. Why each of these rules is off is in its own documentation.
"""

from collections.abc import Iterable

# A rule is on when its high findings were right at least nine times in ten at its first looks
# (code it was not tuned on; ``precision`` in each rule). One that falls short on causes fixed
# since stays on until the next first look, and goes off if it falls short again. Why each of
# these is off, round by round, is in docs/precision.md ("What round N decided"): TDV001 (233 of
# 480 over rounds 10-25), TDV004 (68 of 228), TDV008 (never right), TDV002 and TDV010 (short at
# round 24 after rounds 7/13 and 13: 2 of 3 and 0 of 4; TDV002 2 of 2 at round 25, 8 of 12 in
# all), TDV003, TDV005, TDV006, TDV009 and TDV012 (each fell short at two first looks; TDV005, on
# at round 16 with 8 of 8, was right 2 times in 9 at round 17; TDV003 0 of 1 at round 23 after 1
# of 3 at round 7), TDV013 (no first look has found anything for it); TDV007 is right as a rule
# (150 of 161 at round 25) but a performance one, most of whose findings run once.
OFF_BY_DEFAULT = frozenset(
    {
        "TDV001",
        "TDV002",
        "TDV003",
        "TDV004",
        "TDV005",
        "TDV006",
        "TDV007",
        "TDV008",
        "TDV009",
        "TDV010",
        "TDV012",
        "TDV013",
    }
)


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
