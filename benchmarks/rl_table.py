"""The benchmark's RL table: PPO trained on each row's levels, evaluated on 1,000 held-out mazes, over seeds.

    python3 benchmarks/rl_table.py [--rows 5x5-partial 9x9-partial ...] [--seeds 0 1 2 3 4] [--algos ppo-jax]
                                   [--eval-episodes 1000] [--timesteps N] [--out runs/rl-table]
                                   [--results benchmarks/results]

Each (row, algorithm, seed) trains in this process, one after another, through ``agents.rl.train.run`` (the
trainer of ``python3 -m maze_envs.agents.rl.train``) and is evaluated under the generalization protocol
(``agents.rl.heldout``): ``--eval-episodes`` held-out mazes of the reset seeds from 1,000,000, refused if any shares
a layout (grid, start, goal) with the row's training levels. Rows with a level set (``num_levels``) are also
evaluated on their training levels, and the gap is printed. Every run prints its minutes, its test success with
the 95% Wilson interval over episodes and its learning curve (training success at each quarter of the budget); each
row then prints the median, minimum and maximum test success over the seeds and how many seeds reach the row's
aim. Policy files (which carry their training levels in their env record) and curves go under ``--out``; the
record (``rl-table.json``, or ``rl-table-<rows>.json`` for a subset of rows, ``-<algos>`` added for other
algorithms than ``ppo-jax``) and one learning-curve plot per row
(``rl-curve-<row>.png``) go under ``--results``. ``--timesteps`` overrides every row's budget (a quick check, not
a table row). A second run into the same ``--out`` reuses every (row, algorithm, seed) whose ``results.json`` holds
the same settings, so an interrupted table resumes (its line says "kept from an earlier run"; seeds trained by
separate processes into one ``--out`` are gathered into one record that way). Needs the ``jax`` extra (and
``rl`` for ``--algos ppo-native``); the load average is printed, since the machine may be shared.

Every partial-view row trains with the agent-side reveal bonus (``--reveal-bonus``: reward for each newly seen
block, paid by the trainer; the env's reward and success are unchanged and evaluation uses the env's own success),
and the PPOs count the env's no-exploration cutoff as a failure (``agents.rl.idle``). Without the bonus a random
walk meets the 5x5 goal in 0.5% of episodes, and a seed in three never met it in training and stayed at 0.00.
The JAX PPO's partial-view policy has memory beside the ego map (``--gru 128``, PureJaxRL's recurrent PPO): without
it every 5x5 seed stopped at 0.84, its failures two-cell loops the memoryless policy cannot leave. The torch PPO
(``--algos ppo-native``) has no GRU and trains those rows memoryless; the table names each algorithm's memory.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shlex
import statistics
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
PARTIAL = {"ego_map": True, "reveal_bonus": 0.02, "gru": 128}
WIDE = {"hidden": 128}  # the trunk of the larger ego maps (37x37 blocks at 9x9 cells, 49x49 at 13x13)
# The reveal bonus, scaled so that seeing the whole 9x9 maze pays about what the goal pays (about 60 free blocks at
# 5x5 cells, 180 at 9x9): at 0.02 a 9x9 policy learned to tour the maze and its success fell from 0.88 to 0.54
# over the second half of training while its episodes grew longer. At 13x13 (about 360 blocks) neither 0.003 nor
# 0.01 lifted training success above 0.00-0.01 in the first 1.2M steps (both runs stopped there): that row has no
# setting that learns yet.
NINE_BONUS, THIRTEEN_BONUS = {"reveal_bonus": 0.006}, {"reveal_bonus": 0.01}
NINE = {"rows": 9, "cols": 9, "action_mode": "multi"}
THIRTEEN = {"rows": 13, "cols": 13, "action_mode": "multi"}
FULL = {"env_id": "Maze-v0", "network": "cnn", "hidden": 128}


@dataclass(frozen=True)
class Row:
    """One table row: the ``TrainConfig`` fields it sets, its aim in words, and how a seed meets it."""

    name: str
    config: dict[str, Any]
    aim: str
    threshold: float | None = None
    median_aim: bool = False


ROWS = {row.name: row for row in (
    Row("5x5-partial", {"env_kwargs": {"rows": 5, "cols": 5}, "timesteps": 1_000_000, **PARTIAL},
        ">= 0.95 on every seed", 0.95),
    Row("9x9-partial", {"env_kwargs": NINE, "timesteps": 2_000_000, **PARTIAL, **WIDE, **NINE_BONUS},
        ">= 0.90 on every seed", 0.90),
    Row("9x9-partial-200", {"env_kwargs": {**NINE, "num_levels": 200}, "timesteps": 2_000_000, **PARTIAL, **WIDE,
                            **NINE_BONUS},
        "train and test success, and the gap"),
    Row("9x9-partial-1000", {"env_kwargs": {**NINE, "num_levels": 1000}, "timesteps": 2_000_000, **PARTIAL, **WIDE,
                             **NINE_BONUS},
        "train and test success, and the gap"),
    Row("13x13-partial", {"env_kwargs": THIRTEEN, "timesteps": 4_000_000, **PARTIAL, **WIDE, **THIRTEEN_BONUS},
        "median >= 0.75", 0.75, median_aim=True),
    Row("9x9-full", {"env_kwargs": {"rows": 9, "cols": 9}, "timesteps": 2_000_000, **FULL},
        ">= 0.95 on every seed", 0.95),
    Row("13x13-full", {"env_kwargs": {"rows": 13, "cols": 13}, "timesteps": 4_000_000, **FULL},
        ">= 0.95 on every seed", 0.95),
)}


@dataclass
class Run:
    """One trained and evaluated (row, algorithm, seed)."""

    row: str
    algo: str
    seed: int
    minutes: float
    held_out: dict[str, Any]
    curve: list[tuple[int, float]]
    out: str
    settings: dict[str, Any] = field(default_factory=dict)
    kept: bool = False  # trained by an earlier run into the same --out, read back from its results.json

    @property
    def test(self) -> float:
        """Return the test (held-out) success rate."""
        return float(self.held_out["test"]["rate"])


def train_row(row: Row, algo: str, seed: int, out: Path, *, eval_episodes: int, timesteps: int | None) -> Run:
    """Train and evaluate ``row`` with ``algo`` and ``seed`` under ``out``; return the run."""
    from maze_envs.agents.rl.train import TrainConfig, run

    settings = {**row.config, "algo": algo, "seed": seed, "eval_episodes": eval_episodes, "out": str(out)}
    if algo != "ppo-jax":
        settings.pop("gru", None)
    if timesteps is not None:
        settings["timesteps"] = timesteps
    config = TrainConfig(**settings)
    done = finished(out, asdict(config))
    if done is not None:
        return Run(row.name, algo, seed, done["train_seconds"] / 60, done["held_out"],
                   [tuple(point) for point in done["curve"]], str(out), done["config"], kept=True)
    result = run(config)
    return Run(row.name, algo, seed, result.train_seconds / 60, result.held_out.as_dict(), result.curve, str(out),
               asdict(config))


def finished(out: Path, config: dict[str, Any]) -> dict[str, Any] | None:
    """Return the ``results.json`` a previous run of the same ``config`` left in ``out`` (so a second run of the
    table resumes where the first stopped), or None."""
    try:
        done = json.loads((out / "results.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return done if done.get("config") == json.loads(json.dumps(config)) and "held_out" in done else None


def quarters(curve: list[tuple[int, float]]) -> str:
    """Return the training success at each quarter of the curve's steps, e.g. ``0.02 0.41 0.83 0.90``."""
    if not curve:
        return "(no episode ended)"
    last = curve[-1][0]
    picks = [next(s for step, s in curve if step >= last * q / 4) for q in (1, 2, 3, 4)]
    return " ".join(f"{s:.2f}" for s in picks)


