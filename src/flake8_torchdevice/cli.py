"""The ``torchdevice`` command: check, fix, beliefs, explain, rules, server. Arguments in, exit status out.

Exit status: 0 no findings, 1 findings (after fixing: findings that remain), 2 a usage,
configuration or internal error (a path that does not exist, an unknown code...), or a file or
directory that could not be read or written; the other files are still linted and reported.
141 when the reader of the output stopped early (``| head``).
"""

from __future__ import annotations

import argparse
import os
import sys
import traceback
from collections.abc import Sequence
from dataclasses import dataclass, replace
from pathlib import Path

from . import __version__
from .catalogue import CODES, RULE_CODES
from .confidence import Confidence
from .config import Config, ConfigError, Resolved, load_config, resolve
from .discovery import Discovery, discover, excluded_file
from .formats import FORMATS, statistics
from .ownership import own_this_process
from .project.cache import CACHE_DIR_NAME, ENVIRONMENT_VARIABLE, ResultCache, directory_from_environment
from .project.report import beliefs_of, json_report, text_report
from .runner import FileResult, FixMode, ProgressBar, RunOptions, checked_stdin, default_jobs, run
from .sources import DEFAULT_MEMORY_BUDGET_MIB, largest_file
from .summary import Mode, Tally, summary

EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
EXIT_BROKEN_PIPE = 128 + 13  # as a shell reports a program that SIGPIPE ended


def main(argv: Sequence[str] | None = None) -> int:
    own_this_process()  # the command's own process: its speed-ups may change process-wide state
    parser = _parser()
    args = parser.parse_args(argv)
    if not hasattr(args, "handler"):
        parser.print_help(sys.stderr)
        return EXIT_ERROR
    try:
        return args.handler(args)
    except (ConfigError, FileNotFoundError) as error:
        print(f"torchdevice: error: {error}", file=sys.stderr)
        return EXIT_ERROR
    except BrokenPipeError:
        # The reader went away (``torchdevice check | head -1``): stop quietly, as a program killed
        # by SIGPIPE does, with stdout pointed at devnull so that the interpreter's last flush
        # does not raise again (the recipe of Python's ``signal`` documentation).
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_BROKEN_PIPE
    except Exception:
        print("torchdevice: internal error, please report it:", file=sys.stderr)
        traceback.print_exc()
        return EXIT_ERROR


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="torchdevice", description="Find and fix PyTorch device-placement bugs.")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(title="commands", metavar="COMMAND")
    linting = _linting_options()
    check = commands.add_parser("check", parents=[linting], help="report findings (the default paths: .)")
    check.add_argument("--fix", dest="fix_requested", action="store_true", help="apply fixes as `fix` does")
    check.set_defaults(handler=_lint)
    fix = commands.add_parser("fix", parents=[linting], help="apply safe fixes, report what remains")
    fix.set_defaults(handler=_lint, fix_requested=True)
    beliefs = commands.add_parser(
        "beliefs", help="print whether each package of the project runs without CUDA, with the evidence"
    )
    beliefs.add_argument("paths", nargs="*", default=["."], metavar="PATH", help="a file or folder of the project")
    beliefs.add_argument("--format", choices=("text", "json"), default="text", help="output format (default: text)")
    beliefs.set_defaults(handler=_beliefs)
    explain_command = commands.add_parser("explain", help="print a rule's documentation")
    explain_command.add_argument("code", metavar="CODE", help="e.g. TDV002")
    explain_command.set_defaults(handler=_explain)
    rules = commands.add_parser("rules", help="list the codes")
    rules.set_defaults(handler=_rules)
    server = commands.add_parser("server", help="run the language server for editors (LSP over stdio)")
    # Some clients add --stdio to the command they start; standard input and output is the only transport.
    server.add_argument("--stdio", action="store_true", help=argparse.SUPPRESS)
    server.set_defaults(handler=_server)
    return parser


