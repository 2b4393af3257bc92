import pytest

from runtime_checks.fixtures import discover

FIXTURES = discover()


def pytest_generate_tests(metafunc):
    if "fixture" in metafunc.fixturenames:
        metafunc.parametrize("fixture", FIXTURES, ids=[f.name for f in FIXTURES])


@pytest.fixture(scope="session")
def all_fixtures():
    return FIXTURES
