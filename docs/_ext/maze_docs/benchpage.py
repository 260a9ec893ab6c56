"""The benchmarks page, generated from the records ``benchmarks/record.py`` keeps in ``benchmarks/results``: each
with its command, date and machine; its output as HTML tables (the Markdown tables it printed, and its column-
aligned ones) and wrapped text; and plots of the figures (the report kit's SVG charts): the peers' steps/s against
N on log axes, the RL rows' held-out success and the RL table's learning curves (a plot per row), the splat
renderer's ms/view against the Gaussians drawn."""

from __future__ import annotations

import json
import math
import re
import textwrap
from pathlib import Path
from typing import Callable

from maze_envs.demo.report import BASELINE_LEGEND
from maze_envs.report import PALETTE, Axis, Bar, Series, bar_chart, line_chart

from .files import write_if_changed

TEXT_COLUMNS = 86  # wrapped output lines fit the page's column at a 1280-px window
SPLIT = re.compile(r"\s{2,}")
RULE = re.compile(r"^-{5,}$")
# Headers whose words are one space apart where their columns are two: the demo's baseline table
HEADERS = {"env agent reached success % mean actions SPL path eff.":
           ["env", "agent", "reached", "success %", "mean actions", "SPL", "path eff."]}


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _markdown_row(cells: list[str]) -> str:
    return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"


def _header(line: str, width: int) -> list[str] | None:
    cells = SPLIT.split(line.strip())
    if len(cells) == width:
        return cells
    known = HEADERS.get(" ".join(line.split()))
    return known if known is not None and len(known) == width else None


def output_parts(stdout: str) -> list[tuple[str, object]]:
    """Return the output as parts in order: ``("table", [header, *rows])`` for each Markdown table and each
    column-aligned table (a header over rows whose columns are two or more spaces apart, with or without a rule of
    dashes under it), ``("text", lines)`` for the rest."""
    lines, parts, text, i = stdout.splitlines(), [], [], 0

    def flush() -> None:
        if any(t.strip() for t in text):
            parts.append(("text", list(text)))
        text.clear()

    while i < len(lines):
        line = lines[i]
        if line.lstrip().startswith("|"):
            block = []
            while i < len(lines) and lines[i].lstrip().startswith("|"):
                block.append(_cells(lines[i]))
                i += 1
            rows = [r for r in block if not all(re.fullmatch(r":?-{3,}:?", c) for c in r)]
            flush()
            parts.append(("table", rows))
            continue
        start = i + 2 if i + 1 < len(lines) and RULE.match(lines[i + 1].strip()) else i + 1
        rows = []
        while start + len(rows) < len(lines):
            cells = SPLIT.split(lines[start + len(rows)].strip())
            if len(cells) < 3 or (rows and len(cells) != len(rows[0])):
                break
            rows.append(cells)
        header = _header(line, len(rows[0])) if len(rows) >= 2 else None
        if header is not None:
            flush()
            parts.append(("table", [header, *rows]))
            i = start + len(rows)
            continue
        text.append(line)
        i += 1
    flush()
    return parts


def _wrapped(lines: list[str]) -> list[str]:
    out = []
    for line in lines:
        indent = len(line) - len(line.lstrip())
        out += textwrap.wrap(line, TEXT_COLUMNS, subsequent_indent=" " * (indent + 4), break_long_words=True,
                             break_on_hyphens=False, drop_whitespace=True) or [""]
    return out


def _number(cell: str) -> float | None:
    try:
        return float(cell.replace(",", "").rstrip("x%"))
    except ValueError:
        return None


def _tables(record: dict) -> list[list[list[str]]]:
    return [rows for run in record["runs"].values() for kind, rows in output_parts(run["stdout"] or "")
            if kind == "table"]


def _power(k: int) -> str:
    """Return 10**k in short form: 1, 10, 100, 1k, 10k, 100k, 1M, ..."""
    for exponent, suffix in ((9, "G"), (6, "M"), (3, "k")):
        if k >= exponent:
            return f"{10 ** (k - exponent)}{suffix}"
    return str(10 ** k)


def _log_ticks(low: float, high: float) -> list[tuple[float, str]]:
    """Return the powers of ten from ``low`` to ``high`` (log10 values) as ticks."""
    return [(float(k), _power(k)) for k in range(math.ceil(low - 1e-9), math.floor(high + 1e-9) + 1)]


