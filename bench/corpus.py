"""The files every tool is timed on: the corpora, read and sampled the same way on every machine.

Third-party code, kept outside the repository and never committed: the timm, kornia, monai and
torch-geometric wheels, downloaded with ``pip download --no-deps`` and unpacked by
``scripts/corpora.py`` under ``~/.cache/torchdevice-corpora``, and the Python sources of the
installed torch package (found with ``importlib.util.find_spec``, never imported).
"""

from __future__ import annotations

import importlib.util
import io
import random
import sys
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from flake8_torchdevice.prefilter import could_have_findings

REPOSITORY = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPOSITORY / "scripts"))

import corpora  # noqa: E402  (scripts/corpora.py: pinned wheels, unpacked outside the repository)

WHEEL_CORPORA = ("timm", "kornia", "monai", "torch-geometric")
TORCH_CORPUS = "torch"  # the installed torch package's own sources
ALL_CORPORA = (*WHEEL_CORPORA, TORCH_CORPUS)
# Also measurable by name: every other corpus ``scripts/corpora.py`` knows (the round-4 libraries...).
AVAILABLE_CORPORA = (*ALL_CORPORA, *(name for name in corpora.KNOWN_CORPORA if name not in ALL_CORPORA))
DEFAULT_DEST = corpora.DEFAULT_DEST


@dataclass(frozen=True)
class SourceFile:
    path: str
    corpus: str
    lines: int
    relevant: bool  # passes the engine's pre-filter (mentions torch or cuda): parsed and analysed


def read_source(path: Path) -> str:
    """Decode a file as Python does (PEP 263 cookie, BOM), replacing undecodable bytes."""
    data = path.read_bytes()
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        encoding = "utf-8"
    try:
        return data.decode(encoding)
    except (UnicodeDecodeError, LookupError):
        return data.decode("utf-8", errors="replace")


def torch_sources() -> Path | None:
    """The installed torch package's folder, found without importing torch."""
    spec = importlib.util.find_spec("torch")
    if spec is None or spec.origin is None:
        return None
    return Path(spec.origin).parent


def collect(names: Sequence[str], dest: Path) -> dict[str, list[Path]]:
    """{corpus: its .py files}, downloading the wheels that are missing."""
    found: dict[str, list[Path]] = {}
    wheels = [name for name in names if name in corpora.KNOWN_CORPORA]
    if wheels:
        found.update(corpora.corpus_files(dest, wheels))
    if TORCH_CORPUS in names:
        root = torch_sources()
        if root is None:
            print("torch is not installed: the torch corpus is left out")
        else:
            found[TORCH_CORPUS] = sorted(root.rglob("*.py"))
    return {name: found[name] for name in names if name in found}


def describe(found: dict[str, list[Path]], max_lines: int | None) -> list[SourceFile]:
    """Every file, or per corpus a fixed random sample of about ``max_lines`` lines."""
    files: list[SourceFile] = []
    for name, paths in found.items():
        if max_lines is not None:
            paths = list(paths)
            random.Random(f"torchdevice-bench-{name}").shuffle(paths)
        chosen, total = [], 0
        for path in paths:
            if max_lines is not None and total >= max_lines:
                break
            source = read_source(path)
            lines = len(source.splitlines())
            chosen.append(SourceFile(str(path), name, lines, could_have_findings(source)))
            total += lines
        files.extend(sorted(chosen, key=lambda item: item.path))
    return files
