"""The release has one version source and a changelog section per version, and CI builds and checks it
(``.ci/release_check.py``: sdist and wheel, twine check, the wheel's files, the quickstart from the wheel)."""

from __future__ import annotations

import re
from pathlib import Path

import tomllib

import maze_envs

ROOT = Path(__file__).resolve().parents[2]


def test_the_version_has_one_source_and_its_own_changelog_section():
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    assert "version" not in project["project"] and project["project"]["dynamic"] == ["version"]
    assert project["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "maze_envs.__version__"}
    versions = re.findall(r"^## (\d+\.\d+\.\d+) \(\d{4}-\d{2}-\d{2}\)$", (ROOT / "docs" / "changelog.md").read_text(
        encoding="utf-8"), re.M)
    assert versions[0] == maze_envs.__version__ and len(versions) == len(set(versions))
    assert [tuple(map(int, v.split("."))) for v in versions] == sorted(
        (tuple(map(int, v.split("."))) for v in versions), reverse=True)


def test_ci_runs_the_release_check_with_its_tools_in_dev():
    assert "python3 .ci/release_check.py" in (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    dev = project["optional-dependencies"]["dev"]
    assert any(d.startswith("twine") for d in dev) and any(d.startswith("build") for d in dev)


def test_getting_started_lists_every_extra():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    listed = set(re.findall(r"^\| `([\w-]+)` \|", (ROOT / "docs" / "getting-started.md").read_text(encoding="utf-8"),
                            re.M))
    assert set(extras) == listed, set(extras) ^ listed
