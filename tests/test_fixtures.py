"""Every fixture through the engine: exactly the expected (line, code) pairs, at real tokens."""

import io
import tokenize
from collections import Counter

from flake8_torchdevice.engine import lint_source
from flake8_torchdevice.rules import ALL_RULES
from runtime_checks.fixtures import SEMANTICS

# TDV001-TDV003, the rules of the first release, carry at least 8 bad and 8 good fixtures; the
# device-flow rules that followed, at least 6.
MINIMUM_PER_RULE = {"TDV001": 8, "TDV002": 8, "TDV003": 8}
MINIMUM_DEFAULT = 6


def read(fixture):
    # Bytes, decoded without newline translation: CRLF fixtures stay CRLF.
    return fixture.path.read_bytes().decode("utf-8")


def test_engine_reports_exactly_the_expected_findings(fixture):
    found = Counter((d.line, d.code) for d in lint_source(read(fixture)))
    assert found == fixture.expected


def test_reported_columns_start_a_token(fixture):
    source = read(fixture)
    token_starts = {token.start for token in tokenize.generate_tokens(io.StringIO(source).readline)}
    for diagnostic in lint_source(source):
        assert (diagnostic.line, diagnostic.column) in token_starts, diagnostic


def test_every_rule_has_enough_bad_and_good_fixtures(all_fixtures):
    for rule in ALL_RULES:
        mine = [f for f in all_fixtures if f.code == rule.code]
        minimum = MINIMUM_PER_RULE.get(rule.code, MINIMUM_DEFAULT)
        assert sum(f.is_bad for f in mine) >= minimum, rule.code
        assert sum(not f.is_bad for f in mine) >= minimum, rule.code


def test_bad_fixtures_expect_their_own_rule(all_fixtures):
    for fixture in all_fixtures:
        if fixture.is_bad and fixture.code != SEMANTICS:  # facts about PyTorch belong to no rule
            assert any(code == fixture.code for _, code in fixture.expected), fixture.name
