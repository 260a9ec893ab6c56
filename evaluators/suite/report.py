"""The suite's static site: ``index.html`` (leaderboard sortable in the page, success with 95% intervals per
modality and size, the cross-modal matrix with the count of each pattern, tokens per solve, links to the
sections) and ``pages/<maze>.html`` (every modality's attempt drawn over the maze), plus the sections each
library writes for its part: the benchmark's report per modality, nav-eval's summary, the pixel and judge
records. Pages are self-contained: inline CSS, inline SVG, images as data URIs, one small inline script."""

from __future__ import annotations

import base64
import html
from collections import defaultdict
from pathlib import Path
from typing import Any, Mapping

from maze_envs.core.atomic import atomic_write
from maze_envs.core.jsonfiles import write_json_atomic
from maze_envs.core.mazebench_files import parse_size

from .config import MODALITIES
from .mazes import SuiteMaze
from .summary import PATTERNS

COLOURS = {"text2d": "#1f77b4", "image2d": "#d62728", "ai-text": "#2ca02c", "ai-image": "#9467bd",
           "partial-text": "#ff7f0e", "grid": "#8c564b", "grid-partial": "#e377c2", "nav3d": "#17becf",
           "gen-image": "#bcbd22", "gen-video": "#7f7f7f"}
BENCH_FAMILIES = ("one-shot", "interactive", "grid")
STYLE = """
body{font-family:system-ui,sans-serif;margin:2em;color:#222;max-width:80em}table{border-collapse:collapse;margin:1em 0}
th,td{border:1px solid #ccc;padding:.25em .5em;text-align:right}th{background:#f3f3f3}td.l,th.l{text-align:left}
th.sort{cursor:pointer}th.sort:after{content:" \\2195";color:#999}.ci{color:#777;font-size:.85em}
.yes{background:#d8f0d8}.no{background:#f6d5d5}.na{color:#aaa}.figs{display:flex;flex-wrap:wrap;gap:1.5em}
figure{margin:0}figcaption{font-size:.85em}.key span{display:inline-block;margin-right:1em}
.key i{display:inline-block;width:1em;height:.35em;vertical-align:middle;margin-right:.3em}.bad{color:#b00}
img.gen{width:160px;border:1px solid #999;image-rendering:pixelated}
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


def _e(value: Any) -> str:
    return html.escape(str(value))


def _page(title: str, body: str, *, script: bool = False) -> str:
    js = f"<script>{SORT_SCRIPT}</script>" if script else ""
    return (f'<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>{_e(title)}</title>'
            f'<link rel="icon" href="data:,"><style>{STYLE}</style></head><body>{body}{js}</body></html>')


def _write(path: Path, text: str) -> None:
    with atomic_write(path) as fh:
        fh.write(text)


def _pct(rate: Mapping[str, Any] | None, *, ci: bool = True) -> str:
    if not rate or rate.get("rate") is None:
        return '<span class="na">&ndash;</span>'
    text = f"{100 * rate['rate']:.0f}%"
    if ci and rate.get("ci95"):
        low, high = (max(0.0, min(1.0, v)) for v in rate["ci95"])
        text += f' <span class="ci">[{100 * low:.0f}, {100 * high:.0f}]</span>'
    return text + f' <span class="ci">({rate["solved"]}/{rate["n"]})</span>'


def _played(summary: Mapping[str, Any], player: str) -> list[str]:
    return [m for m in MODALITIES if m in summary["success"].get(player, {})]


def leaderboard(manifest: Mapping[str, Any], summary: Mapping[str, Any]) -> str:
    """Return the leaderboard: one row per player, its success per modality, the mean over the modalities it
    played and its tokens per solve; every column sorts on a click."""
    columns = [m for m in MODALITIES if any(m in s for s in summary["success"].values())]
    head = "".join(f'<th class="sort" title="{_e(MODALITIES[m].means)}">{_e(m)}</th>' for m in columns)
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
            cells.append(f'<td data-v="{rate["rate"] or 0}">{_pct(rate, ci=False)}</td>')
        mean = sum(rates) / len(rates) if rates else None
        usage = summary["usage"].get(player, {})
        tokens = sum(u["total_tokens"] for u in usage.values())
        solves = sum(u["solves"] for u in usage.values())
        per_solve = tokens / solves if solves else None
        rows.append(f'<tr><td class="l" data-v="{_e(player)}">{_e(player)}</td>'
                    f'<td class="l" data-v="{_e(info["kind"])}">{_e(info["kind"])}</td>{"".join(cells)}'
                    f'<td data-v="{-1 if mean is None else round(mean, 4)}">'
                    f'{"&ndash;" if mean is None else f"{100 * mean:.0f}%"}</td>'
                    f'<td data-v="{-1 if per_solve is None else round(per_solve, 1)}">'
                    f'{"&ndash;" if per_solve is None else f"{per_solve:.0f}"}</td></tr>')
    return (f'<table class="sortable" id="leaderboard"><thead><tr><th class="l sort">player</th>'
            f'<th class="l sort">kind</th>{head}<th class="sort">mean</th><th class="sort">tokens / solve</th>'
            f"</tr></thead><tbody>{''.join(rows)}</tbody></table>")


def _area(size: str) -> int:
    height, width = parse_size(size)
    return height * width


def success_tables(summary: Mapping[str, Any], sizes: list[str]) -> str:
    """Return one table per player: success with its 95% interval per modality, overall and per size."""
    out = []
    head = "".join(f"<th>{_e(s)}</th>" for s in sizes)
    for player, table in summary["success"].items():
        rows = "".join(
            f'<tr><td class="l">{_e(m)}</td><td>{_pct(table[m]["all"])}</td>'
            + "".join(f'<td>{_pct(table[m]["sizes"].get(s))}</td>' for s in sizes) + "</tr>"
            for m in _played(summary, player))
        out.append(f'<h3>{_e(player)}</h3><table><tr><th class="l">modality</th><th>all sizes</th>{head}</tr>'
                   f"{rows}</table>")
    return "".join(out)


def matrix_tables(summary: Mapping[str, Any], mazes: list[SuiteMaze]) -> str:
    """Return the cross-modal matrix of each player (rows: mazes linking to their page; cells: solved or
    not) and the table of pattern counts."""
    pages = {m.key: m.page for m in mazes}
    out = []
    for player, rows in summary["matrix"].items():
        played = _played(summary, player)
        head = "".join(f"<th>{_e(m)}</th>" for m in played)
        body = []
        for key in (m.key for m in mazes if m.key in rows):
            row = rows[key]
            cells = "".join('<td class="na">&ndash;</td>' if m not in row else
                            f'<td class="{"yes" if row[m] else "no"}">{"solved" if row[m] else "failed"}</td>'
                            for m in played)
            body.append(f'<tr><td class="l"><a href="pages/{_e(pages[key])}">{_e(key)}</a></td>{cells}</tr>')
        out.append(f'<h3>{_e(player)}</h3><table class="matrix" data-player="{_e(player)}"><tr>'
                   f'<th class="l">maze</th>{head}</tr>{"".join(body)}</table>')
    names = [p.name for p in PATTERNS] + ["solved everywhere", "solved nowhere"]
    meaning = {p.name: f"{p.solved} solved, {p.failed} failed: {p.means}" for p in PATTERNS}
    meaning.update({"solved everywhere": "solved in every modality played",
                    "solved nowhere": "failed in every modality played"})
    head = "".join(f'<th title="{_e(meaning[n])}">{_e(n)}</th>' for n in names)
    rows = "".join(f'<tr><td class="l">{_e(player)}</td>'
                   + "".join(f'<td>{found[n]["count"]}</td>' for n in names) + "</tr>"
                   for player, found in summary["patterns"].items())
    legend = "".join(f"<li><b>{_e(n)}</b>: {_e(meaning[n])}</li>" for n in names)
    return (f"{''.join(out)}<h3>Patterns (mazes per player)</h3><table id=\"patterns\"><tr><th class=\"l\">player"
            f"</th>{head}</tr>{rows}</table><ul>{legend}</ul>")


def usage_table(summary: Mapping[str, Any]) -> str:
    """Return the table of tokens, cost and latency per player and modality, with tokens and cost per solve."""
    rows = []
    for player, table in summary["usage"].items():
        for modality in (m for m in MODALITIES if m in table):
            u = table[modality]
            per = "&ndash;" if u["tokens_per_solve"] is None else f"{u['tokens_per_solve']:.0f}"
            cost = "&ndash;" if u["cost_per_solve_usd"] is None else f"{u['cost_per_solve_usd']:.6f}"
            rows.append(f'<tr><td class="l">{_e(player)}</td><td class="l">{_e(modality)}</td><td>{u["items"]}</td>'
                        f'<td>{u["solves"]}</td><td>{u["requests"]}</td><td>{u["total_tokens"]}</td><td>{per}</td>'
                        f'<td>{u["cost_usd"]:.6f}</td><td>{cost}</td><td>{u["latency_s"]:.2f}</td></tr>')
    if not rows:
        return "<p>No model was called.</p>"
    return ('<table><tr><th class="l">player</th><th class="l">modality</th><th>items</th><th>solves</th>'
            "<th>requests</th><th>tokens</th><th>tokens / solve</th><th>cost USD</th><th>cost / solve</th>"
            f"<th>latency s</th></tr>{''.join(rows)}</table>")


def _number(value: float | None) -> str:
    return "&ndash;" if value is None else f"{value:.2f}"


def agreement_table(summary: Mapping[str, Any]) -> str:
    """Return the pixel evaluator vs judge agreement per player, or a line saying there was no judge."""
    if not summary["agreement"]:
        return "<p>No judge model was given (<code>--judge-model</code>), so only the pixel evaluator scored.</p>"
    rows = "".join(f'<tr><td class="l">{_e(p)}</td><td>{a["n"]}</td><td>{a["matrix"]}</td>'
                   f'<td>{_number(a["agreement"])}</td><td>{_number(a["cohen_kappa"])}</td></tr>'
                   for p, a in summary["agreement"].items())
    return ('<table><tr><th class="l">player</th><th>n</th><th>matrix (rows pixel 0/1, columns judge 0/1)</th>'
            f"<th>agreement</th><th>Cohen's kappa</th></tr>{rows}</table>")


def maze_svg(m: SuiteMaze, attempts: list[tuple[str, list]], cell: int) -> str:
    """Return the SVG of maze ``m`` (walls black, start green, goal red) with each ``(modality, path)`` attempt
    drawn over it in its modality's colour, slightly offset so overlapping walks stay apart."""
    grid = m.bench.grid
    h, w = grid.shape
    walls = "".join(f'<rect x="{c * cell}" y="{r * cell}" width="{cell}" height="{cell}"/>'
                    for r in range(h) for c in range(w) if grid[r, c])
    marks = "".join(f'<rect x="{c * cell}" y="{r * cell}" width="{cell}" height="{cell}" fill="{fill}"/>'
                    for (r, c), fill in ((m.bench.start, "#2ca02c"), (m.bench.goal, "#d62728")))
    lines = []
    for k, (modality, path) in enumerate(attempts):
        if not path:
            continue
        shift = (k - (len(attempts) - 1) / 2) * cell / (2 * max(1, len(attempts)))
        points = " ".join(f"{float(c) * cell + cell / 2 + shift:.1f},{float(r) * cell + cell / 2 + shift:.1f}"
                          for r, c in path)
        lines.append(f'<polyline points="{points}" fill="none" stroke="{COLOURS[modality]}" '
                     f'stroke-width="{max(1.5, cell / 6):.1f}" stroke-linejoin="round" stroke-opacity="0.85">'
                     f"<title>{_e(modality)}</title></polyline>")
    return (f'<svg xmlns="http://www.w3.org/2000/svg" width="{w * cell}" height="{h * cell}" '
            f'viewBox="0 0 {w * cell} {h * cell}" style="border:1px solid #999;background:#fff">'
            f'<g fill="#000">{walls}</g>{marks}{"".join(lines)}</svg>')


