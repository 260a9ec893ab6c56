"""``report.html`` of ``maze-envs demo``: one self-contained page (inline SVG and base64 PNG, no scripts, no
external files) with a section per step result, drawn by ``section`` for each result type."""

from __future__ import annotations

import html
import os
from functools import singledispatch
from pathlib import Path
from typing import Sequence

from maze_envs.report import (
    PALETTE,
    Axis,
    Bar,
    Series,
    bar_chart,
    cells_label,
    figure,
    html_page,
    interval_text,
    legend,
    line_chart,
    png_img,
    size_label,
    table,
    write_page,
)

from .results import (
    BaselineRow,
    BaselinesResult,
    BenchResult,
    DatasetsResult,
    DemoSettings,
    GenerationsResult,
    NavResult,
    PPOResult,
    StepOutcome,
    SuiteResult,
)


def success_bars(rows: Sequence[BaselineRow]) -> str:
    """Return an inline SVG bar chart of the success rate (%) of each agent (coloured) on each env (grouped), each
    bar labelled with its goals reached (a row with none shows a thin bar and ``0/n``)."""
    return bar_chart([Bar(r.env_id, r.agent, r.success_rate, f"{r.successes}/{r.episodes}",
                          f"{r.env_id} {r.agent}: {r.successes}/{r.episodes}") for r in rows],
                     label="success rate by env and agent")


def learning_curve(curve: Sequence[tuple[int, float]], width: int = 480, height: int = 220) -> str:
    """Return an inline SVG line chart of the success rate (0-1) over training steps."""
    last = max((step for step, _ in curve), default=1) or 1
    x = Axis(f"training steps (0 to {last:,}); success rate of the episodes that ended", 0, last)
    y = Axis("", 0.0, 1.0, [(t, f"{t:.1f}") for t in (0.0, 0.5, 1.0)])
    return line_chart([Series("", list(curve), PALETTE[0])], x, y, label="learning curve", width=width,
                      height=height, markers=False)


def _interval(low_high: tuple[float, float] | None, scale: float = 100.0, digits: int = 0) -> str:
    return "–" if low_high is None else interval_text(*low_high, scale=scale, digits=digits)


def baseline_table(rows: Sequence[BaselineRow], label: str = "baselines") -> str:
    """Return the table of baseline rows: env, agent, episodes, goals reached, success % with its 95% interval,
    path efficiency with its 95% interval, mean actions and SPL (cells a row lacks show a dash)."""
    def efficiency(r: BaselineRow) -> str:
        e = r.path_efficiency
        return "–" if e is None else f"{e.mean:.2f} {_interval((e.low, e.high), 1.0, 2)}"
    return table(("env", "agent", "episodes", "reached", "success %", "95% interval", "path efficiency [95%]",
                  "mean actions", "SPL"),
                 [(r.env_id, r.agent, r.episodes, r.successes, f"{100 * r.success_rate:.0f}",
                   _interval(r.success_interval), efficiency(r), f"{r.mean_steps:.1f}",
                   "–" if r.spl is None else f"{r.spl:.2f}") for r in rows], label)


BASELINE_LEGEND = (
    ("episodes, reached", "episodes played (one per seed) and how many reached the goal (Maze-Openings-v0: gave the "
                          "right answer)"),
    ("success %", "100 x reached / episodes"),
    ("95% interval", "Wilson's 95% interval of the success rate, in percent"),
    ("path efficiency [95%]", "per episode, shortest path length / moves taken on success and 0 on failure; the "
                              "mean over episodes with a bootstrap 95% interval (grid envs)"),
    ("mean actions", "actions per episode, averaged over episodes. An episode ends at the goal, at the step limit "
                     "(4 x rows x cols: 400 on a 10x10 maze) or, on the partial view, after 20 actions in a row "
                     "that reveal nothing new: so a random agent's partial-view episodes stop after a few dozen "
                     "actions while its full-view ones run to 400. One action answers an openings puzzle."),
    ("SPL", "success weighted by path length (navigation): success x shortest / max(shortest, travelled), "
            "averaged; SPL_NEW for point goals, SPL for POI goals"),
    ("–", "the metric does not apply to the env"),
)
BENCH_LEGEND = (
    ("trials", "mazes played at the size, each once per presentation"),
    ("success %", "100 x trials whose answer is a valid path from start to goal / trials"),
    ("total score", "the benchmark's weighted score (0 to 100), e.g. v2 = 0.3 S + 0.25 Q + 0.25 O + 0.2 P; the "
                    "benchmark report defines each part"),
)
PIXEL_LEGEND = (
    ("scored", "generations the pixel evaluator read"),
    ("gated passes", "videos passing the overall gate: wall IoU > 0.8, target achievement > 0.95 and no wall "
                     "crossed; – for images, which have no gates"),
    ("wall crossings", "generations whose drawn path crosses a wall"),
    ("mean target reached", "the target achievement (0 to 1) averaged over generations"),
    ("pixel \\ judge", "rows: the pixel evaluator's verdict, columns: the judge's; Cohen's kappa = (observed - "
                      "chance agreement) / (1 - chance agreement)"),
)


