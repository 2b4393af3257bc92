"""The first looks' corpora (scripts/corpora.py): each name stands for one corpus, so that
``scripts/precision.py --roundN`` lints what round N linted."""

from __future__ import annotations

import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "scripts"))

import corpora

# Names two first looks used before this check existed: the later pin answers for both, so the
# earlier round is linted again with the later corpus.
_REUSED_BEFORE_ROUND_37 = {
    "libraries": {"torchdistill"},
    "repositories": {
        "simclr",
        "attention-is-all-you-need",
        "image-captioning",
        "object-detection",
        "super-resolution",
        "faster-rcnn",
    },
}


def test_a_corpus_name_stands_for_one_corpus():
    libraries = Counter(name for found, _ in corpora.FIRST_LOOKS.values() for name in found)
    repositories = Counter(name for _, found in corpora.FIRST_LOOKS.values() for name in found)
    reused = {
        "libraries": {name for name, looks in libraries.items() if looks > 1},
        "repositories": {name for name, looks in repositories.items() if looks > 1},
    }
    assert reused == _REUSED_BEFORE_ROUND_37