def _linting_options() -> argparse.ArgumentParser:
    options = argparse.ArgumentParser(add_help=False)
    options.add_argument(
        "paths", nargs="*", default=["."], metavar="PATH", help="files and directories; - reads standard input"
    )
    options.add_argument(
        "--stdin-filename",
        metavar="NAME",
        help="the file standard input holds (-): the name printed, and matched against the excludes",
    )
    codes = "comma-separated codes or prefixes (TDV, TDV00, TDV002)"
    options.add_argument("--select", type=_comma_list, action="extend", help=f"{codes}; default: the default rules")
    options.add_argument("--extend-select", type=_comma_list, action="extend", help=f"{codes}, added to the selection")
    options.add_argument("--ignore", type=_comma_list, action="extend", help=codes)
    patterns = "comma-separated patterns (fnmatch, .gitignore-like)"
    options.add_argument("--exclude", type=_comma_list, action="extend", help=f"{patterns}, replacing the default")
    options.add_argument("--extend-exclude", type=_comma_list, action="extend", help=f"{patterns}, added")
    options.add_argument(
        "--respect-gitignore",
        action=argparse.BooleanOptionalAction,
        help="skip what .gitignore files ignore (default: yes)",
    )
    options.add_argument(
        "--guard-functions", type=_comma_list, action="extend", help="your functions that check for CUDA"
    )
    options.add_argument(
        "--runs-without-cuda",
        action=argparse.BooleanOptionalAction,
        help="the project runs without CUDA (CPU-only, Apple MPS): TDV001 and TDV004 findings are sure; "
        "--no-runs-without-cuda: it requires CUDA; default: inferred from its code (see `torchdevice beliefs`)",
    )
    options.add_argument(
        "--project",
        action=argparse.BooleanOptionalAction,
        default=True,
        help="read the whole project (every .py under its root) for its beliefs and the calls of its functions"
        " (default: yes)",
    )
    options.add_argument(
        "--report-unknown-receivers",
        action=argparse.BooleanOptionalAction,
        help="TDV002: also report x.to(...) when the code does not show what x is",
    )
    options.add_argument(
        "--confidence",
        type=_confidence,
        help="the least sure findings to report: high (the default: every link of the evidence is in the code), "
        "medium (a link is inferred) or low",
    )
    options.add_argument("--format", choices=sorted(FORMATS), default="text", help="output format (default: text)")
    options.add_argument("--statistics", action="store_true", help="count findings per code")
    options.add_argument("--exit-zero", action="store_true", help="exit 0 even when there are findings")
    options.add_argument(
        "--quiet", "-q", action="store_true", help="print the findings only: no summary line, no progress"
    )
    options.add_argument("--diff", action="store_true", help="print the fixes as a unified diff; write nothing")
    options.add_argument("--unsafe-fixes", action="store_true", help="also apply fixes that may change behaviour")
    options.add_argument("--jobs", type=_positive, help="worker processes (default: all CPUs above 20 files)")
    options.add_argument(
        "--memory-budget",
        type=_positive,
        metavar="MIB",
        help=f"memory for analysing one file, in MiB (default {DEFAULT_MEMORY_BUDGET_MIB}: files up to "
        f"{largest_file(DEFAULT_MEMORY_BUDGET_MIB) >> 20} MiB); a larger file gets TDV900 without being read",
    )
    options.add_argument(
        "--cache",
        action=argparse.BooleanOptionalAction,
        help="reuse the findings of files whose content did not change (check only; default: yes)",
    )
    options.add_argument(
        "--cache-dir",
        metavar="PATH",
        help=f"where the cache lives (default: ${ENVIRONMENT_VARIABLE}, else {CACHE_DIR_NAME} next to the "
        "configuration's pyproject.toml, else in the working directory)",
    )
    return options


def _comma_list(value: str) -> list[str]:
    return [item.strip() for item in value.split(",") if item.strip()]


def _confidence(value: str) -> Confidence:
    try:
        return Confidence.named(value)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def _positive(value: str) -> int:
    number = int(value)
    if number < 1:
        raise argparse.ArgumentTypeError("must be 1 or more")
    return number


def _lint(args: argparse.Namespace) -> int:
    root = Path.cwd()
    config = load_config(root)
    resolved = resolve(config, _flags(args, root))
    if not RULE_CODES & resolved.codes:
        # ``select = []`` would otherwise end in "All checks passed" having checked nothing.
        print(
            "torchdevice: warning: no rules selected (select, extend-select and ignore leave none); nothing checked",
            file=sys.stderr,
        )
        return EXIT_CLEAN
    if "-" in args.paths or args.stdin_filename is not None:
        return _lint_stdin(args, resolved, root)
    found = discover([Path(path) for path in args.paths], resolved.excludes, resolved.respect_gitignore)
    files = found.files
    if not files:
        print(f"torchdevice: no Python files or notebooks found{_why_none(found)}", file=sys.stderr)
    options = _run_options(args, resolved, [Path(path) for path in args.paths] if files else [])
    phase = "fixing" if args.fix_requested and not args.diff else "checking"
    progress = ProgressBar(len(files), phase) if files and not args.quiet and ProgressBar.wanted() else None
    results = run(files, options, args.jobs or default_jobs(len(files)), progress.advance if progress else None)
    if progress is not None:
        progress.close()
    if options.cache is not None:
        options.cache.prune()
    unlisted = [FileResult(path, error=f"cannot read: {reason}") for path, reason in found.unreadable]
    return _report([*unlisted, *results], args, resolved, root)


