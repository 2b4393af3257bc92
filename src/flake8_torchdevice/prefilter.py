"""Which files can hold a finding, decided from their text alone, before anything is parsed.

Kept apart from the engine so that the flake8 adapter can answer without importing libcst: an
editor lints one file per flake8 process, and importing libcst costs more than linting most files.
"""

# Every rule is about torch's API or a CUDA string: a file that mentions neither holds no finding.
RELEVANT_WORDS = ("torch", "cuda")


def could_have_findings(source: str) -> bool:
    return any(word in source for word in RELEVANT_WORDS)
