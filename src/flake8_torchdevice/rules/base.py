"""What every rule is: a code, a one-line summary, its documentation and a check.

A rule's class docstring is its user documentation, in ruff's order (What it does,
Why is this bad?, Example, Use instead). ``torchdevice explain``-style output, the
README rule table and the docs tests are all generated from it.
"""

from __future__ import annotations

import inspect
import io
import re
import tokenize
from collections.abc import Iterator
from dataclasses import dataclass, replace
from typing import ClassVar

import libcst as cst

from ..analysis.queries import Analysis
from ..confidence import Confidence
from ..selection import OFF_BY_DEFAULT
from ..settings import Settings


@dataclass(frozen=True)
class Fix:
    """Replace ``target`` (a node of the analysed module) with ``replacement``.

    ``safe`` fixes keep the program's meaning apart from the bug they repair and apply by
    default; the others (``--unsafe-fixes``) change behaviour a user may rely on.
    """

    target: cst.CSTNode
    replacement: cst.CSTNode
    safe: bool
    description: str


@dataclass(frozen=True)
class Finding:
    node: cst.CSTNode
    code: str
    message: str
    fix: Fix | None = None
    # The grade of the weakest link of the evidence (``confidence.py``).
    confidence: Confidence = Confidence.HIGH


def graded_by_cpu_support(finding: Finding, analysis: Analysis, settings: Settings) -> Finding:
    """A finding that fails only where CUDA is missing is sure when the user says the project runs
    there (``runs-without-cuda``) or the file shows that its code does ("this file falls back to
    the CPU at line 12"), and only likely otherwise: many projects require NVIDIA GPUs by design,
    which no one file says."""
    if settings.runs_without_cuda:
        return replace(finding, confidence=Confidence.HIGH)
    support = analysis.runs_without_cuda()
    if support is None:
        return replace(finding, confidence=Confidence.MEDIUM)
    return replace(finding, message=f"{finding.message} (this file {support})", confidence=Confidence.HIGH)


def keyword(name: str, value: cst.BaseExpression) -> cst.Arg:
    """``name=value``, formatted the way PEP 8 writes keyword arguments."""
    no_space = cst.SimpleWhitespace("")
    equal = cst.AssignEqual(whitespace_before=no_space, whitespace_after=no_space)
    return cst.Arg(keyword=cst.Name(name), value=value, equal=equal)


def with_argument(call: cst.Call, argument: cst.Arg) -> cst.Call:
    """``call`` with one more argument, laid out like the ones before it.

    On one line it follows ``, ``; in a call written one argument per line it gets a line of its
    own; a trailing comma moves to the new last argument (never ``x,, y``).
    """
    arguments = list(call.args)
    if not arguments:
        return call.with_changes(args=[argument])
    last = arguments[-1]
    one_per_line = isinstance(call.whitespace_before_args, cst.ParenthesizedWhitespace)
    separator = call.whitespace_before_args if one_per_line else cst.SimpleWhitespace(" ")
    if isinstance(last.comma, cst.Comma):
        arguments[-1] = last.with_changes(comma=last.comma.with_changes(whitespace_after=separator))
        argument = argument.with_changes(comma=last.comma)
    else:
        no_space = cst.SimpleWhitespace("")
        arguments[-1] = last.with_changes(comma=cst.Comma(whitespace_after=separator), whitespace_after_arg=no_space)
        argument = argument.with_changes(whitespace_after_arg=last.whitespace_after_arg)
    return call.with_changes(args=[*arguments, argument])


class Code:
    """A documented diagnostic code."""

    code: ClassVar[str]
    name: ClassVar[str]
    summary: ClassVar[str]
    # Measured on released libraries and user research code, every finding classified by hand
    # (docs/precision.md): "real of real + false", debatable ones left out. It decides the default.
    precision: ClassVar[str]
    enabled_by_default: ClassVar[bool]

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        cls.enabled_by_default = getattr(cls, "code", None) not in OFF_BY_DEFAULT

    @classmethod
    def documentation(cls) -> str:
        """The docstring, dedented: the rule's user documentation in Markdown."""
        return inspect.cleandoc(cls.__doc__ or "")

    @classmethod
    def sections(cls) -> dict[str, str]:
        """``{"What it does": ..., "Example": ...}`` from the documentation's ``##`` headings."""
        parts = re.split(r"^## +(.+)$", cls.documentation(), flags=re.MULTILINE)
        return {title.strip(): body.strip() for title, body in zip(parts[1::2], parts[2::2])}

    @classmethod
    def code_block(cls, section: str) -> str:
        """The first fenced Python block of a documentation section."""
        match = re.search(r"```python\n(.*?)```", cls.sections().get(section, ""), flags=re.DOTALL)
        return match.group(1) if match else ""


class Rule(Code):
    """A code with a check over the shared analysis."""

    def check(self, analysis: Analysis, settings: Settings) -> Iterator[Finding]:
        raise NotImplementedError

    def finding(
        self, node: cst.CSTNode, message: str, fix: Fix | None = None, confidence: Confidence = Confidence.HIGH
    ) -> Finding:
        return Finding(node, self.code, message, fix, confidence)


def source_text(analysis: Analysis, node: cst.CSTNode) -> str:
    """The code of a reported node on one line, for messages (comments of multi-line calls dropped)."""
    code = analysis.module.code_for_node(node)
    if "\n" in code or "\r" in code:
        code = _without_comments(code)
    return " ".join(code.split()).replace("( ", "(").replace(" )", ")").replace(" .", ".")


def _without_comments(code: str) -> str:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):
        return code
    kept = [token for token in tokens if token.type != tokenize.COMMENT]
    return tokenize.untokenize(kept)
