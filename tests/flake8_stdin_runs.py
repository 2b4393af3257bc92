"""Many flake8 stdin runs in one process, each as an editor starts it: ``flake8 ... -``.

Each run is flake8's own command line (``flake8.main.cli.main``) reading the text from standard
input; only the interpreter and its imports are shared, which is most of a run's time. flake8
reads standard input once per process and caches it, so the cache is cleared before each run.

    python tests/flake8_stdin_runs.py < runs.json

reads ``[{"args": [...], "stdin": text}, ...]`` and prints, in the same order,
``[{"status": exit status, "stdout": text, "stderr": text}, ...]``. A run that raises records its
traceback in ``stderr`` and status ``None``; the next run goes on.
"""

from __future__ import annotations

import io
import json
import sys
import traceback
from typing import Any

from flake8 import utils
from flake8.main.cli import main


def _text_over(data: io.BytesIO) -> io.TextIOWrapper:
    return io.TextIOWrapper(data, encoding="utf-8", newline="")


def run(args: list[str], stdin: str) -> dict[str, Any]:
    utils.stdin_get_value.cache_clear()
    out, err = io.BytesIO(), io.BytesIO()
    sys.stdin = _text_over(io.BytesIO(stdin.encode("utf-8")))
    sys.stdout, sys.stderr = _text_over(out), _text_over(err)
    try:
        status: int | None = main(args)
    except BaseException:  # SystemExit from a usage error included: reported, not fatal
        status = None
        traceback.print_exc()
    sys.stdout.flush()
    sys.stderr.flush()
    return {"status": status, "stdout": out.getvalue().decode("utf-8"), "stderr": err.getvalue().decode("utf-8")}


if __name__ == "__main__":
    runs = json.load(sys.stdin)
    real_stdout = sys.stdout
    results = [run(item["args"], item["stdin"]) for item in runs]
    real_stdout.write(json.dumps(results))
