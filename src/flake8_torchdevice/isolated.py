"""One file analysed in a process of the linter's own, under the memory budget, for a front end
whose own process is shared (flake8's, and its worker processes, which may not start
multiprocessing children of their own).

The child is ``python -m flake8_torchdevice.isolated``: it reads the file's text, the settings
and the selected codes from its standard input, limits its address space to what it holds once
the linter is imported plus the budget, and writes the diagnostics to its standard output. Both
ends are this package (the pipe carries pickles between them, never anything read from disk).
"""

from __future__ import annotations

import pickle
import subprocess
import sys
from collections.abc import Sequence

from .engine import Diagnostic, lint_source, unanalysable
from .rules import Rule, selected_rules
from .settings import Settings
from .sources import MIB

# Long enough for the largest file the budget admits; only a stuck child runs past it.
TIME_LIMIT_S = 600.0


def lint_isolated(source: str, settings: Settings, rules: Sequence[type[Rule]], memory_budget: int) -> list[Diagnostic]:
    request = pickle.dumps((source, settings, [rule.code for rule in rules], memory_budget * MIB))
    try:
        completed = subprocess.run(
            [sys.executable, "-m", __name__], input=request, capture_output=True, timeout=TIME_LIMIT_S
        )
    except subprocess.TimeoutExpired:
        return [unanalysable(f"not analysed within {TIME_LIMIT_S:g} s")]
    if completed.returncode != 0:
        why = f"a crash, or more memory than the budget of {memory_budget} MiB"
        return [unanalysable(f"the process analysing it died (exit status {completed.returncode}): {why}")]
    return pickle.loads(completed.stdout)


def _main() -> None:
    from .ownership import own_this_process
    from .workers import limit_address_space

    source, settings, codes, memory_limit = pickle.loads(sys.stdin.buffer.read())
    own_this_process()
    limit_address_space(memory_limit)
    sys.stdout.buffer.write(pickle.dumps(lint_source(source, settings, selected_rules(codes))))


if __name__ == "__main__":
    _main()
