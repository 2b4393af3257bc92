"""Parse once, analyse once, run the enabled rules, return diagnostics.

The only entry point every front end uses. It never raises: a file it cannot
parse or analyse yields a single TDV900 diagnostic.
"""

from __future__ import annotations

import ast
import contextlib
import io
import re
import sys
import tokenize
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from itertools import accumulate

import libcst as cst

from .analysis import Analysis, analyse, positions_of, self_test_holding
from .confidence import Confidence
from .mentions import LineMention, resolved
from .parsing import ProcessSetting, cyclic_gc_paused, parse_module
from .prefilter import could_have_findings
from .project.beliefs import NO_ACCELERATOR
from .rules import ALL_RULES, Finding, Rule
from .rules.tdv900_unanalysable import UnanalysableFile
from .settings import Settings
from .timings import ANALYSE, PARSE, POSITIONS, UNTIMED, StageTimings

# The walk recurses once per nesting level; a generated 1,000-term sum is deeper than Python's
# default limit. From 3.11 Python-to-Python calls do not grow the C stack, so a higher limit is
# safe there; older versions keep their default.
_RECURSION_LIMIT = 20_000 if sys.version_info >= (3, 11) else 0

# CPython refuses brackets nested deeper than 200 ("too many nested parentheses"), and libcst's
# native parser overflows its stack (a segmentation fault, not an exception) from about 1,500.
_MAX_BRACKET_DEPTH = 200
_NOT_A_BRACKET = re.compile(r"[^()\[\]{}]+")
_BRACKET = re.compile(r"[()\[\]{}]")
# The shortest expression deep enough to crash libcst (3,500 nested ``lambda:``) is far longer.
_LONG_EXPRESSION = 5_000
# Python 3.11 refuses to build a syntax tree deeper than this (three times the default recursion
# limit), and the crashes of libcst's native parser all lie past it. Python 3.12 and later build
# deeper trees (3.13 accepts a 7,000-term sum that crashes libcst), so the engine counts itself.
_MAX_EXPRESSION_DEPTH = 3_000


@dataclass(frozen=True, order=True)
class Diagnostic:
    line: int  # 1-based
    column: int  # 0-based, in characters
    code: str
    message: str
    # "safe" or "unsafe" when the finding carries an autofix (see ``fixes``).
    fix: str | None = field(default=None, compare=False)
    # "high", "medium" or "low": how sure the finding is (``confidence.py``).
    confidence: str = field(default="high", compare=False)
    # The lines of the module the message names ("made by torch.zeros() at line 12"), for a front
    # end that counts lines its own way (mentions.py).
    mentions: tuple[LineMention, ...] = field(default=(), compare=False)

    def flake8_text(self) -> str:
        return f"{self.code} {self.message}"


@dataclass
class CheckedSource:
    """The parsed module (None when it could not be parsed) and each finding with its diagnostic."""

    module: cst.Module | None
    located: list[tuple[Finding, Diagnostic]]
    diagnostics: list[Diagnostic]

    @property
    def findings(self) -> list[Finding]:
        return [finding for finding, _ in self.located]


def lint_source(
    source: str,
    settings: Settings = Settings(),
    rules: Sequence[type[Rule]] = ALL_RULES,
    counted: Sequence[type[Rule]] = (),
) -> list[Diagnostic]:
    """The diagnostics of ``rules`` and of ``counted``, rules run only to be counted: one of those
    that fails loses its own findings, never the file's (no TDV900 for it)."""
    # The tree is freed before the cyclic GC resumes: still alive then, all of it would be walked
    # by the collection the next allocation starts (3 to 4 ms for a 1,000-line file).
    with cyclic_gc_paused():
        return check_source(source, settings, rules, counted=counted).diagnostics


