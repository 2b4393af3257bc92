"""TDV900: a file the linter could not analyse (reported once, instead of a traceback)."""

from __future__ import annotations

from .base import Code


class UnanalysableFile(Code):
    """
    ## What it does
    Reports, once per file and at its first line, that flake8-torchdevice could not analyse the
    file, with the reason: libcst rejected syntax that Python's own parser accepted; brackets or an
    expression nested too deep to walk; a file larger than the memory budget allows
    (`--memory-budget`); bytes that are not text in the file's declared encoding; a notebook that
    is not valid notebook JSON; the process analysing the file crashed or ran out of memory (the
    rest of the run goes on); or the analysis met something it does not handle.

    ## Why is this bad?
    It is not a bug in your code: it tells you that no TDV check ran on this file, instead of
    aborting the whole flake8 run with a traceback or staying silently blind. Please report it
    with the file if the reason looks like ours.

    ## Example
    A generated file with one expression nested deeper than the walk allows, such as a sum of a
    thousand terms on one line, or syntax newer than the installed libcst understands.

    ## Use instead
    Nothing to change in your code. Upgrade libcst for new syntax; split generated expressions if
    you want them checked; or silence the file with `per-file-ignores = generated.py: TDV900`.
    """

    code = "TDV900"
    name = "file-not-analysed"
    summary = "The file could not be analysed (parser, nesting, size, encoding or a crash); no TDV check ran on it"
    precision = "no findings"

    @staticmethod
    def message(reason: str) -> str:
        return f"could not analyse this file ({reason}); no TDV check ran on it"
