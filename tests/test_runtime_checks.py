"""The runtime companion: verdict logic without subprocesses, the runner on tiny synthetic
fixtures (timeouts, crashes, floods of output, wrong expectations, reports, a deliberately unsafe
fix), and one run of the real suite on cpu and the simulated meta device, which is how CI proves
every rule and every safe fix."""

import contextlib
import io
import json
import textwrap

import pytest

from flake8_torchdevice.fixes import fix_source
from flake8_torchdevice.rules import RULES_BY_CODE
from runtime_checks.__main__ import main
from runtime_checks.devices import Device, DeviceError, Machine
from runtime_checks.equivalence import DIFFERENT, EQUIVALENT, NOT_COMPARABLE, compare, differences
from runtime_checks.fixtures import SelectionError, parse_runtime, select_paths
from runtime_checks.launch import Exit, Run, SpawnLauncher, outcome_from, run_fixture
from runtime_checks.report import verdict_cell
from runtime_checks.verdicts import (
    CLEAN,
    CONFIRMED,
    MISMATCH,
    NEEDS_DATA,
    NOT_APPLICABLE,
    Outcome,
    Verdict,
    applies,
    cross_check,
    decide,
)

CPU, META, CUDA = Device("cpu"), Device("meta"), Device("cuda", "NVIDIA H200")
PASSES = [parse_runtime("passes")]
ON_ACCELERATOR = [parse_runtime('raises RuntimeError "same device"|"expected device" on accelerator')]
ON_CPU_ONLY = [parse_runtime('raises AssertionError|RuntimeError "not compiled with CUDA" on cpu-only')]
ON_ANY = [parse_runtime('raises TypeError "numpy" on any')]

PASSED = Outcome()
DEVICE_MIX = Outcome(("RuntimeError", "Exception"), "Tensor on device cpu is not on the expected device meta!")
NO_CUDA = Outcome(("AssertionError", "Exception"), "Torch not compiled with CUDA enabled")
NO_DATA = Outcome(("NotImplementedError", "RuntimeError", "Exception"), "Cannot copy out of meta tensor; no data!")
NO_ITEM = Outcome(("RuntimeError", "Exception"), "Tensor.item() cannot be called on meta tensors")


# --- verdicts: pure -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "condition, device, cuda_usable, expected",
    [
        ("accelerator", CPU, False, False),
        ("accelerator", META, False, True),
        ("accelerator", CUDA, True, True),
        ("cpu-only", CPU, False, True),
        ("cpu-only", META, False, True),
        ("cpu-only", CPU, True, False),
        ("cpu-only", CUDA, True, False),
        ("cuda", CPU, False, False),
        ("cuda", META, False, False),
        ("cuda", CPU, True, True),  # code that moves where CUDA is available fails whatever `device` is
        ("cuda", CUDA, True, True),
        ("any", CPU, True, True),
    ],
)
def test_where_a_declared_failure_applies(condition, device, cuda_usable, expected):
    assert applies(condition, device, cuda_usable) is expected


@pytest.mark.parametrize(
    "expectations, outcome, device, cuda_usable, kind",
    [
        (PASSES, PASSED, CPU, False, CLEAN),
        (PASSES, PASSED, CUDA, True, CLEAN),
        (PASSES, DEVICE_MIX, META, False, MISMATCH),
        (ON_ACCELERATOR, DEVICE_MIX, META, False, CONFIRMED),
        (ON_ACCELERATOR, PASSED, CPU, False, NOT_APPLICABLE),
        (ON_ACCELERATOR, PASSED, CUDA, True, MISMATCH),  # the bug did not show where it must
        (ON_ACCELERATOR, NO_CUDA, META, False, MISMATCH),  # failed, but not as declared
        (ON_CPU_ONLY, NO_CUDA, CPU, False, CONFIRMED),
        (ON_CPU_ONLY, NO_CUDA, META, False, CONFIRMED),
        (ON_CPU_ONLY, PASSED, CPU, True, NOT_APPLICABLE),
        (ON_CPU_ONLY, PASSED, CPU, False, MISMATCH),
        (
            ON_ANY,
            Outcome(("TypeError", "Exception"), "can't convert meta tensor to numpy"),
            META,
            False,
            CONFIRMED,
        ),
        (ON_ANY, PASSED, CPU, False, MISMATCH),
    ],
)
def test_verdicts(expectations, outcome, device, cuda_usable, kind):
    assert decide(expectations, outcome, device, cuda_usable).kind == kind


