"""The steps of ``maze-envs demo``, one per part of the suite, all offline on embedded defaults.

Each step is ``step(out_dir, settings) -> result``: it writes under ``out_dir`` and returns a dataclass whose
``line`` is its one-line summary (``results``); ``report`` draws each kind of result as a report section.
A step whose optional extra is missing raises ``MissingExtraError``. Every step is deterministic for a seed.
"""

from __future__ import annotations

import csv
from pathlib import Path
from typing import Any, Callable

import gymnasium as gym

from maze_envs.agents.evaluate import evaluate
from maze_envs.agents.explorer import FrontierExplorer
from maze_envs.agents.openings import OpeningsOracleAgent, OpeningsRandomAgent
from maze_envs.agents.oracle import OracleAgent
from maze_envs.agents.random_agent import RandomAgent
from maze_envs.core.errors import MissingExtraError
from maze_envs.datasets import generate_tasks, generate_text_mazes, write_openings_dataset
from maze_envs.openings.dataset import OpeningsDatasetConfig
from maze_envs.runs import RunOptions
from maze_envs.suite_toolkit import toolkit
from maze_envs.tasks.spec import task_specs

from .results import (
    BaselineRow,
    BaselinesResult,
    BenchResult,
    BenchSize,
    DatasetsResult,
    DemoSettings,
    EnvView,
    Generation,
    GenerationsResult,
    NavResult,
    PixelScores,
    PPOResult,
    SuiteResult,
)

REBUILD = RunOptions(overwrite=True)  # each demo rebuilds its folder: a step's earlier results are replaced

LOCAL_MODEL = "maze-envs-local"
GRID_ENVS: tuple[tuple[str, dict[str, Any]], ...] = (
    ("Maze-v0", {}), ("Maze-PartialObs-v0", {"visibility": 3}), ("Maze-Openings-v0", {}))
NAV_ENVS = ("GaussianNav-PointGoal-v0", "GaussianNav-PoiGoal-v0")
VIDEO_CASES = ("correct", "detour", "through_wall", "still")
JUDGED_IMAGE_CASES = ("correct", "wrong", "through_wall", "walls_changed")
PPO_ENV: tuple[str, dict[str, Any]] = ("Maze-PartialObs-v0", {"rows": 3, "cols": 3})
HELD_OUT_SEED = 1_000_000  # evaluation seeds of the PPO step start here, far from its training seeds


def datasets_step(out_dir: Path, settings: DemoSettings) -> DatasetsResult:
    """Return what was written: task image pairs (``tasks/``), benchmark mazes (``mazes/``) and labelled-openings
    samples (``openings/``) under ``out_dir``."""
    specs = task_specs(["dfs", "wilson"], ["easy", "medium", "hard"], 1, settings.seed)
    records = generate_tasks(specs, out_dir / "tasks", overwrite=True).records
    files = generate_text_mazes(["5x5", "9x9"], 2, settings.seed, out_dir / "mazes", overwrite=True).records
    openings = write_openings_dataset(OpeningsDatasetConfig(count=4, rows=(8, 12), cols=(8, 12), seed=settings.seed),
                                      out_dir / "openings", overwrite=True)
    first = records[0]["id"]
    return DatasetsResult(out_dir / "tasks", len(records), out_dir / "mazes", len(files), out_dir / "openings",
                          openings.written, out_dir / "tasks" / f"{first}.png",
                          out_dir / "tasks" / f"{first}_solution.png")


def _grid_agents(env_id: str, seed: int) -> list[tuple[str, Any]]:
    """Return ``(name, agent or factory of the env)`` of the baseline agents of ``env_id``."""
    if env_id == "Maze-Openings-v0":
        return [("random", OpeningsRandomAgent(seed)), ("oracle", OpeningsOracleAgent())]
    agents: list[tuple[str, Any]] = [("random", lambda env: RandomAgent(env.action_space, seed)),
                                     ("oracle", OracleAgent)]
    if env_id == "Maze-PartialObs-v0":
        agents.append(("explorer", lambda env: FrontierExplorer(env.action_space)))
    return agents


