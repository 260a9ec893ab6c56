"""Train one RL baseline, evaluate it on held-out seeds beside random and oracle, and draw its learning curve.

``python3 -m maze_envs.agents.rl.train --algo ppo-native --env-id Maze-PartialObs-v0
--env-kwargs '{"rows": 5, "cols": 5}' --ego-map --timesteps 1500000 --seed 0 --out runs/partial5`` writes to
``--out``: the training log
(``progress.csv``), the model, ``curve.png`` (success rate over training steps), ``results.json`` (the three
evaluation tables) and prints the README table row. Algorithms: ``ppo-native`` (the single-file PPO on the
native vector env), ``ppo-jax`` (the single-file JAX PPO on the JAX twin, ``ppo_jax``; extra ``jax``), ``ppo``
(SB3 PPO on ``gym.make`` envs), ``ppo-vec`` (SB3 PPO on the native vector env
through ``SB3VecEnv``), ``recurrent-ppo`` (sb3-contrib, ``gym.make`` envs) and ``q`` (tabular Q-learning,
``--timesteps`` counts episodes). ``--sample-eval`` evaluates the trained policy by sampling its actions
instead of taking the most likely one. ``--eval-env-kwargs`` (JSON) evaluates on other env arguments than
training. ``--gru N`` gives ``ppo-jax`` a recurrent policy (a GRU of ``N`` units after its trunk). Evaluation
follows the generalization protocol (``heldout``): ``--eval-episodes`` (1,000) held-out mazes,
refused before training when one shares a layout with the training levels (``num_levels``); for a level set the
policy's success on its training levels is reported too, and ``results.json`` holds ``held_out`` (test and
train-level success with 95% Wilson intervals, and the gap). ``--update-epochs`` sets the PPO epochs per
rollout (default: the algorithm's own, 4 for ``ppo-native`` and 10 for SB3). Evaluation seeds start at ``--eval-seed``
(default 1,000,000), far from the training seeds ``--seed`` + sub-env index.
"""

from __future__ import annotations

import argparse
import csv
import importlib
import json
import sys
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from maze_envs.core.atomic import ensure_directory
from maze_envs.core.errors import MazeConfigError
from maze_envs.core.jsonfiles import write_json_atomic
from maze_envs.core.validate import choice

from ..evaluate import EvaluationTable, evaluate
from ..oracle import OracleAgent
from ..random_agent import RandomAgent
from .flags import run_reporting
from .heldout import TEST_EPISODES, HeldOutResult, evaluate_held_out, held_out_set
from .policy_file import TrainedEnv

ALGOS = ("ppo-native", "ppo-jax", "ppo", "ppo-vec", "recurrent-ppo", "q")


@dataclass
class TrainConfig:
    """One table row: what to train, on which env, for how long, and how to evaluate it."""

    algo: str = "ppo-native"
    env_id: str = "Maze-PartialObs-v0"
    env_kwargs: dict[str, Any] = field(default_factory=lambda: {"rows": 5, "cols": 5})
    ego_map: bool = False
    timesteps: int = 200_000
    seed: int = 0
    num_envs: int = 64
    learning_rate: float = 5e-4
    ent_coef: float = 0.01
    update_epochs: int | None = None
    reveal_bonus: float = 0.0
    hidden: int = 64
    network: str = "mlp"
    gru: int = 0
    sample_eval: bool = False
    eval_episodes: int = TEST_EPISODES
    eval_seed: int = 1_000_000
    eval_env_kwargs: dict[str, Any] | None = None
    out: str = "rl_run"


@dataclass
class TrainResult:
    """A finished row: training seconds, the curve points ``(steps, success rate)`` and the evaluation tables."""

    config: TrainConfig
    train_seconds: float
    curve: list[tuple[int, float]]
    tables: dict[str, EvaluationTable]
    held_out: HeldOutResult

    def header(self) -> str:
        """Return the table's header and rule lines, one column per cell of ``row`` (an agent's cell is its success
        rate / mean path efficiency, both 0 to 1: "0.00 / 0.00" reached no goal)."""
        names = ["env", "setting", "algorithm", "steps", "train min",
                 *(f"{name} success / path eff." for name in self.tables)]
        return "| " + " | ".join(names) + " |\n|" + " --- |" * len(names)

    def row(self) -> str:
        """Return the README table row: env, setting, algorithm, training budget, minutes, success / efficiency per
        agent."""
        c = self.config
        kwargs = ", ".join(f"{k}={v}" for k, v in c.env_kwargs.items())
        cells = [f"{t.mean('success'):.2f} / {t.mean('path_efficiency'):.2f}" for t in self.tables.values()]
        budget = f"{c.timesteps:,} episodes" if c.algo == "q" else f"{c.timesteps:,}"
        algo = (f"{c.algo}{', cnn' if c.network == 'cnn' else ''}{f', gru {c.gru}' if c.gru else ''}"
                f"{', sampled' if c.sample_eval else ''}")
        return (f"| {c.env_id} | {kwargs}{', ego map' if c.ego_map else ''} | {algo} | {budget} | "
                f"{self.train_seconds / 60:.1f} | " + " | ".join(cells) + " |")


