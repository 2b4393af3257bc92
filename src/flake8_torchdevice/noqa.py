"""``# noqa`` comments, read the way flake8 reads them, so the command and the plugin silence the same findings.

``# noqa`` silences every finding on its line, ``# noqa: TDV001,TDV003`` those codes (or codes
starting with them), and a line that starts with ``# flake8: noqa`` silences the whole file.
``with_noqa`` writes such a comment (the language server's "Ignore ... for this line").
"""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # the engine loads libcst, which naming its type needs not
    from .engine import Diagnostic

# The expressions of flake8.defaults (NOQA_INLINE_REGEXP, NOQA_FILE).
_INLINE = re.compile(r"# noqa(?::[\s]?(?P<codes>([A-Z]+[0-9]+(?:[,\s]+)?)+))?", re.IGNORECASE)
_FILE = re.compile(r"\s*# flake8[:=]\s*noqa", re.IGNORECASE)


def file_is_silenced(lines: list[str]) -> bool:
    return any(_FILE.match(line) for line in lines)


def is_silenced(line: str, code: str) -> bool:
    match = _INLINE.search(line)
    if match is None:
        return False
    codes = match.group("codes")
    return codes is None or code.startswith(tuple(re.split(r"[,\s]+", codes.strip())))


def silencer(source: str) -> Callable[[Diagnostic], bool]:
    """Whether a ``# noqa`` comment of ``source`` silences a diagnostic, as flake8 decides for the plugin."""
    lines = io.StringIO(source, newline="").readlines()  # Python's line breaks only, not \f or \v
    if file_is_silenced(lines):
        return lambda diagnostic: True
    return lambda diagnostic: (
        0 < diagnostic.line <= len(lines) and is_silenced(lines[diagnostic.line - 1], diagnostic.code)
    )


def with_noqa(line: str, code: str) -> str:
    """``line`` (with its line break, if any) with ``code`` added to its ``# noqa: ...`` comment, or
    with ``  # noqa: CODE`` appended. A bare ``# noqa`` silences every code already: the line is kept.

    Whether the comment lands in a comment, not in a string or after a backslash, is the caller's
    to check: one line does not tell.
    """
    body = line.rstrip("\r\n")
    ending = line[len(body) :]
    match = _INLINE.search(body)
    if match is None:
        return f"{body.rstrip()}  # noqa: {code}{ending}"
    codes = match.group("codes")
    if codes is None:
        return line
    # The codes group takes the separators after the last code too: add the new one after that code.
    end = match.start("codes") + len(codes.rstrip(", \t"))
    return f"{body[:end]}, {code}{body[end:]}{ending}"
