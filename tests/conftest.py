import importlib.util
import os
from datetime import timedelta

import pytest
from hypothesis import settings as hypothesis_settings

from runtime_checks.fixtures import discover

FIXTURES = discover()
CACHE_VARIABLE = "TORCHDEVICE_CACHE_DIR"

# Hypothesis budget for the property tests of test_robustness.py: "dev" by default, "ci" when the
# CI environment variable is set (CI runners set CI=true); HYPOTHESIS_PROFILE overrides both.
hypothesis_settings.register_profile("dev", max_examples=50, deadline=timedelta(seconds=5))
hypothesis_settings.register_profile("ci", max_examples=300, deadline=None, database=None, print_blob=True)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE") or ("ci" if os.environ.get("CI") else "dev"))


def pytest_generate_tests(metafunc):
    if "fixture" in metafunc.fixturenames:
        metafunc.parametrize("fixture", FIXTURES, ids=[f.name for f in FIXTURES])


@pytest.fixture(scope="session", autouse=True)
def cache_outside_the_repository(tmp_path_factory):
    """No run of the command or of flake8, in this process or in one it starts, writes a result
    cache into the repository or into a test's project; module fixtures share this one."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv(CACHE_VARIABLE, str(tmp_path_factory.mktemp("torchdevice-cache")))
        yield


@pytest.fixture(autouse=True)
def cache_of_its_own(tmp_path_factory, monkeypatch):
    """Each test reads no entry another test wrote (some replace parts of the linter)."""
    monkeypatch.setenv(CACHE_VARIABLE, str(tmp_path_factory.mktemp("torchdevice-cache")))


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