def _wrappers(config: TrainConfig) -> tuple:
    if not config.ego_map:
        return ()
    from .egomap import EgocentricMap

    return (EgocentricMap,)


def _sb3_curve(log: Path) -> list[tuple[int, float]]:
    with open(log, encoding="utf-8") as f:
        rows = list(csv.DictReader(f))
    return [(int(float(r["time/total_timesteps"])), float(r["rollout/success_rate"]))
            for r in rows if r.get("rollout/success_rate")]


def _train_sb3(config: TrainConfig, out: Path) -> tuple[Any, list[tuple[int, float]]]:
    from .sb3_policy import SB3Agent, make_dummy_vec_env, make_model
    from .sb3_vec import make_sb3_vec_env

    if config.algo == "ppo-vec":
        venv = make_sb3_vec_env(config.env_id, config.num_envs, ego_map=config.ego_map, **config.env_kwargs)
    else:
        venv = make_dummy_vec_env(config.env_id, config.num_envs, _wrappers(config), **config.env_kwargs)
    venv.seed(config.seed)
    algo = "recurrent-ppo" if config.algo == "recurrent-ppo" else "ppo"
    epochs = {} if config.update_epochs is None else {"n_epochs": config.update_epochs}
    model = make_model(algo, venv, seed=config.seed, log_dir=out, hidden=config.hidden, n_steps=64,
                       batch_size=64 * config.num_envs // 4, learning_rate=config.learning_rate,
                       ent_coef=config.ent_coef, **epochs)
    model.learn(total_timesteps=config.timesteps)
    model.save(out / "model.zip")
    venv.close()
    return SB3Agent(model, deterministic=not config.sample_eval, name=config.algo), _sb3_curve(out / "progress.csv")


def _train_single_file(config: TrainConfig, out: Path, module: str, model_file: str) -> tuple[Any, list]:
    """Train one of the single-file PPOs (``ppo_native`` or ``ppo_jax``, the same ``Args``); return the trained
    policy and its curve of (step, success rate) from ``progress.csv``."""
    ppo = importlib.import_module(f".{module}", __package__)
    epochs = {} if config.update_epochs is None else {"update_epochs": config.update_epochs}
    if config.gru:
        epochs["gru"] = config.gru
    args = ppo.Args(env_id=config.env_id, env_kwargs=config.env_kwargs, ego_map=config.ego_map, seed=config.seed,
                    total_timesteps=config.timesteps, num_envs=config.num_envs, learning_rate=config.learning_rate,
                    ent_coef=config.ent_coef, reveal_bonus=config.reveal_bonus, hidden=config.hidden,
                    network=config.network, out=str(out), **epochs)
    ppo.train(args)
    with open(out / "progress.csv", encoding="utf-8") as f:
        curve = [(int(r["global_step"]), float(r["charts/success_rate"])) for r in csv.DictReader(f)
                 if r["charts/success_rate"] != "nan"]
    return ppo.load_policy(out / model_file, deterministic=not config.sample_eval)[0], curve


def _train_native(config: TrainConfig, out: Path) -> tuple[Any, list[tuple[int, float]]]:
    return _train_single_file(config, out, "ppo_native", "model.pt")


def _train_jax(config: TrainConfig, out: Path) -> tuple[Any, list[tuple[int, float]]]:
    return _train_single_file(config, out, "ppo_jax", "model.npz")