def test_a_subclass_of_the_declared_type_confirms():
    accelerator_error = Outcome(
        ("AcceleratorError", "RuntimeError", "Exception"), "Expected all tensors to be on the same device"
    )
    assert decide(ON_ACCELERATOR, accelerator_error, CUDA, True).kind == CONFIRMED


@pytest.mark.parametrize("outcome", [NO_DATA, NO_ITEM])
@pytest.mark.parametrize("expectations", [PASSES, ON_ACCELERATOR])
def test_meta_holding_no_data_is_not_applicable_on_meta_only(expectations, outcome):
    on_meta = decide(expectations, outcome, META, False)
    assert (on_meta.kind, on_meta.needs) == (NOT_APPLICABLE, NEEDS_DATA)
    assert "no data" in on_meta.reason or "meta tensors" in on_meta.reason
    assert decide(expectations, outcome, CPU, False).kind == MISMATCH


def test_not_applicable_names_what_the_failure_needs():
    assert decide(ON_ACCELERATOR, PASSED, CPU, False).needs == "an accelerator"
    assert decide(ON_CPU_ONLY, PASSED, CUDA, True).needs == "a CUDA-less machine"
    both = decide(ON_ACCELERATOR + ON_CPU_ONLY, PASSED, CPU, True)
    assert (both.kind, both.needs) == (NOT_APPLICABLE, "a CUDA-less machine or an accelerator")


def test_a_run_without_result_is_a_mismatch_with_its_reason():
    verdict = decide(PASSES, Outcome(no_result="timed out after 2 s"), CPU, False)
    assert verdict == Verdict(MISMATCH, "timed out after 2 s")


def test_a_mismatch_says_what_happened_and_what_was_declared():
    reason = decide(ON_ACCELERATOR, NO_CUDA, META, False).reason
    assert "AssertionError: Torch not compiled" in reason
    assert 'RuntimeError "same device"|"expected device" on accelerator' in reason


@pytest.mark.parametrize(
    "codes, verdicts, agree",
    [
        (["TDV001"], [Verdict(CONFIRMED), Verdict(MISMATCH)], True),  # the mismatch fails on its own
        (
            ["TDV001"],
            [Verdict(NOT_APPLICABLE, needs="an accelerator"), Verdict(NOT_APPLICABLE, needs=NEEDS_DATA)],
            True,
        ),
        (["TDV001"], [Verdict(CLEAN), Verdict(CLEAN)], False),
        (["TDV001"], [Verdict(NOT_APPLICABLE, needs="an accelerator"), Verdict(MISMATCH)], False),
        ([], [Verdict(CLEAN), Verdict(NOT_APPLICABLE, needs=NEEDS_DATA)], True),
        ([], [Verdict(NOT_APPLICABLE, needs="an accelerator"), Verdict(CONFIRMED)], False),
    ],
)
def test_cross_check(codes, verdicts, agree):
    assert (cross_check(codes, verdicts, ["cpu", "meta (simulated)"]) == "") is agree


def test_cross_check_names_the_codes_or_the_devices():
    assert "TDV003" in cross_check(["TDV003"], [Verdict(CLEAN)], ["cpu"])
    assert "confirmed on meta (simulated)" in cross_check(
        [], [Verdict(CLEAN), Verdict(CONFIRMED)], ["cpu", "meta (simulated)"]
    )


def test_verdict_cells():
    assert verdict_cell(Verdict(NOT_APPLICABLE, needs="an accelerator")) == "n/a: needs an accelerator"
    assert verdict_cell(Verdict(NOT_APPLICABLE, needs=NEEDS_DATA)) == "n/a: no data on meta"
    assert verdict_cell(Verdict(MISMATCH, "timed out")) == "MISMATCH"


# --- outcomes from what a process left ---------------------------------------------------------


