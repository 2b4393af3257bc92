"""Every fixture on every device, in parallel, then each fixture's verdicts and the linter's word on it;
and each fix pair before and after its fix, compared (equivalence.py).

Worker threads only wait on child processes, so one worker per core keeps every core busy.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

from flake8_torchdevice.engine import lint_source

from .devices import Device, Machine
from .equivalence import DIFFERENT, Equivalence, FixPair, compare
from .fixtures import Fixture, FixtureError, load_fixture
from .launch import Launcher, Run, run_fixture
from .verdicts import MISMATCH, Verdict, cross_check, decide


@dataclass(frozen=True)
class DeviceRun:
    run: Run
    verdict: Verdict


@dataclass(frozen=True)
class FixtureResult:
    fixture: Fixture
    linter_codes: tuple[str, ...]  # distinct codes the linter reports on the file
    runs: dict[str, DeviceRun]  # by device name, in the order of the devices
    cross_check: str  # empty when the linter and the runs agree


@dataclass(frozen=True)
class PairResult:
    pair: FixPair
    runs: dict[str, tuple[Run, Run]]  # by device name: the original's run, the fixed program's
    verdicts: dict[str, Equivalence]  # by device name, in the order of the devices


@dataclass(frozen=True)
class Results:
    machine: Machine
    devices: tuple[Device, ...]
    start_method: str
    timeout: float
    fixtures: list[FixtureResult]
    fixture_errors: list[str]  # fixtures whose annotations do not parse
    seconds: float
    equivalence: list[PairResult] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        mismatch = any(
            result.cross_check or any(run.verdict.kind == MISMATCH for run in result.runs.values())
            for result in self.fixtures
        )
        different = any(verdict.kind == DIFFERENT for pair in self.equivalence for verdict in pair.verdicts.values())
        return not (self.fixture_errors or mismatch or different)


def load_all(paths: Sequence[Path]) -> tuple[list[Fixture], list[str]]:
    """The fixtures that parse, and an error line per one that does not: a broken file spoils no run."""
    fixtures, errors = [], []
    for path in paths:
        try:
            fixtures.append(load_fixture(path))
        except FixtureError as error:
            errors.append(str(error))
    return fixtures, errors


def check_all(
    paths: Sequence[Path],
    machine: Machine,
    devices: Sequence[Device],
    timeout: float,
    launcher: Launcher,
    fix_pairs: Sequence[tuple[FixPair, Path]] = (),
) -> Results:
    """Run the fixtures, and each fix pair (with its fixed program's file) observed before and after."""
    started = time.monotonic()
    fixtures, errors = load_all(paths)
    jobs = [(fixture.path, device.name, False) for fixture in fixtures for device in devices]
    programs = [program for pair, fixed in fix_pairs for program in (pair.before, fixed)]
    jobs += [(program, device.name, True) for program in programs for device in devices]
    pool = ThreadPoolExecutor(max_workers=max(1, min(os.cpu_count() or 1, len(jobs))))
    try:
        pending = {job: pool.submit(run_fixture, job[0], job[1], launcher, timeout, observe=job[2]) for job in jobs}
        linted = {fixture.path: lint_codes(fixture) for fixture in fixtures}  # while the runs run
        runs = {job: future.result() for job, future in pending.items()}
    except BaseException:
        # Ctrl-C: drop the runs not started; closing the launcher ends those running.
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    results = [_result(fixture, linted[fixture.path], runs, devices, machine) for fixture in fixtures]
    compared = [_compared(pair, fixed, runs, devices) for pair, fixed in fix_pairs]
    seconds = time.monotonic() - started
    return Results(machine, tuple(devices), launcher.start_method, timeout, results, errors, seconds, compared)


def _compared(
    pair: FixPair, fixed: Path, runs: dict[tuple[Path, str, bool], Run], devices: Sequence[Device]
) -> PairResult:
    observed = {
        device.name: (runs[(pair.before, device.name, True)], runs[(fixed, device.name, True)]) for device in devices
    }
    return PairResult(pair, observed, {name: compare(*both) for name, both in observed.items()})


def lint_codes(fixture: Fixture) -> tuple[str, ...]:
    # Bytes, decoded without newline translation: CRLF fixtures are linted as CRLF, as in the tests.
    source = fixture.path.read_bytes().decode("utf-8")
    return tuple(sorted({diagnostic.code for diagnostic in lint_source(source)}))


def _result(
    fixture: Fixture,
    codes: tuple[str, ...],
    runs: dict[tuple[Path, str, bool], Run],
    devices: Sequence[Device],
    machine: Machine,
) -> FixtureResult:
    device_runs = {}
    for device in devices:
        run = runs[(fixture.path, device.name, False)]
        verdict = decide(fixture.runtime, run.outcome, device, machine.cuda_usable)
        device_runs[device.name] = DeviceRun(run, verdict)
    verdicts = [device_run.verdict for device_run in device_runs.values()]
    labels = [device.label for device in devices]
    disagreement = cross_check(codes, verdicts, labels, fixture.performance_only)
    return FixtureResult(fixture, codes, device_runs, disagreement)
