"""What the user asked for: ``[tool.torchdevice]`` in pyproject.toml, and code selection by prefix.

The nearest pyproject.toml with a ``[tool.torchdevice]`` table, walking up from the working
directory, is the configuration (as ruff does for ``[tool.ruff]``). Command-line flags override it.
"""

from __future__ import annotations

import tomllib
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from .catalogue import CODES
from .confidence import DEFAULT_CONFIDENCE, Confidence
from .discovery import DEFAULT_EXCLUDES, Pattern, exclude_patterns
from .project.beliefs import NO_BELIEF, STATED_REQUIRES_CUDA
from .project.cache import CACHE_DIR_NAME
from .selection import OFF_BY_DEFAULT, ON_WITHOUT_CUDA
from .settings import Settings
from .sources import DEFAULT_MEMORY_BUDGET_MIB

ALL_CODES: tuple[str, ...] = tuple(info.code for info in CODES)
DEFAULT_SELECT: tuple[str, ...] = tuple(info.code for info in CODES if info.enabled_by_default)

_LIST_KEYS = ("select", "extend-select", "ignore", "exclude", "extend-exclude", "guard-functions")
_BOOL_KEYS = ("report-unknown-receivers", "respect-gitignore", "runs-without-cuda", "cache")
_POSITIVE_INT_KEYS = ("memory-budget",)
_CHOICE_KEYS = ("confidence",)
_PATH_KEYS = ("cache-dir",)


class ConfigError(Exception):
    """A configuration the user must correct (exit status 2)."""


@dataclass(frozen=True)
class Config:
    """Options from pyproject.toml or the command line; None means "not given"."""

    select: tuple[str, ...] | None = None
    # Codes added to the selection (the defaults, or ``select``): ``TDV001`` for a project that must
    # run without CUDA. The configuration's and the command line's add up.
    extend_select: tuple[str, ...] = ()
    ignore: tuple[str, ...] | None = None
    exclude: tuple[str, ...] | None = None
    extend_exclude: tuple[str, ...] = ()
    guard_functions: tuple[str, ...] | None = None
    report_unknown_receivers: bool | None = None
    runs_without_cuda: bool | None = None
    respect_gitignore: bool | None = None
    memory_budget: int | None = None  # MiB
    # The least sure findings reported ("high", "medium" or "low").
    confidence: Confidence | None = None
    # The result cache (project/cache.py): whether to use it, and where it lives.
    cache: bool | None = None
    cache_dir: Path | None = None
    # Patterns with a "/" are relative to this directory (the config file's, or the working directory).
    root: Path = Path(".")


@dataclass(frozen=True)
class Resolved:
    """The configuration with the command line's flags applied: what a run uses."""

    codes: frozenset[str]
    settings: Settings
    excludes: tuple[Pattern, ...]
    respect_gitignore: bool = True
    memory_budget: int = DEFAULT_MEMORY_BUDGET_MIB  # MiB
    cache_dir: Path | None = None  # None: no result cache
    # The rules off by default that the user chose nothing about (no select, extend-select or
    # ignore): a check also runs them, to say how much they would add (``summary.py``).
    unselected: frozenset[str] = frozenset()


def resolve(config: Config, flags: Config) -> Resolved:
    """Each flag given on the command line replaces the configured value; extend-select and
    extend-exclude add up (a ``--select`` replaces the configured extend-select too)."""
    chosen = replace(config, **{name: getattr(flags, name) for name in _REPLACED if getattr(flags, name) is not None})
    if flags.exclude is not None:
        excludes = exclude_patterns(flags.exclude, flags.root)
    elif config.exclude is not None:
        excludes = exclude_patterns(config.exclude, config.root)
    else:
        excludes = DEFAULT_EXCLUDES
    extended = exclude_patterns(config.extend_exclude, config.root) + exclude_patterns(flags.extend_exclude, flags.root)
    settings = Settings(
        guard_functions=frozenset(chosen.guard_functions or ()),
        report_unknown_receivers=bool(chosen.report_unknown_receivers),
        runs_without_cuda=bool(chosen.runs_without_cuda),
        confidence=chosen.confidence or DEFAULT_CONFIDENCE,
        # ``runs-without-cuda = false`` states the opposite: the project requires CUDA.
        cpu_support=STATED_REQUIRES_CUDA if chosen.runs_without_cuda is False else NO_BELIEF,
    )
    # A selection given on the command line starts afresh: the file's additions to its own go too.
    added = flags.extend_select if flags.select is not None else config.extend_select + flags.extend_select
    if chosen.runs_without_cuda:  # a project that runs without CUDA wants its hard-coded devices found
        added += tuple(sorted(ON_WITHOUT_CUDA))
    codes = selected_codes(chosen.select, chosen.ignore or (), added)
    chose = chosen.select is not None or chosen.ignore or config.extend_select or flags.extend_select
    return Resolved(
        codes,
        settings,
        excludes + extended,
        respect_gitignore=chosen.respect_gitignore is not False,
        memory_budget=chosen.memory_budget or DEFAULT_MEMORY_BUDGET_MIB,
        # Next to the configuration, as ruff keeps its cache: one per project, whatever the working directory.
        cache_dir=None if chosen.cache is False else chosen.cache_dir or config.root / CACHE_DIR_NAME,
        unselected=frozenset() if chose else OFF_BY_DEFAULT - codes,
    )


