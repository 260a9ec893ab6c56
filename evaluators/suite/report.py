"""The suite's static site: ``index.html`` (leaderboard sortable in the page, success with 95% intervals per
modality and size, the cross-modal matrix with the count of each pattern, tokens per solve, links to the
sections) and ``pages/<maze>.html`` (every modality's attempt drawn over the maze), plus the sections each
library writes for its part: the benchmark's report per modality, nav-eval's summary, the pixel and judge
records. Pages are self-contained: inline CSS, inline SVG, images as data URIs, one small inline script."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any, Mapping

from maze_envs.core.jsonfiles import write_json_atomic
from maze_envs.report import (
    Trace,
    escape,
    html_page,
    legend,
    maze_svg,
    png_data_uri,
    rate_html,
    size_area,
    size_label,
    wide,
    write_page,
)

from .config import MODALITIES
from .mazes import SuiteMaze
from .summary import PATTERNS

COLOURS = {"text2d": "#1f77b4", "image2d": "#d62728", "ai-text": "#2ca02c", "ai-image": "#9467bd",
           "partial-text": "#ff7f0e", "grid": "#8c564b", "grid-partial": "#e377c2", "nav3d": "#17becf",
           "gen-image": "#bcbd22", "gen-video": "#7f7f7f", "tools-full": "#393b79", "tools-partial": "#ad494a"}
BENCH_FAMILIES = ("one-shot", "interactive", "grid")
NAV_NOTE = ("A 3D walk is drawn where the agent flew, mapped onto the grid; point-goal navigation counts a "
            "collision rather than stopping the agent, so a walk that hits walls is drawn through them (and past "
            "the maze's edge, which is then outlined).")


def _played(summary: Mapping[str, Any], player: str) -> list[str]:
    return [m for m in MODALITIES if m in summary["success"].get(player, {})]


def leaderboard(manifest: Mapping[str, Any], summary: Mapping[str, Any]) -> str:
    """Return the leaderboard: one row per player, its success per modality, the mean over the modalities it
    played and its tokens per solve; every column sorts on a click."""
    columns = [m for m in MODALITIES if any(m in s for s in summary["success"].values())]
    head = "".join(f'<th class="sort" title="{escape(MODALITIES[m].means)}">{escape(m)}</th>' for m in columns)
    rows = []
    for player, info in manifest["players"].items():
        table = summary["success"].get(player, {})
        cells, rates = [], []
        for m in columns:
            rate = table.get(m, {}).get("all")
            if rate is None:
                cells.append('<td data-v="-1" class="na">&ndash;</td>')
                continue
            rates.append(rate["rate"] or 0.0)
            cells.append(f'<td data-v="{rate["rate"] or 0}">{rate_html(rate, ci=False)}</td>')
        mean = sum(rates) / len(rates) if rates else None
        usage = summary["usage"].get(player, {})
        tokens = sum(u["total_tokens"] for u in usage.values())
        solves = sum(u["solves"] for u in usage.values())
        per_solve = tokens / solves if solves else None
        rows.append(f'<tr><td class="l" data-v="{escape(player)}">{escape(player)}</td>'
                    f'<td class="l" data-v="{escape(info["kind"])}">{escape(info["kind"])}</td>{"".join(cells)}'
                    f'<td data-v="{-1 if mean is None else round(mean, 4)}">'
                    f'{"&ndash;" if mean is None else f"{100 * mean:.0f}%"}</td>'
                    f'<td data-v="{-1 if per_solve is None else round(per_solve, 1)}">'
                    f'{"&ndash;" if per_solve is None else f"{per_solve:.0f}"}</td></tr>')
    return (f'<table class="sortable" id="leaderboard"><thead><tr><th class="l sort">player</th>'
            f'<th class="l sort">kind</th>{head}<th class="sort">mean</th><th class="sort">tokens / solve</th>'
            f"</tr></thead><tbody>{''.join(rows)}</tbody></table>")


def success_tables(summary: Mapping[str, Any], sizes: list[str]) -> str:
    """Return one table per player: success with its 95% interval per modality, overall and per size."""
    out = []
    head = "".join(f"<th>{escape(size_label(s))}</th>" for s in sizes)
    for player, table in summary["success"].items():
        rows = "".join(
            f'<tr><td class="l">{escape(m)}</td><td>{rate_html(table[m]["all"])}</td>'
            + "".join(f'<td>{rate_html(table[m]["sizes"].get(s))}</td>' for s in sizes) + "</tr>"
            for m in _played(summary, player))
        out.append(f'<h3>{escape(player)}</h3>' + wide(f'<table><tr><th class="l">modality</th><th>all sizes</th>'
                                                        f"{head}</tr>{rows}</table>"))
    return "".join(out)


def matrix_tables(summary: Mapping[str, Any], mazes: list[SuiteMaze]) -> str:
    """Return the cross-modal matrix of each player (rows: mazes linking to their page; cells: solved or
    not) and the table of pattern counts."""
    pages = {m.key: m.page for m in mazes}
    out = []
    for player, rows in summary["matrix"].items():
        played = _played(summary, player)
        head = "".join(f"<th>{escape(m)}</th>" for m in played)
        body = []
        for key in (m.key for m in mazes if m.key in rows):
            row = rows[key]
            cells = "".join('<td class="na">&ndash;</td>' if m not in row else
                            f'<td class="{"yes" if row[m] else "no"}">{"solved" if row[m] else "failed"}</td>'
                            for m in played)
            body.append(f'<tr><td class="l"><a href="pages/{escape(pages[key])}">{escape(key)}</a></td>{cells}</tr>')
        out.append(f"<h3>{escape(player)}</h3>" + wide(f'<table class="matrix" data-player="{escape(player)}"><tr>'
                                                        f'<th class="l">maze</th>{head}</tr>{"".join(body)}</table>'))
    names = [p.name for p in PATTERNS] + ["solved everywhere", "solved nowhere"]
    meaning = {p.name: f"{p.solved} solved, {p.failed} failed: {p.means}" for p in PATTERNS}
    meaning.update({"solved everywhere": "solved in every modality played",
                    "solved nowhere": "failed in every modality played"})
    head = "".join(f'<th title="{escape(meaning[n])}">{escape(n)}</th>' for n in names)
    rows = "".join(f'<tr><td class="l">{escape(player)}</td>'
                   + "".join(f'<td>{found[n]["count"]}</td>' for n in names) + "</tr>"
                   for player, found in summary["patterns"].items())
    legend = "".join(f"<li><b>{escape(n)}</b>: {escape(meaning[n])}</li>" for n in names)
    patterns = wide(f'<table id="patterns"><tr><th class="l">player</th>{head}</tr>{rows}</table>')
    return f"{''.join(out)}<h3>Patterns (mazes per player)</h3>{patterns}<ul>{legend}</ul>"


def usage_table(summary: Mapping[str, Any]) -> str:
    """Return the table of tokens, cost and latency per player and modality, with tokens and cost per solve."""
    rows = []
    for player, table in summary["usage"].items():
        for modality in (m for m in MODALITIES if m in table):
            u = table[modality]
            per = "&ndash;" if u["tokens_per_solve"] is None else f"{u['tokens_per_solve']:.0f}"
            cost = "&ndash;" if u["cost_per_solve_usd"] is None else f"{u['cost_per_solve_usd']:.6f}"
            rows.append(f'<tr><td class="l">{escape(player)}</td><td class="l">{escape(modality)}</td>'
                        f'<td>{u["items"]}</td><td>{u["solves"]}</td><td>{u["requests"]}</td><td>{u["total_tokens"]}</td><td>{per}</td>'
                        f'<td>{u["cost_usd"]:.6f}</td><td>{cost}</td><td>{u["latency_s"]:.2f}</td></tr>')
    if not rows:
        return "<p>No model was called.</p>"
    return ('<table><tr><th class="l">player</th><th class="l">modality</th><th>items</th><th>solves</th>'
            "<th>requests</th><th>tokens</th><th>tokens / solve</th><th>cost USD</th><th>cost / solve</th>"
            f"<th>latency s</th></tr>{''.join(rows)}</table>")


def _number(value: float | None) -> str:
    return "&ndash;" if value is None else f"{value:.2f}"


LEADERBOARD_LEGEND = (
    ("player, kind", "who played (a model, an agent, a generator) and its kind"),
    ("a modality column", "the share of mazes the player solved in that modality; a maze counts as solved when at "
                          "least half its trials succeed (the modalities are listed below)"),
    ("mean", "the mean of the player's modality columns, the modalities it did not play left out"),
    ("tokens / solve", "the player's prompt + completion tokens over every modality / its successful trials; – "
                       "with no success or no model"),
)
SUCCESS_LEGEND = (
    ("a size or all sizes", "success rate = trials that succeeded / trials, with its 95% Wilson interval and "
                            "(succeeded/trials)"),
)
USAGE_LEGEND = (
    ("items, solves", "trials played and trials that succeeded (a solve)"),
    ("requests, tokens", "chat requests sent and their prompt + completion tokens"),
    ("tokens / solve, cost / solve", "tokens or cost divided by solves; – with no solve"),
    ("cost USD", "(prompt tokens x price_prompt + completion tokens x price_completion) / 1e6, prices per million "
                 "tokens from the model's config (0 where none is set)"),
    ("latency s", "seconds spent waiting on the model"),
)
AGREEMENT_LEGEND = (
    ("n", "generated images that both the pixel evaluator and the judge scored"),
    ("matrix", "[[both fail, pixel fail and judge pass], [pixel pass and judge fail, both pass]]"),
    ("agreement", "(both fail + both pass) / n"),
    ("Cohen's kappa", "(agreement - chance agreement) / (1 - chance agreement); 1 = perfect, 0 = chance"),
)


def agreement_table(summary: Mapping[str, Any]) -> str:
    """Return the pixel evaluator vs judge agreement per player, or a line saying there was no judge."""
    if not summary["agreement"]:
        return "<p>No judge model was given (<code>--judge-model</code>), so only the pixel evaluator scored.</p>"
    rows = "".join(f'<tr><td class="l">{escape(p)}</td><td>{a["n"]}</td><td>{a["matrix"]}</td>'
                   f'<td>{_number(a["agreement"])}</td><td>{_number(a["cohen_kappa"])}</td></tr>'
                   for p, a in summary["agreement"].items())
    return ('<table><tr><th class="l">player</th><th>n</th><th>matrix (rows pixel 0/1, columns judge 0/1)</th>'
            f"<th>agreement</th><th>Cohen's kappa</th></tr>{rows}</table>{legend(AGREEMENT_LEGEND, 'agreement')}")


def maze_picture(m: SuiteMaze, attempts: list[tuple[str, list]], cell: int) -> str:
    """Return the SVG of maze ``m`` with each ``(modality, path)`` attempt that has a path drawn over it in its
    modality's colour (``maze_envs.report.maze_svg``)."""
    return maze_svg(m.bench.layout, [Trace(path, COLOURS[modality], modality) for modality, path in attempts if path],
                    cell)