def test_outcome_from_a_result_file():
    assert outcome_from('{"raised": null}', Exit(0, False), 60).passed
    raised = outcome_from('{"raised": {"types": ["ValueError", "Exception"], "message": "bad"}}', Exit(0, False), 60)
    assert (raised.exception_type, raised.message) == ("ValueError", "bad")


@pytest.mark.parametrize(
    "ended, reason",
    [
        (Exit(-9, True), "timed out after 2 s"),
        (Exit(3, False), "exited with code 3 without a result"),
        (Exit(-11, False), "killed by SIGSEGV without a result"),
    ],
)
def test_outcome_without_a_result(ended, reason):
    assert outcome_from(None, ended, 2).no_result == reason


# --- devices -----------------------------------------------------------------------------------


def test_a_machine_without_accelerator_simulates_one_on_meta():
    devices = Machine("2.13.0", False, "", False).default_devices()
    assert [(device.name, device.simulated) for device in devices] == [("cpu", False), ("meta", True)]
    assert devices[1].label == "meta (simulated)"


def test_a_machine_with_cuda_offers_it_named_and_meta_on_request():
    machine = Machine("2.13.0", True, "NVIDIA H200", False)
    assert machine.default_devices() == (CPU, CUDA)
    assert machine.choose(["cpu", "meta"]) == (CPU, META)


def test_a_missing_device_is_refused():
    with pytest.raises(DeviceError, match="cuda"):
        Machine("2.13.0", False, "", False).choose(["cuda"])


# --- fix equivalence: pure ----------------------------------------------------------------------

TENSOR = {"dtype": "torch.float32", "shape": [3], "device": "cpu", "requires_grad": False, "values": "a1", "grad": None}
STATE = {"names": {"noise": TENSOR, "torch": {"object": "module"}}, "rng": {"torch cpu": "r1", "python random": "p1"}}
TYPE_ERROR = Outcome(("TypeError", "Exception"), "randn() received an invalid combination of arguments")


def observed(outcome=PASSED, state=STATE, **changes):
    """A run that left ``state``, with ``changes`` applied to its noise tensor or its generators."""
    names = {**state["names"], "noise": {**TENSOR, **changes.get("noise", {})}}
    return Run(outcome, 0.1, "", {"names": names, "rng": {**state["rng"], **changes.get("rng", {})}})


@pytest.mark.parametrize(
    "before, after, kind, reason",
    [
        (observed(), observed(), EQUIVALENT, ""),
        (observed(), observed(noise={"values": "b2"}), DIFFERENT, "noise: values"),
        (observed(), observed(noise={"device": "meta", "values": None}), DIFFERENT, "noise: device; noise: values"),
        (observed(), observed(rng={"torch cpu": "r2"}), DIFFERENT, "random state afterwards: torch cpu"),
        (observed(), observed(TYPE_ERROR), DIFFERENT, "the original runs; the fixed program raised TypeError"),
        (observed(DEVICE_MIX), observed(), NOT_COMPARABLE, "the original raised RuntimeError"),
        (observed(DEVICE_MIX), observed(NO_DATA), NOT_COMPARABLE, "the fixed program does not"),
        (observed(NO_CUDA), observed(NO_CUDA), EQUIVALENT, ""),  # both stop at the same place
        (observed(NO_CUDA), observed(NO_CUDA, rng={"torch cpu": "r2"}), DIFFERENT, "random state"),
        (observed(Outcome(no_result="timed out after 5 s")), observed(), NOT_COMPARABLE, "original timed out"),
    ],
    ids=[
        "same",
        "values",
        "device",
        "random-stream",
        "fixed-raises",
        "repairs-a-failure",
        "meta-cannot-copy",
        "same-failure",
        "same-failure-other-stream",
        "no-result",
    ],
)
def test_equivalence_of_two_observed_runs(before, after, kind, reason):
    verdict = compare(before, after)
    assert verdict.kind == kind and reason in verdict.reason, verdict


