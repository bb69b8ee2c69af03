"""Shared fixtures: where the real binary, sources and build tree are (set by CTest). The
helpers live in tests/pylib/zen_testing.py; the test files import them from here."""
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pylib"))
from zen_testing import clean_env, run, run_json, zen_engine  # noqa: E402,F401 (re-exported)


@pytest.fixture(scope="session")
def source_dir():
    return Path(os.environ["ZEN_SOURCE_DIR"])


@pytest.fixture(scope="session")
def build_dir():
    return Path(os.environ["ZEN_BUILD_DIR"])
