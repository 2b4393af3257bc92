"""``Worker``: the language server's one worker process, asked one item at a time within a time limit.

The items are standard-library calls: a spawned worker imports what it runs, and these need nothing.
"""

from __future__ import annotations

import operator
import os
import time
from functools import partial

import pytest

from flake8_torchdevice.workers import Worker, WorkerDied

LONG = 600  # seconds: far past any time limit below, and any machine's slowness


@pytest.fixture
def worker():
    started = Worker(operator.call, memory_limit=1 << 30, warm_up=partial(operator.add, 0, 0))
    yield started
    started.stop()


def test_the_worker_answers(worker):
    assert worker.call(partial(operator.add, 2, 3), timeout=LONG) == 5
    assert worker.call(partial(operator.mul, 2, 3), timeout=LONG) == 6


def test_an_item_past_its_time_limit_is_stopped_and_the_next_gets_a_fresh_worker(worker):
    with pytest.raises(TimeoutError):
        worker.call(partial(time.sleep, LONG), timeout=0.5)
    assert worker.call(partial(operator.add, 2, 3), timeout=LONG) == 5


def test_a_worker_that_dies_says_how_and_is_replaced(worker):
    with pytest.raises(WorkerDied, match="exited with status 3"):
        worker.call(partial(os._exit, 3), timeout=LONG)
    assert worker.call(partial(operator.add, 2, 3), timeout=LONG) == 5