def test_differences_name_each_value_and_generator_that_changed():
    model = {"module": "Linear", "training": True, "parameters": {"weight": TENSOR}, "buffers": {}}
    moved = {**model, "parameters": {"weight": {**TENSOR, "grad": TENSOR}}}
    before = {"names": {"model": model, "batch": {"list": [TENSOR]}, "old": "1"}, "rng": {"torch cpu": "r1"}}
    after = {
        "names": {"model": moved, "batch": {"list": [{**TENSOR, "dtype": "torch.float64"}]}, "new": "1"},
        "rng": {"torch cpu": "r1", "torch cuda": "c1"},
    }
    assert differences(before, after) == [
        "batch: list[0].dtype",
        "model: parameters.weight.grad",
        "new: new",
        "old: gone",
        "random state afterwards: torch cuda",
    ]


# --- choosing fixtures -------------------------------------------------------------------------


def write_fixtures(root, sources):
    for name, source in sources.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(source).lstrip())
    return root


def test_fixtures_are_chosen_by_rule_code_directory_or_glob(tmp_path):
    write_fixtures(tmp_path, {"TDV001/bad_a.py": "", "TDV001/good_a.py": "", "TDV002/bad_b.py": ""})
    assert [p.name for p in select_paths(["TDV002"], root=tmp_path)] == ["bad_b.py"]
    assert len(select_paths([str(tmp_path)])) == 3
    chosen = select_paths([str(tmp_path / "TDV00*" / "bad_*.py"), str(tmp_path / "TDV001")])
    assert [p.name for p in chosen] == ["bad_a.py", "bad_b.py", "good_a.py"]  # in order, once each
    with pytest.raises(SelectionError):
        select_paths(["TDV009"], root=tmp_path)


@pytest.mark.parametrize("argv", [["--device", "tpu"], ["--fixtures", "/nowhere/*.py"], ["--timeout", "0"]])
def test_usage_errors_exit_2(argv, capsys):
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2


# --- the runner end to end, on synthetic fixtures ------------------------------------------------

HARDCODED_CUDA = """
    # runtime: raises AssertionError|RuntimeError "not compiled with CUDA"|"driver" on cpu-only
    import torch

    x = torch.zeros(3, device="cuda")  # expect: TDV001
"""
RUNS_EVERYWHERE = """
    # runtime: passes
    import torch

    print(torch.ones(3, device=device) * 2)
"""
NEEDS_DATA_ON_HOST = """
    # runtime: passes
    import torch

    print(torch.ones(3, device=device).sum().item())
"""

SYNTHETIC = {
    "TDV001/bad_hardcoded_cuda.py": HARDCODED_CUDA,
    "TDV002/bad_discarded_to.py": """
        # runtime: raises RuntimeError "same device"|"expected device" on accelerator
        import torch

        weights = torch.ones(3)
        weights.to(device)  # expect: TDV002
        print(weights + torch.ones(3, device=device))
    """,
    "TDV003/good_runs_everywhere.py": RUNS_EVERYWHERE,
    "TDV003/good_needs_data.py": NEEDS_DATA_ON_HOST,
    "TDV999/bad_wrong_expectation.py": """
        # runtime: raises ValueError "nope" on any
        value = 1  # expect: TDV999
        raise AssertionError("the real failure")
    """,
    "TDV999/bad_unflagged.py": """
        # runtime: raises AssertionError "always" on any
        value = 1  # expect: TDV999
        raise AssertionError("always")
    """,
    "TDV999/good_sleeps.py": """
        # runtime: passes
        import time

        time.sleep(60)
    """,
    "TDV999/good_exits.py": """
        # runtime: passes
        import os

        os._exit(3)
    """,
    "TDV999/good_segfaults.py": """
        # runtime: passes
        import os
        import signal

        os.kill(os.getpid(), signal.SIGSEGV)
    """,
    "TDV999/good_floods_stdout.py": """
        # runtime: passes
        import sys

        sys.stdout.write("x" * 5_000_000)
        print()
        print("the end")
    """,
    "TDV999/good_malformed.py": """
        # runtime: explodes
        value = 1
    """,
    # A deliberately unsafe "fix": it creates the noise on the device as TDV007's fix does, and
    # draws one more number, which shifts every later draw of a seeded program.
    "fixes/TDV007_rng_shift.in.py": """
        import torch

        mask = torch.zeros(3).to(device)
    """,
    "fixes/TDV007_rng_shift.out.py": """
        import torch

        mask = torch.zeros(3, device=device)
        extra = torch.rand(1)
    """,
}