def peers_plot(record: dict) -> str | None:
    """Return the SVG of steps/s against N under vmap, both on log axes, one line per env of the record's table."""
    table = next((t for t in _tables(record) if t and t[0][0] == "N"), None)
    if table is None:
        return None
    head, rows = table[0], table[1:]
    series = []
    for k, name in enumerate(head[1:], start=1):
        if "/" in name:
            continue
        points = [(math.log10(n), math.log10(v)) for r in rows  # N=1 under vmap; one env without it is apart
                  if (n := _number(r[0].removesuffix(" (vmap)"))) and (v := _number(r[k]))]
        series.append(Series(name, points, PALETTE[len(series) % len(PALETTE)]))
    xs = [p[0] for s in series for p in s.points]
    ys = [p[1] for s in series for p in s.points]
    x = Axis("parallel envs N (log scale)", min(xs) - 0.1, max(xs) + 0.1, _log_ticks(min(xs), max(xs)))
    y = Axis("random steps/s (log scale)", math.floor(min(ys)), math.ceil(max(ys)),
             _log_ticks(math.floor(min(ys)), math.ceil(max(ys))))
    return line_chart(series, x, y, label="steps/s against N", width=680, height=360)


def rl_plot(records: list[dict]) -> str | None:
    """Return the SVG of the RL rows' median held-out success per row and algorithm, labelled with the training
    minutes."""
    bars = []
    for record in records:
        for table in _tables(record):
            head = table[0]
            if "median success" not in head:
                continue
            col = {name: i for i, name in enumerate(head)}
            for r in table[1:]:
                value = _number(r[col["median success"]]) or 0.0
                bars.append(Bar(f"{r[col['row']]} ({r[col['seeds']]} seeds)", r[col["algorithm"]], value,
                                f"{value:.2f}, {r[col['mean train min']]} min",
                                f"{r[col['algorithm']]} on {r[col['row']]}: median held-out success {value:.2f}"))
    return bar_chart(bars, label="RL rows: median held-out success") if bars else None


def splat_plot(record: dict) -> str | None:
    """Return the SVG of ms per view against the Gaussians drawn (log x), with and without view-dependent colour."""
    table = next((t for t in _tables(record) if t and t[0][0] == "Gaussians"), None)
    if table is None:
        return None
    rows = [(math.log10(_number(r[0])), _number(r[1]), _number(r[2])) for r in table[1:]]
    series = [Series("degree-3 SH", [(g, a) for g, a, _ in rows], PALETTE[0]),
              Series("degree 0", [(g, b) for g, _, b in rows], PALETTE[1])]
    top = max(max(a, b) for _, a, b in rows)
    step = 10 ** math.floor(math.log10(top))
    high = math.ceil(top / step) * step
    x = Axis("Gaussians (log scale)", rows[0][0] - 0.2, rows[-1][0] + 0.2, _log_ticks(rows[0][0], rows[-1][0]))
    y = Axis("ms per 720x640 view", 0, high, [(v, f"{v:g}") for v in range(0, int(high) + 1, int(step))])
    return line_chart(series, x, y, label="splat ms/view against Gaussians", width=600, height=320)