def baselines_step(out_dir: Path, settings: DemoSettings) -> BaselinesResult:
    """Return the random, oracle and (partial view) frontier-explorer agents' ``evaluate()`` rows on every grid env,
    one episode per seed ``seed .. seed + episodes - 1``, and a view of each env at reset (nothing is written)."""
    rows, views = [], []
    size = {"rows": settings.grid_size, "cols": settings.grid_size}
    seeds = range(settings.seed, settings.seed + settings.episodes)
    for env_id, kwargs in GRID_ENVS:
        kwargs = {**({} if env_id == "Maze-Openings-v0" else size), **kwargs}
        env = gym.make(env_id, render_mode="rgb_array", **kwargs)
        env.reset(seed=settings.seed)
        views.append(EnvView(env_id, f"{env_id} at reset (seed {settings.seed})", env.render()))
        env.close()
        rows += [BaselineRow.from_table(evaluate(agent, env_id, seeds, **kwargs), name)
                 for name, agent in _grid_agents(env_id, settings.seed)]
    return BaselinesResult(tuple(rows), tuple(views))


def ppo_step(out_dir: Path, settings: DemoSettings) -> PPOResult:
    """Return a ``ppo_steps`` run of the single-file PPO (``agents.rl.ppo_native``, ego map, one torch thread,
    seeded, with the agent-side reveal bonus) on 3x3-cell partial-view mazes, written to ``out_dir/ppo``, evaluated
    on ``episodes`` held-out seeds with sampled actions (torch's generator, seeded by the run, keeps them the same
    for a seed)."""
    try:
        from maze_envs.agents.rl.egomap import EgocentricMap
        from maze_envs.agents.rl.ppo_native import Args, load_policy, train
    except ImportError as exc:
        raise MissingExtraError(f"the PPO step needs torch ({exc}); install it with: pip install 'maze-envs[rl]'") \
            from exc

    env_id, size = PPO_ENV
    run_dir = train(Args(env_id=env_id, env_kwargs=size, ego_map=True, seed=settings.seed,
                         total_timesteps=settings.ppo_steps, num_envs=16, num_steps=64, learning_rate=1e-3,
                         reveal_bonus=0.02, torch_threads=1, out=str(out_dir / "ppo")))
    with open(run_dir / "progress.csv", encoding="utf-8") as f:
        curve = tuple((int(r["global_step"]), float(r["charts/success_rate"])) for r in csv.DictReader(f)
                      if r["charts/success_rate"] != "nan")
    policy, _ = load_policy(run_dir / "model.pt", deterministic=False)
    seeds = range(HELD_OUT_SEED + settings.seed, HELD_OUT_SEED + settings.seed + settings.episodes)
    agents = (("ppo", policy, (EgocentricMap,)),
              ("random", lambda env: RandomAgent(env.action_space, settings.seed), ()), ("oracle", OracleAgent, ()))
    evaluation = tuple(BaselineRow.from_table(evaluate(agent, env_id, seeds, wrappers=wrappers, **size), name)
                       for name, agent, wrappers in agents)
    return PPOResult(env_id, f"{size['rows']}x{size['cols']}", settings.ppo_steps, curve, evaluation, run_dir)


def _nav_row(env_id: str, agent: str, summary: dict[str, Any]) -> BaselineRow:
    overall = summary["overall"]
    spl = overall["spl_new"] if "spl_new" in overall else overall["spl"]
    return BaselineRow(env_id, agent, overall["count"], round(overall["success_rate"] * overall["count"]),
                       float(overall["avg_steps"]), float(spl))


