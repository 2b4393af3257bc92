"""The tools compared and the machine they ran on: versions, TorchFix, the torchdevice command.

TorchFix is needed for measurement (d). When the running environment lacks it, it is installed
with ``sys.executable -m pip install --no-deps --target <cache>/bench-tools torchfix==0.7.0`` and
put on PYTHONPATH for (d) only: TorchFix 0.7.0 pins ``libcst<1.6``, and installing it into the
environment with its dependencies would downgrade the libcst our linter runs on.
"""

from __future__ import annotations

import datetime
import importlib.metadata
import importlib.util
import os
import platform
import subprocess
import sys

from .corpus import DEFAULT_DEST, REPOSITORY
from .measure import OUR_DISTRIBUTION, TORCHFIX_DISTRIBUTION

TORCHFIX = "torchfix==0.7.0"
TOOLS_DIR = DEFAULT_DEST / "bench-tools"


def version(distribution: str) -> str:
    try:
        return importlib.metadata.version(distribution)
    except importlib.metadata.PackageNotFoundError:
        return "not installed"


def torchfix_path(install: bool) -> tuple[str | None, str]:
    """(extra PYTHONPATH entry or "" when TorchFix is in the environment, or None; a note)."""
    if version(TORCHFIX_DISTRIBUTION) != "not installed":
        return "", f"TorchFix {version(TORCHFIX_DISTRIBUTION)} from the running environment"
    if (TOOLS_DIR / "torchfix" / "torchfix.py").exists():
        return str(TOOLS_DIR), f"TorchFix from {TOOLS_DIR}"
    if not install:
        return None, "TorchFix not installed and --no-install given: (d) skipped"
    command = [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(TOOLS_DIR), TORCHFIX]
    if importlib.util.find_spec("yaml") is None:  # TorchFix's one dependency besides flake8 and libcst
        command.append("PyYAML")
    print(f"installing {TORCHFIX} (without its libcst<1.6 pin) into {TOOLS_DIR}:\n    {' '.join(command)}")
    completed = subprocess.run(command)
    if completed.returncode != 0:
        return None, f"pip could not install {TORCHFIX}: (d) skipped"
    return str(TOOLS_DIR), f"TorchFix installed by this script into {TOOLS_DIR}"


def torchdevice_command() -> list[str] | None:
    """``python -m flake8_torchdevice check`` when the command exists in this environment."""
    command = [sys.executable, "-m", "flake8_torchdevice", "check"]
    try:
        completed = subprocess.run([*command, "--help"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    return command if completed.returncode == 0 and "--jobs" in completed.stdout else None


def load_average() -> str:
    return " ".join(f"{value:.2f}" for value in os.getloadavg()) if hasattr(os, "getloadavg") else "-"


def machine() -> dict[str, str]:
    cores = os.cpu_count() or 1
    usable = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else cores
    commit = subprocess.run(
        ["git", "-C", str(REPOSITORY), "describe", "--always", "--dirty"], capture_output=True, text=True
    ).stdout.strip()
    return {
        "date": datetime.datetime.now(datetime.UTC).strftime("%Y-%m-%d %H:%M UTC"),
        "machine": f"{platform.system()} {platform.machine()}, {cores} cores ({usable} usable)",
        "load average at start": load_average(),
        "python": platform.python_version(),
        "flake8-torchdevice": f"{version(OUR_DISTRIBUTION)} ({commit or 'no git'})",
        "libcst": version("libcst"),
        "flake8": f"{version('flake8')} (pycodestyle {version('pycodestyle')}, pyflakes {version('pyflakes')})",
        "torch (corpus)": version("torch"),
        "TorchFix": version(TORCHFIX_DISTRIBUTION),
    }