def _data_uri(path: str | None) -> str | None:
    if not path or not Path(path).is_file() or Path(path).suffix.lower() != ".png":
        return None
    return "data:image/png;base64," + base64.b64encode(Path(path).read_bytes()).decode("ascii")


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
        key = "".join(f'<span><i style="background:{COLOURS[mod]}"></i>{_e(mod)}</span>'
                      for mod in dict.fromkeys(a[0] for a in attempts if a[1]))
        images = "".join(f'<img class="gen" alt="{_e(r["modality"])} of {_e(player)}" src="{uri}">'
                         for r in group if (uri := _data_uri((r.get("detail") or {}).get("generation"))))
        rows = "".join(
            f'<tr><td class="l">{_e(r["modality"])}</td><td>{r["trial"]}</td>'
            f'<td class="{"yes" if r.get("success") else "no"}">'
            f'{_e(r.get("outcome") if r.get("status") == "ok" else "error: " + str(r.get("error", ""))[:160])}</td>'
            f'<td>{r.get("tokens", 0)}</td><td>{r.get("latency_s", 0):.2f}</td></tr>' for r in group)
        figures.append(f'<figure><h3>{_e(player)}</h3>{maze_svg(m, attempts, cell)}{images}'
                       f'<figcaption class="key">{key}</figcaption><table><tr><th class="l">modality</th>'
                       f"<th>trial</th><th>outcome</th><th>tokens</th><th>latency s</th></tr>{rows}</table></figure>")
    body = (f'<p><a href="../index.html">&larr; suite report</a></p><h1>{_e(m.key)}</h1>'
            f"<p>{m.maze.rows}x{m.maze.cols} cells, shortest path {len(m.bench.shortest_path) - 1} moves on the "
            f"benchmark grid; generation task <code>{_e(m.stem)}</code>. Paths are drawn in the published frame "
            "(3D waypoints mapped onto the grid and joined by straight lines).</p>"
            f'<div class="figs">{"".join(figures)}</div>')
    return _page(f"maze {m.key}", body)


