"""The rules that run only when selected: each rule's ``enabled_by_default`` reads it from here.

It lives outside ``rules/`` because the flake8 adapter declares flake8's default ignore list when
flake8 starts, for every run, and importing the rules would load libcst even for a file that never
mentions torch. Why each of these rules is off is in its own documentation.
"""

# A rule is on when it was right at least nine times in ten on the measured corpora (``precision``
# in each rule, docs/precision.md). TDV001 and TDV002 stay on although their first reports on
# unseen library internals were weaker: docs/precision.md says why.
OFF_BY_DEFAULT = frozenset({"TDV004", "TDV005", "TDV007", "TDV008", "TDV009", "TDV010"})
