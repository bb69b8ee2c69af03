"""Fixtures for the real server suites. ZenServer and the raw-HTTP helpers live in
tests/pylib/zen_server.py (shared with tests/mcp); the test files import them from here."""
import os
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "pylib"))
from zen_server import (ZenServer, gemma_path, http_request, metric, model_id,  # noqa: E402,F401
                        raw_exchange, read_until_quiet, status_of)
from zen_testing import clean_env, engine_path, zen_engine  # noqa: E402,F401 (re-exported)


@pytest.fixture(scope="session")
def source_dir():
    return Path(os.environ.get("ZEN_SOURCE_DIR", Path(__file__).resolve().parents[2]))


@pytest.fixture(scope="session")
def tiny_models_dir(source_dir):
    return source_dir / "tests" / "data" / "models" / "tiny"


@pytest.fixture(scope="session")
def tiny_model(tiny_models_dir):
    return tiny_models_dir / "qwen3.gguf"


@pytest.fixture(scope="session")
def openai_module():
    try:
        import openai
    except ImportError:
        pytest.skip("the openai package is not installed (pip install openai)")
    return openai
