"""Real PyTorch user code to measure the linter on, kept outside the repository.

Downloads pinned wheels of libraries written against PyTorch, unpacks each into its
own folder under a cache directory (never inside the repository: this is
third-party code and must not be committed), and lists their ``.py`` files.

Idempotent: a wheel already downloaded is not fetched again, a corpus already
unpacked is not unpacked again.

    python scripts/corpora.py            # fetch (if needed) and list file counts
    python scripts/corpora.py --dest DIR # use another cache directory

Reuse from another script::

    from corpora import corpus_files
    for name, paths in corpus_files().items(): ...
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import zipfile
from pathlib import Path
from typing import Dict, List, Optional, Sequence

# name -> pinned pip requirement. The name is also the corpus folder.
# The default set: what ``precision.py`` lints and what ``fetch`` fetches when given no names.
CORPORA: Dict[str, str] = {
    "timm": "timm==1.0.31",
    "kornia": "kornia==0.9.0",
    "accelerate": "accelerate==1.15.0",
}
# Fetched only when asked for by name (``bench/run.py`` uses them for the speed benchmark).
EXTRA_CORPORA: Dict[str, str] = {
    "monai": "monai==1.5.1",
    "torch-geometric": "torch_geometric==2.7.0",
}
KNOWN_CORPORA: Dict[str, str] = {**CORPORA, **EXTRA_CORPORA}

DEFAULT_DEST = Path.home() / ".cache" / "torchdevice-corpora"
REPOSITORY = Path(__file__).resolve().parent.parent
_DONE_MARKER = ".unpacked"


def _wheel_for(wheels: Path, requirement: str) -> Optional[Path]:
    name, _, version = requirement.partition("==")
    prefix = f"{name.replace('-', '_')}-{version}-"
    matches = sorted(path for path in wheels.glob("*.whl") if path.name.lower().startswith(prefix.lower()))
    return matches[0] if matches else None


def _check_outside_repository(dest: Path) -> None:
    resolved = dest.resolve()
    if resolved == REPOSITORY or REPOSITORY in resolved.parents:
        raise SystemExit(f"{dest} is inside the repository; third-party code must live outside it")


def fetch(
    dest: Path = DEFAULT_DEST, names: Optional[Sequence[str]] = None, quiet: bool = True
) -> Dict[str, Path]:
    """Download and unpack the corpora that are missing; return {name: unpacked folder}."""
    _check_outside_repository(dest)
    wheels = dest / "wheels"
    wheels.mkdir(parents=True, exist_ok=True)
    selected = list(names) if names else list(CORPORA)
    missing = [KNOWN_CORPORA[name] for name in selected if _wheel_for(wheels, KNOWN_CORPORA[name]) is None]
    if missing:
        command = [sys.executable, "-m", "pip", "download", "--no-deps", *missing, "-d", str(wheels)]
        if quiet:
            command.append("--quiet")
        subprocess.run(command, check=True)
    folders = {}
    for name in selected:
        folder = dest / name
        if not (folder / _DONE_MARKER).exists():
            wheel = _wheel_for(wheels, KNOWN_CORPORA[name])
            if wheel is None:
                raise SystemExit(f"pip did not produce a wheel for {KNOWN_CORPORA[name]}")
            folder.mkdir(parents=True, exist_ok=True)
            with zipfile.ZipFile(wheel) as archive:
                archive.extractall(folder)
            (folder / _DONE_MARKER).write_text(wheel.name + "\n")
        folders[name] = folder
    return folders


def python_files(folder: Path) -> List[Path]:
    """Every ``.py`` file of an unpacked corpus, sorted, metadata folders excluded."""
    return sorted(
        path for path in folder.rglob("*.py") if not any(part.endswith(".dist-info") for part in path.parts)
    )


def corpus_files(dest: Path = DEFAULT_DEST, names: Optional[Sequence[str]] = None) -> Dict[str, List[Path]]:
    """{corpus name: [.py paths]}, fetching what is missing first."""
    return {name: python_files(folder) for name, folder in fetch(dest, names).items()}


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--dest", type=Path, default=DEFAULT_DEST, help=f"cache directory (default {DEFAULT_DEST})"
    )
    parser.add_argument(
        "names",
        nargs="*",
        metavar="NAME",
        help=f"corpora to fetch (default: {', '.join(CORPORA)}; also known: {', '.join(EXTRA_CORPORA)})",
    )
    args = parser.parse_args(argv)
    unknown = sorted(set(args.names) - set(KNOWN_CORPORA))
    if unknown:
        parser.error(f"unknown corpus {', '.join(unknown)}; choose from {', '.join(KNOWN_CORPORA)}")
    for name, paths in corpus_files(args.dest, args.names or None).items():
        print(f"{name:12} {len(paths):5} .py files  {args.dest / name}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
