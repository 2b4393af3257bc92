"""The flake8 adapter: options in, (line, column, message) out, nothing else."""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from typing import Any, ClassVar

from . import __version__
from .prefilter import could_have_findings
from .selection import OFF_BY_DEFAULT
from .settings import Settings


class TorchDeviceChecker:
    name = "flake8-torchdevice"
    version = __version__
    settings: ClassVar[Settings] = Settings()

    def __init__(self, tree: Any, lines: list[str]) -> None:
        # ``tree`` is requested only so that flake8 runs us on files Python can parse (it reports
        # E999 for the others); we analyse the ``lines`` flake8 read, which also covers stdin.
        self._lines = lines

    @classmethod
    def add_options(cls, parser: Any) -> None:
        # Rules too noisy on library code to be on by default; ``--extend-select TDV004`` enables one.
        parser.extend_default_ignore(sorted(OFF_BY_DEFAULT))
        parser.add_option(
            "--torchdevice-guard-functions",
            default="",
            parse_from_config=True,
            comma_separated_list=True,
            help="Functions that check for CUDA like torch.cuda.is_available (e.g. is_torch_cuda_available).",
        )
        parser.add_option(
            "--torchdevice-report-unknown-receivers",
            default=False,
            action="store_true",
            parse_from_config=True,
            help="TDV002: also report discarded x.to(...) when the code does not show whether x is a tensor.",
        )

    @classmethod
    def parse_options(cls, options: argparse.Namespace) -> None:
        cls.settings = Settings(
            guard_functions=frozenset(name for name in options.torchdevice_guard_functions if name),
            report_unknown_receivers=bool(options.torchdevice_report_unknown_receivers),
        )

    def run(self) -> Iterator[tuple[int, int, str, type[TorchDeviceChecker]]]:
        source = "".join(self._lines)
        if not could_have_findings(source):
            return
        # Imported on the first file that needs it: libcst takes a quarter of a second to import,
        # which an editor would otherwise pay on every file it lints, torch or not.
        from .engine import lint_source

        for diagnostic in lint_source(source, self.settings):
            yield diagnostic.line, diagnostic.column, diagnostic.flake8_text(), type(self)
