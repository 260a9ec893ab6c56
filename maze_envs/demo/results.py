"""What ``maze-envs demo`` runs with and what its steps return: the settings, one frozen dataclass per step's
result (each with ``line``, its one-line summary) and the outcome of running a step."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from maze_envs.agents.evaluate import EvaluationTable
from maze_envs.core.stats import MetricSummary
from maze_envs.core.words import counted


@dataclass(frozen=True)
class DemoSettings:
    """How big each step is: ``quick()`` is the small setting the tests run, the defaults the full demo."""

    seed: int = 0
    episodes: int = 10
    grid_size: int = 10
    bench_sizes: tuple[str, ...] = ("5x5", "9x9")
    bench_mazes: int = 2
    bench_trials: int = 3
    nav_scenes: int = 2
    nav_maze: int = 4
    nav_view: int = 96
    generations: int = 8
    ppo_steps: int = 65_536
    suite_sizes: tuple[str, ...] = ("5x5", "7x7")
    suite_mazes: int = 2

    @classmethod
    def quick(cls, seed: int = 0) -> DemoSettings:
        """Return the smallest settings that still exercise every step."""
        return cls(seed=seed, episodes=3, grid_size=6, bench_mazes=1, bench_trials=1, nav_scenes=1, nav_maze=3,
                   nav_view=48, generations=4, ppo_steps=2048, suite_sizes=("5x5",))


@dataclass(frozen=True)
class DatasetsResult:
    """The datasets written: task image pairs, benchmark mazes and openings samples, with one sample task."""

    tasks_dir: Path
    task_pairs: int
    mazes_dir: Path
    benchmark_mazes: int
    openings_dir: Path
    openings_samples: int
    sample_puzzle: Path
    sample_solution: Path

    @property
    def line(self) -> str:
        """Return the one-line summary."""
        return (f"datasets: {counted(self.task_pairs, 'task image pair')} in {self.tasks_dir}, "
                f"{counted(self.benchmark_mazes, 'benchmark maze')} in {self.mazes_dir}, "
                f"{counted(self.openings_samples, 'openings sample')} in {self.openings_dir}")


@dataclass(frozen=True)
class BaselineRow:
    """One agent on one env over ``episodes`` seeds: goals reached, mean actions, (navigation) mean SPL and, from
    ``evaluate()``, the success rate's 95% interval and the path efficiency summary."""

    env_id: str
    agent: str
    episodes: int
    successes: int
    mean_steps: float
    spl: float | None = None
    success_interval: tuple[float, float] | None = None
    path_efficiency: MetricSummary | None = None

    @classmethod
    def from_table(cls, table: EvaluationTable, agent: str) -> BaselineRow:
        """Return the row of an ``evaluate()`` table, naming its agent ``agent``."""
        summary = table.summary
        success = summary["success"]
        return cls(table.env_id, agent, success.count, round(success.mean * success.count), summary["steps"].mean,
                   success_interval=(success.low, success.high), path_efficiency=summary.get("path_efficiency"))

    @property
    def success_rate(self) -> float:
        """Return the share of episodes that reached the goal."""
        return self.successes / self.episodes if self.episodes else 0.0


@dataclass(frozen=True)
class EnvView:
    """A rendered view of an env at reset: ``image`` is an RGB uint8 array."""

    env_id: str
    caption: str
    image: np.ndarray


@dataclass(frozen=True)
class BaselinesResult:
    """The grid baselines: one row per env and agent, and a view of each env."""

    rows: tuple[BaselineRow, ...]
    views: tuple[EnvView, ...]

    @property
    def line(self) -> str:
        """Return the one-line summary."""
        return "baselines: goals reached " + ", ".join(
            f"{r.env_id} {r.agent} {r.successes}/{r.episodes}" for r in self.rows)


@dataclass(frozen=True)
class NavResult:
    """The navigation baselines through ``evaluators.nav``: rows, a front view of the env and the trajectory
    pictures of the point-goal runs ({agent: picture})."""

    rows: tuple[BaselineRow, ...]
    view: EnvView
    pictures: dict[str, Path]
    run_dir: Path

    @property
    def line(self) -> str:
        """Return the one-line summary."""
        return "nav: success " + ", ".join(
            f"{r.env_id} {r.agent} {r.successes}/{r.episodes} (SPL {r.spl:.2f})" for r in self.rows) \
            + f"; runs in {self.run_dir}"


@dataclass(frozen=True)
class BenchSize:
    """The benchmark headline of one maze size: trials, mean success (%) and mean total score."""

    size: str
    trials: int
    success: float
    total: float


