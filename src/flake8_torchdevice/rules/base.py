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

from ..analysis.queries import Analysis, CallFact
from ..confidence import Confidence
from ..project.beliefs import NO_ACCELERATOR, REQUIRES_CUDA, SUPPORTS_CPU
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
    """A finding that fails only where CUDA is missing is sure where the project runs there: the
    user says so (``runs-without-cuda``) or the project's code shows it ("the project falls back to
    the CPU in train.py:12", project/beliefs.py). It is a guess where the project requires CUDA by
    design (its programs stop without it), and only likely otherwise, also where the file itself
    falls back: a notebook that teaches a fallback in one cell uses CUDA on purpose in its GPU
    lessons (first looks, rounds 7-9: TDV001 right 17 times in 17 on the project's belief, 6 in 35
    on the file's). A finding keeps its own grade when that is lower."""
    if settings.runs_without_cuda:  # stated: even a default the user may override fails there
        return replace(finding, confidence=Confidence.HIGH)
    belief = settings.cpu_support
    if belief.verdict in (REQUIRES_CUDA, NO_ACCELERATOR):
        return graded(finding, Confidence.LOW, f" ({belief.cited()})")
    if belief.verdict == SUPPORTS_CPU:
        return graded(finding, Confidence.HIGH, f" ({belief.cited()})")
    support = analysis.runs_without_cuda()
    return graded(finding, Confidence.MEDIUM, f" (this file {support})" if support is not None else "")


def graded(finding: Finding, grade: Confidence, cited: str = "") -> Finding:
    """The finding at ``grade`` or its own, whichever is lower, its message ending with ``cited``."""
    return replace(finding, message=finding.message + cited, confidence=min(finding.confidence, grade))


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
    # Whether what it reports fails only on an accelerator (a GPU, MPS): in an application that
    # never uses one (project/beliefs.py), such a finding is a guess.
    fails_only_on_an_accelerator: ClassVar[bool] = True
    # Whether what it reports depends on where the values a function is given are: such a rule
    # is checked again on each function as the file's own calls run it (analysis/contexts.py).
    depends_on_callers: ClassVar[bool] = False

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


def device_variable(analysis: Analysis, site: CallFact) -> str | None:
    """The device variable the code places things with (``device``, ``self.device``), if one is in
    scope at the call: a ``device`` of another function would be an undefined name here."""
    candidates = [
        name
        for name in analysis.device_names(site.scope.function)
        if name.rsplit(".", 1)[-1] in ("device", "dev") and analysis.in_scope_at(site, name)
    ]
    return min(candidates, key=lambda name: (name.count("."), name)) if candidates else None


def source_text(analysis: Analysis, node: cst.CSTNode) -> str:
    """The code of a reported node on one line, for messages (comments of multi-line calls dropped)."""
    code = analysis.module.code_for_node(node)
    if "\n" in code or "\r" in code:
        code = _without_comments(code)
    return " ".join(code.split()).replace("( ", "(").replace(" )", ")").replace(" .", ".")


# How long a piece of code a message quotes may be: a message's one line stays under about 160
# characters with the words around it (tests/test_messages.py holds every rule to it).
QUOTE_WIDTH = 40
_ELIDED = "..."


def quoted(analysis: Analysis, node: cst.CSTNode, width: int = QUOTE_WIDTH) -> str:
    """``source_text`` of a node, ``shortened`` to ``width`` characters."""
    return shortened(source_text(analysis, node), width)


def shortened(code: str, width: int = QUOTE_WIDTH) -> str:
    """Code on one line, at most ``width`` characters: a longer one keeps its start and its end and
    leaves out the middle of a chain, and the arguments of the calls it keeps when it must
    (``classifier(batch)...detach().numpy()``, ``torch.zeros(...).to(device)``)."""
    if len(code) <= width:
        return code
    if _parenthesized(code):
        return f"({shortened(code[1:-1], width - 2)})"
    links = _chain_links(code)
    # The ends as written, or without their arguments: whichever leaves room for more of the chain.
    head, tail = max(
        (_grown(links, width, elide_ends) for elide_ends in (False, True)), key=lambda kept: len(kept[0] + kept[1])
    )
    text = _joined(head, tail, len(links))
    if len(text) <= width:
        return text
    keep = width - len(_ELIDED)
    return text[: keep - keep // 2] + _ELIDED + text[len(text) - keep // 2 :]


def _grown(links: list[str], width: int, elide_ends: bool) -> tuple[list[str], list[str]]:
    """The links kept at the start and at the end of a chain: the ends first (without their
    arguments if asked, or if they do not fit), then the links next to them, taking turns, the end
    of the chain first, each without its arguments if it does not fit as written."""
    head, tail = [links[0]], links[-1:] if len(links) > 1 else []
    for kept in (head, tail):
        if elide_ends or len(_joined(head, tail, len(links))) > width:
            kept[:] = [_without_arguments(link) for link in kept]
    middle = links[1:-1]
    while middle:
        to_tail = len(tail) <= len(head)
        link = middle[-1] if to_tail else middle[0]
        for candidate in (link, _without_arguments(link)):
            grown = (head, [candidate, *tail]) if to_tail else ([*head, candidate], tail)
            if len(_joined(*grown, len(links))) <= width:
                break
        else:
            break
        head, tail = grown
        middle.pop(-1 if to_tail else 0)
    return head, tail


def _parenthesized(code: str) -> bool:
    """``(a + b)``, not ``(a) + (b)``: the first parenthesis closes at the end."""
    if not code.startswith("(") or not code.endswith(")"):
        return False
    depth = 0
    for index, char in enumerate(code):
        depth += (char in "([{") - (char in ")]}")
        if depth == 0:
            return index == len(code) - 1
    return False


def _joined(head: list[str], tail: list[str], links: int) -> str:
    inner = _ELIDED if len(head) + len(tail) < links else "."
    return ".".join(head) + (inner + ".".join(tail) if tail else "")


def _chain_links(code: str) -> list[str]:
    """``a.b(x).c`` as ``["a", "b(x)", "c"]``: split at the dots outside brackets and strings."""
    links, depth, quote, start, index = [], 0, "", 0, 0
    while index < len(code):
        char = code[index]
        if quote:
            if char == "\\":
                index += 1
            elif char == quote:
                quote = ""
        elif char in "'\"":
            quote = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif char == "." and depth == 0 and not _ends_a_number(code[start:index]):
            links.append(code[start:index])
            start = index + 1
        index += 1
    links.append(code[start:])
    return links


def _ends_a_number(text: str) -> bool:
    """``1.5``: the dot is a decimal point (after ``layer2`` it is an attribute's)."""
    word = re.search(r"\w*$", text)
    return word is not None and word.group().isdigit()


def _without_arguments(link: str) -> str:
    """``add(batch, alpha=m)`` as ``add(...)``, ``pe[: x.size(1)]`` as ``pe[...]``."""
    opening = next((index for index, char in enumerate(link) if char in "(["), None)
    if opening is None or opening == 0 or link[-1] not in ")]":
        return link
    return f"{link[:opening]}{link[opening]}{_ELIDED}{link[-1]}"


def _without_comments(code: str) -> str:
    try:
        tokens = list(tokenize.generate_tokens(io.StringIO(code).readline))
    except (tokenize.TokenError, SyntaxError):
        return code
    kept = [token for token in tokens if token.type != tokenize.COMMENT]
    return tokenize.untokenize(kept)