@singledispatch
def section(result: object) -> str:
    """Return the report section of one step's ``result`` (one function per result type)."""
    raise TypeError(f"no report section for {type(result).__name__}")


@section.register
def _(result: DatasetsResult) -> str:
    return ("<h2>Datasets</h2>"
            f"<p>{result.task_pairs} task image pairs, {result.benchmark_mazes} benchmark mazes (JSON) and "
            f"{result.openings_samples} labelled-openings samples, each in its own folder of the output.</p>"
            f'<div class="trials">{figure(png_img(result.sample_puzzle, "task puzzle"), result.sample_puzzle.name)}'
            f'{figure(png_img(result.sample_solution, "task solution"), result.sample_solution.name)}</div>')


@section.register
def _(result: BaselinesResult) -> str:
    views = "".join(figure(png_img(v.image, v.caption), v.caption) for v in result.views)
    return ("<h2>Grid envs: baseline agents</h2><p>One episode per seed, measured by <code>agents.evaluate."
            "evaluate()</code>; Maze-Openings-v0 counts right answers. The oracle reads the true layout; the frontier "
            "explorer builds its map from the partial view. Path efficiency: shortest over actual moves on success, "
            "0 on failure.</p>"
            f'{baseline_table(result.rows)}{legend(BASELINE_LEGEND)}<div class="trials">{views}</div>')


@section.register
def _(result: PPOResult) -> str:
    rows, cols = (int(side) for side in result.setting.split("x"))
    return (f"<h2>PPO on {html.escape(result.env_id)}, {cells_label(rows, cols)}</h2><p>The single-file PPO "
            f"(<code>agents.rl.ppo_native</code>, egocentric map as memory, one torch thread, seeded) trained "
            f"{result.timesteps:,} steps on mazes generated per reset, with a reward of 0.02 for each newly seen "
            "block paid by the trainer (the env's own reward and success are unchanged), then played on held-out "
            "seeds (from 1,000,000, mazes it never trained on) by <code>evaluate()</code> beside random and "
            "oracle, sampling its actions. The curve is the success rate of the training episodes that ended in "
            "each update. Larger mazes take longer: the benchmark page's RL table gives the rows up to 13x13 cells."
            f"</p>{figure(learning_curve(result.curve), 'learning curve')}"
            f"{baseline_table(result.evaluation, 'ppo evaluation')}{legend(BASELINE_LEGEND)}")


@section.register
def _(result: NavResult) -> str:
    pictures = "".join(figure(png_img(path, f"{agent} trajectories", 320),
                              f"nav-eval, GaussianNav-PointGoal-v0, {agent}: trajectories over the dilated "
                              f"occupancy map (start dot, goal ring, collisions crossed)")
                       for agent, path in result.pictures.items())
    return ("<h2>GaussianNav: navigation baselines (nav-eval)</h2><p>Procedural splat scenes drawn by the "
            "embedded CPU renderer; the random agent walks blind, the oracle follows A* on the occupancy map. "
            "SPL: SPL_NEW for point goal, SPL for POI.</p>"
            f"{baseline_table(result.rows)}{legend(BASELINE_LEGEND)}<div class=\"trials\">"
            f"{figure(png_img(result.view.image, result.view.caption), result.view.caption)}{pictures}</div>")