def _bench_sections(out: Path, manifest: Mapping[str, Any], records: list[dict[str, Any]],
                    mazes: list[SuiteMaze]) -> dict[str, str]:
    from evaluators.bench.report import write_report
    from evaluators.bench.summary import summarise

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
    from evaluators.nav.point_goal.metrics import analyze_and_report

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
        _write(out / "pages" / m.page, maze_page(m, by_maze.get(m.key, [])))
    sizes = sorted(dict.fromkeys(m.size for m in mazes), key=_area)
    counts = summary["counts"]
    note = f"<p><b>{_e(summary['note'])}</b></p>" if summary.get("note") else ""
    stopped = f'<p class="bad">Stopped: {_e(summary["stopped_by"])}</p>' if summary.get("stopped_by") else ""
    links = "".join(f'<li><a href="{_e(path)}">{_e(label)}</a></li>' for label, path in sections.items())
    maze_links = "".join(f'<li><a href="pages/{_e(m.page)}">{_e(m.key)}</a></li>' for m in mazes)
    modalities = "".join(f"<li><b>{_e(m)}</b>: {_e(spec.means)}</li>" for m, spec in MODALITIES.items()
                         if any(m in s for s in summary["success"].values()))
    body = (
        f"<h1>maze-envs suite</h1>{note}{stopped}<p>{len(mazes)} mazes ({_e(', '.join(sizes))}), "
        f"{counts['items']} items ({counts['resumed']} resumed, {counts['errors']} errors), "
        f"{'finished' if summary['finished'] else 'not finished'} in {summary['wall_time_s']:.1f} s. "
        "A maze counts as solved in a modality when at least half its trials succeed; success intervals are "
        "95% Wilson intervals.</p>"
        f"<h2>Leaderboard</h2><p>Click a column to sort.</p>{leaderboard(manifest, summary)}"
        f"<h2>Modalities</h2><ul>{modalities}</ul>"
        f"<h2>Success per modality and size</h2>{success_tables(summary, sizes)}"
        f"<h2>Cross-modal matrix</h2>{matrix_tables(summary, mazes)}"
        f"<h2>Tokens per solve</h2>{usage_table(summary)}"
        f"<h2>Generations: pixel evaluator and judge</h2>{agreement_table(summary)}"
        f"<h2>Sections</h2><ul>{links or '<li>none</li>'}</ul><h2>Mazes</h2><ul>{maze_links}</ul>")
    path = out / "index.html"
    _write(path, _page("maze-envs suite", body, script=True))
    return path
