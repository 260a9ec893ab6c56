"""The checkout passes ``ruff check`` under the ``[tool.ruff]`` settings of pyproject.toml."""

import importlib.util
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


def ruff_command() -> list[str]:
    """Return the command that runs ruff: ``python -m ruff`` when the module is installed, else the ``ruff`` binary."""
    if importlib.util.find_spec("ruff") is not None:
        return [sys.executable, "-m", "ruff"]
    binary = shutil.which("ruff")
    if binary is None:
        pytest.fail("ruff is not installed (it is in the dev extra)")
    return [binary]


def test_ruff_check_passes_on_the_repository():
    proc = subprocess.run([*ruff_command(), "check", "--no-cache", "."], cwd=REPO, capture_output=True, text=True,
                          timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