def check_source(
    source: str,
    settings: Settings = Settings(),
    rules: Sequence[type[Rule]] = ALL_RULES,
    timings: StageTimings = UNTIMED,
    counted: Sequence[type[Rule]] = (),
) -> CheckedSource:
    if not could_have_findings(source):
        return CheckedSource(None, [], [])
    if _nested_deeper_than(source, _MAX_BRACKET_DEPTH):
        return _unanalysable(f"brackets nested deeper than {_MAX_BRACKET_DEPTH} levels, which Python refuses")
    if _too_deep_for_python(source):
        return _unanalysable(f"an expression nested deeper than {_MAX_EXPRESSION_DEPTH:,} levels")
    with cyclic_gc_paused():
        return _parse_and_check(source, settings, rules, timings, counted)


def _parse_and_check(
    source: str, settings: Settings, rules: Sequence[type[Rule]], timings: StageTimings, counted: Sequence[type[Rule]]
) -> CheckedSource:
    try:
        with timings.stage(PARSE):
            module = parse_module(source)
    except RecursionError:
        return _unanalysable("nested too deeply for the parser")
    except Exception as error:  # libcst's ParserSyntaxError, or anything else its native parser raises
        return _unanalysable(f"libcst could not parse it: {_first_line(error)}")
    try:
        with _recursion_limit_raised():
            findings, mentioned = _run_rules(module, settings, rules, timings, counted)
            with timings.stage(POSITIONS):
                located = _locate(module, _unique(findings), mentioned)
            return CheckedSource(module, located, sorted(diagnostic for _, diagnostic in located))
    except RecursionError:
        return _unanalysable("nested too deeply to analyse")
    except Exception as error:  # an analysis bug must not abort the user's whole flake8 run
        return _unanalysable(f"internal error {type(error).__name__}: {_first_line(error)}")


def _too_deep_for_python(source: str) -> bool:
    """An expression nested deeper than ``_MAX_EXPRESSION_DEPTH`` (a 3,000-term sum, 3,600 nested
    lambdas): libcst's native parser crashes on such files instead of raising.

    Only a file with a very long expression can hold one, so only such a file pays for the
    check: Python's own parser, in C, then a walk of its tree.
    """
    if not _has_long_expression(source, _LONG_EXPRESSION):
        return False
    try:
        tree = ast.parse(source)
    except (RecursionError, MemoryError):
        return True
    except Exception:  # a syntax error: libcst reports it
        return False
    return _tree_deeper_than(tree, _MAX_EXPRESSION_DEPTH, _line_starts(source))


def _line_starts(source: str) -> list[int]:
    """The UTF-8 offset where each line starts, as ast counts columns (in bytes; its lines are
    1-based: index 0 is unused). A span in bytes is never shorter than the same span in characters."""
    starts = [0, 0]
    for line in io.StringIO(source, newline=""):  # lines end as Python's own: \n, \r\n or \r
        starts.append(starts[-1] + len(line.encode("utf-8", "surrogatepass")))
    return starts


def _tree_deeper_than(tree: ast.AST, limit: int, line_starts: list[int]) -> bool:
    """Without recursion: the tree may be deeper than Python's recursion limit.

    Each level of nesting takes at least one character (``---x``), so an expression whose source
    spans fewer characters than the levels still allowed cannot hold the limit: its subtree is
    skipped, and only the long stretches of a file are walked. Only expressions: a statement's
    span can leave out parts of it (a ``def`` starts after its decorators).
    """
    pending = [(tree, 1)]
    while pending:
        node, depth = pending.pop()
        if depth > limit:
            return True
        if isinstance(node, ast.expr) and node.end_lineno is not None and node.end_lineno < len(line_starts):
            start = line_starts[node.lineno] + node.col_offset
            end = line_starts[node.end_lineno] + (node.end_col_offset or 0)
            if depth + (end - start) <= limit:
                continue
        pending.extend((child, depth + 1) for child in ast.iter_child_nodes(node))
    return False


def _has_long_expression(source: str, limit: int) -> bool:
    """A physical line, or a bracketed stretch, longer than ``limit`` characters."""
    logical = source.replace("\\\r\n", "").replace("\\\n", "")  # join backslash continuations
    if any(len(line) > limit for line in logical.splitlines()):
        return True
    depth = opened_at = 0
    for bracket in _BRACKET.finditer(source):
        if bracket.group() in "([{":
            if depth == 0:
                opened_at = bracket.start()
            depth += 1
        elif depth > 0:
            depth -= 1
            if depth == 0 and bracket.start() - opened_at > limit:
                return True
    return False


