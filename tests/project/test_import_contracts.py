"""The layer contracts in pyproject.toml (``[tool.importlinter]``) hold: ``lint-imports`` passes."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _lint_imports() -> str:
    beside = Path(sys.executable).with_name("lint-imports")
    found = str(beside) if beside.exists() else shutil.which("lint-imports")
    assert found, "lint-imports is missing: pip install -e '.[dev]' installs import-linter"
    return found


def test_every_import_contract_is_kept():
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    done = subprocess.run([_lint_imports(), "--no-cache", "--no-logo"], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "0 broken" in done.stdout and "core imports nothing of ours KEPT" in done.stdout
