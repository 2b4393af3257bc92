"""The flake8 adapter: options in, (line, column, message) out, nothing else."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

from . import __version__
from .confidence import DEFAULT_CONFIDENCE, Confidence
from .prefilter import could_have_findings
from .project.beliefs import NO_BELIEF, STATED_REQUIRES_CUDA, Projects
from .project.cache import CACHE_DIR_NAME, ENVIRONMENT_VARIABLE, ResultCache, directory_from_environment, result_key
from .reports import Report
from .selection import OFF_BY_DEFAULT, ON_WITHOUT_CUDA, explicitly_selected
from .settings import Settings, in_project
from .sources import DEFAULT_MEMORY_BUDGET_MIB, oversized, refused_by_python

# Larger files are analysed in a process of the linter's own, under the memory budget: flake8's
# process is shared with the other plugins, and has no memory limit of its own (dense code can
# take 4 KiB per byte).
OWN_PROCESS_ABOVE = 256 * 1024


class TorchDeviceChecker:
    name = "flake8-torchdevice"
    version = __version__
    settings: ClassVar[Settings] = Settings()
    memory_budget: ClassVar[int] = DEFAULT_MEMORY_BUDGET_MIB
    # The off-by-default rules the user's select or extend-select names (flake8 filters the rest).
    # Until ``parse_options`` reads the selection, every rule runs, as the engine's default.
    turned_on: ClassVar[frozenset[str]] = OFF_BY_DEFAULT
    # What flake8 calls the text it read from stdin; None when it reads no stdin.
    stdin_display_name: ClassVar[str | None] = None
    # Whether each package of the project runs without CUDA (project/beliefs.py), and what the
    # calls of each file's functions have in common, read once.
    beliefs: ClassVar[Projects | None] = None
    # Where findings are kept by content (project/cache.py); None when turned off.
    cache: ClassVar[ResultCache | None] = None

    def __init__(self, tree: Any, lines: list[str], filename: str | None = None) -> None:
        # ``tree`` is requested only so that flake8 runs us on files Python can parse (it reports
        # E999 for the others); we analyse the ``lines`` flake8 read, which also covers stdin. The
        # ``filename`` tells whether Python can decode the file flake8 may have read as Latin-1.
        self._lines = lines
        self._filename = filename

    @classmethod
    def add_options(cls, parser: Any) -> None:
        parser.add_option(
            "--torchdevice-guard-functions",
            default="",
            parse_from_config=True,
            comma_separated_list=True,
            help="Functions that check for CUDA like torch.cuda.is_available (e.g. is_torch_cuda_available).",
        )
        parser.add_option(
            "--torchdevice-runs-without-cuda",
            default=False,
            action="store_true",
            parse_from_config=True,
            help="The project runs without CUDA (CPU-only, Apple MPS): TDV001 and TDV004 findings are sure.",
        )
        parser.add_option(
            "--torchdevice-requires-cuda",
            default=False,
            action="store_true",
            parse_from_config=True,
            help="The project requires CUDA by design: TDV001 and TDV004 findings are guesses (low).",
        )
        parser.add_option(
            "--torchdevice-no-project",
            default=False,
            action="store_true",
            parse_from_config=True,
            help="Lint each file alone: do not read the project for whether it runs without CUDA, nor for the calls "
            "of its functions in other files.",
        )
        parser.add_option(
            "--torchdevice-report-unknown-receivers",
            default=False,
            action="store_true",
            parse_from_config=True,
            help="TDV002: also report discarded x.to(...) when the code does not show whether x is a tensor.",
        )
        parser.add_option(
            "--torchdevice-memory-budget",
            default=DEFAULT_MEMORY_BUDGET_MIB,
            type=int,
            parse_from_config=True,
            help="Memory for analysing one file, in MiB; a larger file gets TDV900 (default: %(default)s).",
        )

        parser.add_option(
            "--torchdevice-confidence",
            default=DEFAULT_CONFIDENCE.label,
            choices=[level.label for level in sorted(Confidence, reverse=True)],
            parse_from_config=True,
            help="The least sure findings reported: high (every link in the code), medium or low "
            "(default: %(default)s).",
        )
        parser.add_option(
            "--torchdevice-no-cache",
            default=False,
            action="store_true",
            parse_from_config=True,
            help="Analyse every file again instead of reusing the findings of files whose content did not change.",
        )
        parser.add_option(
            "--torchdevice-cache-dir",
            default="",
            parse_from_config=True,
            normalize_paths=True,
            help=f"Where the cache lives (default: ${ENVIRONMENT_VARIABLE}, else {CACHE_DIR_NAME} in the "
            "working directory).",
        )

    @classmethod
    def parse_options(cls, options: argparse.Namespace) -> None:
        cls.settings = Settings(
            guard_functions=frozenset(name for name in options.torchdevice_guard_functions if name),
            report_unknown_receivers=bool(options.torchdevice_report_unknown_receivers),
            runs_without_cuda=bool(options.torchdevice_runs_without_cuda),
            confidence=Confidence.named(options.torchdevice_confidence),
            cpu_support=STATED_REQUIRES_CUDA if options.torchdevice_requires_cuda else NO_BELIEF,
        )
        cls.memory_budget = options.torchdevice_memory_budget
        # Decided here, not with flake8's default ignore list: any ``ignore =`` a user writes
        # replaces that list, and would silently turn on every rule that is off by default.
        cls.turned_on = explicitly_selected([*(options.select or ()), *(options.extend_select or ())])
        if cls.settings.runs_without_cuda:  # a project that runs without CUDA wants its hard-coded devices found
            cls.turned_on |= ON_WITHOUT_CUDA
        cls.stdin_display_name = options.stdin_display_name if "-" in options.filenames else None
        # Read once, here, before flake8 starts its worker processes, which inherit it.
        directory = options.torchdevice_cache_dir or directory_from_environment() or CACHE_DIR_NAME
        cls.cache = None if options.torchdevice_no_cache else ResultCache(Path(directory))
        cache_dir = cls.cache.directory if cls.cache is not None else None
        cls.beliefs = None if options.torchdevice_no_project else _project_beliefs(options, cache_dir)

    def run(self) -> Iterator[tuple[int, int, str, type[TorchDeviceChecker]]]:
        source = "".join(self._lines)
        # As the command does, whatever the file holds: TDV900 for a file too large for the budget
        # or one Python cannot decode (flake8 reads it as Latin-1).
        on_disk = None if self._filename == self.stdin_display_name else self._filename
        refusal = oversized(source, self.memory_budget) or refused_by_python(source, on_disk)
        if refusal is None and not could_have_findings(source):
            return
        settings = self.settings
        if self.beliefs is not None and self._filename is not None:
            settings = in_project(settings, self.beliefs, Path(self._filename))
        # Standard input (an editor's buffer, new at each keystroke) is never cached.
        cache = self.cache if refusal is None and on_disk is not None else None
        found = self._lint(source, settings, refusal) if cache is None else self._cached(cache, source, settings)
        for report in found:
            yield report.line, report.column - 1, f"{report.code} {report.message}", type(self)

    def _cached(self, cache: ResultCache, source: str, settings: Settings) -> list[Report]:
        """The findings stored for this text, or ``_lint``'s, then stored. flake8 applies the noqa
        comments to what we yield, so the entry holds the findings before it does."""
        # The rules that run are those on by default, which the tool's identity in the key covers,
        # and those turned on.
        # The settings hold the project's belief for this file, and the budget decides whether a
        # large file is analysed at all: both are in the key.
        form = f"{_FORM}, budget {self.memory_budget} MiB"
        key = result_key(source.encode("utf-8", "surrogatepass"), settings, self.turned_on, form=form)
        found = cache.load(key, "")
        if found is None:
            found = self._lint(source, settings, None)
            cache.store(key, found)
        return found

    def _lint(self, source: str, settings: Settings, refusal: str | None) -> list[Report]:
        # Imported on the first file that needs it: libcst takes a quarter of a second to import,
        # which an editor would otherwise pay on every file it lints, torch or not.
        from .engine import lint_source, unanalysable
        from .rules import ALL_RULES

        rules = [rule for rule in ALL_RULES if rule.enabled_by_default or rule.code in self.turned_on]
        if refusal:
            diagnostics = [unanalysable(refusal)]
        elif len(source) > OWN_PROCESS_ABOVE:
            from .isolated import lint_isolated

            diagnostics = lint_isolated(source, settings, rules, self.memory_budget)
        else:
            diagnostics = lint_source(source, settings, rules)
        return [
            Report("", None, item.line, item.column + 1, item.code, item.message, item.fix, item.confidence)
            for item in diagnostics
        ]


# What the plugin's entries hold: its findings before flake8 applies noqa comments, columns counted from 1.
_FORM = "flake8 findings"


def _project_beliefs(options: argparse.Namespace, cache_dir: Path | None) -> Projects | None:
    """The beliefs of the projects flake8 lints: those of the paths it was given (stdin: the file
    its display name says it is, when that exists)."""
    from .project.report import beliefs_of

    names = [options.stdin_display_name if name == "-" else name for name in options.filenames]
    paths = [Path(name) for name in names if name and Path(name).exists()]
    return beliefs_of(paths, options.torchdevice_memory_budget, cache_dir) if paths else None