def _nested_deeper_than(source: str, limit: int) -> bool:
    """Brackets nested deeper than ``limit``, not counting those inside strings and comments.

    Counting characters is a cheap upper bound; only a file that passes it is tokenized.
    """
    brackets = _NOT_A_BRACKET.sub("", source)
    if max(accumulate(1 if bracket in "([{" else -1 for bracket in brackets), default=0) <= limit:
        return False
    depth = 0
    try:
        for token in tokenize.generate_tokens(io.StringIO(source).readline):
            if token.type == tokenize.OP and token.string in "([{":
                depth += 1
                if depth > limit:
                    return True
            elif token.type == tokenize.OP and token.string in ")]}":
                depth -= 1
    except (tokenize.TokenError, SyntaxError):
        # From Python 3.12 the tokenizer itself stops at CPython's limit, which is ``limit``
        # ("too many nested parentheses"): stopped there, the brackets go deeper still. Any other
        # error is the parser's to report.
        return depth >= limit
    return False


def _raise_recursion_limit() -> int:
    previous = sys.getrecursionlimit()
    sys.setrecursionlimit(max(previous, _RECURSION_LIMIT))
    return previous


# Raised while any thread analyses, and put back when the last one ends (not when the first
# ends, which would leave another thread deep in a tree with the lower limit).
_recursion_limit_raised = ProcessSetting(_raise_recursion_limit, sys.setrecursionlimit)


def _run_rules(
    module: cst.Module,
    settings: Settings,
    rules: Sequence[type[Rule]],
    timings: StageTimings,
    counted: Sequence[type[Rule]] = (),
) -> tuple[list[Finding], list[cst.CSTNode]]:
    """The findings, and the nodes whose line their messages name; those of ``counted`` last, each
    rule on its own (``lint_source``)."""
    with timings.stage(ANALYSE):
        analysis = analyse(module, settings.guard_functions, settings.callers, settings.classes)
    # Every node of the top-level definitions nothing in the project refers to: the one holding it.
    unreferenced = (
        analysis.definitions_holding(frozenset(settings.callers.unreferenced)) if settings.callers.unreferenced else {}
    )
    # ... and of a self-test: the ``__main__`` block of a module other files import, and what only it calls.
    self_test = self_test_holding(module) if settings.callers.imported else {}
    findings: list[Finding] = []
    for rule in rules:
        with timings.stage(rule.code):
            findings.extend(_findings_of(rule, analysis, settings, unreferenced, self_test))
    for rule in counted:
        with timings.stage(rule.code), contextlib.suppress(Exception):  # RecursionError too
            findings.extend(_findings_of(rule, analysis, settings, unreferenced, self_test))
    return findings, analysis.mentioned()


def _findings_of(
    rule: type[Rule],
    analysis: Analysis,
    settings: Settings,
    unreferenced: dict[int, str],
    self_test: dict[int, str],
) -> list[Finding]:
    """One rule's findings at the settings' confidence or above, graded by what the project shows."""
    check = rule()
    found = list(check.check(analysis, settings))
    if rule.depends_on_callers:
        found = _through_calls(check, analysis, settings, found)
    if settings.cpu_support.verdict == NO_ACCELERATOR and rule.fails_only_on_an_accelerator:
        found = [_in_a_cpu_only_project(finding, settings) for finding in found]
    if unreferenced:
        found = [_in_code_nothing_runs(finding, unreferenced) for finding in found]
    if self_test:
        found = [_in_a_self_test(finding, self_test) for finding in found]
    return [finding for finding in found if finding.confidence >= settings.confidence]


