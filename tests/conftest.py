import importlib.util
import os
from datetime import timedelta

import pytest
from hypothesis import settings as hypothesis_settings

from runtime_checks.fixtures import discover

FIXTURES = discover()

# Hypothesis budget for the property tests of test_robustness.py: "dev" by default, "ci" when the
# CI environment variable is set (CI runners set CI=true); HYPOTHESIS_PROFILE overrides both.
hypothesis_settings.register_profile("dev", max_examples=50, deadline=timedelta(seconds=5))
hypothesis_settings.register_profile("ci", max_examples=300, deadline=None, database=None, print_blob=True)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))


def pytest_generate_tests(metafunc):
    if "fixture" in metafunc.fixturenames:
        metafunc.parametrize("fixture", FIXTURES, ids=[f.name for f in FIXTURES])


@pytest.fixture(scope="session")
def all_fixtures():
    return FIXTURES


@pytest.fixture(scope="session")
def torch_installed():
    """Skips a test that runs fixtures when torch is absent (CI's run on the newest Python has none).

    Looked up, not imported: the runtime companion imports torch in its own child processes only.
    """
    if importlib.util.find_spec("torch") is None:
        pytest.skip("torch is not installed: the fixtures cannot run")
