"""Each documented extra alone: ``.ci/extras-alone`` (run by CI) installs every light extra into a fresh virtual
environment and runs its documented command; here, that it names every extra of pyproject (checked alone, or
listed as heavy with the reason in its header), has a command for each, and that ``docs`` carries what the docs build
imports (the env pages' pictures need the CPU splat renderer's numba)."""

from __future__ import annotations

import re
from pathlib import Path

import tomllib

REPO = Path(__file__).resolve().parents[2]
SCRIPT = (REPO / ".ci" / "extras-alone").read_text(encoding="utf-8")
EXTRAS = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]


def listed(name: str) -> list[str]:
    return re.search(rf"^{name}=\(([^)]*)\)$", SCRIPT, re.MULTILINE)[1].split()


def test_every_extra_is_checked_alone_or_named_heavy():
    checked, heavy = listed("EXTRAS"), listed("HEAVY")
    assert sorted(checked + heavy) == sorted(EXTRAS) and not set(checked) & set(heavy)
    for extra in checked:
        assert re.search(rf"^extra_{extra}\(\) {{$", SCRIPT, re.MULTILINE), extra
    for extra in heavy:
        assert f"`{extra}`" in SCRIPT.split("set -euo pipefail")[0], extra


def test_every_extra_of_the_install_table_exists():
    table = (REPO / "docs" / "getting-started.md").read_text(encoding="utf-8")
    named = set(re.findall(r"^\| `([a-z]+)` \|", table, re.MULTILINE))
    assert named and named <= set(EXTRAS)


def test_the_docs_extra_carries_the_renderer_the_env_pages_need():
    assert "maze-envs[nav]" in EXTRAS["docs"] and any(d.startswith("numba") for d in EXTRAS["nav"])


def test_ci_runs_the_check():
    assert ".ci/extras-alone" in (REPO / ".ci" / "run").read_text(encoding="utf-8")
