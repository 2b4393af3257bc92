"""Whether this process is the linter's own: the command and its worker processes, the language
server's worker. Only there may the engine change process-wide state (parsing.py); never in a
flake8 run, an editor or an application that shares its process with other code.

Apart from parsing.py because the command claims its process as it starts, before it knows
whether any file needs parsing: importing parsing loads libcst, which a warm run never needs.
"""

_owned = False


def own_this_process() -> None:
    """This process is the linter's own: the speed-ups that change process-wide state apply."""
    global _owned
    _owned = True


def owns_this_process() -> bool:
    return _owned
