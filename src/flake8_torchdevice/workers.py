"""Worker processes that survive one another, and die with their parent.

``concurrent.futures.ProcessPoolExecutor`` breaks as a whole when one worker dies: every pending
file fails with ``BrokenProcessPool``, and the run ends without printing what the others found.
Here each worker has a pipe of its own and works on one item at a time, so the parent always
knows which item a dead worker held: that item gets the caller's ``died`` result, a fresh worker
takes the dead one's place, and the run goes on.

Each worker caps its address space at what it holds when it starts plus the memory budget
(Linux), so a file that needs more makes that worker fail, not the machine. On Linux the kernel
kills the workers when their parent dies, even by SIGKILL; elsewhere an idle worker ends when its
pipe closes, a busy one after its current item.

``Worker`` is the same process for a caller that lives long and cannot wait for ever (the language
server): one item at a time, each within a time limit, past which the worker is killed.
"""

from __future__ import annotations

import contextlib
import ctypes
import multiprocessing
import os
import pickle
import signal
import sys
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from multiprocessing.connection import Connection, wait
from typing import Any, Generic, TypeVar

from .ownership import own_this_process

Item = TypeVar("Item")
Result = TypeVar("Result")

_PR_SET_PDEATHSIG = 1  # linux/prctl.h
_DIED = object()


def run_in_workers(
    function: Callable[[Item], Result],
    items: Sequence[Item],
    jobs: int,
    memory_limit: int,
    died: Callable[[Item, str], Result],
) -> Iterator[tuple[int, Result]]:
    """``(index, function(items[index]))`` for every item, as each finishes, in ``jobs`` processes.

    ``function`` should not raise. An item whose worker dies gets ``died(item, how)`` instead, where
    ``how`` says how it died ("was killed by SIGKILL"). Each worker may use ``memory_limit`` bytes
    more than it holds when it starts. The workers are gone when the iterator is.
    """
    context = _context()
    pending = deque(enumerate(items))
    workers = [_Worker(context, function, memory_limit) for _ in range(min(jobs, len(items)))]
    try:
        for worker in workers:
            worker.take(pending)
        while busy := [worker for worker in workers if worker.task is not None]:
            ready = set(wait([ending for worker in busy for ending in worker.endings]))
            for position, worker in enumerate(workers):
                if worker.task is None or not ready.intersection(worker.endings):
                    continue
                index, item = worker.task
                result = worker.result()
                yield index, died(item, worker.death()) if result is _DIED else result
                if not worker.alive and pending:
                    workers[position] = worker = _Worker(context, function, memory_limit)
                worker.take(pending)
    finally:
        for worker in workers:
            worker.stop()


class WorkerDied(Exception):
    """The worker process died before it answered: a crash, or more memory than its budget."""


class Worker(Generic[Item, Result]):
    """One worker process, asked one item at a time, each within a time limit.

    A worker that has not answered within the limit is killed (TimeoutError), one that dies says
    how (WorkerDied), and the next call starts a fresh one. A fresh worker first answers
    ``warm_up`` within a limit of its own: a new process spends its first second importing the
    linter, which is no item's time. Spawned, not forked: a long-lived caller has threads (the
    server's reader), and a fork copies the locks they hold.
    """

    # A worker that has not started in this long, on the busiest machine, is stuck.
    WARM_UP_LIMIT_S = 120.0

    def __init__(self, function: Callable[[Item], Result], memory_limit: int, warm_up: Item) -> None:
        self._function = function
        self._memory_limit = memory_limit
        self._warm_up = warm_up
        self._current: _Worker | None = None

    def start(self) -> None:
        """Start a worker now, if none runs, so that the next call does not wait for it."""
        if self._current is None:
            self._fresh()

    def call(self, item: Item, timeout: float) -> Result:
        return self._answer(self._current or self._fresh(), item, timeout)

    def _fresh(self) -> _Worker:
        worker = self._current = _Worker(multiprocessing.get_context("spawn"), self._function, self._memory_limit)
        self._answer(worker, self._warm_up, self.WARM_UP_LIMIT_S)
        return worker

    def _answer(self, worker: _Worker, item: Item, timeout: float) -> Result:
        worker.give((0, item))
        if not wait(worker.endings, timeout):
            self.stop()
            raise TimeoutError(f"no answer within {timeout:g} s")
        result = worker.result()
        worker.give(None)
        if result is _DIED:
            how = worker.death()
            self.stop()
            raise WorkerDied(how)
        return result  # what ``function`` returned, through the pipe

    def stop(self) -> None:
        worker, self._current = self._current, None
        if worker is not None:
            worker.stop()


