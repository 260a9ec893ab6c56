"""Pictures of the report kit: a maze with the paths walked over it, line and bar charts (inline SVG strings) and
an RGB array or image file as a base64 PNG ``<img>``. Every report of the project draws through these."""

from __future__ import annotations

import base64
import html
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

import numpy as np

from maze_envs.core.datafiles import read_data_bytes
from maze_envs.core.maze import Grid

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")
START_FILL, GOAL_FILL = "#2ca02c", "#d62728"
ZERO_BAR_PX = 2.0  # a bar of value 0 is drawn this wide, so a zero reads as a zero, not as a missing row


@dataclass(frozen=True)
class Trace:
    """A walk drawn over a maze: ``points`` as ``(row, col)`` in the grid's block units, block centres at integers
    (fractions and points off the grid allowed: a 3D flight mapped onto it), its ``colour`` and a hover
    ``title`` (None: none)."""

    points: Sequence[Sequence[float]]
    colour: str
    title: str | None = None


def _number(value: float) -> str:
    return f"{value:.1f}"


def maze_svg(layout: Grid, traces: Sequence[Trace] = (), cell: int = 10) -> str:
    """Return an inline SVG of ``layout`` (black walls, green start, red goal; ``cell`` px a block) with each of
    ``traces`` drawn over it; several traces are offset slightly so overlapping walks stay apart. Where a walk
    leaves the grid the picture grows to hold it and the grid's edge is outlined."""
    h, w = layout.shape
    walls = "".join(f'<rect x="{c * cell}" y="{r * cell}" width="{cell}" height="{cell}"/>'
                    for r in range(h) for c in range(w) if layout.blocks[r, c])
    marks = "".join(f'<rect x="{c * cell}" y="{r * cell}" width="{cell}" height="{cell}" fill="{fill}"/>'
                    for (r, c), fill in ((layout.start, START_FILL), (layout.goal, GOAL_FILL)))
    drawn = [t for t in traces if len(t.points)]
    stroke = _number(max(1.5, cell / (4 if len(drawn) == 1 else 6)))
    lines, xs, ys = [], [0.0, float(w * cell)], [0.0, float(h * cell)]
    for k, trace in enumerate(drawn):
        shift = (k - (len(drawn) - 1) / 2) * cell / (2 * len(drawn))
        centres = [(float(c) * cell + cell / 2, float(r) * cell + cell / 2) for r, c in trace.points]
        xs += [x - cell / 2 if x < 0 else x + cell / 2 for x, _ in centres if not 0 <= x <= w * cell]
        ys += [y - cell / 2 if y < 0 else y + cell / 2 for _, y in centres if not 0 <= y <= h * cell]
        pixels = [(x + shift, y + shift) for x, y in centres]
        points = " ".join(f"{_number(x)},{_number(y)}" for x, y in pixels)
        head = (f'<polyline points="{points}" fill="none" stroke="{trace.colour}" stroke-width="{stroke}" '
                'stroke-linejoin="round" stroke-opacity="0.85"')
        lines.append(f"{head}><title>{html.escape(trace.title)}</title></polyline>" if trace.title else f"{head}/>")
    left, top, right, bottom = min(xs), min(ys), max(xs), max(ys)
    edge = ""
    if (left, top, right, bottom) != (0.0, 0.0, w * cell, h * cell):
        edge = f'<rect x="0" y="0" width="{w * cell}" height="{h * cell}" fill="none" stroke="#999"/>'
    box = f"{_number(left)} {_number(top)} {_number(right - left)} {_number(bottom - top)}" if edge else \
        f"0 0 {w * cell} {h * cell}"
    size = f'width="{round(right - left)}" height="{round(bottom - top)}"'
    return (f'<svg xmlns="http://www.w3.org/2000/svg" {size} viewBox="{box}" '
            f'style="border:1px solid #999;background:#fff"><g fill="#000">{walls}</g>{marks}{edge}'
            f'{"".join(lines)}</svg>')


