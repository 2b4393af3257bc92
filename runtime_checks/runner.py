"""Every fixture on every device, in parallel, then each fixture's verdicts and the linter's word on it.

Worker threads only wait on child processes, so one worker per core keeps every core busy.
"""

from __future__ import annotations

import os
import time
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

from flake8_torchdevice.engine import lint_source

from .devices import Device, Machine
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
class Results:
    machine: Machine
    devices: tuple[Device, ...]
    start_method: str
    timeout: float
    fixtures: list[FixtureResult]
    fixture_errors: list[str]  # fixtures whose annotations do not parse
    seconds: float

    @property
    def ok(self) -> bool:
        return not self.fixture_errors and not any(
            result.cross_check or any(run.verdict.kind == MISMATCH for run in result.runs.values())
            for result in self.fixtures
        )


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
    paths: Sequence[Path], machine: Machine, devices: Sequence[Device], timeout: float, launcher: Launcher
) -> Results:
    started = time.monotonic()
    fixtures, errors = load_all(paths)
    pairs = [(fixture, device) for fixture in fixtures for device in devices]
    pool = ThreadPoolExecutor(max_workers=max(1, min(os.cpu_count() or 1, len(pairs))))
    try:
        pending = {
            (fixture.path, device.name): pool.submit(run_fixture, fixture.path, device.name, launcher, timeout)
            for fixture, device in pairs
        }
        linted = {fixture.path: lint_codes(fixture) for fixture in fixtures}  # while the runs run
        runs = {key: future.result() for key, future in pending.items()}
    except BaseException:
        # Ctrl-C: drop the runs not started; closing the launcher ends those running.
        pool.shutdown(wait=False, cancel_futures=True)
        raise
    pool.shutdown()
    results = [_result(fixture, linted[fixture.path], runs, devices, machine) for fixture in fixtures]
    seconds = time.monotonic() - started
    return Results(machine, tuple(devices), launcher.start_method, timeout, results, errors, seconds)


def lint_codes(fixture: Fixture) -> tuple[str, ...]:
    # Bytes, decoded without newline translation: CRLF fixtures are linted as CRLF, as in the tests.
    source = fixture.path.read_bytes().decode("utf-8")
    return tuple(sorted({diagnostic.code for diagnostic in lint_source(source)}))


def _result(
    fixture: Fixture,
    codes: tuple[str, ...],
    runs: dict[tuple[Path, str], Run],
    devices: Sequence[Device],
    machine: Machine,
) -> FixtureResult:
    device_runs = {}
    for device in devices:
        run = runs[(fixture.path, device.name)]
        verdict = decide(fixture.runtime, run.outcome, device, machine.cuda_usable)
        device_runs[device.name] = DeviceRun(run, verdict)
    verdicts = [device_run.verdict for device_run in device_runs.values()]
    labels = [device.label for device in devices]
    disagreement = cross_check(codes, verdicts, labels, fixture.performance_only)
    return FixtureResult(fixture, codes, device_runs, disagreement)