def _lint_stdin(args: argparse.Namespace, resolved: Resolved, root: Path) -> int:
    """``-``: standard input, as the file ``--stdin-filename`` names; fixed, it goes to stdout."""
    if args.paths != ["-"]:
        raise ConfigError("standard input (-) is read alone: give - as the only path, with --stdin-filename")
    data = sys.stdin.buffer.read()
    name = args.stdin_filename or "-"
    fixing_to_stdout = args.fix_requested and not args.diff
    if args.stdin_filename is not None and excluded_file(Path(name), resolved.excludes):
        # As a file named on the command line: not checked, and fix passes it through unchanged.
        print(f"torchdevice: no Python files or notebooks found{_why_none(Discovery(excluded=1))}", file=sys.stderr)
        if fixing_to_stdout:
            sys.stdout.buffer.write(data)
        return EXIT_CLEAN
    read_project = args.stdin_filename is not None and Path(name).exists()
    result = checked_stdin(data, name, _run_options(args, resolved, [Path(name)] if read_project else []))
    fixed = (result.fixed_data or data) if fixing_to_stdout else None
    return _report([result], args, resolved, root, fixed)


def _why_none(found: Discovery) -> str:
    """What hid the files, and how to search them anyway."""
    reasons = []
    if found.ignored_by_git:
        reasons.append(
            f"{found.ignored_by_git} file(s) or folder(s) ignored by .gitignore (--no-respect-gitignore searches them)"
        )
    if found.excluded:
        reasons.append(f"{found.excluded} excluded (see --exclude and --extend-exclude)")
    return f": {'; '.join(reasons)}" if reasons else ""


def _flags(args: argparse.Namespace, root: Path) -> Config:
    def given(values: list[str] | None) -> tuple[str, ...] | None:
        return None if values is None else tuple(values)

    return Config(
        select=given(args.select),
        extend_select=tuple(args.extend_select or ()),
        ignore=given(args.ignore),
        exclude=given(args.exclude),
        extend_exclude=tuple(args.extend_exclude or ()),
        guard_functions=given(args.guard_functions),
        report_unknown_receivers=args.report_unknown_receivers,
        runs_without_cuda=args.runs_without_cuda,
        respect_gitignore=args.respect_gitignore,
        memory_budget=args.memory_budget,
        confidence=args.confidence,
        cache=args.cache,
        # The environment's directory stands where a flag would: over the configuration's.
        cache_dir=Path(args.cache_dir) if args.cache_dir else directory_from_environment(),
        root=root,
    )


def _run_options(args: argparse.Namespace, resolved: Resolved, paths: Sequence[Path]) -> RunOptions:
    """What the workers need; the beliefs of the projects of ``paths`` (the files and folders the
    run was given; none: the files alone) are read once here."""
    fixing = args.fix_requested or args.diff
    mode = FixMode(unsafe=args.unsafe_fixes, write=not args.diff) if fixing else None
    reading = paths and args.project
    beliefs = beliefs_of(paths, resolved.memory_budget, resolved.cache_dir) if reading else None
    # Only checking reads or writes the cache: fixing must see the file as it is now, and writes it.
    cache = ResultCache(resolved.cache_dir) if resolved.cache_dir is not None and mode is None else None
    # Checking keeps every level, so that the summary can count what the chosen one leaves out
    # (``_shown``); fixing applies only the fixes of the findings it reports.
    settings = resolved.settings if mode is not None else replace(resolved.settings, confidence=Confidence.LOW)
    # Checking runs the rules off by default too, so that the summary can say what they would add
    # (about a fifth more time on a cold run: the analysis they need is the whole of it).
    counted = frozenset() if mode is not None else resolved.unselected
    return RunOptions(settings, resolved.codes | counted, mode, resolved.memory_budget, beliefs, cache, counted)


def _beliefs(args: argparse.Namespace) -> int:
    for path in args.paths:
        if not Path(path).exists():
            raise ConfigError(f"no such file or directory: {path}")
    beliefs = beliefs_of([Path(path) for path in args.paths])
    sys.stdout.write(json_report(beliefs) if args.format == "json" else text_report(beliefs))
    return EXIT_CLEAN