def rl_curve_plots(record: dict) -> dict[str, str]:
    """Return, per row of an ``rl_table.py`` record, the SVG of its learning curves: the training episodes' success
    rate against steps, one line per algorithm and seed (at most 60 points each)."""
    rows: dict[str, list[Series]] = {}
    for run in record.get("results", []):
        curve = run["curve"]
        points = [(step / 1e6, success) for step, success in curve[::max(1, len(curve) // 60)]]
        found = rows.setdefault(run["row"], [])
        found.append(Series(f"{run['algo']} seed {run['seed']}", points, PALETTE[len(found) % len(PALETTE)]))
    plots = {}
    for row, series in rows.items():
        last = math.ceil(4 * max((p[0] for s in series for p in s.points), default=1.0)) / 4
        x = Axis("training steps (millions)", 0.0, last, [(last * q / 4, f"{last * q / 4:g}") for q in range(5)])
        y = Axis("training success", 0.0, 1.0, [(v / 4, f"{v / 4:.2f}") for v in range(5)])
        plots[row] = line_chart(series, x, y, label=f"learning curves of {row}", width=680, height=320,
                                markers=False)
    return plots


PLOTS: dict[str, Callable[[dict], str | None]] = {"peers-sps": peers_plot, "splat-sh": splat_plot}
NOTES = {"demo": ["Columns of the baseline table:", "",
                  *(f"- **{term}**: {meaning}" for term, meaning in BASELINE_LEGEND), ""]}


def provenance(record: dict) -> str:
    """Return the line naming a record's command, date and machine."""
    machine = record["machine"]
    return (f"`{record['command']}`, recorded {record['date']} on {machine['cpus']} CPUs ({machine['platform']}, "
            f"Python {machine['python']}), load average {machine['load_average_before']} before")


def figure_lines(svg_name: str, alt: str, record_or_records: dict | list[dict]) -> list[str]:
    """Return the Markdown of a plot with a caption giving the command, date and machine of its records."""
    records = record_or_records if isinstance(record_or_records, list) else [record_or_records]
    return [f"![{alt}](img/{svg_name})", "", "Plotted from " + "; ".join(provenance(r) for r in records) + ".", ""]


def record_markdown(record: dict, plot: str | None) -> list[str]:
    """Return the Markdown lines of one benchmark record (its plot, when it has one, is ``bench-NAME.svg``)."""
    lines = [f"## {record['name']}", "", record.get("title", ""), "",
             "<!-- not-run: a benchmark of seconds to minutes; the output below is its recorded run -->", "",
             "```bash", record["command"], "```", "", provenance(record) + ".", ""]
    if record.get("cold_env"):
        lines += [f"The cold run set {', '.join(f'`{pair}`' for pair in record['cold_env'])}; the warm run "
                  "followed it.", ""]
    if plot is not None:
        lines += figure_lines(f"bench-{record['name']}.svg", f"{record['name']} plotted", record)
    for label, run in record["runs"].items():
        heading = {"run": "Output", "cold": "Cold run", "warm": "Warm run"}[label]
        lines += [f"### {heading}", "", f"{run['wall_s']} s, exit status {run['exit_status']}, load average "
                  f"{run['load_average_after']} after.", ""]
        for kind, content in output_parts(run["stdout"] or "(no output)"):
            if kind == "table":
                head, *rows = content
                lines += [_markdown_row(head), "|" + " --- |" * len(head), *map(_markdown_row, rows), ""]
            else:
                lines += ["```text", *_wrapped(content), "```", ""]
    lines += NOTES.get(record["name"], [])
    return lines


def benchmarks_page(results: Path, out: Path) -> str:
    """Return the Markdown of the benchmarks page for every record under ``results``, writing its plots as SVG
    files under ``out / "img"``."""
    records = [json.loads(path.read_text(encoding="utf-8")) for path in sorted(results.glob("*.json"))]
    lines = ["# Benchmark records", "",
             "Every figure the docs quote comes from one of these records. Each is the output of a script in "
             "`benchmarks/`, kept by `python3 benchmarks/record.py NAME -- COMMAND` with the date and the machine; "
             "run the same command to measure your own machine. Benchmarks that have a peer run it side by side in "
             "the same process and print the ratios. The machine was shared with other jobs: the load averages "
             "say how busy it was.", ""]
    if not records:
        lines += ["No record has been kept yet.", ""]
    rl = [r for r in records if r["name"].startswith("rl-rows")]
    rl_svg = rl_plot(rl)
    if rl_svg is not None:
        write_if_changed(out / "img" / "bench-rl-rows.svg", rl_svg)
        lines += ["## RL rows at a glance", "", "The median held-out success of each algorithm on each row "
                  "(the records below give every seed); the label gives the mean training minutes. The records "
                  "keep no learning curves; one training run, `python3 -m maze_envs.agents.rl.train ... --out DIR`, "
                  "draws its own in `DIR/curve.png`.", "",
                  *figure_lines("bench-rl-rows.svg", "RL rows: median held-out success", rl)]
    for record in records:
        plot = PLOTS.get(record["name"], lambda _: None)(record)
        if plot is not None:
            write_if_changed(out / "img" / f"bench-{record['name']}.svg", plot)
        lines += record_markdown(record, plot)
        for row, svg in (rl_curve_plots(record) if record["name"].startswith("rl-table") else {}).items():
            name = f"bench-{record['name']}-{row}.svg"
            write_if_changed(out / "img" / name, svg)
            lines += [f"Learning curves of {row}:", "", *figure_lines(name, f"learning curves of {row}", record)]
    return "\n".join(lines)


def write_benchmarks_page(out: Path, results: Path) -> None:
    """Write ``benchmarks.md`` and its plots under ``out`` from the records in ``results``."""
    write_if_changed(out / "benchmarks.md", benchmarks_page(results, out))
