"""The self-contained HTML report of a benchmark run: per model x size the means with their 95% intervals (a
table of scores and a table of costs, each fitting a laptop's window), a success-vs-size chart, the sections the
protocol adds, and a page section per maze drawing every trial's path (mapped back to the published frame)
over the maze. A page of the report kit (``maze_envs.report``): inline SVG, no scripts, no external files."""

from __future__ import annotations

import html
import os
from collections import defaultdict
from typing import Any, Mapping, Sequence

from maze_envs import protocols
from maze_envs.core.loops import LOOP_TAIL
from maze_envs.core.words import counted
from maze_envs.report import (
    PALETTE,
    Axis,
    Section,
    Series,
    Trace,
    html_page,
    legend,
    line_chart,
    maze_svg,
    size_area,
    size_label,
    statistic_html,
    wide,
    write_page,
)

from .mazes import BenchMaze

SCORE_COLUMNS = (("success", "success %"), ("total", "total"), ("S", "S"), ("Q", "Q"), ("O", "O"), ("P", "P"),
                 ("A", "A"))
COST_COLUMNS = (("api_calls", "API calls"), ("cell_moves", "cell moves"), ("wall_collisions", "wall hits"),
                ("invalid_outputs", "invalid outputs"), ("exploration_rate", "explored"), ("tokens", "tokens"),
                ("cost_usd", "cost USD"), ("latency_s", "latency s"))
TOOLS_COLUMNS = (("function_calls", "function calls"), ("invalid_calls", "invalid calls"),
                 ("path_efficiency", "path efficiency"), ("revisits_per_cell", "revisits per cell"),
                 ("max_cell_visits", "most visits of a cell"), ("longest_revisit_run", "longest revisit run"),
                 ("ended_in_loop", "ended in a loop %"))
COLUMNS = SCORE_COLUMNS + COST_COLUMNS
INTERVALS = ("[low, high]", "the 95% interval under each mean: Wilson's for the success rate, a seeded bootstrap "
             "over trials for the rest")
SCORE_LEGEND = (
    ("model, size", "the model played and the benchmark grid (MazeBench's HxW, no outer wall ring) with its cells"),
    ("trials", "trials played for the model and size; errors: those that ended in an error (scored 0)"),
    ("success %", "100 x (trials whose answer is a valid path from start to goal) / trials"),
    ("total", "the weighted score: v1 = 0.4 S + 0.3 Q + 0.3 O; v2 = 0.3 S + 0.25 Q + 0.25 O + 0.2 P"),
    ("S", "solved: 100 for a valid path, else 0"),
    ("Q", "quality: 100 for a valid path, else 0 (as MazeBench gives it)"),
    ("O", "optimality: 100 x (shortest path length) / (path length), 100 when the start is the goal; 0 if invalid"),
    ("P", "path similarity (v2 only): 100 x Jaccard(path cells, shortest-path cells) x min(1, shortest / path "
          "length); 0 if invalid"),
    ("A", "the plain average: (S + Q + O) / 3 under v1, (S + Q + O + P) / 4 under v2"),
    ("consistency", "the share of a maze's anti-cheat presentations whose answer equals the most common one "
                    "(1 = all agree), averaged over mazes; a dash with fewer than two presentations"),
    INTERVALS,
)
COST_LEGEND = (
    ("API calls", "chat requests per trial"),
    ("cell moves", "cells the agent moved through per trial (interactive modes)"),
    ("wall hits", "moves into a wall per trial"),
    ("invalid outputs", "replies the reply reader could not read as moves or a path, per trial"),
    ("explored", "free cells visited / free cells of the maze (partial-observe mode)"),
    ("tokens", "prompt + completion tokens per trial"),
    ("cost USD", "(prompt tokens x price_prompt + completion tokens x price_completion) / 1e6, prices per million "
                 "tokens from the model's config, per trial (0 where no price is set)"),
    ("latency s", "seconds waiting on the model per trial"),
    INTERVALS,
)

