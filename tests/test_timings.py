"""The engine's stage timings, and the benchmark's phase breakdown built on them."""

import itertools
import json

from bench.report import phase_table
from bench.workers import worker
from flake8_torchdevice.engine import check_source
from flake8_torchdevice.rules import ALL_RULES
from flake8_torchdevice.timings import ANALYSE, PARSE, POSITIONS, StageTimings

SOURCE = 'import torch\nx = torch.zeros(3, device="cuda")\nx.to("cpu")\n'
STAGES = {PARSE, ANALYSE, POSITIONS, *(rule.code for rule in ALL_RULES)}


def ticking_clock():
    """A clock that advances by one on every reading: each timed stage then lasts exactly 1."""
    return itertools.count().__next__


def test_every_stage_is_timed_once_per_file():
    timings = StageTimings(clock=ticking_clock())
    check_source(SOURCE, timings=timings)
    check_source(SOURCE, timings=timings)
    assert dict(timings.seconds) == dict.fromkeys(STAGES, 2)


def test_timings_change_nothing_found():
    assert check_source(SOURCE, timings=StageTimings()).diagnostics == check_source(SOURCE).diagnostics


def test_a_file_the_prefilter_skips_times_nothing():
    timings = StageTimings(clock=ticking_clock())
    check_source("import numpy\n", timings=timings)
    assert timings.seconds == {}


def test_a_file_libcst_rejects_is_timed_up_to_the_parse():
    timings = StageTimings(clock=ticking_clock())
    (diagnostic,) = check_source("import torch\n(x): int = 1\n", timings=timings).diagnostics
    assert diagnostic.code == "TDV900"
    assert dict(timings.seconds) == {PARSE: 1}


def test_bench_phase_breakdown_from_the_engine_timings(tmp_path, all_fixtures):
    list_file, out_file = tmp_path / "files.txt", tmp_path / "phases.json"
    list_file.write_text("\n".join(str(fixture.path) for fixture in all_fixtures) + "\n")
    worker("phases", list_file, out_file)
    phases = json.loads(out_file.read_text())
    assert phases["parsed"] == len(all_fixtures) and phases["failed"] == 0
    assert phases["findings"] == sum(sum(fixture.expected.values()) for fixture in all_fixtures)
    assert set(phases["per_rule"]) == {rule.code for rule in ALL_RULES}
    assert phases["totals"]["rules"] == sum(phases["per_rule"].values())
    table = phase_table(phases, all_fixtures)
    assert f"libcst parse ({len(all_fixtures):,} files)" in table and table.endswith("| 100% |")


def test_bench_shows_an_engine_faster_than_the_bare_parse():
    """The engine parses faster than bare libcst: its overhead over that parse can be negative,
    and the report says so instead of printing nothing."""
    from bench.figures import change, percent

    assert percent(change(12.29, 12.57)) == "-2%"
    assert percent(change(12.29, 9.83)) == "+25%"
    assert percent(change(None, 9.83)) == "-"
