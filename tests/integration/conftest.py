"""Shared fixtures: where the real binary, sources and build tree are (set by CTest)."""
import json
import os
import subprocess
from pathlib import Path

import pytest


@pytest.fixture(scope="session")
def zen_engine():
    path = os.environ.get("ZEN_ENGINE")
    if not path or not Path(path).exists():
        pytest.fail("ZEN_ENGINE must point at the built zen-engine (run through ctest)")
    return path


@pytest.fixture(scope="session")
def source_dir():
    return Path(os.environ["ZEN_SOURCE_DIR"])


@pytest.fixture(scope="session")
def build_dir():
    return Path(os.environ["ZEN_BUILD_DIR"])


def clean_env(**extra):
    """The environment without any ZEN_* setting the developer may have, plus `extra`."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ZEN_")}
    env["XDG_CONFIG_HOME"] = "/nonexistent-zen-test-config"
    env.update(extra)
    return env


def run(cmd, env=None, check=True, timeout=600):
    proc = subprocess.run(cmd, capture_output=True, text=True, env=env or clean_env(),
                          timeout=timeout)
    if check and proc.returncode != 0:
        raise AssertionError(f"{cmd} exited {proc.returncode}\nstdout:\n{proc.stdout}\n"
                             f"stderr:\n{proc.stderr}")
    return proc


def run_json(cmd, env=None):
    return json.loads(run(cmd, env=env).stdout)