def run_main(argv):
    stdout = io.StringIO()
    with contextlib.redirect_stdout(stdout):
        code = main(argv)
    return code, stdout.getvalue()


# The tests that read the one synthetic run: on one xdist worker, so that it runs once.
reads_the_synthetic_run = pytest.mark.xdist_group("runtime-synthetic")


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory, torch_installed):
    """One run over every synthetic fixture: each runner start costs a torch import, so share it."""
    root = write_fixtures(tmp_path_factory.mktemp("fixtures"), SYNTHETIC)
    reports = tmp_path_factory.mktemp("reports")
    # Long enough for a loaded CI machine to fork and run a one-line fixture; short for good_sleeps.
    argv = ["--fixtures", str(root), "--device", "cpu,meta", "--timeout", "5"]
    code, stdout = run_main([*argv, "--json", str(reports / "r.json"), "--markdown", str(reports / "r.md")])
    results = json.loads((reports / "r.json").read_text())
    return code, stdout, results, (reports / "r.md").read_text()


def runs_of(results, name):
    fixture = next(f for f in results["fixtures"] if f["name"] == name)
    return {device: run for device, run in fixture["runs"].items()}


class Verdicts(dict):
    """{device: verdict}, whose repr also shows each run's reason when an assertion fails."""

    def __init__(self, runs):
        super().__init__({device: run["verdict"] for device, run in runs.items()})
        self.reasons = {device: run["reason"] for device, run in runs.items()}

    def __repr__(self):
        return f"{dict(self)!r} (reasons: {self.reasons!r})"


def verdicts_of(results, name):
    return Verdicts(runs_of(results, name))


@reads_the_synthetic_run
def test_synthetic_run_fails_on_its_deliberate_mismatches(synthetic):
    code, _, results, _ = synthetic
    assert code == 1
    assert results["ok"] is False


@reads_the_synthetic_run
def test_a_bad_fixture_that_its_fix_repairs_runs_fixed_and_clean(synthetic):
    _, _, results, _ = synthetic
    assert verdicts_of(results, "TDV002/good_fixed_discarded_to.py") == {"cpu": CLEAN, "meta": CLEAN}
    fixed = [f["name"] for f in results["fixtures"] if "good_fixed_" in f["name"]]
    assert fixed == ["TDV002/good_fixed_discarded_to.py"]  # TDV001 has no fix; TDV999 is no rule


@reads_the_synthetic_run
def test_bad_fixtures_confirmed_or_not_applicable(synthetic):
    _, _, results, _ = synthetic
    cpu_only = NOT_APPLICABLE if results["cuda_usable"] else CONFIRMED
    assert verdicts_of(results, "TDV001/bad_hardcoded_cuda.py") == {"cpu": cpu_only, "meta": cpu_only}
    assert verdicts_of(results, "TDV002/bad_discarded_to.py") == {"cpu": NOT_APPLICABLE, "meta": CONFIRMED}
    assert runs_of(results, "TDV002/bad_discarded_to.py")["cpu"]["needs"] == "an accelerator"


@reads_the_synthetic_run
def test_good_fixtures_clean_and_meta_without_data_not_applicable(synthetic):
    _, _, results, _ = synthetic
    assert verdicts_of(results, "TDV003/good_runs_everywhere.py") == {"cpu": CLEAN, "meta": CLEAN}
    assert verdicts_of(results, "TDV003/good_needs_data.py") == {"cpu": CLEAN, "meta": NOT_APPLICABLE}
    meta = runs_of(results, "TDV003/good_needs_data.py")["meta"]
    assert (meta["needs"], meta["exception"]) == (NEEDS_DATA, "RuntimeError")


@reads_the_synthetic_run
def test_a_wrong_expectation_is_a_mismatch(synthetic):
    _, stdout, results, _ = synthetic
    run = runs_of(results, "TDV999/bad_wrong_expectation.py")["cpu"]
    assert run["verdict"] == MISMATCH
    assert "AssertionError: the real failure" in run["reason"] and 'ValueError "nope" on any' in run["reason"]
    assert "mismatch: TDV999/bad_wrong_expectation.py on meta (simulated)" in stdout


