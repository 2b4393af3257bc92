"""Lint real code and report what the linter says about it, for a precision review.

Corpus mode (default): lints every ``.py`` file of the corpora of ``corpora.py``
(timm, kornia, accelerate) with ``engine.lint_source`` and prints a Markdown
table: files, lines, seconds, findings per rule, TDV900 (files not analysed) and
crashes (exceptions escaping ``lint_source``; must be 0). Every finding is written,
with the offending source line, to a JSON file for review (default: next to the
corpora, outside the repository, since it quotes third-party code).

    python scripts/precision.py [--dest DIR] [--out FILE] [NAME ...]

Held-out and user-code mode: the libraries held out for precision (``--held-out``) and the user
repositories (``--user``: training scripts, tutorials, notebooks) are linted with the
``torchdevice`` command itself (notebooks included), every rule selected; the table is printed
and every finding, with its source line, written for the hand classification of
docs/precision.md.

    python scripts/precision.py --held-out --user [--out FILE]
    python scripts/precision.py --held-out --user timm kornia accelerate monai torch-geometric
    python scripts/precision.py --fresh         # the libraries first linted with the final rules
                                  # every corpus of docs/precision.md: names add any known library
    python scripts/precision.py --round9 [--out FILE]  # a first look: libraries and user repositories (--round4 on)
    python scripts/precision.py --round36      # a first look of a few rules: their codes are the round's own

Standard-library mode: lints every ``.py`` file of the running CPython's standard
library, a large body of code without torch that must produce no crash and no
TDV900 except for syntax libcst does not accept. ``--all-files`` also analyses the
files the engine would skip for not mentioning torch or cuda.

    python scripts/precision.py --stdlib [--all-files]

Exit status: 1 when a crash happened, else 0.
"""

from __future__ import annotations

import argparse
import ast
import json
import subprocess
import sys
import sysconfig
import time
import traceback
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import corpora
from corpora import read_source

from flake8_torchdevice import engine
from flake8_torchdevice.rules import ALL_RULES
from flake8_torchdevice.rules.tdv900_unanalysable import UnanalysableFile

RULE_CODES = [rule.code for rule in ALL_RULES]
UNANALYSABLE = UnanalysableFile.code


@dataclass
class Record:
    path: str
    line: int
    column: int
    code: str
    message: str
    source: str


@dataclass
class Tally:
    name: str
    files: int = 0
    lines: int = 0
    seconds: float = 0.0
    skipped: int = 0  # files without "torch" or "cuda": the engine does not parse them
    findings: Counter = field(default_factory=Counter)
    records: list[Record] = field(default_factory=list)
    unanalysable: list[Record] = field(default_factory=list)
    crashes: list[str] = field(default_factory=list)


def lint_files(name: str, paths: Iterable[Path], root: Path) -> Tally:
    tally = Tally(name)
    for path in paths:
        source = read_source(path)
        lines = source.splitlines()
        tally.files += 1
        tally.lines += len(lines)
        if not engine.could_have_findings(source):
            tally.skipped += 1
        relative = str(path.relative_to(root))
        start = time.perf_counter()
        try:
            diagnostics = engine.lint_source(source)
        except Exception:
            tally.seconds += time.perf_counter() - start
            tally.crashes.append(f"{relative}\n{traceback.format_exc()}")
            continue
        tally.seconds += time.perf_counter() - start
        for diagnostic in diagnostics:
            text = lines[diagnostic.line - 1].strip() if 0 < diagnostic.line <= len(lines) else ""
            record = Record(relative, diagnostic.line, diagnostic.column, diagnostic.code, diagnostic.message, text)
            tally.findings[diagnostic.code] += 1
            (tally.unanalysable if diagnostic.code == UNANALYSABLE else tally.records).append(record)
    return tally


def markdown_table(tallies: Sequence[Tally]) -> str:
    header = ["corpus", "files", "lines", "seconds", "lines/s", *RULE_CODES, UNANALYSABLE, "crashes"]
    rows = [header, ["---"] * len(header)]
    total = Tally("**total**")
    for tally in tallies:
        total.files += tally.files
        total.lines += tally.lines
        total.seconds += tally.seconds
        total.findings.update(tally.findings)
        total.crashes.extend(tally.crashes)
    for tally in [*tallies, total] if len(tallies) > 1 else tallies:
        speed = f"{tally.lines / tally.seconds:,.0f}" if tally.seconds else "-"
        rows.append(
            [
                tally.name,
                str(tally.files),
                f"{tally.lines:,}",
                f"{tally.seconds:.2f}",
                speed,
                *(str(tally.findings[code]) for code in RULE_CODES),
                str(tally.findings[UNANALYSABLE]),
                str(len(tally.crashes)),
            ]
        )
    return "\n".join("| " + " | ".join(row) + " |" for row in rows)