def run_line(run: Run) -> str:
    """Return one run's printed line: minutes, test success [Wilson 95%], train-level success and gap, curve."""
    h = run.held_out
    test = f"test {h['test']['rate']:.3f} [{h['test']['low']:.3f}, {h['test']['high']:.3f}] of {h['test']['episodes']}"
    train = "" if h["train"] is None else (f", train levels {h['train']['rate']:.3f} [{h['train']['low']:.3f}, "
                                           f"{h['train']['high']:.3f}], gap {h['gap']:+.3f}")
    return (f"{run.row}  {run.algo}  seed {run.seed}  {run.minutes:5.1f} min  {test}{train}  "
            f"curve by quarter {quarters(run.curve)}{'  (kept from an earlier run)' if run.kept else ''}")


def met(row: Row, runs: list[Run]) -> str:
    """Return whether ``runs`` of ``row`` reach its aim, in words."""
    tests = [r.test for r in runs]
    if row.threshold is None:
        gaps = [r.held_out["gap"] for r in runs]
        return f"median gap {statistics.median(gaps):+.3f}"
    if row.median_aim:
        return "yes" if statistics.median(tests) >= row.threshold else "no"
    reached = sum(t >= row.threshold for t in tests)
    return f"{'yes' if reached == len(tests) else 'no'} ({reached}/{len(tests)} seeds)"