@pytest.mark.parametrize(
    "name, reason",
    [
        ("TDV999/good_sleeps.py", "timed out after 5 s"),
        ("TDV999/good_exits.py", "exited with code 3 without a result"),
        ("TDV999/good_segfaults.py", "killed by SIGSEGV without a result"),
    ],
)
@reads_the_synthetic_run
def test_runs_that_leave_no_result(synthetic, name, reason):
    _, _, results, _ = synthetic
    for run in runs_of(results, name).values():
        assert (run["verdict"], run["reason"]) == (MISMATCH, reason)


def equivalence_of(results, name):
    pair = next(p for p in results["equivalence"] if p["name"] == name)
    return {device: (run["verdict"], run["reason"]) for device, run in pair["runs"].items()}


@reads_the_synthetic_run
def test_a_deliberately_unsafe_fix_fails_the_equivalence_check(synthetic):
    code, stdout, results, _ = synthetic
    compared = equivalence_of(results, "fixes/TDV007_rng_shift.in.py")
    assert compared["cpu"] == (DIFFERENT, "extra: new; random state afterwards: torch cpu")
    assert compared["meta"] == (DIFFERENT, "extra: new; random state afterwards: torch cpu")
    assert "safe fix not equivalent: fixes/TDV007_rng_shift.in.py on cpu: extra: new" in stdout
    assert code == 1


@reads_the_synthetic_run
def test_a_fix_that_repairs_a_failure_is_compared_where_the_original_runs(synthetic):
    _, stdout, results, _ = synthetic
    compared = equivalence_of(results, "TDV002/bad_discarded_to.py")
    assert compared["cpu"] == (EQUIVALENT, "")
    assert compared["meta"][0] == NOT_COMPARABLE and "the original raised RuntimeError" in compared["meta"][1]
    assert [p["name"] for p in results["equivalence"]] == ["fixes/TDV007_rng_shift.in.py", "TDV002/bad_discarded_to.py"]
    assert "2 fixes compared before and after: 1 equivalent, 2 different, 1 not comparable" in stdout


@reads_the_synthetic_run
def test_the_timeout_kills_the_run_on_time(synthetic):
    _, _, results, _ = synthetic
    assert all(run["seconds"] < 10 for run in runs_of(results, "TDV999/good_sleeps.py").values())


@reads_the_synthetic_run
def test_a_flood_of_output_completes_and_keeps_a_tail(synthetic):
    _, _, results, _ = synthetic
    for run in runs_of(results, "TDV999/good_floods_stdout.py").values():
        assert run["verdict"] == CLEAN
        assert run["output_tail"].endswith("the end\n") and len(run["output_tail"]) <= 4000


@reads_the_synthetic_run
def test_a_linter_that_misses_a_confirmed_failure_fails_the_cross_check(synthetic):
    _, stdout, results, _ = synthetic
    fixture = next(f for f in results["fixtures"] if f["name"] == "TDV999/bad_unflagged.py")
    assert fixture["linter"] == [] and "confirmed on cpu" in fixture["cross_check"]
    assert "cross-check: TDV999/bad_unflagged.py" in stdout


@reads_the_synthetic_run
def test_a_malformed_fixture_is_reported_not_run(synthetic):
    _, stdout, results, _ = synthetic
    assert len(results["fixture_errors"]) == 1 and "good_malformed.py" in results["fixture_errors"][0]
    assert "fixture error:" in stdout


@reads_the_synthetic_run
def test_the_table_covers_every_fixture_and_marks_meta_simulated(synthetic):
    _, stdout, results, _ = synthetic
    header, *_ = stdout.splitlines()
    assert header.split() == ["rule", "fixture", "linter", "cpu", "meta", "(simulated)", "cross-check"]
    for fixture in results["fixtures"]:
        assert any(
            line.startswith(fixture["rule"]) and fixture["name"].split("/")[1] in line for line in stdout.splitlines()
        )
    summary = stdout.strip().splitlines()[-1]
    assert "11 fixtures x 2 devices" in summary and "1 fixture errors" in summary
    assert all(f"{results['summary'][kind]} {kind}" in summary for kind in (CONFIRMED, CLEAN, NOT_APPLICABLE, MISMATCH))