def _train_q(config: TrainConfig, out: Path) -> tuple[Any, list[tuple[int, float]]]:
    import gymnasium as gym

    from .tabular_q import QConfig, train_q

    env = gym.make(config.env_id, **config.env_kwargs)
    for wrap in _wrappers(config):
        env = wrap(env)
    agent, history = train_q(env, QConfig(episodes=config.timesteps, seed=config.seed))
    steps = np.cumsum([h["steps"] for h in history])
    success = np.array([h["success"] for h in history], dtype=float)
    window = max(1, len(history) // 50)
    curve = [(int(steps[i]), float(success[max(0, i - window + 1):i + 1].mean())) for i in range(len(history))]
    with open(out / "progress.csv", "w", newline="", encoding="utf-8") as f:
        csv.writer(f).writerows([("global_step", "charts/success_rate"), *curve])
    return agent, curve


def plot_curve(curve: list[tuple[int, float]], title: str, path: Path) -> Path:
    """Write the learning curve (success rate over training steps) as a PNG at ``path``; return ``path``."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6, 3.5))
    if curve:
        steps, success = zip(*curve, strict=False)
        ax.plot(steps, success)
    ax.set(xlabel="training steps", ylabel="success rate (episodes ended)", ylim=(0, 1.02), title=title)
    ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path


def run(config: TrainConfig) -> TrainResult:
    """Train ``config.algo``, evaluate it with random and oracle on the held-out seeds, write everything to ``out``."""
    choice(config.algo, ALGOS, name="algo", error=ValueError)
    if config.sample_eval and config.algo == "q":
        raise MazeConfigError("needs a stochastic policy; algo 'q' is greedy", parameter="sample_eval")
    if config.gru and config.algo != "ppo-jax":
        raise MazeConfigError(f"a GRU memory is an option of ppo-jax, not of {config.algo} (recurrent-ppo has "
                              "an LSTM)", parameter="gru")
    heldout = held_out_set(TrainedEnv(config.env_id, dict(config.env_kwargs), config.ego_map),
                           first_seed=config.eval_seed, episodes=config.eval_episodes,
                           eval_kwargs=config.eval_env_kwargs)  # refuses a test set sharing training layouts
    out = ensure_directory(config.out, "out")
    start = time.perf_counter()
    trainer = {"ppo-native": _train_native, "ppo-jax": _train_jax, "q": _train_q}.get(config.algo, _train_sb3)
    agent, curve = trainer(config, out)
    seconds = time.perf_counter() - start
    held_out, found = evaluate_held_out(agent, heldout, wrappers=_wrappers(config))
    tables = {config.algo: found["test"],
              "random": evaluate(lambda env: RandomAgent(env.action_space, config.seed), config.env_id,
                                 heldout.seeds, **heldout.kwargs),
              "oracle": evaluate(OracleAgent, config.env_id, heldout.seeds, **heldout.kwargs)}
    if "training levels" in found:  # a level set: how the policy does on the levels it trained on
        tables["training levels"] = found["training levels"]
    result = TrainResult(config, seconds, curve, tables, held_out)
    plot_curve(curve, f"{config.algo} on {config.env_id} {heldout.kwargs}", out / "curve.png")
    write_json_atomic(out / "results.json", {"config": asdict(config), "train_seconds": seconds, "curve": curve,
                                             "row": result.row(), "held_out": held_out.as_dict(),
                                             "tables": {k: t.as_dict() for k, t in tables.items()}})
    return result


def parse_config(argv: list[str] | None = None) -> TrainConfig:
    """Return the ``TrainConfig`` of ``--kebab-case`` flags (``--env-kwargs`` is JSON)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    defaults = TrainConfig()
    for name, default in asdict(defaults).items():
        flag = "--" + name.replace("_", "-")
        if isinstance(default, bool):
            parser.add_argument(flag, action=argparse.BooleanOptionalAction, default=default)
        elif isinstance(default, dict) or name == "eval_env_kwargs":
            parser.add_argument(flag, type=json.loads, default=default)
        elif name == "update_epochs":  # None: the algorithm's own default (4 for ppo-native, SB3's 10)
            parser.add_argument(flag, type=int, default=default)
        else:
            parser.add_argument(flag, type=type(default), default=default, choices=ALGOS if name == "algo" else None)
    return TrainConfig(**vars(parser.parse_args(argv)))


def main(argv: list[str] | None = None) -> int:
    """Run the command line: train, evaluate, print the row and where the files are; return the exit status (2
    after one line on stderr naming the flag, for a bad setting or an unreadable file)."""
    config = parse_config(argv)
    return run_reporting("train.py", asdict(config), lambda: report(run(config)))


def report(result: TrainResult) -> None:
    """Print a finished run's table row, its held-out line and where its files are."""
    print(result.header())
    print(result.row())
    held = result.held_out
    print(f"held-out ({held.levels.describe()}): test success {held.test} of {held.test.episodes} mazes"
          + ("" if held.train is None else f", training levels {held.train}, gap {held.gap:+.3f}")
          + " (rate [95% Wilson interval])")
    print(f"wrote {Path(result.config.out) / 'curve.png'} and results.json")


if __name__ == "__main__":
    sys.exit(main())