def maze_page(m: SuiteMaze, records: list[dict[str, Any]]) -> str:
    """Return the page of maze ``m``: per player, every modality's attempt drawn over the maze (generated images
    shown beside it) and a table of each attempt's outcome, tokens and latency."""
    by_player: dict[str, list] = defaultdict(list)
    for r in records:
        by_player[r["player"]].append(r)
    cell = max(8, min(28, 360 // max(m.bench.grid.shape)))
    figures = []
    for player, group in by_player.items():
        group.sort(key=lambda r: (list(MODALITIES).index(r["modality"]), r["trial"]))
        attempts = [(r["modality"], r.get("path") or []) for r in group if r.get("status") == "ok"]
        key = "".join(f'<span><i style="background:{COLOURS[mod]}"></i>{escape(mod)}</span>'
                      for mod in dict.fromkeys(a[0] for a in attempts if a[1]))
        images = "".join(f'<img class="gen" alt="{escape(r["modality"])} of {escape(player)}" src="{uri}">'
                         for r in group if (uri := png_data_uri((r.get("detail") or {}).get("generation"))))
        rows = "".join(
            f'<tr><td class="l">{escape(r["modality"])}</td><td>{r["trial"]}</td>'
            f'<td class="{"yes" if r.get("success") else "no"}">'
            f'{escape(r.get("outcome") if r.get("status") == "ok" else "error: " + str(r.get("error", ""))[:160])}'
            f'</td><td>{r.get("tokens", 0)}</td><td>{r.get("latency_s", 0):.2f}</td></tr>' for r in group)
        figures.append(f'<figure><h3>{escape(player)}</h3>{maze_picture(m, attempts, cell)}{images}'
                       f'<figcaption class="key">{key}</figcaption><table><tr><th class="l">modality</th>'
                       f"<th>trial</th><th>outcome</th><th>tokens</th><th>latency s</th></tr>{rows}</table></figure>")
    body = (f'<p><a href="../index.html">&larr; suite report</a></p><h1>{escape(m.key)}</h1>'
            f"<p>{escape(size_label(m.size))}, shortest path {len(m.bench.shortest_path) - 1} moves on the "
            f"benchmark grid; generation task <code>{escape(m.stem)}</code>. Paths are drawn in the published frame. "
            f"{NAV_NOTE}</p>"
            f'<div class="figs">{"".join(figures)}</div>')
    return html_page(f"maze {m.key}", body)


def _bench_sections(out: Path, manifest: Mapping[str, Any], records: list[dict[str, Any]],
                    mazes: list[SuiteMaze]) -> dict[str, str]:
    from ..bench.report import write_report
    from ..bench.summary import summarise

    by_name = {(m.size, m.bench.name): m.bench for m in mazes}
    written = {}
    for modality in (m for m, spec in MODALITIES.items() if spec.family in BENCH_FAMILIES):
        group = [r for r in records if r["modality"] == modality]
        if not group:
            continue
        shaped = [{**(r.get("detail") or {}), "model": r["player"], "size": r["size"],
                   "maze": r["maze"].split("/", 1)[1], "trial": r["trial"], "status": r["status"],
                   **({"error": r["error"]} if "error" in r else {})} for r in group]
        summary = {"mode": modality, "scoring": manifest["settings"]["scoring"],
                   "anti_cheat": manifest["settings"]["anti_cheat"],
                   "counts": {"trials": len(group), "errors": sum(r["status"] != "ok" for r in group)},
                   "models": summarise(shaped), "note": manifest.get("note")}
        name = f"sections/bench-{modality}.html"
        write_report(out / name, summary, shaped, by_name)
        written[f"benchmark report: {modality}"] = name
    return written


def _nav_sections(out: Path, records: list[dict[str, Any]]) -> dict[str, str]:
    from ..nav.point_goal.metrics import analyze_and_report

    written = {}
    for player in dict.fromkeys(r["player"] for r in records if r["modality"] == "nav3d" and r["status"] == "ok"):
        name = f"sections/nav-{player.replace(':', '_')}.json"
        analyze_and_report(out / "nav" / "runs" / player, output_path=out / name, quiet=True, min_distance=0.0)
        written[f"nav-eval summary: {player}"] = name
    return written


def _generation_sections(out: Path, records: list[dict[str, Any]]) -> dict[str, str]:
    written = {}
    for player in dict.fromkeys(r["player"] for r in records if r["modality"].startswith("gen-")):
        rows = [{"maze": r["maze"], "modality": r["modality"], "status": r["status"],
                 **{k: (r.get("detail") or {}).get(k) for k in ("generation", "pixel", "pixel_pass", "judge",
                                                                "judge_pass")}}
                for r in records if r["player"] == player and r["modality"].startswith("gen-")]
        name = f"sections/generations-{player.replace(':', '_')}.json"
        write_json_atomic(out / name, rows, indent=1)
        written[f"pixel evaluator and judge records: {player}"] = name
    return written


def write_site(out: Path, manifest: Mapping[str, Any], summary: Mapping[str, Any], records: list[dict[str, Any]],
               mazes: list[SuiteMaze]) -> Path:
    """Write ``index.html``, a page per maze and every section under ``out``; return the index's path."""
    sections = {**_bench_sections(out, manifest, records, mazes), **_nav_sections(out, records),
                **_generation_sections(out, records)}
    by_maze: dict[str, list] = defaultdict(list)
    for r in records:
        by_maze[r["maze"]].append(r)
    for m in mazes:
        write_page(out / "pages" / m.page, maze_page(m, by_maze.get(m.key, [])))
    sizes = sorted(dict.fromkeys(m.size for m in mazes), key=size_area)
    counts = summary["counts"]
    note = f"<p><b>{escape(summary['note'])}</b></p>" if summary.get("note") else ""
    stopped = f'<p class="bad">Stopped: {escape(summary["stopped_by"])}</p>' if summary.get("stopped_by") else ""
    links = "".join(f'<li><a href="{escape(path)}">{escape(label)}</a></li>' for label, path in sections.items())
    maze_links = "".join(f'<li><a href="pages/{escape(m.page)}">{escape(m.key)}</a></li>' for m in mazes)
    modalities = "".join(f"<li><b>{escape(m)}</b>: {escape(spec.means)}</li>" for m, spec in MODALITIES.items()
                         if any(m in s for s in summary["success"].values()))
    body = (
        f"<h1>maze-envs suite</h1>{note}{stopped}<p>{len(mazes)} mazes "
        f"({escape('; '.join(size_label(s) for s in sizes))}), "
        f"{counts['items']} items ({counts['resumed']} resumed, {counts['errors']} errors), "
        f"{'finished' if summary['finished'] else 'not finished'} in {summary['wall_time_s']:.1f} s. "
        "A maze counts as solved in a modality when at least half its trials succeed; success intervals are "
        "95% Wilson intervals. A size names the benchmark grid (MazeBench's HxW, no outer wall ring) and the cells it "
        "holds.</p>"
        f"<h2>Leaderboard</h2><p>Click a column to sort.</p>{wide(leaderboard(manifest, summary))}"
        f"{legend(LEADERBOARD_LEGEND, 'leaderboard')}"
        f"<h2>Modalities</h2><ul>{modalities}</ul>"
        f"<h2>Success per modality and size</h2>{success_tables(summary, sizes)}{legend(SUCCESS_LEGEND, 'success')}"
        f"<h2>Cross-modal matrix</h2>{matrix_tables(summary, mazes)}"
        f"<h2>Tokens per solve</h2>{wide(usage_table(summary))}{legend(USAGE_LEGEND, 'usage')}"
        f"<h2>Generations: pixel evaluator and judge</h2>{agreement_table(summary)}"
        f"<h2>Sections</h2><ul>{links or '<li>none</li>'}</ul><h2>Mazes</h2><ul>{maze_links}</ul>")
    path = out / "index.html"
    write_page(path, html_page("maze-envs suite", body, sortable=True))
    return path
