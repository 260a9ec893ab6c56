"""Every column of every report is explained: the bench, demo, suite and nav tables each carry a legend whose
entries cover their columns and abbreviations (S/Q/O/P/A with their formulas), drawn by the report kit's
``legend``."""

from __future__ import annotations

import re

from maze_envs.demo import report as demo_report
from maze_envs.evaluators.bench import report as bench_report
from maze_envs.evaluators.nav.aggregate import COLUMN_MEANINGS, format_table
from maze_envs.evaluators.nav.poi_goal.metrics import POI_COLUMNS
from maze_envs.evaluators.nav.poi_goal.metrics import TABLE_COLUMNS as POI_TABLE
from maze_envs.evaluators.nav.point_goal.metrics import TABLE_COLUMNS as POINT_TABLE
from maze_envs.evaluators.suite import report as suite_report
from maze_envs.report import legend


def _terms(entries) -> set[str]:
    return {part.strip() for term, _ in entries for part in re.split(r",| or ", term)}


def test_legend_is_a_definition_list_of_escaped_terms():
    html = legend([("S", "solved: 100 for a valid path"), ("a<b", "x & y")], "scores")
    assert html.startswith('<dl class="legend" aria-label="scores">') and html.count("<dt>") == 2
    assert "<dt>a&lt;b</dt><dd>x &amp; y</dd>" in html


def test_bench_legends_define_every_column_with_the_formulas():
    terms = _terms(bench_report.SCORE_LEGEND) | _terms(bench_report.COST_LEGEND)
    assert {label for _, label in bench_report.COLUMNS} <= terms
    assert {"trials", "consistency", "model", "size"} <= terms
    meanings = dict(bench_report.SCORE_LEGEND)
    assert "0.3 S + 0.25 Q + 0.25 O + 0.2 P" in meanings["total"] and "Jaccard" in meanings["P"]
    assert "(S + Q + O) / 3" in meanings["A"]


def test_demo_legend_explains_each_baseline_column_and_mean_actions():
    header = re.findall(r"<th[^>]*>(.*?)</th>", demo_report.baseline_table([]))
    terms = _terms(demo_report.BASELINE_LEGEND) | {"env", "agent"}
    assert set(header) <= terms, set(header) - terms
    assert "20 actions in a row" in dict(demo_report.BASELINE_LEGEND)["mean actions"]
    assert {"trials", "success %", "total score"} <= _terms(demo_report.BENCH_LEGEND)


def test_suite_and_nav_tables_explain_their_columns():
    assert {"mean", "tokens / solve"} <= _terms(suite_report.LEADERBOARD_LEGEND)
    assert {"Cohen's kappa", "agreement", "matrix", "n"} <= _terms(suite_report.AGREEMENT_LEGEND)
    assert set(POINT_TABLE) | set(POI_TABLE) | set(POI_COLUMNS) <= set(COLUMN_MEANINGS)
    text = format_table("Point-goal", POINT_TABLE, [("overall", {"count": 2, "sr_new": 0.5})])
    assert "  spl_new: mean over tasks of sr_new x shortest / max(travelled, shortest)" in text
