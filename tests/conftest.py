"""Shared test set-up: paths, the --runslow switch and hypothesis profiles."""

from __future__ import annotations

import os
import shutil
import tempfile

import pytest
from hypothesis import HealthCheck, settings

from bench.engines import get_engine
from support import ROOT, available_engines

# split solves keep journals in the user's cache directory (platformdirs); the tests', and their
# child processes', go to a directory of their own, removed at the end
CACHE_HOME = tempfile.mkdtemp(prefix="bench-tests-cache-")
os.environ["XDG_CACHE_HOME"] = CACHE_HOME

settings.register_profile("default", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, max_examples=200, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))


def pytest_addoption(parser):
    parser.addoption("--runslow", action="store_true", default=False, help="also run tests marked slow")


def pytest_sessionfinish(session, exitstatus):
    shutil.rmtree(CACHE_HOME, ignore_errors=True)


def pytest_collection_modifyitems(config, items):
    # the browser test starts Chromium: only when asked for by marker (pytest -m browser, as .ci/run does)
    if "browser" not in (config.getoption("-m") or ""):
        skip_browser = pytest.mark.skip(reason="browser: run with -m browser")
        for item in items:
            if "browser" in item.keywords:
                item.add_marker(skip_browser)
    if config.getoption("--runslow"):
        return
    skip = pytest.mark.skip(reason="slow: run with --runslow")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True, scope="session")
def _run_from_root():
    """Doctests and defs paths are written relative to the repository root."""
    old = os.getcwd()
    os.chdir(ROOT)
    yield
    os.chdir(old)


@pytest.fixture(params=available_engines())
def engine(request):
    """Every available engine in turn: behaviour tests run against all of them."""
    return get_engine(request.param)
