"""python -m runtime_checks: run every fixture on every device and check the linter against what happens.

Each fixture of tests/fixtures runs in a fresh process per device, with ``device`` bound to that
device, and gets a verdict per device: confirmed (a bad fixture fails as its ``# runtime:`` line
declares), clean (a good fixture runs), not applicable (the declared failure needs a device this
machine lacks, or the simulated meta device cannot hold the data), or mismatch. Then the linter's
findings on the file are cross-checked: a finding must be a failure some device confirms (or one
only an absent device could show), and a file the linter passes must run everywhere.

Each bad fixture that its rule's autofix repairs entirely also runs fixed, as
``<CODE>/good_fixed_<name>.py``: the fixed program must run clean on every device (fixed.py).
And every safe fix is proven to keep the program's meaning: each fix pair (``fixes/*.in.py`` ->
``.out.py``, and each bad fixture with its rule's safe fixes applied) runs before and after the
fix, seeded alike, on every device, and must leave the same state (equivalence.py).

Devices: cpu always; cuda and mps when torch can use them; on a machine with neither, the
simulated ``meta`` device stands in for an accelerator (it proves device mixing raises, it is not
real hardware).

Usage:
    python -m runtime_checks                                # all fixtures, all devices
    python -m runtime_checks --device cpu,meta --fixtures TDV002 'tests/fixtures/TDV001/bad_*.py'
    python -m runtime_checks --json report.json --markdown report.md --timeout 30

Options:
    --device NAME[,NAME]   cpu, cuda, mps or meta; repeatable (default: every device available)
    --fixtures CHOICE...   rule codes, files, directories or globs (default: all of tests/fixtures)
    --json PATH            machine-readable results
    --markdown PATH        a report: torch version, date, devices (real or simulated), table, problems
    --timeout SECONDS      per run (default 60); a run past it is killed and is a mismatch
    --start-method M       forkserver (default; torch imported once, each run a fork) or spawn
                           (a fresh interpreter per run; the default on macOS)

Exit status: 0 when every run is confirmed, clean or not applicable, every cross-check holds and
no safe fix changes what its program does; 1 on any mismatch, cross-check failure, malformed
fixture or safe fix that is not equivalent; 2 on a usage error.
"""

from __future__ import annotations

import argparse
import contextlib
import sys
import tempfile
from pathlib import Path

from .devices import KNOWN_DEVICES, DeviceError, probe_machine
from .equivalence import IN_SUFFIX, OUT_SUFFIX, declared_pair, fixture_pair, written
from .fixed import write_fixed_copies
from .fixtures import SelectionError, fixture_paths, pair_paths, select_paths
from .launch import DEFAULT_START_METHOD, START_METHODS, make_launcher
from .report import json_report, markdown_report, text_report
from .runner import check_all, load_all

DEFAULT_TIMEOUT = 60.0


def device_names(value: str) -> list[str]:
    """One ``--device`` value: a name or a comma list of names."""
    names = [name.strip() for name in value.split(",") if name.strip()]
    unknown = [name for name in names if name not in KNOWN_DEVICES]
    if unknown or not names:
        raise argparse.ArgumentTypeError(f"choose among {', '.join(KNOWN_DEVICES)}, not {value!r}")
    return names


def positive_seconds(value: str) -> float:
    seconds = float(value)
    if seconds <= 0:
        raise argparse.ArgumentTypeError(f"a timeout is a positive number of seconds, not {value!r}")
    return seconds


def parser() -> argparse.ArgumentParser:
    options = argparse.ArgumentParser(
        prog="python -m runtime_checks",
        description="Run the fixtures on every device; cross-check the linter.",
    )
    options.add_argument(
        "--device",
        action="append",
        type=device_names,
        default=[],
        metavar="NAME[,NAME]",
        help="devices to run on (cpu, cuda, mps, meta); default: every device present, meta when no accelerator",
    )
    options.add_argument(
        "--fixtures", nargs="+", default=[], metavar="CHOICE", help="fixture files, globs or rule codes (TDV002)"
    )
    options.add_argument("--json", type=Path, metavar="PATH", help="write the results as JSON")
    options.add_argument("--markdown", type=Path, metavar="PATH", help="write a Markdown report")
    options.add_argument(
        "--timeout",
        type=positive_seconds,
        default=DEFAULT_TIMEOUT,
        metavar="SECONDS",
        help=f"limit for one fixture on one device (default {DEFAULT_TIMEOUT})",
    )
    options.add_argument(
        "--start-method",
        choices=START_METHODS,
        default=DEFAULT_START_METHOD,
        help="forkserver: fork each run from a process that imported torch once; spawn: a fresh interpreter per run",
    )
    return options


def main(argv: list[str] | None = None) -> int:
    options = parser()
    arguments = options.parse_args(argv)
    try:
        chosen = select_paths(arguments.fixtures) if arguments.fixtures else [*fixture_paths(), *pair_paths()]
    except SelectionError as error:
        options.error(str(error))  # exits with status 2
    paths = [path for path in chosen if not path.name.endswith((IN_SUFFIX, OUT_SUFFIX))]
    pair_inputs = [path for path in chosen if path.name.endswith(IN_SUFFIX)]
    if not paths and not pair_inputs:
        options.error("no fixture files found")
    # Started first: the fork server imports torch while the probe does the same.
    with (
        contextlib.closing(make_launcher(arguments.start_method)) as launcher,
        tempfile.TemporaryDirectory(prefix="fixed-fixtures-") as scratch,
    ):
        machine = probe_machine()
        requested = list(dict.fromkeys(name for names in arguments.device for name in names))
        try:
            devices = machine.choose(requested)
        except DeviceError as error:
            options.error(str(error))
        fixtures = load_all(paths)[0]
        fixed = write_fixed_copies(fixtures, Path(scratch))
        pairs = [*map(declared_pair, pair_inputs), *map(fixture_pair, fixtures)]
        fix_pairs = written([pair for pair in pairs if pair is not None], Path(scratch) / "equivalence")
        results = check_all([*paths, *fixed], machine, devices, arguments.timeout, launcher, fix_pairs)
    sys.stdout.write(text_report(results))
    if arguments.json:
        arguments.json.write_text(json_report(results), encoding="utf-8")
    if arguments.markdown:
        arguments.markdown.write_text(markdown_report(results), encoding="utf-8")
    return 0 if results.ok else 1


if __name__ == "__main__":
    sys.exit(main())