def _through_calls(rule: Rule, analysis: Analysis, settings: Settings, found: list[Finding]) -> list[Finding]:
    """A rule's findings as the file's own calls run its functions (``analysis/contexts.py``):
    what the contexts show that the plain walk did not, likely at most and citing the call; and
    the plain walk's findings less its guesses in a function whose every run is a context when no
    context repeats them (they rest on an input no call passes)."""
    seen = {id(finding.node) for finding in found}
    repeated: set[int] = set()
    more = []
    for site, view in analysis.call_contexts():
        for finding in rule.check(view, settings):
            repeated.add(id(finding.node))
            if id(finding.node) not in seen:
                seen.add(id(finding.node))
                call = analysis.cite(site)  # named already where a value it passed is cited
                message = finding.message if call in finding.message else f"{finding.message} (in the call at {call})"
                more.append(replace(finding, message=message, confidence=min(finding.confidence, Confidence.MEDIUM)))
    kept = [
        finding
        for finding in found
        if finding.confidence is Confidence.HIGH
        or id(finding.node) in repeated
        or not analysis.runs_only_as_called(finding.node)
    ]
    return kept + more


def _in_a_cpu_only_project(finding: Finding, settings: Settings) -> Finding:
    """What fails only on an accelerator cannot fail in a project that never uses one: a guess."""
    if finding.confidence is Confidence.LOW:
        return finding  # already graded, and cited, by the rule
    cited = f"{finding.message} ({settings.cpu_support.cited()})"
    return replace(finding, message=cited, confidence=Confidence.LOW)


def _in_code_nothing_runs(finding: Finding, unreferenced: dict[int, str]) -> Finding:
    """What a function or class nothing in the project refers to does is a guess: it may never run."""
    holder = unreferenced.get(id(finding.node))
    if holder is None or finding.confidence is Confidence.LOW:
        return finding
    cited = f"{finding.message} (in `{holder}`, which no code that runs refers to)"
    return replace(finding, message=cited, confidence=Confidence.LOW)


def _in_a_self_test(finding: Finding, self_test: dict[int, str]) -> Finding:
    """What the ``__main__`` block of a module the project imports does is a guess: a developer runs
    it by hand (a library module's demo, a model file's smoke test), users run the programs that
    import it (rounds 30 and 31: 17 false sure findings, none real)."""
    holder = self_test.get(id(finding.node))
    if holder is None or finding.confidence is Confidence.LOW:
        return finding
    where = "the `__main__` block" if holder == "__main__" else f"`{holder}`, which only the `__main__` block calls,"
    cited = f"{finding.message} (in {where} of a module the project imports: a self-test)"
    return replace(finding, message=cited, confidence=Confidence.LOW)


def _unique(findings: list[Finding]) -> list[Finding]:
    """One finding per (node, code): two checks of a rule may reach the same literal."""
    return list({(id(finding.node), finding.code): finding for finding in findings}.values())


def _locate(
    module: cst.Module, findings: list[Finding], mentioned: list[cst.CSTNode]
) -> list[tuple[Finding, Diagnostic]]:
    """Each finding with its diagnostic: one pass over the module places the findings and the
    nodes their messages name."""
    positions = positions_of(module, [*(finding.node for finding in findings), *mentioned])
    lines = {key: line for key, (line, _) in positions.items()}
    located = []
    for finding in findings:
        line, column = positions.get(id(finding.node), (1, 0))
        fix = None if finding.fix is None else ("safe" if finding.fix.safe else "unsafe")
        message, mentions = resolved(finding.message, lines)
        diagnostic = Diagnostic(line, column, finding.code, message, fix, finding.confidence.label, mentions)
        located.append((finding, diagnostic))
    return located


def unanalysable(reason: str) -> Diagnostic:
    """The one TDV900 of a file, at its top, for every front end (a file too large to read, one that
    killed its worker, one libcst rejects). The parser's own position stays in the message: libcst
    counts lines its own way (a lone carriage return is no line break to it), so it is not ours to report."""
    return Diagnostic(1, 0, UnanalysableFile.code, UnanalysableFile.message(reason))


def _unanalysable(reason: str) -> CheckedSource:
    return CheckedSource(None, [], [unanalysable(reason)])


def _first_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return text[0] if text else type(error).__name__
