"""Pure decisions: what a run's outcome means for a fixture, and whether the linter agrees.

No subprocess, no torch, no clock: every rule of the fixture grammar (tests/fixtures/README.md)
is decided here from data, so each can be unit-tested on its own.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from .devices import Device
from .fixtures import RuntimeExpectation

CONFIRMED = "confirmed"
CLEAN = "clean"
NOT_APPLICABLE = "not applicable"
MISMATCH = "mismatch"
VERDICTS = (CONFIRMED, CLEAN, NOT_APPLICABLE, MISMATCH)

# What a `not applicable` run lacked, phrased to follow "needs".
NEEDS = {
    "accelerator": "an accelerator",
    "gpu": "a real accelerator (the simulated meta device does not check this)",
    "cpu-only": "a CUDA-less machine",
    "cuda": "a machine with a usable CUDA GPU",
}
NEEDS_DATA = "a real device: the simulated meta device holds no data or has no such type or kernel"

# meta tensors have no storage: any copy to the host fails with one of these, whatever the code.
# Nor has meta a legacy type string: ``t.type(x.type())`` refuses ``torch.meta.FloatTensor``, nor a
# kernel for every operator (``F.ctc_loss``).
META_HAS_NO_DATA = (
    RuntimeExpectation(("NotImplementedError", "RuntimeError"), ("Cannot copy out of meta tensor",), "any"),
    RuntimeExpectation(("RuntimeError",), ("cannot be called on meta tensors",), "any"),
    RuntimeExpectation(("ValueError",), ("invalid type: 'torch.meta.",), "any"),
    RuntimeExpectation(
        ("NotImplementedError",), ("with Meta tensors, but there was no fake impl or Meta kernel",), "any"
    ),
)


@dataclass(frozen=True)
class Outcome:
    """What one run did: passed, raised, or died leaving no result."""

    # The raised exception's class and its bases, most derived first; empty when nothing was raised.
    exception_types: tuple[str, ...] = ()
    message: str = ""
    no_result: str = ""  # why the process left no result ("timed out after 2 s"); empty when it did

    @property
    def passed(self) -> bool:
        return not self.no_result and not self.exception_types

    @property
    def exception_type(self) -> str:
        return self.exception_types[0] if self.exception_types else ""

    def raised_as(self, expectation: RuntimeExpectation) -> bool:
        return any(expectation.matches(name, self.message) for name in self.exception_types)

    def describe(self) -> str:
        if self.no_result:
            return self.no_result
        if self.passed:
            return "passed"
        return f"raised {self.exception_type}: {_first_line(self.message)}"


@dataclass(frozen=True)
class Verdict:
    kind: str  # one of VERDICTS
    reason: str = ""
    needs: str = ""  # for NOT_APPLICABLE: the device or machine the declared failure needs


def applies(condition: str, device: Device, cuda_usable: bool) -> bool:
    """Whether a failure declared ``on <condition>`` must happen on this device of this machine."""
    if condition == "accelerator":
        return device.is_accelerator
    if condition == "gpu":
        return device.is_accelerator and not device.simulated
    if condition == "cpu-only":
        return not cuda_usable
    if condition == "cuda":  # code that moves only where CUDA is available
        return cuda_usable
    return condition == "any"


def decide(expectations: Sequence[RuntimeExpectation], outcome: Outcome, device: Device, cuda_usable: bool) -> Verdict:
    """The verdict for one fixture on one device, from its ``# runtime:`` lines and what the run did."""
    if outcome.no_result:
        return Verdict(MISMATCH, outcome.no_result)
    failures = [expectation for expectation in expectations if not expectation.passes]
    due = [failure for failure in failures if applies(failure.condition, device, cuda_usable)]
    if outcome.passed:
        if due:
            return Verdict(MISMATCH, f"passed; expected {_alternatives(due)}")
        if failures:
            needs = " or ".join(sorted({NEEDS[failure.condition] for failure in failures}))
            return Verdict(NOT_APPLICABLE, f"passed; the declared failure needs {needs}", needs)
        return Verdict(CLEAN)
    if any(outcome.raised_as(failure) for failure in due):
        return Verdict(CONFIRMED, outcome.describe())
    if device.simulated and any(outcome.raised_as(no_data) for no_data in META_HAS_NO_DATA):
        return Verdict(NOT_APPLICABLE, f"{outcome.describe()}; needs {NEEDS_DATA}", NEEDS_DATA)
    return Verdict(MISMATCH, f"{outcome.describe()}; expected {_alternatives(due) if due else 'it to pass'}")


def cross_check(
    linter_codes: Sequence[str],
    verdicts: Sequence[Verdict],
    device_labels: Sequence[str],
    performance_only: bool = False,
) -> str:
    """Why the linter and the runs disagree about a fixture; empty when they agree.

    A finding must be a failure some device confirms, or one that only an absent device could show.
    No finding must mean the code runs everywhere (meta's missing data aside). A performance
    finding is the exception that proves the rule: its code must run everywhere too.
    """
    if linter_codes and not performance_only:
        if any(verdict.kind == CONFIRMED for verdict in verdicts):
            return ""
        if all(verdict.kind == NOT_APPLICABLE and verdict.needs for verdict in verdicts):
            return ""
        return f"the linter reports {', '.join(linter_codes)} but no device confirms a failure"
    if performance_only and not linter_codes:
        return "a performance fixture the linter does not report"
    failing = [
        f"{verdict.kind} on {label}"
        for verdict, label in zip(verdicts, device_labels)
        if not (verdict.kind == CLEAN or verdict.needs == NEEDS_DATA)
    ]
    subject = "a performance bug must still run" if performance_only else "the linter reports nothing"
    return f"{subject}, yet the runs are not clean: {', '.join(failing)}" if failing else ""


def _alternatives(expectations: Sequence[RuntimeExpectation]) -> str:
    return " or ".join(_describe_expectation(expectation) for expectation in expectations)


def _describe_expectation(expectation: RuntimeExpectation) -> str:
    """The ``# runtime:`` line's own words, so a mismatch reads like the fixture."""
    messages = "|".join(f'"{message}"' for message in expectation.messages)
    return f"{'|'.join(expectation.exception_types)} {messages} on {expectation.condition}"


def _first_line(text: str) -> str:
    lines = text.strip().splitlines()
    return lines[0] if lines else ""