class _Worker:
    def __init__(self, context: Any, function: Callable[[Any], Any], memory_limit: int) -> None:
        self._connection, theirs = context.Pipe()
        self._process = context.Process(target=_serve, args=(theirs, function, memory_limit, os.getpid()), daemon=True)
        self._process.start()
        theirs.close()
        self.task: tuple[int, Any] | None = None

    @property
    def endings(self) -> tuple[Any, ...]:
        """What becomes ready when the task ends: a result in the pipe, or the process gone."""
        return self._connection, self._process.sentinel

    def take(self, pending: deque[tuple[int, Any]]) -> None:
        self.give(pending.popleft() if pending else None)

    def give(self, task: tuple[int, Any] | None) -> None:
        self.task = task
        if task is not None:
            with contextlib.suppress(BrokenPipeError):  # it died meanwhile: its sentinel says how
                self._connection.send(task)

    @property
    def alive(self) -> bool:
        return self._process.is_alive()

    def result(self) -> Any:
        """The task's result; _DIED when the worker died before sending it whole."""
        try:
            if self._connection.poll():
                return self._connection.recv()[1]
        except (EOFError, OSError, pickle.UnpicklingError):
            pass
        return _DIED

    def death(self) -> str:
        self._process.join()
        code = self._process.exitcode or 0
        return f"was killed by {_signal_name(-code)}" if code < 0 else f"exited with status {code}"

    def stop(self) -> None:
        """Done, or the parent is leaving early (Ctrl-C, an error): no worker outlives the run."""
        if self._process.is_alive():
            self._process.kill()
        self._process.join()
        self._connection.close()


def _context() -> Any:
    """fork where it is safe: a worker starts in milliseconds with the linter already imported, and
    the command starts no threads that a fork could break. macOS and Windows spawn."""
    if sys.platform == "darwin" or "fork" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    return multiprocessing.get_context("fork")


def _serve(connection: Connection, function: Callable[[Any], Any], memory_limit: int, parent: int) -> None:
    # Ctrl-C reaches the whole process group: the parent handles it, and stops its workers.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    _silence_output()
    _die_with_parent(parent)
    limit_address_space(memory_limit)
    own_this_process()
    while True:
        try:
            index, item = connection.recv()
        except EOFError:  # the parent closed the pipe, or is gone
            return
        connection.send((index, function(item)))


def _silence_output() -> None:
    """What a worker has to say comes back in its results. A native runtime's last words (libcst's
    parser aborting with "memory allocation failed", a Rust backtrace) would only repeat the line
    that the item's ``died`` result prints; and the language server's standard output is its
    conversation with the editor, where a stray line would break a message."""
    with open(os.devnull, "wb") as devnull:
        os.dup2(devnull.fileno(), 1)
        os.dup2(devnull.fileno(), 2)


def _die_with_parent(parent: int) -> None:
    if sys.platform.startswith("linux"):
        ctypes.CDLL(None).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != parent:  # it died before the request took effect
        os._exit(0)


def limit_address_space(extra: int) -> None:
    """Allocations past what this process holds now plus ``extra`` bytes fail: a MemoryError, or
    libcst's native parser aborting this worker. Linux only; elsewhere the size check alone holds."""
    try:
        import resource

        with open("/proc/self/statm") as statm:
            pages = int(statm.read().split()[0])
    except (ImportError, OSError):
        return
    limit = pages * os.sysconf("SC_PAGE_SIZE") + extra
    _, hard = resource.getrlimit(resource.RLIMIT_AS)
    if hard == resource.RLIM_INFINITY or limit < hard:
        resource.setrlimit(resource.RLIMIT_AS, (limit, hard))


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"