@reads_the_synthetic_run
def test_json_report_describes_the_machine(synthetic):
    _, _, results, _ = synthetic
    assert results["torch"].startswith("2.")
    assert results["devices"] == [
        {"name": "cpu", "simulated": False, "hardware": ""},
        {"name": "meta", "simulated": True, "hardware": ""},
    ]
    assert sum(results["summary"][kind] for kind in (CONFIRMED, CLEAN, NOT_APPLICABLE, MISMATCH)) == 22


@reads_the_synthetic_run
def test_markdown_report(synthetic):
    _, _, results, markdown = synthetic
    title, *_ = markdown.splitlines()
    assert title.startswith(f"# Runtime checks: torch {results['torch']}, 20")
    assert "- cpu: real" in markdown and "- meta: simulated accelerator" in markdown
    assert "| rule | fixture | linter | cpu | meta (simulated) | cross-check |" in markdown
    assert "## Problems" in markdown and "timed out after 5 s" in markdown


def test_a_correct_suite_passes_in_fresh_interpreters(tmp_path, torch_installed):
    """The spawn start method end to end, on fixtures that are all right: exit status 0.

    One device only: every spawned run pays a whole torch import."""
    root = write_fixtures(
        tmp_path,
        {"TDV001/bad_hardcoded_cuda.py": HARDCODED_CUDA, "TDV003/good_runs_everywhere.py": RUNS_EVERYWHERE},
    )
    code, stdout = run_main(["--fixtures", str(root), "--device", "cpu", "--start-method", "spawn"])
    assert code == 0, stdout
    assert "2 fixtures x 1 devices" in stdout and "0 mismatch; 0 cross-check failures" in stdout


@pytest.mark.parametrize(
    "source, timeout, reason",
    [
        ("import time\ntime.sleep(60)\n", 1, "timed out after 1 s"),
        ("import os\nos._exit(3)\n", 60, "exited with code 3"),
    ],
)
def test_spawned_runs_that_leave_no_result(tmp_path, source, timeout, reason, torch_installed):
    fixture = tmp_path / "good_dies.py"
    fixture.write_text(source)
    run = run_fixture(fixture, "cpu", SpawnLauncher(), timeout)
    assert run.outcome.no_result.startswith(reason)


# --- the real suite -----------------------------------------------------------------------------


reads_the_real_suite = pytest.mark.xdist_group("runtime-real-suite")


@pytest.fixture(scope="module")
def real_suite(tmp_path_factory, torch_installed):
    """All of tests/fixtures on cpu and meta, once: the fixtures, their fixed copies, the fix pairs."""
    report = tmp_path_factory.mktemp("real") / "report.json"
    run_main(["--device", "cpu,meta", "--json", str(report)])
    return json.loads(report.read_text())


@reads_the_real_suite
def test_every_fixture_behaves_as_declared_on_cpu_and_meta(real_suite):
    """Each rule is proven by a real (or simulated) failure."""
    results = real_suite
    assert results["fixture_errors"] == []
    mismatches = [
        f"{fixture['name']} on {device}: {run['reason']}"
        for fixture in results["fixtures"]
        for device, run in fixture["runs"].items()
        if run["verdict"] == MISMATCH
    ]
    assert mismatches == []
    disagreements = [
        f"{fixture['name']}: {fixture['cross_check']}" for fixture in results["fixtures"] if fixture["cross_check"]
    ]
    assert disagreements == []
    # Each fixing rule's fixes are proven too: fixed bad fixtures ran, declared good, without a mismatch.
    fixed_rules = {fixture["rule"] for fixture in results["fixtures"] if "/good_fixed_" in fixture["name"]}
    assert fixed_rules == {"TDV002", "TDV003", "TDV004", "TDV007", "TDV008", "TDV009", "TDV012"}


def unequal(results):
    """{pair name: [device: what differs]} for every safe fix that changed its program's behaviour."""
    found = {}
    for pair in results["equivalence"]:
        different = [
            f"{device}: {run['reason']}" for device, run in pair["runs"].items() if run["verdict"] == DIFFERENT
        ]
        if different:
            found[pair["name"]] = different
    return found


