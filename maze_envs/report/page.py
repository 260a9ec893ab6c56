"""The page writer of the report kit: one stylesheet, one self-contained HTML document (inline CSS and SVG, images
as data URIs, at most one small inline script), tables, figures and the ``mean [low, high]`` text of a
statistic, written atomically. The benchmark, suite, judge and demo reports are all pages of this writer."""

from __future__ import annotations

import html
import os
from pathlib import Path
from typing import Any, Callable, Mapping, Sequence

from maze_envs.core.atomic import atomic_write

Section = Callable[[Mapping[str, Any]], str]
"""A report section hook: the run's summary in, an HTML fragment out ('' when it has nothing to show)."""

DASH = "&ndash;"
STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:80em}table{border-collapse:collapse;margin:1em 0}
th,td{border:1px solid #ccc;padding:.3em .6em;text-align:right}th{background:#f3f3f3}td.l,th.l{text-align:left}
th.sort{cursor:pointer}th.sort:after{content:" \\2195";color:#999}.ci{color:#777;font-size:.85em}td .ci{display:block}
.wide{overflow-x:auto;max-width:100%}.trials,.figs{display:flex;flex-wrap:wrap;gap:1em}figure{margin:0}
figcaption{font-size:.85em;overflow-wrap:anywhere}.trials figcaption{font-size:.8em;max-width:16em}
.bad{color:#b00}.ok{color:#070}section{margin-top:2em}.yes{background:#d8f0d8}.no{background:#f6d5d5}.na{color:#aaa}
.key span{display:inline-block;margin-right:1em}
.key i{display:inline-block;width:1em;height:.35em;vertical-align:middle;margin-right:.3em}
img.gen{width:160px;border:1px solid #999;image-rendering:pixelated}
dl.legend{font-size:.9em;display:grid;grid-template-columns:max-content auto;gap:.2em 1em;margin:.5em 0 1.5em}
dl.legend dt{font-weight:600}dl.legend dd{margin:0}
"""
SORT_SCRIPT = """
document.querySelectorAll("table.sortable").forEach(function (table) {
  table.querySelectorAll("th.sort").forEach(function (th, index) {
    th.addEventListener("click", function () {
      var body = table.tBodies[0], rows = Array.prototype.slice.call(body.rows);
      var down = th.getAttribute("data-dir") !== "down";
      th.setAttribute("data-dir", down ? "down" : "up");
      rows.sort(function (a, b) {
        var x = a.cells[index].getAttribute("data-v"), y = b.cells[index].getAttribute("data-v");
        var nx = parseFloat(x), ny = parseFloat(y);
        var c = (isNaN(nx) || isNaN(ny)) ? String(x).localeCompare(String(y)) : nx - ny;
        return down ? -c : c;
      });
      rows.forEach(function (row) { body.appendChild(row); });
    });
  });
});
"""


def escape(value: Any) -> str:
    """Return ``value`` as text safe inside HTML (``str`` then escaped, quotes included)."""
    return html.escape(str(value))


def html_page(title: str, body: str, *, sortable: bool = False) -> str:
    """Return the HTML document titled ``title`` holding ``body`` (HTML), with the kit's stylesheet; ``sortable``
    adds the script that sorts a ``table.sortable`` on a click on one of its ``th.sort`` headers."""
    script = f"<script>{SORT_SCRIPT}</script>" if sortable else ""
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{escape(title)}</title>'
            f'<link rel="icon" href="data:,"><style>{STYLE}</style></head><body>{body}{script}</body></html>')


def write_page(path: str | os.PathLike, text: str) -> Path:
    """Write the document ``text`` to ``path`` atomically (its folder made as needed); return the path."""
    with atomic_write(path) as fh:
        fh.write(text)
    return Path(path)


def table(head: Sequence[str], rows: Sequence[Sequence[object]], label: str, *, left: int = 1) -> str:
    """Return an HTML table of escaped cells whose first ``left`` columns are left-aligned; ``label`` names it
    for assistive tech."""
    def cells(tag: str, values: Sequence[object]) -> str:
        return "".join(f'<{tag}{" class=l" if i < left else ""}>{escape(v)}</{tag}>' for i, v in enumerate(values))
    body = "".join(f"<tr>{cells('td', row)}</tr>" for row in rows)
    return f'<table aria-label="{escape(label)}"><tr>{cells("th", head)}</tr>{body}</table>'


def legend(entries: Sequence[tuple[str, str]], label: str = "columns") -> str:
    """Return the legend of a table: a ``<dl class="legend">`` defining each column or abbreviation (``entries``
    of term and definition, formulas included, both escaped); ``label`` names it for assistive tech."""
    items = "".join(f"<dt>{escape(term)}</dt><dd>{escape(meaning)}</dd>" for term, meaning in entries)
    return f'<dl class="legend" aria-label="{escape(label)}">{items}</dl>'


def wide(fragment: str) -> str:
    """Return ``fragment`` (a table) in a box that scrolls sideways inside the page rather than widening it."""
    return f'<div class="wide">{fragment}</div>'


def figure(body: str, caption: str) -> str:
    """Return a ``<figure>`` of ``body`` with an escaped ``caption``."""
    return f"<figure>{body}<figcaption>{escape(caption)}</figcaption></figure>"


def interval_text(low: float, high: float, *, scale: float = 1.0, digits: int | None = None) -> str:
    """Return ``[low, high]`` times ``scale``: with ``digits`` decimals, or three significant digits."""
    spec = ".3g" if digits is None else f".{digits}f"
    return f"[{scale * low:{spec}}, {scale * high:{spec}}]"


def statistic_html(stat: Mapping[str, Any] | None) -> str:
    """Return a summary statistic (``mean`` and ``ci95`` as the summaries record them) as ``mean`` with its
    interval beneath it, or a dash without a mean."""
    if not stat or stat.get("mean") is None:
        return DASH
    text = f"{stat['mean']:.4g}"
    if stat.get("ci95"):
        text += f' <span class="ci">{interval_text(*stat["ci95"])}</span>'
    return text


def rate_html(rate: Mapping[str, Any] | None, *, ci: bool = True) -> str:
    """Return a success rate (``rate`` 0-1, ``ci95``, ``solved`` of ``n``, as the suite records it) as a percent
    with its interval and count, or a dash without one."""
    if not rate or rate.get("rate") is None:
        return f'<span class="na">{DASH}</span>'
    text = f"{100 * rate['rate']:.0f}%"
    if ci and rate.get("ci95"):
        text += f' <span class="ci">{interval_text(*rate["ci95"], scale=100, digits=0)}</span>'
    return text + f' <span class="ci">({rate["solved"]}/{rate["n"]})</span>'