@section.register
def _(result: BenchResult) -> str:
    who = "the local embedded server's oracle policy (not a hosted model)" if result.local_server else "a model"
    rows = [(size_label(s.size), s.trials, f"{s.success:.0f}", f"{s.total:.1f}") for s in result.sizes]
    link = html.escape(f"{result.report_path.parent.name}/{result.report_path.name}")
    return (f"<h2>LLM benchmark ({html.escape(result.mode)})</h2><p>Answers from {who}, through the openai "
            f'client; <a href="{link}">{link}</a> is the benchmark\'s own report, with every trial\'s path.'
            f"</p>{table(('size', 'trials', 'success %', 'total score'), rows, 'benchmark')}{legend(BENCH_LEGEND)}")


@section.register
def _(result: GenerationsResult) -> str:
    pixel = table(("kind", "scored", "gated passes", "wall crossings", "mean target reached"),
                  [(p.kind, p.evaluated, "–" if p.passes is None else p.passes, p.wall_crossings,
                    f"{p.mean_target:.2f}") for p in result.pixel], "pixel metrics")
    (ff, fp), (pf, pp) = result.matrix
    agreement = table(("pixel \\ judge", "judge fail", "judge pass"),
                      [("pixel fail", ff, fp), ("pixel pass", pf, pp)], "judge agreement")

    def verdict(value: int | None) -> str:
        return "?" if value is None else ("pass" if value else "fail")
    gallery = "".join(figure(png_img(g.path, g.case, 160), f"{g.case}: pixel {verdict(g.pixel_pass)}, "
                                                           f"judge {verdict(g.judge_pass)}")
                      for g in result.generations)
    return ("<h2>Synthetic generations: pixel evaluator and judge</h2><p>Synthetic image and video "
            "&ldquo;model outputs&rdquo; of easy tasks, scored by the pixel evaluator; the images also by a "
            "stand-in judge on the local server that knows each image's case (it shows the agreement report, "
            "not how good a real judge is).</p>"
            f"<h3>Pixel metrics</h3>{pixel}<h3>Agreement on success</h3><p>n = {result.agreement_n}, "
            f"Cohen's kappa {result.kappa}</p>{agreement}{legend(PIXEL_LEGEND)}<div class=\"trials\">{gallery}</div>")


@section.register
def _(result: SuiteResult) -> str:
    link = html.escape(f"{result.report.parent.name}/{result.report.name}")
    rows = [(player, modality, f"{solved}/{played}") for player, modality, solved, played in result.solved]
    names = list(next(iter(result.patterns.values()), {}))
    patterns = [(player, *(counts[n] for n in names)) for player, counts in result.patterns.items()]
    return ("<h2>Suite: one maze set, every modality</h2><p><code>maze-envs suite</code> on its offline defaults: "
            f"the same {result.mazes} mazes as text and image prompts, played move by move, on the grid env, in 3D "
            "and as generation tasks, by the oracle, a local-server model that reads text but not pictures, and a "
            f'random agent. <a href="{link}">{link}</a> is its report (leaderboard, cross-modal matrix, a page '
            f"per maze).</p>{table(('player', 'modality', 'mazes solved'), rows, 'suite')}"
            f"<h3>Cross-modal patterns (mazes)</h3>{table(('player', *names), patterns, 'suite patterns')}")


def render_report(outcomes: Sequence[StepOutcome], settings: DemoSettings) -> str:
    """Return the whole report: the success chart over every baseline row, then each step's section or skip note."""
    rows = [row for o in outcomes if isinstance(o.result, (BaselinesResult, NavResult)) for row in o.result.rows]
    chart = f"<h2>Success by env and agent</h2>{success_bars(rows)}" if rows else ""
    skipped = "".join(f'<p class="bad">{html.escape(o.line)}</p>' for o in outcomes if o.result is None)
    sections = "".join(f"<section>{section(o.result)}</section>" for o in outcomes if o.result is not None)
    return html_page("maze-envs demo report", f"<h1>maze-envs demo</h1><p>Seed {settings.seed}; every part run "
                     f"offline on embedded defaults.</p>{skipped}{chart}{sections}")


def write_report(path: str | os.PathLike, outcomes: Sequence[StepOutcome], settings: DemoSettings) -> Path:
    """Write the report of ``outcomes`` to ``path`` atomically; return the path."""
    return write_page(path, render_report(outcomes, settings))