_REPLACED = (
    "select",
    "ignore",
    "guard_functions",
    "report_unknown_receivers",
    "runs_without_cuda",
    "respect_gitignore",
    "memory_budget",
    "confidence",
    "cache",
    "cache_dir",
)


def load_config(start: Path) -> Config:
    """The ``[tool.torchdevice]`` table of the nearest pyproject.toml at or above ``start`` that has one."""
    for directory in (start, *start.parents):
        candidate = directory / "pyproject.toml"
        table = _tool_table(candidate) if candidate.is_file() else None
        if table is not None:
            return config_from_table(table, directory, str(candidate))
    return Config(root=start)


def config_from_table(table: Mapping[str, Any], root: Path, origin: str) -> Config:
    """The options of a ``[tool.torchdevice]``-shaped table, checked (ConfigError names ``origin``):
    pyproject.toml's, or the settings an editor gives the language server."""
    known = {*_LIST_KEYS, *_BOOL_KEYS, *_POSITIVE_INT_KEYS, *_CHOICE_KEYS, *_PATH_KEYS}
    unknown = sorted(set(table) - known)
    if unknown:
        raise ConfigError(f"{origin}: unknown [tool.torchdevice] key(s): {', '.join(unknown)}")
    values: dict[str, Any] = {key.replace("-", "_"): _list(table, key, origin) for key in _LIST_KEYS if key in table}
    for key in _BOOL_KEYS:
        if key in table:
            if not isinstance(table[key], bool):
                raise ConfigError(f"{origin}: [tool.torchdevice] {key} must be true or false")
            values[key.replace("-", "_")] = table[key]
    for key in _POSITIVE_INT_KEYS:
        if key in table:
            if type(table[key]) is not int or table[key] < 1:  # bool is an int, and no budget
                raise ConfigError(f"{origin}: [tool.torchdevice] {key} must be a positive whole number")
            values[key.replace("-", "_")] = table[key]
    if "confidence" in table:
        values["confidence"] = _confidence(table["confidence"], origin)
    for key in _PATH_KEYS:
        if key in table:
            if not isinstance(table[key], str) or not table[key].strip():
                raise ConfigError(f"{origin}: [tool.torchdevice] {key} must be a path (a string)")
            values[key.replace("-", "_")] = root / Path(table[key].strip()).expanduser()  # relative to the file
    return Config(root=root, **values)


def _confidence(value: Any, origin: str) -> Confidence:
    try:
        return Confidence.named(value if isinstance(value, str) else "")
    except ValueError as error:
        raise ConfigError(f"{origin}: [tool.torchdevice] confidence: {error}") from None


def selected_codes(
    select: Iterable[str] | None, ignore: Iterable[str], extend_select: Iterable[str] = ()
) -> frozenset[str]:
    """Codes chosen by prefixes: the longest matching prefix decides, and a tie goes to ``ignore``.

    Without ``select``, the candidates are the rules enabled by default and any ``ignore`` removes them;
    ``extend_select`` adds its codes to either.
    """
    ignored = _known_prefixes(ignore)
    added = _known_prefixes(extend_select)
    extra = tuple(code for code in ALL_CODES if _longest_match(code, added) > 0)
    if select is None:
        candidates, selected = (*DEFAULT_SELECT, *extra), ("TDV", *added)
    else:
        candidates, selected = ALL_CODES, (*_known_prefixes(select), *added)
    return frozenset(code for code in candidates if _longest_match(code, selected) > _longest_match(code, ignored))


def _known_prefixes(prefixes: Iterable[str]) -> tuple[str, ...]:
    cleaned = tuple(prefix.strip().upper() for prefix in prefixes if prefix.strip())
    for prefix in cleaned:
        if not any(code.startswith(prefix) for code in ALL_CODES):
            raise ConfigError(f"unknown code or prefix {prefix!r} (known: {', '.join(ALL_CODES)})")
    return cleaned


def _longest_match(code: str, prefixes: tuple[str, ...]) -> int:
    return max((len(prefix) for prefix in prefixes if code.startswith(prefix)), default=-1)


def _tool_table(path: Path) -> Mapping[str, Any] | None:
    try:
        with path.open("rb") as file:
            document = tomllib.load(file)
    except (OSError, ValueError) as error:  # tomllib.TOMLDecodeError is a ValueError
        raise ConfigError(f"{path}: {error}") from error
    tool = document.get("tool")
    table = tool.get("torchdevice") if isinstance(tool, dict) else None
    return table if isinstance(table, dict) else None


def _list(table: Mapping[str, Any], key: str, origin: str) -> tuple[str, ...]:
    value = table[key]
    if isinstance(value, str):
        value = value.split(",")
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{origin}: [tool.torchdevice] {key} must be a list of strings")
    return tuple(item.strip() for item in value if item.strip())
