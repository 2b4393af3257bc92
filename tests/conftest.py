import pytest

from runtime_checks.fixtures import discover

FIXTURES = discover()


def pytest_generate_tests(metafunc):
    if "fixture" in metafunc.fixturenames:
        metafunc.parametrize("fixture", FIXTURES, ids=[f.name for f in FIXTURES])


@pytest.fixture(scope="session")
def all_fixtures():
    return FIXTURES


# Hypothesis budget for the property tests (issue 7): "dev" by default, "ci" when the CI
# environment variable is set (CI runners set CI=true); HYPOTHESIS_PROFILE overrides both.
import os as _os  # noqa: E402
from datetime import timedelta as _timedelta  # noqa: E402

from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("dev", max_examples=50, deadline=_timedelta(seconds=5))
_hypothesis_settings.register_profile("ci", max_examples=300, deadline=None, database=None, print_blob=True)
_hypothesis_settings.load_profile(_os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if _os.environ.get("CI") else "dev"))