def run_command_on(groups: dict[str, Path], out: Path, select: str = "TDV") -> int:
    """Lint each folder with ``torchdevice check --select SELECT --confidence low`` (every rule by
    default, every level: the JSON says each finding's confidence) and tabulate its JSON findings."""
    tallies, report = [], {}
    for name, folder in groups.items():
        start = time.perf_counter()
        completed = subprocess.run(
            [
                sys.executable,
                "-m",
                "flake8_torchdevice",
                "check",
                "--select",
                select,
                "--confidence",
                "low",
                "--exit-zero",
                "--format",
                "json",
                str(folder),
            ],
            capture_output=True,
            text=True,
            cwd=folder,
        )
        paths = corpora.python_files(folder, notebooks=True)
        tally = Tally(name, files=len(paths), seconds=time.perf_counter() - start)
        tally.lines = corpora.line_count(paths)
        if completed.returncode not in (0, 1):
            tally.crashes.append(f"{name}: exit {completed.returncode}\n{completed.stderr[-2000:]}")
        findings = json.loads(completed.stdout or "[]")
        for finding in findings:
            tally.findings[finding["code"]] += 1
            finding["source"] = _source_line(Path(finding["path"]), finding)
        report[name] = findings
        tallies.append(tally)
    print(f"linter: {Path(engine.__file__).parent}\n")
    print(markdown_table(tallies))
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"\n{sum(len(f) for f in report.values())} findings written to {out}")
    return _report_crashes(tallies)


def _source_line(path: Path, finding: dict) -> str:
    """The reported line's text (for a notebook, the cell's line)."""
    try:
        if path.suffix == ".ipynb":
            cells = json.loads(path.read_text(encoding="utf-8"))["cells"]  # numbered over every cell
            lines = "".join(cells[finding["cell"] - 1]["source"]).splitlines()
        else:
            lines = read_source(path).splitlines()
        return lines[finding["line"] - 1].strip()
    except (OSError, ValueError, KeyError, IndexError, TypeError):
        return ""


def run_corpora(dest: Path, names: Sequence[str] | None, out: Path) -> int:
    files = corpora.corpus_files(dest, names)
    tallies = [lint_files(name, paths, dest / name) for name, paths in files.items()]
    print(f"linter: {Path(engine.__file__).parent}\n")
    print(markdown_table(tallies))
    for tally in tallies:
        if tally.unanalysable:
            print(f"\n{tally.name}: {len(tally.unanalysable)} files not analysed (TDV900)")
            _print_unanalysable(tally, dest / tally.name)
    report = {
        tally.name: {
            "files": tally.files,
            "lines": tally.lines,
            "seconds": round(tally.seconds, 3),
            "counts": dict(tally.findings),
            "findings": [asdict(record) for record in tally.records],
            "unanalysable": [asdict(record) for record in tally.unanalysable],
            "crashes": tally.crashes,
        }
        for tally in tallies
    }
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=1) + "\n")
    print(f"\n{sum(len(t.records) for t in tallies)} findings written to {out}")
    return _report_crashes(tallies)


CORE_RULES = ALL_RULES[:3]  # TDV001-TDV003, the rules of the first release


