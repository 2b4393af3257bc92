"""The README table, docs/rules.md and the catalogue of codes are generated from the rules; the
docs' examples really work."""

from pathlib import Path

import pytest

from flake8_torchdevice import catalogue
from flake8_torchdevice.docs import rules_reference, with_code_table, with_rule_table
from flake8_torchdevice.engine import lint_source
from flake8_torchdevice.rules import ALL_RULES, DOCUMENTED

ROOT = Path(__file__).resolve().parent.parent
SECTIONS = ("What it does", "Why is this bad?", "Example", "Use instead")


def test_readme_rule_table_is_generated_from_the_rules():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert with_rule_table(readme) == readme, "run: python -m flake8_torchdevice.docs"


def test_rules_reference_is_generated_from_the_rules():
    assert (ROOT / "docs" / "rules.md").read_text(encoding="utf-8") == rules_reference()


def test_the_catalogue_of_codes_is_generated_from_the_rules():
    """The front ends choose codes and print findings from it without importing the rules."""
    module = Path(catalogue.__file__).read_text(encoding="utf-8")
    assert with_code_table(module) == module, "run: python -m flake8_torchdevice.docs"
    described = [(info.code, info.name, info.summary, info.enabled_by_default) for info in catalogue.CODES]
    assert described == [(rule.code, rule.name, rule.summary, rule.enabled_by_default) for rule in DOCUMENTED]
    assert {rule.code for rule in ALL_RULES} == catalogue.RULE_CODES


@pytest.mark.parametrize("rule", DOCUMENTED, ids=lambda rule: rule.code)
def test_every_code_documents_every_section(rule):
    assert set(SECTIONS) <= set(rule.sections()), rule.code


@pytest.mark.parametrize("rule", DOCUMENTED, ids=lambda rule: rule.code)
def test_every_code_states_its_measured_precision(rule):
    """The README table shows it, and it decides the default (docs/precision.md)."""
    assert getattr(rule, "precision", "").strip(), f"{rule.code}: set `precision` from docs/precision.md"


@pytest.mark.parametrize("rule", ALL_RULES, ids=lambda rule: rule.code)
def test_documented_example_is_reported_and_fix_is_clean(rule):
    example = lint_source(rule.code_block("Example"))
    assert rule.code in {d.code for d in example}
    assert lint_source(rule.code_block("Use instead")) == []


def test_readme_commands_are_what_ci_runs():
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    test_command = "python3 -m venv .venv && .venv/bin/pip install -e '.[test]' && .venv/bin/python -m pytest"
    assert test_command in readme and test_command in ci