def nav_step(out_dir: Path, settings: DemoSettings) -> NavResult:
    """Return the random-walk and oracle navigation agents' results on both GaussianNav tasks (point goal, POI) over
    procedural splat scenes rendered in-process (``maze-envs[nav]``), played by ``evaluators.nav`` into
    ``out_dir/nav_eval``, with a front view of ``GaussianNav-PointGoal-v0`` and the point-goal trajectory pictures."""
    from maze_envs.agents.nav.oracle import OraclePoiGoalAgent, OraclePointGoalAgent
    from maze_envs.agents.nav.random_agent import RandomWalkPointGoalAgent
    from maze_envs.envs.nav.config import PoiGoalEvalConfig, make_eval_config
    from maze_envs.envs.nav.world import camera_for_size
    from maze_envs.evaluators.nav.loop import ensure_procedural_scenes, run_evaluation
    from maze_envs.evaluators.nav.pictures import draw_run
    from maze_envs.evaluators.nav.poi_goal.metrics import analyze_and_report as poi_report
    from maze_envs.evaluators.nav.point_goal.metrics import analyze_and_report as point_report
    from maze_envs.nav.procedural import SceneParams

    side = settings.nav_maze
    env = gym.make(NAV_ENVS[0], scenes=1, maze_size=(side, side), scene_seed=settings.seed,
                   view_width=settings.nav_view * 2, view_height=settings.nav_view * 2)
    observation, _ = env.reset(seed=settings.seed)
    view = EnvView(NAV_ENVS[0], f"{NAV_ENVS[0]} front view at reset (seed {settings.seed})",
                   observation["images"]["front"])
    env.close()

    root = out_dir / "nav_eval"
    scenes = ensure_procedural_scenes(root / "scenes", settings.nav_scenes, side, side, settings.seed,
                                      params=SceneParams(num_landmarks=2, num_trajectories=3))
    camera = camera_for_size(settings.nav_view, settings.nav_view)
    common = dict(provide_occ_map=True, camera_config=camera, max_steps=40, save_render_images=False)
    runs = ((NAV_ENVS[0], make_eval_config("outdoor", **common), point_report,
             (("random", RandomWalkPointGoalAgent(seed=settings.seed)), ("oracle", OraclePointGoalAgent()))),
            (NAV_ENVS[1], PoiGoalEvalConfig(**common), poi_report,
             (("random", RandomWalkPointGoalAgent(seed=settings.seed)), ("oracle", OraclePoiGoalAgent()))))
    rows, pictures = [], {}
    for env_id, config, report, agents in runs:
        for name, agent in agents:
            run_dir = root / f"{env_id}-{name}"
            run_evaluation(agent, config, scenes, run_dir=run_dir, options=REBUILD)
            rows.append(_nav_row(env_id, name, report(run_dir, quiet=True)))
            if env_id == NAV_ENVS[0]:
                pictures[name] = draw_run(run_dir)[0]
    return NavResult(tuple(rows), view, pictures, root)


def bench_step(out_dir: Path, settings: DemoSettings) -> BenchResult:
    """Return the headline of a text2d benchmark of the local embedded server's oracle policy through the real
    ``openai`` client, on ``bench_mazes`` generated mazes per size, written to ``out_dir/bench``."""
    from maze_envs.evaluators.bench.config import BenchConfig
    from maze_envs.evaluators.bench.mazes import prepare_mazes
    from maze_envs.evaluators.bench.run import run_bench
    from maze_envs.llm import ModelServer, OraclePolicy, local_client

    root = out_dir / "bench"
    config = BenchConfig(mode="text2d", models=(LOCAL_MODEL,), sizes=settings.bench_sizes,
                         trials=settings.bench_trials, workers=2, mazes_dir=str(root / "mazes"),
                         output_dir=str(root), generate_mazes=True, maze_count=settings.bench_mazes,
                         seed=settings.seed).validated()
    mazes = prepare_mazes(config)
    with ModelServer(OraclePolicy(), model_name=LOCAL_MODEL, policy_name="oracle", keep_requests=False) as server:
        client = local_client(server.base_url, LOCAL_MODEL, timeout=10)
        run = run_bench(config, mazes, {LOCAL_MODEL: client}, options=REBUILD)
    per_size = run.summary["models"][LOCAL_MODEL]
    sizes = tuple(BenchSize(size, per_size[size]["trials"], per_size[size]["success"]["mean"],
                            per_size[size]["total"]["mean"]) for size in settings.bench_sizes)
    return BenchResult(config.mode, sizes, bool(run.summary["local_embedded_server"]), run.report_path,
                       run.summary_path, errors=run.summary["counts"]["errors"])


