"""The pages of the maze-envs site that are generated at build time, so they cannot drift from the code: one page
per env family (from the registry, the envs' docstrings and spaces, with pictures rendered from the envs) and the
command-line reference (from the argparse parsers) and the benchmark records (from ``benchmarks/results``)."""

from __future__ import annotations

from pathlib import Path

from sphinx.application import Sphinx

from .benchpage import write_benchmarks_page
from .clipage import write_cli_reference
from .envpages import write_env_pages


def generate(app: Sphinx) -> None:
    """Write the generated pages and pictures under the source folder's ``_generated`` (ignored by git)."""
    out, root = Path(app.srcdir) / "_generated", Path(app.confdir).parent
    write_env_pages(out)
    sources = [root / "README.md", *(p for p in sorted(Path(app.srcdir).rglob("*.md"))
                                     if not {"_generated", "_build"} & set(p.parts))]
    write_cli_reference(out, [p for p in sources if p.is_file()], root)
    write_benchmarks_page(out, Path(app.confdir).parent / "benchmarks" / "results")


def setup(app: Sphinx) -> dict:
    """Register the generator with Sphinx; return the extension's metadata."""
    app.connect("builder-inited", generate)
    return {"version": "1", "parallel_read_safe": True, "parallel_write_safe": True}