TOOLS_LEGEND = (
    ("function calls", "function calls the model made per trial (a reply calling none counts one invalid call)"),
    ("invalid calls", "calls of an unknown function, with bad arguments, or replies with no call, per trial"),
    ("path efficiency", "shortest path's cells / cells moved, 0 without the goal"),
    ("revisits per cell", "cells entered that had been visited before / distinct cells visited"),
    ("most visits of a cell", "the largest number of times one cell was entered"),
    ("longest revisit run", "the longest run of consecutive revisits"),
    ("ended in a loop %", f"100 x (trials that missed the goal and whose last {LOOP_TAIL} cells entered were "
                          "revisits) / trials"),
    INTERVALS,
)


def _rows(models: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> list[tuple[str, str, Mapping[str, Any]]]:
    return [(model, size, sizes[size]) for model, sizes in models.items() for size in sorted(sizes, key=size_area)]


def summary_table(models: Mapping[str, Mapping[str, Mapping[str, Any]]],
                  columns: Sequence[tuple[str, str]] = SCORE_COLUMNS, *, counts: bool = True,
                  consistency: bool = True) -> str:
    """Return the HTML table with one row per model x size: the mean [95% interval] of each of ``columns``,
    after the trial and error counts (``counts``) and before the cross-presentation ``consistency``."""
    head = "".join(f"<th>{html.escape(label)}</th>" for _, label in columns)
    extra_head = ("<th>trials</th><th>errors</th>" if counts else "")
    rows = []
    for model, size, stats in _rows(models):
        cells = "".join(f"<td>{statistic_html(stats.get(name))}</td>" for name, _ in columns)
        known = "&ndash;" if stats.get("consistency") is None else f"{stats['consistency']:.3g}"
        rows.append(f'<tr><td class="l">{html.escape(model)}</td><td class="l">{html.escape(size_label(size))}</td>'
                    + (f"<td>{stats['trials']}</td><td>{stats['errors']}</td>" if counts else "")
                    + cells + (f"<td>{known}</td>" if consistency else "") + "</tr>")
    return wide(f'<table><tr><th class="l">model</th><th class="l">size</th>{extra_head}{head}'
                f"{'<th>consistency</th>' if consistency else ''}</tr>{''.join(rows)}</table>")


def cost_table(models: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> str:
    """Return the HTML table with one row per model x size: the mean [95% interval] of every counter and cost."""
    return summary_table(models, COST_COLUMNS, counts=False, consistency=False)


def success_chart(models: Mapping[str, Mapping[str, Mapping[str, Any]]], width: int = 520, height: int = 300) -> str:
    """Return an inline SVG line chart of the success rate (%) against maze size, one line per model."""
    sizes = sorted({s for per in models.values() for s in per}, key=size_area)
    where = {s: i + 0.5 for i, s in enumerate(sizes)}
    series = [Series(model, [(where[s], per[s]["success"]["mean"] or 0) for s in sizes if s in per],
                     PALETTE[i % len(PALETTE)]) for i, (model, per) in enumerate(models.items())]
    x = Axis("maze size (benchmark grid)", 0, len(sizes), [(where[s], size_label(s).replace(", ", "\n"))
                                                           for s in sizes])
    y = Axis("success %", 0, 100, [(t, str(t)) for t in (0, 25, 50, 75, 100)])
    return line_chart(series, x, y, label="success rate by maze size", width=width, height=height)


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
    for key in sorted(by_maze, key=lambda k: (size_area(k[0]), k[1])):
        maze = mazes.get(key)
        if maze is None:
            continue
        cell = max(4, min(14, 320 // max(maze.shape)))
        figures = "".join(
            f"<figure>{maze_svg(maze.layout, _trace(r, models), cell)}<figcaption>{_caption(r)}</figcaption></figure>"
            for r in sorted(by_maze[key], key=lambda r: (r["model"], r["trial"])))
        anchor = html.escape(f"maze-{key[0]}-{key[1]}")
        out.append(f'<section id="{anchor}"><h3>{html.escape(key[1])} ({html.escape(size_label(key[0]))}), '
                   f'shortest path {len(maze.shortest_path) - 1} moves</h3>'
                   f'<div class="trials">{figures}</div></section>')
    return "".join(out)


def _trace(record: Mapping[str, Any], models: list[str]) -> list[Trace]:
    return [Trace(record.get("published_path") or [], PALETTE[models.index(record["model"]) % len(PALETTE)])]


def _rules(summary: Mapping[str, Any]) -> tuple[str, protocols.BenchRules]:
    """Return the canonical name and bench rules of the protocol a summary was written under (summaries written
    before protocols were registered name ``strict``, the old name of ``default``)."""
    spec = protocols.protocol(summary.get("protocol", protocols.DEFAULT), "bench")
    return spec.name, spec.bench


def protocol_section(summary: Mapping[str, Any]) -> str:
    """Return the report section of the summary's protocol (its ``BenchRules.section``; '' when it has none)."""
    section = _rules(summary)[1].section
    return protocols.load(section)(summary) if section is not None else ""


def tools_section(summary: Mapping[str, Any]) -> str:
    """Return the tools mode's section: function calls, invalid calls, path efficiency and the loop measures per
    model and size ('' in the other modes)."""
    if summary.get("mode") != "tools":
        return ""
    return ("<h2>Function calls and loops</h2><p>Path efficiency is the shortest path's cells over the cells moved "
            "(0 without the goal); a revisit enters a cell visited before; a trial ended in a loop when it missed "
            f"the goal and its last {LOOP_TAIL} cells entered were revisits.</p>"
            + summary_table(summary["models"], TOOLS_COLUMNS, counts=False, consistency=False)
            + legend(TOOLS_LEGEND, "function-call columns"))


SECTIONS: tuple[Section, ...] = (protocol_section, tools_section)
"""The sections a report adds below the header (each ``summary -> HTML``, '' when it does not apply)."""


def render_report(summary: Mapping[str, Any], records: list[Mapping[str, Any]],
                  mazes: Mapping[tuple[str, str], BenchMaze], sections: Sequence[Section] = SECTIONS) -> str:
    """Return the whole report as one HTML document; ``sections`` (each ``summary -> HTML``) add what a protocol
    shows after the header."""
    note = f"<p><b>{html.escape(summary['note'])}</b></p>" if summary.get("note") else ""
    stopped = f'<p class="bad">Stopped: {html.escape(summary["stopped_by"])}</p>' if summary.get("stopped_by") else ""
    counts = summary["counts"]
    index = "".join(f'<li><a href="#{html.escape(f"maze-{s}-{m}")}">{html.escape(m)}</a></li>'
                    for s, m in sorted(mazes, key=lambda k: (size_area(k[0]), k[1])))
    body = (
        f"<h1>Maze benchmark: {html.escape(summary['mode'])}</h1>"
        f"<p>Protocol {html.escape(_rules(summary)[0])}; scoring {html.escape(summary['scoring'])}; "
        "anti-cheat presentations "
        f"{'on' if summary['anti_cheat'] else 'off'}; {counted(counts['trials'], 'trial')} "
        f"({counted(counts['errors'], 'error')}); "
        "means over every trial, failed ones as zero, with 95% intervals (Wilson's for the success rate, a "
        "seeded bootstrap for the rest). A size names the benchmark grid (MazeBench's HxW, no outer wall ring) "
        f"and the cells it holds.</p>{note}{stopped}"
        f"{''.join(section(summary) for section in sections)}"
        f"<h2>Results per model and size</h2>{_table_note(summary)}{summary_table(summary['models'])}"
        f"{legend(SCORE_LEGEND, 'score columns')}"
        f"<h3>Moves, tokens, cost and latency</h3>{cost_table(summary['models'])}"
        f"{legend(COST_LEGEND, 'cost columns')}"
        f"<h2>Success rate by maze size</h2>{success_chart(summary['models'])}"
        f"<h2>Mazes</h2><ul>{index}</ul>{maze_sections(records, mazes)}"
    )
    return html_page("Maze benchmark report", body)


def _table_note(summary: Mapping[str, Any]) -> str:
    name, rules = _rules(summary)
    if not rules.own_scores:
        return ""
    return (f"<p>Scores as the {html.escape(name)} protocol gives them, averaged by this "
            "benchmark's rule (every trial, zeros included).</p>")


def write_report(path: str | os.PathLike, summary: Mapping[str, Any], records: list[Mapping[str, Any]],
                 mazes: Mapping[tuple[str, str], BenchMaze], sections: Sequence[Section] = SECTIONS) -> None:
    """Write the report of ``summary`` and ``records`` to ``path`` atomically; returns nothing."""
    write_page(path, render_report(summary, records, mazes, sections))
