"""The report section of a ``--protocol mazebench`` run: MazeBench-reported figures beside the strict ones for
the same replies, per model, per size and overall, each column headed by the averaging rule it follows."""

from __future__ import annotations

import html
from collections.abc import Mapping
from typing import Any


def _number(value: Any, digits: int = 2) -> str:
    return "&ndash;" if value is None else f"{value:.{digits}f}"


def _one_shot(section: Mapping[str, Any]) -> str:
    reported, strict = section["mazebench_reported"], section["strict"]
    rows = []
    for scope, label in (("per_model", "model"), ("per_size", "size")):
        for key, figure in reported[scope].items():
            mine = strict[scope][key]
            rows.append(f'<tr><td class="l">{label} {html.escape(key)}</td><td>{_number(figure["average"])}</td>'
                        f'<td>{figure["counted"]}/{figure["trials"]}</td><td>{_number(mine["average"])}</td></tr>')
    overall = reported["overall"]
    rows.append(f'<tr><td class="l">overall</td><td>{_number(overall["average"])}</td>'
                f'<td>{overall["counted"]}/{overall["trials"]}</td><td>{_number(strict["overall"]["average"])}</td></tr>')
    return (f'<table><tr><th class="l">group</th><th>MazeBench-reported total<br><span class="ci">'
            f'{html.escape(overall["rule"])}</span></th><th>trials counted</th><th>strict total<br>'
            f'<span class="ci">{html.escape(strict["overall"]["rule"])}</span></th></tr>{"".join(rows)}</table>')


def _sandbox(section: Mapping[str, Any]) -> str:
    reported, strict = section["mazebench_reported"], section["strict"]
    rows = []
    for scope, label in (("model_stats", "model"), ("maze_size_stats", "size")):
        for key, figure in reported[scope].items():
            mine = strict[scope][key]
            rows.append(
                f'<tr><td class="l">{label} {html.escape(key)}</td>'
                f'<td>{_number(100 * figure["success_rate"], 1)}</td><td>{_number(figure["avg_steps_successful"])}</td>'
                f'<td>{_number(figure.get("avg_api_calls"))}</td><td>{_number(100 * mine["success_rate"], 1)}</td>'
                f'<td>{_number(mine["avg_steps_successful"])}</td><td>{_number(mine.get("avg_api_calls"))}</td></tr>')
    a, b = reported["overall_stats"], strict["overall_stats"]
    rows.append(
        f'<tr><td class="l">overall</td><td>{_number(100 * a["overall_success_rate"], 1)}</td><td></td><td></td>'
        f"<td>{_number(100 * b['overall_success_rate'], 1)}</td><td></td><td></td></tr>"
    )
    rule = next(iter(reported["model_stats"].values()), {}).get("rule", "")
    return (f'<p class="ci">{html.escape(rule)}</p><table><tr><th class="l">group</th><th>MazeBench-reported '
            f'success %</th><th>steps a success</th><th>API calls a trial</th><th>strict success %</th>'
            f'<th>steps a success</th><th>API calls a trial</th></tr>{"".join(rows)}</table>')


def protocol_section(summary: Mapping[str, Any]) -> str:
    """Return the HTML section comparing MazeBench-reported and strict figures ('' without the protocol)."""
    section = summary.get("mazebench")
    if not section:
        return ""
    table = _sandbox(section) if "model_stats" in section["mazebench_reported"] else _one_shot(section)
    return ("<h2>MazeBench-reported vs strict</h2><p>The same replies read, graded and averaged by MazeBench's "
            "rules (left) and by this benchmark's strict rules (right); figures rounded for display, full "
            f"precision in summary.json.</p>{table}")


def _reported(figure: Mapping[str, Any]) -> str:
    """Return one MazeBench-reported figure as a line of text (rounded for display)."""
    if "average" in figure:
        average = "none above 0" if figure["average"] is None else f"{figure['average']:.2f}"
        return f"average total {average} over {figure['counted']}/{figure['trials']} trials above 0"
    return (f"success {100 * figure['success_rate']:.1f}%, {figure['avg_steps_successful']:.2f} steps a success, "
            f"{figure.get('avg_api_calls', 0):.2f} API calls a trial")


def headline(summary: Mapping[str, Any]) -> list[str]:
    """Return the lines ``maze-envs bench`` prints after its own: each model's figure as MazeBench reports it."""
    reported = summary["mazebench"]["mazebench_reported"]
    return [f"{model} as MazeBench reports it: {_reported(figure)}"
            for model, figure in (reported.get("per_model") or reported.get("model_stats") or {}).items()]
