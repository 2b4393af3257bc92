"""Where the engine's time goes, stage by stage, for the benchmark (``bench/``).

``check_source(..., timings=StageTimings())`` adds each stage's CPU seconds to the object: the
parse, the analysis, each rule (under its code) and the positions of the reported nodes. A run
without one pays nothing but a shared no-op context manager per stage.
"""

from __future__ import annotations

import time
from collections import defaultdict
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext

PARSE = "parse"
ANALYSE = "analyse"
POSITIONS = "positions"
# Each rule's stage is named by its code (``TDV001``).


class StageTimings:
    """Seconds per stage, added up over every file checked with this object."""

    def __init__(self, clock: Callable[[], float] = time.process_time) -> None:
        # CPU time by default: the shares hold on a busy machine, where wall time does not.
        self._clock = clock
        self.seconds: defaultdict[str, float] = defaultdict(float)

    def stage(self, name: str) -> AbstractContextManager[None]:
        return self._timed(name)

    @contextmanager
    def _timed(self, name: str) -> Iterator[None]:
        start = self._clock()
        try:
            yield
        finally:
            self.seconds[name] += self._clock() - start


class _Untimed(StageTimings):
    """What the engine uses when nobody asked for timings: no clock is read."""

    _NOTHING: AbstractContextManager[None] = nullcontext()

    def stage(self, name: str) -> AbstractContextManager[None]:
        return self._NOTHING


UNTIMED: StageTimings = _Untimed()