def compare_rule_cost(files: dict[str, list[Path]], runs: int = 3) -> None:
    """Lint time with the core rules alone and with every rule, on the same files, in one run."""
    sources = [read_source(path) for paths in files.values() for path in paths]
    timings: dict[str, list[float]] = {"core": [], "all": []}
    for _ in range(runs):  # alternate, so that machine noise hits both sides alike
        for label, rules in (("core", CORE_RULES), ("all", ALL_RULES)):
            start = time.perf_counter()
            for source in sources:
                engine.lint_source(source, rules=rules)
            timings[label].append(time.perf_counter() - start)
    core, every = (sorted(timings[label])[runs // 2] for label in ("core", "all"))
    print(
        f"\nlint time, median of {runs}: core rules {core:.2f} s, all rules {every:.2f} s "
        f"({(every / core - 1) * 100:+.1f} %)"
    )


def stdlib_files() -> tuple[Path, list[Path]]:
    root = Path(sysconfig.get_paths()["stdlib"])
    excluded = {"site-packages", "dist-packages"}
    paths = sorted(path for path in root.rglob("*.py") if excluded.isdisjoint(path.relative_to(root).parts))
    return root, paths


def run_stdlib(all_files: bool) -> int:
    root, paths = stdlib_files()
    if all_files:  # analyse every file, not only those that mention torch or cuda
        engine.could_have_findings = lambda source: True  # type: ignore[assignment]
    tally = lint_files("stdlib", paths, root)
    parsed = tally.files - (0 if all_files else tally.skipped)
    print(f"linter: {Path(engine.__file__).parent}")
    print(f"standard library: {root} (Python {sys.version.split()[0]})")
    print(f"files: {tally.files}, lines: {tally.lines:,}, seconds: {tally.seconds:.2f}")
    print(f"files parsed and analysed: {parsed}")
    print(f"files skipped (no 'torch'/'cuda' word): {0 if all_files else tally.skipped}")
    print(f"TDV900 (not analysed): {len(tally.unanalysable)}")
    _print_unanalysable(tally, root)
    print(f"findings ({', '.join(RULE_CODES)}): {len(tally.records)}")
    for record in tally.records:
        print(f"  {record.path}:{record.line}:{record.column} {record.code} {record.source}")
    print(f"crashes: {len(tally.crashes)}")
    return _report_crashes([tally])


def python_accepts(path: Path) -> bool:
    """Does CPython's own parser accept the file? (A TDV900 on such a file is libcst's gap or ours.)"""
    try:
        compile(read_source(path), str(path), "exec", flags=ast.PyCF_ONLY_AST, dont_inherit=True)
    except (SyntaxError, ValueError):
        return False
    return True


def _print_unanalysable(tally: Tally, root: Path) -> None:
    groups: dict[str, list[str]] = {}
    for record in tally.unanalysable:
        verdict = "valid Python" if python_accepts(root / record.path) else "invalid Python"
        groups.setdefault(f"[{verdict}] {record.message}", []).append(record.path)
    for reason, paths in sorted(groups.items(), key=lambda item: -len(item[1])):
        print(f"  {len(paths):4} x {reason}  e.g. {', '.join(paths[:3])}")


def _report_crashes(tallies: Sequence[Tally]) -> int:
    crashes = [crash for tally in tallies for crash in tally.crashes]
    for crash in crashes:
        print(f"\nCRASH in {crash}", file=sys.stderr)
    return 1 if crashes else 0


def _round_selection(rounds: Sequence[int]) -> str:
    """The codes the given first looks lint: every rule unless a round names its own."""
    selections = {corpora.FIRST_LOOK_SELECTIONS.get(number, "TDV") for number in rounds}
    if len(selections) > 1:
        raise SystemExit(f"these first looks lint different rules ({', '.join(sorted(selections))}): one at a time")
    return selections.pop() if selections else "TDV"


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("names", nargs="*", metavar="NAME", help="corpora to lint (default: all)")
    parser.add_argument("--dest", type=Path, default=corpora.DEFAULT_DEST, help="corpora cache directory")
    parser.add_argument(
        "--out",
        type=Path,
        help="findings JSON (default: DEST/findings.json; with --roundN DEST/findings-roundN.json; "
        "with the other command-mode groups DEST/findings-held-out.json)",
    )
    parser.add_argument("--stdlib", action="store_true", help="lint the CPython standard library instead")
    parser.add_argument("--all-files", action="store_true", help="with --stdlib: also analyse files without torch/cuda")
    parser.add_argument(
        "--compare-core", action="store_true", help="also time the core rules (TDV001-TDV003) against all rules"
    )
    parser.add_argument("--held-out", action="store_true", help="lint the held-out libraries with the command")
    parser.add_argument("--fresh", action="store_true", help="lint the libraries first linted with the final rules")
    parser.add_argument("--user", action="store_true", help="lint the user repositories with the command")
    parser.add_argument(
        "--select", help="codes the command-mode groups are linted with (default: the round's own, else TDV)"
    )
    for number in corpora.FIRST_LOOKS:
        parser.add_argument(
            f"--round{number}",
            action="store_true",
            help=f"lint the round-{number} first-look libraries and user repositories",
        )
    args = parser.parse_args(argv)
    if args.stdlib:
        return run_stdlib(args.all_files)
    rounds = [number for number in corpora.FIRST_LOOKS if getattr(args, f"round{number}")]
    if args.held_out or args.user or args.fresh or rounds:
        unknown = sorted(set(args.names) - set(corpora.KNOWN_CORPORA))
        if unknown:
            parser.error(f"unknown corpus {', '.join(unknown)}; choose from {', '.join(corpora.KNOWN_CORPORA)}")
        groups: dict[str, Path] = corpora.fetch(args.dest, args.names) if args.names else {}
        if args.held_out:
            groups.update(corpora.fetch(args.dest, list(corpora.HELD_OUT_CORPORA)))
        if args.fresh:
            groups.update(corpora.fetch(args.dest, list(corpora.FRESH_CORPORA)))
        if args.user:
            groups.update(corpora.export_user_code(args.dest))
        for number in rounds:
            libraries, repositories = corpora.FIRST_LOOKS[number]
            groups.update(corpora.fetch(args.dest, list(libraries)))
            groups.update(corpora.export_user_code(args.dest, list(repositories)))
        default_out = f"findings-round{rounds[-1]}.json" if rounds else "findings-held-out.json"
        select = args.select or _round_selection(rounds)
        return run_command_on(groups, args.out or args.dest / default_out, select)
    unknown = sorted(set(args.names) - set(corpora.CORPORA))
    if unknown:
        parser.error(f"unknown corpus {', '.join(unknown)}; choose from {', '.join(corpora.CORPORA)}")
    status = run_corpora(args.dest, args.names or None, args.out or args.dest / "findings.json")
    if args.compare_core:
        compare_rule_cost(corpora.corpus_files(args.dest, args.names or None))
    return status


if __name__ == "__main__":
    sys.exit(main())
