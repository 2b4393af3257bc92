"""Run one fixture on one device in a fresh process and turn what it left into an Outcome.

Each run gets a temporary directory: an empty working directory for the fixture, a log file that
takes all its output (a file, not a pipe: a fixture that prints megabytes cannot block on a full
pipe buffer) and the result file the child writes (see child.py).

Two start methods, named after multiprocessing's:
- ``forkserver`` (default where fork is safe): one server imports torch once and forks a
  fresh process per run, several at a time. A run takes milliseconds, not the seconds that
  importing torch costs.
- ``spawn``: a fresh interpreter per run. The reference behaviour, and the only safe one on
  macOS, where forking after loading Apple's frameworks is not.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import Future
from dataclasses import asdict, dataclass
from pathlib import Path

from . import child
from .verdicts import Outcome

START_METHODS = ("forkserver", "spawn")
DEFAULT_START_METHOD = "spawn" if sys.platform == "darwin" else "forkserver"

# Enough of a fixture's output to read its traceback, not enough to swell a report.
TAIL_BYTES = 4000


@dataclass(frozen=True)
class Job:
    """One run, as the child needs it; every path is absolute since the child changes directory."""

    fixture: str
    device: str
    workdir: str
    log: str
    result: str
    timeout: float
    observe: bool = False  # seeded, reporting the state the program leaves (child.py)


@dataclass(frozen=True)
class Exit:
    returncode: int  # negative: killed by that signal
    timed_out: bool


@dataclass(frozen=True)
class Run:
    outcome: Outcome
    seconds: float
    output_tail: str
    state: dict | None = None  # what an observed run left (child.py); None otherwise, or without a result


class SpawnLauncher:
    """A fresh interpreter per run."""

    start_method = "spawn"

    def __init__(self) -> None:
        self._running: set[subprocess.Popen] = set()
        self._lock = threading.Lock()

    def launch(self, job: Job) -> Exit:
        with open(job.log, "wb") as log:
            process = subprocess.Popen(
                [sys.executable, child.__file__, "run", job.fixture, job.device, job.result]
                + (["observe"] if job.observe else []),
                cwd=job.workdir,
                stdin=subprocess.DEVNULL,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,  # a timeout kills the fixture's own subprocesses too
            )
        with self._lock:
            self._running.add(process)
        try:
            return Exit(process.wait(job.timeout), timed_out=False)
        except subprocess.TimeoutExpired:
            child.kill_group(process.pid)
            return Exit(process.wait(), timed_out=True)
        finally:
            with self._lock:
                self._running.discard(process)

    def close(self) -> None:
        """Kill the runs still going: after a normal run there are none; after Ctrl-C, none may outlive us."""
        with self._lock:
            for process in self._running:
                child.kill_group(process.pid)


class ForkServerLauncher:
    """One fork server for every worker thread, started at once: it warms up while the caller probes.

    Threads send job lines tagged with an id; one reader thread hands each reply to the thread
    waiting for that id.
    """

    start_method = "forkserver"

    def __init__(self) -> None:
        self._server = subprocess.Popen(
            [sys.executable, child.__file__, "serve"],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        self._ids = itertools.count()
        self._waiting: dict[int, Future] = {}
        self._lock = threading.Lock()
        self._died: RuntimeError | None = None
        self._reader = threading.Thread(target=self._read_replies, daemon=True)
        self._reader.start()

    def launch(self, job: Job) -> Exit:
        reply: Future = Future()
        with self._lock:
            if self._died is not None:
                raise self._died
            job_id = next(self._ids)
            self._waiting[job_id] = reply
            try:
                self._server.stdin.write(json.dumps({"id": job_id, **asdict(job)}) + "\n")
                self._server.stdin.flush()
            except BrokenPipeError:
                pass  # the reader sees the end of the replies and fails every waiting run
        return reply.result()

    def close(self) -> None:
        """Closing stdin ends the server, and any run still going (none, unless after Ctrl-C)."""
        with contextlib.suppress(BrokenPipeError):  # a dead server; the runs already failed
            self._server.stdin.close()
        self._server.wait()
        self._reader.join()

    def _read_replies(self) -> None:
        for line in self._server.stdout:
            answer = json.loads(line)
            with self._lock:
                reply = self._waiting.pop(answer["id"])
            reply.set_result(Exit(answer["returncode"], answer["timed_out"]))
        died = RuntimeError(
            f"the fork server exited with code {self._server.wait()} (its error is above); try --start-method spawn"
        )
        with self._lock:
            self._died = died
            for reply in self._waiting.values():
                reply.set_exception(died)
            self._waiting.clear()


Launcher = SpawnLauncher | ForkServerLauncher


def make_launcher(start_method: str) -> Launcher:
    return ForkServerLauncher() if start_method == "forkserver" else SpawnLauncher()


def run_fixture(fixture: Path, device: str, launcher: Launcher, timeout: float, observe: bool = False) -> Run:
    with tempfile.TemporaryDirectory(prefix="runtime-check-") as scratch:
        job = _job_in(Path(scratch), fixture, device, timeout, observe)
        started = time.monotonic()
        ended = launcher.launch(job)
        seconds = time.monotonic() - started
        result = _read_if_present(job.result)
        state = json.loads(result).get("state") if result is not None and not ended.timed_out else None
        return Run(outcome_from(result, ended, timeout), seconds, _tail(Path(job.log)), state)


def _job_in(scratch: Path, fixture: Path, device: str, timeout: float, observe: bool) -> Job:
    workdir = scratch / "work"
    workdir.mkdir()
    log = scratch / "output.log"
    log.touch()  # a child that dies before opening it still leaves an (empty) tail to read
    return Job(
        fixture=str(fixture.resolve()),
        device=device,
        workdir=str(workdir),
        log=str(log),
        result=str(scratch / "result.json"),
        timeout=timeout,
        observe=observe,
    )


def outcome_from(result: str | None, ended: Exit, timeout: float) -> Outcome:
    """The child's own report when it wrote one; otherwise why it died, from its exit status."""
    if ended.timed_out:
        return Outcome(no_result=f"timed out after {timeout:g} s")
    if result is None:
        return Outcome(no_result=f"{_death(ended.returncode)} without a result")
    raised = json.loads(result)["raised"]
    if raised is None:
        return Outcome()
    return Outcome(tuple(raised["types"]), raised["message"])


def _death(returncode: int) -> str:
    if returncode < 0:
        return f"killed by {_signal_name(-returncode)}"
    return f"exited with code {returncode}"


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _read_if_present(path: str) -> str | None:
    try:
        return Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return None


def _tail(log: Path) -> str:
    with open(log, "rb") as stream:
        stream.seek(max(0, os.fstat(stream.fileno()).st_size - TAIL_BYTES))
        return stream.read().decode("utf-8", errors="replace")
