"""What every pytest suite of the project shares: the built zen-engine (ZEN_ENGINE, set by
CTest), a clean environment, and running a command. Conftests and test files add this directory
(tests/pylib) to sys.path and import from here."""
import json
import os
import subprocess
from pathlib import Path

import pytest


def engine_path():
    """The zen-engine binary named by ZEN_ENGINE; fails the test when it is missing."""
    path = os.environ.get("ZEN_ENGINE")
    if not path or not Path(path).exists():
        pytest.fail("ZEN_ENGINE must point at the built zen-engine (run through ctest)")
    return path


@pytest.fixture(scope="session")
def zen_engine():
    return engine_path()


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
