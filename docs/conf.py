"""Sphinx configuration of the maze-envs documentation site (furo theme, MyST Markdown, autodoc + napoleon).

Build: ``python3 -m sphinx -W -b html docs docs/_build/html``. The env pages, their pictures and the CLI reference
are generated at build time from the registry, the envs and the argparse parsers (``_ext/maze_docs``)."""

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent / "_ext"))

import maze_envs  # noqa: E402

project = "maze-envs"
author = "the maze-envs developers"
release = version = maze_envs.__version__
extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon", "maze_docs"]
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "Thumbs.db", ".DS_Store"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
html_theme = "furo"
html_title = f"maze-envs {release}"
html_static_path = ["_static"]
html_css_files = ["maze.css"]  # code blocks wrap at the column; output blocks set apart
html_favicon = "_static/favicon.png"
html_last_updated_fmt = None
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "undoc-members": False, "show-inheritance": False}
napoleon_google_docstring = True
napoleon_numpy_docstring = False
suppress_warnings = ["myst.header"]