@dataclass(frozen=True)
class Series:
    """One line of a chart: its ``name`` (the legend), ``points`` as ``(x, y)`` in axis units, its ``colour``."""

    name: str
    points: Sequence[tuple[float, float]]
    colour: str


@dataclass(frozen=True)
class Axis:
    """A chart axis from ``low`` to ``high`` with its ``title`` and ``ticks`` (value, label; a label's lines are
    split on newlines)."""

    title: str
    low: float
    high: float
    ticks: Sequence[tuple[float, str]] = ()


def _text(x: float, y: float, label: str, anchor: str, size: int = 11) -> str:
    lines = label.split("\n")
    body = html.escape(lines[0]) + "".join(f'<tspan x="{_number(x)}" dy="1.15em" font-size="{size - 2}">'
                                           f"{html.escape(more)}</tspan>" for more in lines[1:])
    return f'<text x="{_number(x)}" y="{_number(y)}" font-size="{size}" text-anchor="{anchor}">{body}</text>'


def line_chart(series: Sequence[Series], x: Axis, y: Axis, *, label: str, width: int = 520, height: int = 300,
               markers: bool = True) -> str:
    """Return an inline SVG line chart of ``series`` over axes ``x`` and ``y`` (with a legend when there are
    several series or they are named), titled ``label`` for assistive tech."""
    legend = any(s.name for s in series)
    left, right, top, bottom = 50, 150 if legend else 12, 20, 48 if any("\n" in t for _, t in x.ticks) else 40
    plot_w, plot_h = width - left - right, height - top - bottom

    def px(value: float) -> float:
        return left + plot_w * (value - x.low) / ((x.high - x.low) or 1)

    def py(value: float) -> float:
        return top + plot_h * (1 - (value - y.low) / ((y.high - y.low) or 1))

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
             f'aria-label="{html.escape(label)}">',
             f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#999"/>']
    for value, text in y.ticks:
        parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{_number(py(value))}" y2="{_number(py(value))}" '
                     f'stroke="#eee"/>{_text(left - 6, py(value) + 4, text, "end")}')
    parts += [_text(px(value), top + plot_h + 18, text, "middle") for value, text in x.ticks]
    parts.append(_text(left + plot_w / 2, height - 4, x.title, "middle", 12))
    if y.title:
        middle = _number(top + plot_h / 2)
        parts.append(f'<text x="12" y="{middle}" font-size="12" text-anchor="middle" '
                     f'transform="rotate(-90 12 {middle})">{html.escape(y.title)}</text>')
    for line in series:
        points = [(px(a), py(b)) for a, b in line.points]
        path = " ".join(f"{_number(a)},{_number(b)}" for a, b in points)
        if points:
            parts.append(f'<polyline points="{path}" fill="none" stroke="{line.colour}" stroke-width="2"/>')
        if markers:
            parts += [f'<circle cx="{_number(a)}" cy="{_number(b)}" r="3.5" fill="{line.colour}"/>' for a, b in points]
    if legend:
        parts.append(_legend(left + plot_w + 12, top, [(s.name[:18], s.colour) for s in series], box=False))
    parts.append("</svg>")
    return "".join(parts)


def _legend(x: float, top: float, entries: Sequence[tuple[str, str]], *, box: bool) -> str:
    """Return a legend of ``(name, colour)`` entries, one a line from ``top``, each a colour box or a line stroke."""
    parts = []
    for i, (name, colour) in enumerate(entries):
        y = top + 14 + 18 * i
        swatch = (f'<rect x="{x}" y="{y - 9}" width="12" height="12" fill="{colour}"/>' if box else
                  f'<line x1="{x}" x2="{x + 20}" y1="{y}" y2="{y}" stroke="{colour}" stroke-width="2"/>')
        parts.append(f'{swatch}<text x="{x + (16 if box else 24)}" y="{y + (1 if box else 4)}" font-size="11">'
                     f"{html.escape(name)}</text>")
    return "".join(parts)


