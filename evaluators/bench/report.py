"""The self-contained HTML report of a benchmark run: a row per model x size with means and 95% intervals, a
success-vs-size chart, and a page section per maze drawing every trial's path (mapped back to the published
frame) over the maze. Everything is inline SVG: no scripts, no external files."""

from __future__ import annotations

import html
import os
from collections import defaultdict
from typing import Any, Mapping

from maze_envs import protocols
from maze_envs.core.atomic import atomic_write
from maze_envs.core.mazebench_files import parse_size

from .mazes import BenchMaze

PALETTE = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf")
COLUMNS = (("success", "success %"), ("total", "total"), ("S", "S"), ("Q", "Q"), ("O", "O"), ("P", "P"),
           ("A", "A"), ("api_calls", "API calls"), ("cell_moves", "cell moves"), ("wall_collisions", "wall hits"),
           ("invalid_outputs", "invalid outputs"), ("exploration_rate", "explored"), ("tokens", "tokens"),
           ("cost_usd", "cost USD"), ("latency_s", "latency s"))
STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222}table{border-collapse:collapse;margin:1em 0}
th,td{border:1px solid #ccc;padding:.3em .6em;text-align:right}th{background:#f3f3f3}td.l,th.l{text-align:left}
.ci{color:#777;font-size:.85em}.trials{display:flex;flex-wrap:wrap;gap:1em}figure{margin:0}
figcaption{font-size:.8em;max-width:16em}.bad{color:#b00}.ok{color:#070}section{margin-top:2em}
"""


def _fmt(stat: Mapping[str, Any] | None) -> str:
    if not stat or stat.get("mean") is None:
        return "&ndash;"
    text = f"{stat['mean']:.4g}"
    if stat.get("ci95"):
        low, high = stat["ci95"]
        text += f' <span class="ci">[{low:.3g}, {high:.3g}]</span>'
    return text


def summary_table(models: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> str:
    """Return the HTML table with one row per model x size: the mean [95% interval] of every measure."""
    head = "".join(f"<th>{html.escape(label)}</th>" for _, label in COLUMNS)
    rows = []
    for model, sizes in models.items():
        for size in sorted(sizes, key=_area):
            stats = sizes[size]
            cells = "".join(f"<td>{_fmt(stats.get(name))}</td>" for name, _ in COLUMNS)
            agreement = "&ndash;" if stats.get("consistency") is None else f"{stats['consistency']:.3g}"
            rows.append(f'<tr><td class="l">{html.escape(model)}</td><td class="l">{html.escape(size)}</td>'
                        f"<td>{stats['trials']}</td><td>{stats['errors']}</td>{cells}<td>{agreement}</td></tr>")
    return (f'<table><tr><th class="l">model</th><th class="l">size</th><th>trials</th><th>errors</th>{head}'
            f"<th>consistency</th></tr>{''.join(rows)}</table>")


def _area(size: str) -> int:
    height, width = parse_size(size)
    return height * width


def success_chart(models: Mapping[str, Mapping[str, Mapping[str, Any]]], width: int = 520, height: int = 300) -> str:
    """Return an inline SVG line chart of the success rate (%) against maze size, one line per model."""
    sizes = sorted({s for per in models.values() for s in per}, key=_area)
    left, right, top, bottom = 50, 150, 20, 40
    plot_w, plot_h = width - left - right, height - top - bottom
    x = {s: left + (plot_w * (i + 0.5) / len(sizes)) for i, s in enumerate(sizes)}

    def y(value: float) -> float:
        return top + plot_h * (1 - value / 100)

    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img" '
             f'aria-label="success rate by maze size">',
             f'<rect x="{left}" y="{top}" width="{plot_w}" height="{plot_h}" fill="none" stroke="#999"/>']
    for tick in (0, 25, 50, 75, 100):
        parts.append(f'<line x1="{left}" x2="{left + plot_w}" y1="{y(tick):.1f}" y2="{y(tick):.1f}" stroke="#eee"/>'
                     f'<text x="{left - 6}" y="{y(tick) + 4:.1f}" font-size="11" text-anchor="end">{tick}</text>')
    for size in sizes:
        parts.append(f'<text x="{x[size]:.1f}" y="{top + plot_h + 18}" font-size="11" text-anchor="middle">'
                     f"{html.escape(size)}</text>")
    parts.append(f'<text x="{left + plot_w / 2:.1f}" y="{height - 4}" font-size="12" text-anchor="middle">'
                 'maze size</text>'
                 f'<text x="12" y="{top + plot_h / 2:.1f}" font-size="12" text-anchor="middle" '
                 f'transform="rotate(-90 12 {top + plot_h / 2:.1f})">success %</text>')
    for i, (model, per) in enumerate(models.items()):
        colour = PALETTE[i % len(PALETTE)]
        points = [(x[s], y(per[s]["success"]["mean"] or 0)) for s in sizes if s in per]
        path = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
        parts.append(f'<polyline points="{path}" fill="none" stroke="{colour}" stroke-width="2"/>')
        parts += [f'<circle cx="{px:.1f}" cy="{py:.1f}" r="3.5" fill="{colour}"/>' for px, py in points]
        ly = top + 14 + 18 * i
        parts.append(f'<line x1="{left + plot_w + 12}" x2="{left + plot_w + 32}" y1="{ly}" y2="{ly}" '
                     f'stroke="{colour}" stroke-width="2"/><text x="{left + plot_w + 36}" y="{ly + 4}" '
                     f'font-size="11">{html.escape(model[:18])}</text>')
    parts.append("</svg>")
    return "".join(parts)


def maze_svg(maze: BenchMaze, path: list[list[int]] | None, cell: int = 10, colour: str = "#1f77b4") -> str:
    """Return an inline SVG of ``maze`` (black walls, green start, red goal) with ``path`` drawn over it."""
    h, w = maze.shape
    rects = [f'<rect x="{c * cell}" y="{r * cell}" width="{cell}" height="{cell}"/>'
             for r in range(h) for c in range(w) if maze.grid[r, c]]
    marks = "".join(f'<rect x="{c * cell}" y="{r * cell}" width="{cell}" height="{cell}" fill="{fill}"/>'
                    for (r, c), fill in ((maze.start, "#2ca02c"), (maze.goal, "#d62728")))
    line = ""
    if path:
        points = " ".join(f"{c * cell + cell / 2:.1f},{r * cell + cell / 2:.1f}" for r, c in path)
        line = (f'<polyline points="{points}" fill="none" stroke="{colour}" stroke-width="{max(1.5, cell / 4):.1f}" '
                f'stroke-linejoin="round" stroke-opacity="0.85"/>')
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w * cell}" height="{h * cell}" '
            f'viewBox="0 0 {w * cell} {h * cell}" style="border:1px solid #999;background:#fff">'
            f'<g fill="#000">{"".join(rects)}</g>{marks}{line}</svg>')


def _caption(record: Mapping[str, Any]) -> str:
    who = f"{html.escape(record['model'])}, trial {record['trial']}"
    if record.get("status") != "ok":
        return f'{who}: <span class="bad">error: {html.escape(str(record.get("error", ""))[:200])}</span>'
    shown = record.get("presentation", {}).get("symmetry", "")
    verdict = record.get("validation", {})
    # a move-by-move trial stopped by a budget says so; its walk's verdict would only say wrong_goal
    reason = record.get("outcome") if record.get("outcome") not in (None, "goal") else verdict.get("error")
    state = '<span class="ok">solved</span>' if record.get("success") else \
        f'<span class="bad">{html.escape(str(reason or "failed"))}</span>'
    total = record.get("scores", {}).get("total")
    return f"{who}: {state}, total {total}, shown {html.escape(shown)}"


def maze_sections(records: list[Mapping[str, Any]], mazes: Mapping[tuple[str, str], BenchMaze]) -> str:
    """Return one section per maze with every trial's path drawn over it (in the published frame)."""
    by_maze: dict[tuple[str, str], list] = defaultdict(list)
    for record in records:
        by_maze[(record["size"], record["maze"])].append(record)
    models = sorted({r["model"] for r in records})
    out = []
    for key in sorted(by_maze, key=lambda k: (_area(k[0]), k[1])):
        maze = mazes.get(key)
        if maze is None:
            continue
        cell = max(4, min(14, 320 // max(maze.shape)))
        figures = "".join(
            f"<figure>{maze_svg(maze, r.get('published_path'), cell, PALETTE[models.index(r['model']) % len(PALETTE)])}"
            f"<figcaption>{_caption(r)}</figcaption></figure>"
            for r in sorted(by_maze[key], key=lambda r: (r["model"], r["trial"])))
        anchor = html.escape(f"maze-{key[0]}-{key[1]}")
        out.append(f'<section id="{anchor}"><h3>{html.escape(key[1])} ({html.escape(key[0])}), '
                   f'shortest path {len(maze.shortest_path) - 1} moves</h3>'
                   f'<div class="trials">{figures}</div></section>')
    return "".join(out)


def render_report(summary: Mapping[str, Any], records: list[Mapping[str, Any]],
                  mazes: Mapping[tuple[str, str], BenchMaze]) -> str:
    """Return the whole report as one HTML document."""
    note = f"<p><b>{html.escape(summary['note'])}</b></p>" if summary.get("note") else ""
    stopped = f'<p class="bad">Stopped: {html.escape(summary["stopped_by"])}</p>' if summary.get("stopped_by") else ""
    counts = summary["counts"]
    index = "".join(f'<li><a href="#{html.escape(f"maze-{s}-{m}")}">{html.escape(m)}</a></li>'
                    for s, m in sorted(mazes, key=lambda k: (_area(k[0]), k[1])))
    return (
        '<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Maze benchmark report</title>'
        f"<style>{STYLE}</style></head><body><h1>Maze benchmark: {html.escape(summary['mode'])}</h1>"
        f"<p>Protocol {html.escape(_rules(summary)[0])}; scoring {html.escape(summary['scoring'])}; "
        "anti-cheat presentations "
        f"{'on' if summary['anti_cheat'] else 'off'}; {counts['trials']} trials ({counts['errors']} errors); "
        f"means over every trial, failed ones as zero, with 95% t-intervals.</p>{note}{stopped}"
        f"{protocol_section(summary)}"
        f"<h2>Results per model and size</h2>{_table_note(summary)}{summary_table(summary['models'])}"
        f"<h2>Success rate by maze size</h2>{success_chart(summary['models'])}"
        f"<h2>Mazes</h2><ul>{index}</ul>{maze_sections(records, mazes)}</body></html>"
    )


def _rules(summary: Mapping[str, Any]) -> tuple[str, protocols.BenchRules]:
    """Return the canonical name and bench rules of the protocol a summary was written under (summaries written
    before protocols were registered name ``strict``, the old name of ``default``)."""
    spec = protocols.protocol(summary.get("protocol", protocols.DEFAULT), "bench")
    return spec.name, spec.bench


def protocol_section(summary: Mapping[str, Any]) -> str:
    """Return the report section of the summary's protocol (its ``BenchRules.section``; '' when it has none)."""
    section = _rules(summary)[1].section
    return protocols.load(section)(summary) if section is not None else ""


def _table_note(summary: Mapping[str, Any]) -> str:
    name, rules = _rules(summary)
    if not rules.own_scores:
        return ""
    return (f"<p>Scores as the {html.escape(name)} protocol gives them, averaged by this "
            "benchmark's rule (every trial, zeros included).</p>")


def write_report(path: str | os.PathLike, summary: Mapping[str, Any], records: list[Mapping[str, Any]],
                 mazes: Mapping[tuple[str, str], BenchMaze]) -> None:
    """Write the report of ``summary`` and ``records`` to ``path`` atomically; returns nothing."""
    with atomic_write(path) as fh:
        fh.write(render_report(summary, records, mazes))
