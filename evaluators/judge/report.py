"""``report.html`` of a judge run: the primary accuracy and the rate of every binary score, overall and per group,
each with its 95% Wilson interval, and the run's counts and usage. A page of the report kit."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Mapping

from maze_envs.core.stats import wilson_interval
from maze_envs.report import DASH, escape, html_page, interval_text, wide, write_page


def _rate(rate: float | None, judged: int) -> str:
    if rate is None or not judged:
        return DASH
    low, high = wilson_interval(round(rate * judged), judged)
    return f'{100 * rate:.0f}% <span class="ci">{interval_text(low, high, scale=100, digits=0)}</span>'


def rates_table(metrics: Mapping[str, Any], group_name: str) -> str:
    """Return the table of ``metrics`` (as ``runner.summarise`` gives them): one row overall and one per group
    (``by_<group_name>``), with counts and every rate as a percent with its Wilson interval."""
    overall = metrics["overall"]
    names = ["accuracy", *(k for k in overall if k.endswith("_rate"))]
    groups = [("overall", overall), *metrics.get(f"by_{group_name}", {}).items()]
    head = "".join(f"<th>{escape(n)}</th>" for n in names)
    rows = "".join(
        f'<tr><td class="l">{escape(group or "(none)")}</td><td>{g["n"]}</td><td>{g["n_judged"]}</td>'
        f'<td>{g["parse_errors"]}</td><td>{g["errors"]}</td>'
        + "".join(f"<td>{_rate(g.get(n), g['n_judged'])}</td>" for n in names) + "</tr>"
        for group, g in groups)
    return wide(f'<table aria-label="judge rates"><tr><th class="l">{escape(group_name)}</th><th>items</th>'
                f"<th>judged</th><th>unreadable</th><th>errors</th>{head}</tr>{rows}</table>")


def render_report(summary: Mapping[str, Any], group_name: str) -> str:
    """Return the report of a judge run's ``summary`` as one HTML document."""
    usage, counts = summary["usage"], summary["counts"]
    note = f"<p><b>{escape(summary['endpoint']['note'])}</b></p>" if summary["endpoint"].get("note") else ""
    stopped = f'<p class="bad">Stopped: {escape(summary["stopped_by"])}</p>' if summary.get("stopped_by") else ""
    body = (f"<h1>Judge: {escape(summary['task'])}</h1>{note}{stopped}"
            f"<p>Model {escape(summary['model'])}; {counts['items']} items ({counts['resumed']} resumed); "
            f"{'finished' if summary['finished'] else 'not finished'} in {summary['wall_time_s']:.1f} s; "
            f"{usage.get('requests', 0)} requests, {usage.get('total_tokens', 0)} tokens. Accuracy is the mean "
            f"{escape(summary['metrics']['primary'])} score over the items judged; rates are percents with 95% "
            "Wilson intervals.</p>"
            f"<h2>Rates</h2>{rates_table(summary['metrics'], group_name)}")
    return html_page(f"judge {summary['task']}", body)


def write_report(path: str | os.PathLike, summary: Mapping[str, Any], group_name: str) -> Path:
    """Write the report of ``summary`` to ``path`` atomically; return the path."""
    return write_page(path, render_report(summary, group_name))
