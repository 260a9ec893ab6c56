"""Every name the Python snippets of README and the docs pages import from maze-envs exists where the snippet says
(modules move; the snippets must move with them)."""

import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").rglob("*.md") if "_generated" not in p.parts)]


def _imports() -> list[tuple[str, str]]:
    found = []
    text = "\n".join(page.read_text(encoding="utf-8") for page in PAGES)
    for block in re.findall(r"```python\n(.*?)```", text, re.S):
        joined = re.sub(r"\(\s*([^)]*)\)", lambda m: m.group(1).replace("\n", " "), block)
        for module, names in re.findall(r"^\s*from (maze_envs\S*) import (.+)$", joined, re.M):
            found += [(module, name.strip().split(" as ")[0]) for name in names.split("#")[0].split(",")
                      if name.strip()]
    return found


def test_readme_snippets_import_names_that_exist():
    imports = _imports()
    assert len(imports) > 20
    missing = []
    for module, name in imports:
        loaded = importlib.import_module(module)
        if not hasattr(loaded, name):
            try:
                importlib.import_module(f"{module}.{name}")
            except ImportError:
                missing.append(f"from {module} import {name}")
    assert missing == []


def test_the_readme_stays_short_and_names_both_setup_commands():
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 200
    assert 'python3 -m pip install -e ".[nav,rl]" && maze-envs demo' in text
    assert ('python3 -m pip install -e ".[dev]" && python3 -m pip install --no-deps "gymnax==1.0.1" && '
            'SDL_VIDEODRIVER=dummy MPLBACKEND=Agg python3 -m pytest -q') in text