def _report(
    results: list[FileResult], args: argparse.Namespace, resolved: Resolved, root: Path, fixed: bytes | None = None
) -> int:
    """Print what the run found; ``fixed`` is standard input after fixing, which has stdout to itself
    (the findings, and the rest, go to stderr)."""
    results, hidden = _shown(results, resolved.codes, resolved.settings.confidence)
    reports = [report for result in results for report in result.reports]
    rules = [info for info in CODES if info.code in resolved.codes]
    for result in results:
        for problem in (result.error, result.note):
            if problem:
                print(f"{result.path}: {problem}", file=sys.stderr)
    findings = sys.stderr if fixed is not None else sys.stdout
    if args.diff:
        sys.stdout.write("".join(result.diff for result in results))
    else:
        findings.write(FORMATS[args.format](reports, rules, root))
    # Next to the findings where people read them; JSON, SARIF and a diff keep stdout to themselves.
    readable = findings if args.format in ("text", "github") and not args.diff else sys.stderr
    if args.statistics:
        readable.write(statistics(reports, rules))
    if results and not args.quiet:
        below = _below(resolved.settings.confidence).label
        tally = replace(_tally(results), not_shown=hidden.below, shown_with=below, off_by_default=hidden.unselected)
        print(summary(tally, _mode(args)), file=readable if args.format == "text" else sys.stderr)
    if fixed is not None:
        sys.stdout.flush()
        sys.stdout.buffer.write(fixed)
        sys.stdout.buffer.flush()
    if any(result.error for result in results):
        return EXIT_ERROR
    changed = args.diff and any(result.diff for result in results)
    return EXIT_FINDINGS if (reports or changed) and not args.exit_zero else EXIT_CLEAN


@dataclass(frozen=True)
class _Hidden:
    """What a check found and does not report: findings one confidence level below the run's (of
    the selected rules), and findings at the run's level of the rules off by default it ran too."""

    below: int = 0
    unselected: int = 0


def _shown(results: list[FileResult], codes: frozenset[str], least: Confidence) -> tuple[list[FileResult], _Hidden]:
    """The results with the reports of ``codes`` at ``least`` or above, and what they leave out."""
    below = _below(least)
    reports = [report for result in results for report in result.reports]
    levels = [(report.code in codes, Confidence.named(report.confidence)) for report in reports]
    hidden = _Hidden(
        below=sum(1 for selected, level in levels if selected and level == below) if below < least else 0,
        unselected=sum(1 for selected, level in levels if not selected and level >= least),
    )
    shown = [
        replace(
            result,
            reports=[
                report
                for report in result.reports
                if report.code in codes and Confidence.named(report.confidence) >= least
            ],
        )
        for result in results
    ]
    return shown, hidden


def _below(level: Confidence) -> Confidence:
    return Confidence(max(level - 1, Confidence.LOW))


def _tally(results: list[FileResult]) -> Tally:
    reports = [report for result in results for report in result.reports]
    errors = sum(1 for result in results if result.error)
    return Tally(
        files=len(results) - errors,
        findings=len(reports),
        files_with_findings=sum(1 for result in results if result.reports),
        safe_fixes=sum(1 for report in reports if report.fix == "safe"),
        unsafe_fixes=sum(1 for report in reports if report.fix == "unsafe"),
        fixed=sum(result.fixed for result in results),
        files_fixed=sum(1 for result in results if result.fixed),
        errors=errors,
    )


def _mode(args: argparse.Namespace) -> Mode:
    return Mode(fixing=args.fix_requested or args.diff, diff=args.diff, unsafe=args.unsafe_fixes)


def _explain(args: argparse.Namespace) -> int:
    code = args.code.strip().upper()
    if code not in {info.code for info in CODES}:
        known = ", ".join(info.code for info in CODES)
        print(f"torchdevice: error: unknown code {args.code!r} (known: {known})", file=sys.stderr)
        return EXIT_ERROR
    # The documentation lives in the rule classes, which load libcst: imported for this command only.
    from .docs import documented, explain

    sys.stdout.write(explain(documented(code)))
    return EXIT_CLEAN


def _rules(args: argparse.Namespace) -> int:
    width = max(len(info.name) for info in CODES)
    for info in CODES:
        default = "on " if info.enabled_by_default else "off"
        print(f"{info.code}  {default}  {info.name:<{width}}  {info.summary}")
    return EXIT_CLEAN


def _server(args: argparse.Namespace) -> int:
    try:
        from .server import serve
    except ModuleNotFoundError as error:
        if error.name not in ("pygls", "lsprotocol"):
            raise
        needs = "the language server needs pygls: pip install 'flake8-torchdevice[server]'"
        print(f"torchdevice: error: {needs}", file=sys.stderr)
        return EXIT_ERROR
    serve()
    return EXIT_CLEAN