def table(runs: list[Run]) -> str:
    """Return the Markdown table: per row and algorithm, seeds, test success median [min, max], the aim and whether
    it is met, and the mean minutes per seed."""
    lines = ["| row | algorithm | levels | seeds | test success median [min, max] | aim | met | min per seed |",
             "| --- | --- | --- | ---: | --- | --- | --- | ---: |"]
    groups: dict[tuple[str, str], list[Run]] = {}
    for run in runs:
        groups.setdefault((run.row, run.algo), []).append(run)
    for (name, algo), found in groups.items():
        tests = [r.test for r in found]
        memory = f", gru {ROWS[name].config['gru']}" if algo == "ppo-jax" and "gru" in ROWS[name].config else ""
        lines.append(f"| {name} | {algo}{memory} | {found[0].held_out['levels']} | {len(found)} | "
                     f"{statistics.median(tests):.3f} [{min(tests):.3f}, {max(tests):.3f}] | {ROWS[name].aim} | "
                     f"{met(ROWS[name], found)} | {statistics.fmean(r.minutes for r in found):.1f} |")
    return "\n".join(lines)


def plot_curves(name: str, runs: list[Run], path: Path) -> Path:
    """Write the learning curves of ``runs`` (one line per algorithm and seed) as a PNG at ``path``; return it."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    for run in runs:
        if run.curve:
            steps, success = zip(*run.curve, strict=True)
            ax.plot(steps, success, label=f"{run.algo} seed {run.seed}", linewidth=1)
    ax.set(xlabel="training steps", ylabel="training success (episodes ended)", ylim=(0, 1.02), title=name)
    ax.grid(alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def write_record(path: Path, command: list[str], stdout: str, runs: list[Run], seconds: float, load: float) -> Path:
    """Write the record in ``benchmarks/record.py``'s layout (command, date, machine, the run's output) with the
    runs' results, atomically; return ``path``."""
    from maze_envs.core.jsonfiles import write_json_atomic

    record = {"name": path.stem, "title": "PPO on the generalization protocol: test success on 1,000 held-out "
                                          "mazes per seed, train-level success and the gap for level sets",
              "command": shlex.join(command), "date": datetime.date.today().isoformat(),
              "machine": {"cpus": os.cpu_count(), "load_average_before": round(load, 2),
                          "platform": platform.platform(terse=True), "python": platform.python_version()},
              "runs": {"run": {"exit_status": 0, "wall_s": round(seconds, 1),
                               "load_average_after": round(os.getloadavg()[0], 2), "stdout": stdout.rstrip(),
                               "stderr_tail": ""}},
              "results": [{"row": r.row, "algo": r.algo, "seed": r.seed, "minutes": r.minutes,
                           "held_out": r.held_out, "curve": r.curve, "settings": r.settings} for r in runs]}
    write_json_atomic(path, record, indent=2)
    return path


def main(argv: list[str] | None = None) -> int:
    """Train and evaluate every (row, algorithm, seed), print the runs and the table, write the record and plots."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", nargs="+", choices=list(ROWS), default=list(ROWS))
    parser.add_argument("--seeds", nargs="+", type=int, default=[0, 1, 2, 3, 4])
    parser.add_argument("--algos", nargs="+", choices=["ppo-jax", "ppo-native"], default=["ppo-jax"])
    parser.add_argument("--eval-episodes", type=int, default=1000)
    parser.add_argument("--timesteps", type=int, default=None, help="override every row's budget (a quick check)")
    parser.add_argument("--out", type=Path, default=ROOT / "runs" / "rl-table")
    parser.add_argument("--results", type=Path, default=ROOT / "benchmarks" / "results")
    args = parser.parse_args(argv)
    command = ["python3", "benchmarks/rl_table.py", *(sys.argv[1:] if argv is None else argv)]
    load, start = os.getloadavg()[0], time.perf_counter()
    printed: list[str] = []

    def say(line: str) -> None:
        print(line, flush=True)
        printed.append(line)

    say(f"cpus {os.cpu_count()}, load average {load:.2f} at the start")
    runs: list[Run] = []
    for name in args.rows:
        for seed in args.seeds:
            for algo in args.algos:
                runs.append(train_row(ROWS[name], algo, seed, args.out / name / f"{algo}-seed{seed}",
                                      eval_episodes=args.eval_episodes, timesteps=args.timesteps))
                say(run_line(runs[-1]))
    say(f"load average {os.getloadavg()[0]:.2f} at the end\n")
    say(table(runs))
    args.results.mkdir(parents=True, exist_ok=True)
    stem = "rl-table" if args.rows == list(ROWS) else "rl-table-" + "-".join(args.rows)
    stem += "" if args.algos == ["ppo-jax"] else "-" + "-".join(args.algos)
    for name in args.rows:
        plot = plot_curves(name, [r for r in runs if r.row == name], args.results / f"rl-curve-{name}.png")
        say(f"learning curves of {name}: {plot.relative_to(args.results)} beside the record")
    path = write_record(args.results / f"{stem}.json", command, "\n".join(printed), runs,
                        time.perf_counter() - start, load)
    print(f"wrote {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