@dataclass(frozen=True)
class BenchResult:
    """A small LLM benchmark run against the local server: the headline per size and the files written."""

    mode: str
    sizes: tuple[BenchSize, ...]
    local_server: bool
    report_path: Path
    summary_path: Path
    errors: int = 0  # trials that failed (error records)

    @property
    def line(self) -> str:
        """Return the one-line summary."""
        where = "the local embedded server's oracle" if self.local_server else "a hosted model"
        per_size = ", ".join(f"{s.size} success {s.success:.0f}% over {counted(s.trials, 'trial')}" for s in self.sizes)
        return f"bench {self.mode} ({where}): {per_size}{failed(self.errors)}; report {self.report_path}"


@dataclass(frozen=True)
class PixelScores:
    """The pixel evaluator over one kind of synthetic generation."""

    kind: str
    evaluated: int
    passes: int | None
    wall_crossings: int
    mean_target: float


@dataclass(frozen=True)
class Generation:
    """One judged synthetic image: its case and the verdicts of both evaluators (1 pass, 0 fail, None unknown)."""

    path: Path
    case: str
    pixel_pass: int | None
    judge_pass: int | None


@dataclass(frozen=True)
class GenerationsResult:
    """Synthetic generations scored by the pixel evaluator and the stand-in judge, and their agreement on success
    (``matrix`` rows: pixel fail/pass, columns: judge fail/pass)."""

    pixel: tuple[PixelScores, ...]
    generations: tuple[Generation, ...]
    agreement_n: int
    kappa: float | None
    matrix: tuple[tuple[int, int], tuple[int, int]]
    root: Path
    errors: int = 0  # generations the pixel evaluator or the judge could not score

    @property
    def line(self) -> str:
        """Return the one-line summary."""
        scored = " and ".join(f"{counted(p.evaluated, p.kind)} ({counted(p.wall_crossings, 'wall crossing')})"
                             for p in self.pixel)
        return (f"generations: pixel evaluator scored {scored}; judge agreement on "
                f"{counted(self.agreement_n, 'image')}, Cohen's kappa {self.kappa}{failed(self.errors)}; "
                f"results in {self.root}")


@dataclass(frozen=True)
class PPOResult:
    """A short single-file PPO run: its learning curve ``(steps, sampled success rate)`` and the held-out
    ``evaluate()`` rows of the trained policy beside random and oracle."""

    env_id: str
    setting: str
    timesteps: int
    curve: tuple[tuple[int, float], ...]
    evaluation: tuple[BaselineRow, ...]
    run_dir: Path

    @property
    def line(self) -> str:
        """Return the one-line summary."""
        return (f"ppo: {self.timesteps:,} steps on {self.env_id} {self.setting}; held-out success "
                + ", ".join(f"{r.agent} {r.successes}/{r.episodes}" for r in self.evaluation)
                + f"; log and model in {self.run_dir}")


@dataclass(frozen=True)
class SuiteResult:
    """``maze-envs suite`` on its offline defaults: per player the mazes solved of those played in each modality
    (``solved``: player, modality, solved, played), the cross-modal pattern counts per player and the report."""

    solved: tuple[tuple[str, str, int, int], ...]
    patterns: dict[str, dict[str, int]]
    mazes: int
    report: Path
    errors: int = 0  # items that failed (error records)

    @property
    def line(self) -> str:
        """Return the one-line summary."""
        gap = self.patterns.get("local:text-only", {}).get("perception gap")
        return (f"suite: {counted(self.mazes, 'maze')} in every modality; local:text-only "
                f"perception gap on {gap} of {self.mazes}{failed(self.errors)}; report {self.report}")


@dataclass(frozen=True)
class StepOutcome:
    """What running one step gave: its ``result``, or the ``note`` saying why it was skipped, and its wall time."""

    name: str
    result: Any
    note: str | None
    seconds: float

    @property
    def line(self) -> str:
        """Return the step's summary line, or its skip note."""
        return self.result.line if self.result is not None else f"{self.name}: {self.note}"

    @property
    def errors(self) -> int:
        """Return how many of the step's items failed (0 for a step without items or skipped)."""
        return int(getattr(self.result, "errors", 0) or 0)


def failed(errors: int) -> str:
    """Return the part of a step's line that says how many items failed (nothing when none did)."""
    return f"; {errors} item{'s' if errors != 1 else ''} FAILED (see its report)" if errors else ""