@reads_the_real_suite
def test_every_safe_fix_keeps_its_program_s_meaning_on_cpu_and_meta(real_suite):
    # TDV007 once offered `torch.randn(...).to(device)` -> `device=device` as safe: on the device the
    # draw comes from the device's generator and a seeded stream changes. Its fix is unsafe now.
    assert unequal(real_suite) == {}
    compared = {pair["name"].split("/")[0] for pair in real_suite["equivalence"]}
    assert compared == {"fixes", "TDV002", "TDV003", "TDV007", "TDV008", "TDV009", "TDV012"}  # TDV004's fix is unsafe


# The shapes TDV007 reports, each as a program whose safe fix (if it offers one) must keep its meaning.
# Measured on 3.7M lines of released code, the old "safe" fix raised TypeError for `.to(<tensor>)`,
# moved draws off their CPU generator, and changed seeded random streams: it is unsafe for random
# factories now, and not offered for `.to(<tensor>)`.
TDV007_SHAPES = {
    "zeros": "mask = torch.zeros(4, 4).to(device)",
    "ones_dtype": "weights = torch.ones(3, dtype=torch.float64).to(device)",
    "full": "labels = torch.full((4,), 0.9).to(device=device)",
    "arange": "positions = torch.arange(16).to(device)",
    "eye": "identity = torch.eye(3).to(device)",
    "tensor_of_list": "labels = torch.tensor([1, 0, 1]).to(device)",
    "zeros_like": "base = torch.ones(3, device=device)\nzeros = torch.zeros_like(base).to(device)",
    "requires_grad": "bias = torch.zeros(3, requires_grad=True).to(device)",
    "randn": "noise = torch.randn(2, 3).to(device)",
    "randint": "indices = torch.randint(0, 10, (4,)).to(device)",
    "randperm": "order = torch.randperm(8).to(device)",
    "rand_like": "base = torch.ones(3)\nnoise = torch.rand_like(base).to(device)",
    "generator": "generator = torch.Generator().manual_seed(1)\nnoise = torch.randn(3, generator=generator).to(device)",
    "to_a_tensor": "reference = torch.ones(3, device=device)\nnoise = torch.zeros(3).to(reference)",
}


reads_the_tdv007_shapes = pytest.mark.xdist_group("runtime-tdv007-shapes")


@pytest.fixture(scope="module")
def tdv007_shapes(tmp_path_factory, torch_installed):
    """Each shape as a fix pair, the fix made by the command's own fix_source, run once on cpu and meta."""
    root = tmp_path_factory.mktemp("shapes")
    for name, code in TDV007_SHAPES.items():
        source = f"import torch\n\n{code}\n"
        fixed = fix_source(source, rules=(RULES_BY_CODE["TDV007"],)).source
        write_fixtures(root, {f"fixes/TDV007_{name}.in.py": source, f"fixes/TDV007_{name}.out.py": fixed})
    report = root / "report.json"
    run_main(["--fixtures", str(root), "--device", "cpu,meta", "--json", str(report)])
    return json.loads(report.read_text())


@reads_the_tdv007_shapes
@pytest.mark.parametrize("shape", TDV007_SHAPES)
def test_each_shape_tdv007_fixes_keeps_its_meaning(tdv007_shapes, shape):
    assert unequal(tdv007_shapes).get(f"fixes/TDV007_{shape}.in.py") is None


def test_performance_fixtures_must_run_clean_and_be_reported():
    from runtime_checks.verdicts import CLEAN, MISMATCH, Verdict, cross_check

    clean = [Verdict(CLEAN), Verdict(CLEAN)]
    labels = ["cpu", "meta (simulated)"]
    assert cross_check(["TDV007"], clean, labels, performance_only=True) == ""
    assert "does not report" in cross_check([], clean, labels, performance_only=True)
    failing = [Verdict(CLEAN), Verdict(MISMATCH, "raised RuntimeError")]
    assert "performance bug must still run" in cross_check(["TDV007"], failing, labels, performance_only=True)