@dataclass(frozen=True)
class Bar:
    """One bar of a grouped bar chart: its ``group`` (the row label), ``key`` (its colour in the legend),
    ``value`` in [0, 1], the ``label`` written at its end and the hover ``title``."""

    group: str
    key: str
    value: float
    label: str
    title: str


def bar_chart(bars: Sequence[Bar], *, label: str, width: int = 680) -> str:
    """Return an inline SVG of horizontal ``bars`` (0 to 100%), grouped by ``group`` and coloured by ``key``, each
    labelled at its end; a bar of value 0 is a thin visible bar with its label, not a gap."""
    keys = sorted({b.key for b in bars})
    groups = list(dict.fromkeys(b.group for b in bars))
    bar, gap, left, top = 14, 10, 200, 10
    height = top + sum(len([b for b in bars if b.group == g]) * bar + gap for g in groups) + 30
    plot_w = width - left - 150
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
             f'aria-label="{html.escape(label)}">']
    for tick in (0, 25, 50, 75, 100):
        x = left + plot_w * tick / 100
        parts.append(f'<line x1="{_number(x)}" x2="{_number(x)}" y1="{top}" y2="{height - 25}" stroke="#eee"/>'
                     f'<text x="{_number(x)}" y="{height - 10}" font-size="11" text-anchor="middle">{tick}%</text>')
    y = top
    for group in groups:
        members = [b for b in bars if b.group == group]
        parts.append(f'<text x="{left - 8}" y="{_number(y + len(members) * bar / 2 + 4)}" font-size="12" '
                     f'text-anchor="end">{html.escape(group)}</text>')
        for b in members:
            length = max(plot_w * min(max(b.value, 0.0), 1.0), ZERO_BAR_PX)
            parts.append(f'<rect class="bar" x="{left}" y="{y}" width="{_number(length)}" height="{bar - 2}" '
                         f'fill="{PALETTE[keys.index(b.key) % len(PALETTE)]}"><title>{html.escape(b.title)}</title>'
                         f'</rect><text class="bar-label" x="{_number(left + length + 4)}" y="{y + bar - 4}" '
                         f'font-size="10">{html.escape(b.label)}</text>')
            y += bar
        y += gap
    parts.append(_legend(left + plot_w + 54, top, [(k, PALETTE[i % len(PALETTE)]) for i, k in enumerate(keys)],
                         box=True))
    parts.append("</svg>")
    return "".join(parts)


def png_img(image: np.ndarray | Path, alt: str, width: int = 240) -> str:
    """Return an ``<img>`` holding ``image`` (an RGB array or a PNG/JPEG file) as a base64 PNG, ``width`` px wide."""
    import cv2

    from maze_envs.core.paths import read_image

    pixels = read_image(image, cv2.IMREAD_COLOR) if isinstance(image, Path) else \
        cv2.cvtColor(np.ascontiguousarray(image), cv2.COLOR_RGB2BGR)
    height = max(1, round(pixels.shape[0] * width / pixels.shape[1]))
    interpolation = cv2.INTER_NEAREST if width >= pixels.shape[1] else cv2.INTER_AREA
    ok, data = cv2.imencode(".png", cv2.resize(pixels, (width, height), interpolation=interpolation))
    encoded = base64.b64encode(data.tobytes()).decode("ascii")
    return (f'<img src="data:image/png;base64,{encoded}" width="{width}" height="{height}" '
            f'alt="{html.escape(alt)}">')


def png_data_uri(path: str | Path | None) -> str | None:
    """Return the PNG file at ``path`` as a ``data:`` URI, or None when there is no such PNG file."""
    if not path or Path(path).suffix.lower() != ".png":
        return None
    try:
        data = read_data_bytes(path)
    except OSError:
        return None
    return "data:image/png;base64," + base64.b64encode(data).decode("ascii")