def generations_step(out_dir: Path, settings: DemoSettings) -> GenerationsResult:
    """Return the pixel scores of synthetic image and video generations of easy tasks, the stand-in judge's
    verdicts on the images (through the local server and the ``openai`` client) and the agreement of the two,
    all written under ``out_dir/generations``."""
    from maze_envs.core.render import ImageStyle
    from maze_envs.evaluators.judge import (
        agreement_report,
        load_pixel_results,
        maze_items_from_dir,
        maze_task,
        pixel_pass,
        run_judge,
    )
    from maze_envs.evaluators.judge.synthetic import case_judge, cases_by_maze
    from maze_envs.evaluators.pixel.batch import BatchConfig, evaluate_batch
    from maze_envs.evaluators.pixel.image import ImageParams
    from maze_envs.evaluators.pixel.synthetic import write_synthetic_dataset
    from maze_envs.evaluators.pixel.video import VideoParams
    from maze_envs.llm import ModelServer, local_client

    root = out_dir / "generations"
    specs = task_specs(["dfs", "wilson"], ["easy"], max(1, settings.generations // 2), settings.seed)
    cases = write_synthetic_dataset(root, specs, style=ImageStyle(24, 6), image_cases=JUDGED_IMAGE_CASES,
                                    video_cases=VIDEO_CASES, frames=36)
    solutions = root / "data" / "solution"
    pixel, results, errors = [], {}, 0
    for kind, params in (("image", ImageParams()), ("video", VideoParams(num_frames=36))):
        config = BatchConfig(kind=kind, solution_dir=solutions, params=params, model_name="synthetic",
                             input_dir=root / f"{kind}_results" / "synthetic" / "easy_round1",
                             output_dir=root / f"{kind}_pixel", visualize=False, run=REBUILD)
        summary, results[kind], _ = evaluate_batch(config)
        errors += summary["errors"]["count"]
        pixel.append(PixelScores(kind, summary["evaluated"],
                                 summary.get("gated_metrics", {}).get("overall_score_gated_count"),
                                 summary["wall_crossing"]["count"],
                                 float(summary["path_matching"]["mean_target_achievement"])))

    images = root / "image_results" / "synthetic" / "easy_round1"
    items, _ = maze_items_from_dir(images, solutions)
    with ModelServer(case_judge(cases_by_maze(solutions, cases)), model_name=LOCAL_MODEL, policy_name="case_judge",
                     keep_requests=False) as server:
        client = local_client(server.base_url, LOCAL_MODEL, timeout=10)
        run = run_judge(maze_task(), items, client, root / "judge", options=REBUILD, params={"temperature": 0},
                        extra_summary=lambda records: {"agreement": agreement_report(records, results["image"])})
    agreement = run.summary["agreement"]["success"]
    pixel_records = load_pixel_results(results["image"])
    judged = {Path(r["file"]).name: r for r in run.records}
    generations = tuple(
        Generation(images / name, cases[name], pixel_pass(pixel_records[name]) if name in pixel_records else None,
                   judged[name]["scores"]["SUCCESS"] if judged.get(name, {}).get("status") == "ok" else None)
        for name in sorted(judged))
    matrix = agreement["matrix"]
    errors += sum(r["status"] == "error" for r in run.records)
    return GenerationsResult(tuple(pixel), generations, agreement["n"], agreement["cohen_kappa"],
                             (tuple(matrix[0]), tuple(matrix[1])), root, errors=errors)


def suite_step(out_dir: Path, settings: DemoSettings) -> SuiteResult:
    """Return the outcome of ``maze-envs suite`` with its default players (oracle, local:text-only, random) on
    ``suite_mazes`` mazes per size of ``suite_sizes``, written to ``out_dir/suite``."""
    from maze_envs.evaluators.suite import SuiteConfig, run_suite

    config = SuiteConfig(sizes=settings.suite_sizes, count=settings.suite_mazes, seed=settings.seed,
                         output_dir=str(out_dir / "suite"), timeout=10)
    run = run_suite(config, toolkit(), options=REBUILD)
    solved = tuple((player, modality, t["all"]["solved"], t["all"]["n"])
                   for player, table in run.summary["success"].items() for modality, t in table.items())
    patterns = {player: {name: found["count"] for name, found in table.items()}
                for player, table in run.summary["patterns"].items()}
    return SuiteResult(solved, patterns, settings.suite_mazes * len(settings.suite_sizes), run.report_path,
                       errors=run.summary["counts"]["errors"])


# In the order the demo runs them, each with the name its skip note starts with.
DEMO_STEPS: tuple[tuple[str, Callable[[Path, DemoSettings], Any]], ...] = (
    ("datasets", datasets_step),
    ("baselines", baselines_step),
    ("ppo", ppo_step),
    ("nav", nav_step),
    ("bench", bench_step),
    ("generations", generations_step),
    ("suite", suite_step),
)
