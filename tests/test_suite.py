"""``maze-envs suite``: a model that reads text but not pictures gets exactly that profile in summary.json and in
the report's matrix, the oracle solves every modality, user generations are scored by the pixel evaluator and a
judge with their agreement, a killed run resumes without losing or duplicating an item, and the report opens in
headless Chromium without console errors (its leaderboard sorts in the page)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from contextlib import ExitStack
from pathlib import Path

import cv2
import pytest
from _browser import opened_page, overflow_px

from maze_envs.cli import main
from maze_envs.core.jsonfiles import read_json, read_jsonl
from maze_envs.evaluators.pixel.synthetic import image_case, make_task
from maze_envs.evaluators.suite import MODALITIES, SuiteConfig, run_suite
from maze_envs.evaluators.suite.mazes import TASK_STYLE, build_mazes
from maze_envs.llm import ChatRequest, TextOnlyPolicy
from maze_envs.runs import RunOptions
from maze_envs.runs.socket_dir import socket_temp_dir
from maze_envs.suite_toolkit import toolkit
from maze_envs.tasks.files import generated_name

REPO = Path(__file__).resolve().parents[1]
TEXT_SOLVED = ("text2d", "ai-text", "partial-text")
IMAGE_FAILED = ("image2d", "ai-image", "nav3d")
CELL_TEXTS = "rows => rows.map(r => [...r.cells].map(c => c.textContent))"


def judge_policy(request: ChatRequest) -> str:
    """A stand-in judge for ``--judge-model local:test_suite:judge_policy``: it passes every generation."""
    return "VALID_ROUTE: 1\nREACHES_GOAL: 1\nWALL_CROSSING: 0\nACTION_REFLECTION: 0\nEXPLANATION: looks right"


@pytest.fixture(scope="module")
def suite(tmp_path_factory):
    out = tmp_path_factory.mktemp("suite") / "out"
    config = SuiteConfig(models=("oracle", "local:text-only", "random"), sizes=("5x5", "7x7"), count=2,
                         output_dir=str(out), timeout=10)
    return out, run_suite(config, toolkit(), options=RunOptions(workers=2))


def test_text_only_policy_answers_text_and_refuses_pictures():
    policy = TextOnlyPolicy()
    maze = "Maze layout:\n#####\n#S  #\n### #\n#  G#\n#####\nLegend: '#' = wall, ' ' = passage, 'S' = start, 'G' = goal"
    text = ChatRequest("m", [{"role": "user", "content": maze}])
    picture = ChatRequest("m", [{"role": "user", "content": [
        {"type": "text", "text": maze}, {"type": "image_url", "image_url": {"url": "data:image/png;base64,AA=="}}]}])
    assert policy(text).text.startswith("(")
    assert policy(picture).text == TextOnlyPolicy.MEDIA_REPLY


def test_text_only_model_has_exactly_the_perception_profile(suite):
    out, run = suite
    summary = read_json(out / "summary.json")
    mazes = [m["key"] for m in read_json(out / "suite.json")["mazes"]]
    table = summary["success"]["local:text-only"]
    assert set(table) == set(TEXT_SOLVED + IMAGE_FAILED)
    for modality in TEXT_SOLVED:
        assert table[modality]["all"]["solved"] == table[modality]["all"]["n"] == len(mazes), modality
    for modality in IMAGE_FAILED:
        assert table[modality]["all"]["solved"] == 0 and table[modality]["all"]["n"] == len(mazes), modality
    matrix = summary["matrix"]["local:text-only"]
    assert matrix == {key: {m: m in TEXT_SOLVED for m in MODALITIES if m in table} for key in mazes}
    patterns = summary["patterns"]["local:text-only"]
    assert patterns["perception gap"] == {"count": len(mazes), "mazes": sorted(mazes)}
    assert patterns["visual execution gap"]["count"] == 0          # image2d failed too, so no gap there
    assert patterns["execution gap"]["count"] == patterns["partial-view gap"]["count"] == 0
    usage = summary["usage"]["local:text-only"]
    assert usage["text2d"]["tokens_per_solve"] > 0 and usage["image2d"]["tokens_per_solve"] is None
    records = [r for r in run.records if r["player"] == "local:text-only"]
    assert all(r["tokens"] > 0 and r["api_calls"] >= 1 and r["latency_s"] > 0 for r in records)


def test_oracle_solves_every_modality_and_baselines_call_no_model(suite):
    out, run = suite
    summary = read_json(out / "summary.json")
    oracle = summary["success"]["oracle"]
    assert set(oracle) == set(MODALITIES)
    assert all(t["all"]["solved"] == t["all"]["n"] == 4 and t["all"]["errors"] == 0 for t in oracle.values())
    assert summary["patterns"]["oracle"]["solved everywhere"]["count"] == 4
    goals = {m.key: m.bench.goal for m in build_mazes(("5x5", "7x7"), 2, 0, "dfs", out.parent / "again")}
    for r in (r for r in run.records if r["player"] == "oracle" and r["modality"] == "nav3d"):
        (row, col), goal = r["path"][-1], goals[r["maze"]]   # the 3D walk mapped onto the benchmark grid
        assert len(r["path"]) > 2 and abs(row - goal[0]) < 1 and abs(col - goal[1]) < 1, r["path"]
    assert "random" not in summary["usage"] and all(r["tokens"] == 0 for r in run.records if r["player"] == "random")
    ids = [r["id"] for r in read_jsonl(out / "results.jsonl")]
    assert len(ids) == len(set(ids)) == summary["counts"]["items"] == len(run.records)
    assert summary["finished"] and summary["counts"]["errors"] == 0


def test_report_opens_without_console_errors_and_shows_the_matrix(suite):
    out, _ = suite
    with opened_page(out / "index.html") as (page, problems):
        cells = page.eval_on_selector_all(
            'table.matrix[data-player="local:text-only"] tr', CELL_TEXTS)
        head, body = cells[0], cells[1:]
        assert len(body) == 4
        for row in body:
            verdict = dict(zip(head[1:], row[1:], strict=False))
            assert verdict == {m: "solved" if m in TEXT_SOLVED else "failed" for m in verdict}
        patterns = page.eval_on_selector_all("#patterns tr", CELL_TEXTS)
        header = patterns[0]
        text_only = next(r for r in patterns if r[0] == "local:text-only")
        assert text_only[header.index("perception gap")] == "4"
        def first() -> str:
            return page.eval_on_selector("#leaderboard tbody tr td", "c => c.textContent")
        mean = page.locator("#leaderboard th", has_text="mean")
        mean.click()
        assert first() == "oracle"
        mean.click()
        assert first() == "random"
        link = page.eval_on_selector("table.matrix a", "a => a.getAttribute('href')")
        assert overflow_px(page) == 0
        assert not problems, problems
    with opened_page(out / link) as (page, problems):
        assert page.locator("svg polyline").count() >= 8
        assert page.locator("img.gen").count() == 1
        assert page.locator("h1").inner_text() == "5x5/maze_5x5_0" and "5x5 grid, 3x3 cells" in page.content()
        assert overflow_px(page) == 0
        assert not problems, problems
    for section in ("sections/bench-text2d.html", "sections/bench-grid-partial.html"):
        with opened_page(out / section) as (page, problems):
            assert page.locator("svg").count() > 0 and not problems, problems


def test_user_generations_are_scored_and_judged_with_agreement(tmp_path):
    folder = tmp_path / "generations" / "painter"
    folder.mkdir(parents=True)
    mazes = build_mazes(("5x5",), 3, 0, "dfs", tmp_path / "mazes")
    for m, case in zip(mazes, ("correct", "wrong"), strict=False):  # the third maze gets no generation
        _, data = cv2.imencode(".png", image_case(make_task(m.maze, TASK_STYLE), case))
        (folder / generated_name(m.stem, "image")).write_bytes(data.tobytes())
    config = SuiteConfig(models=("random",), sizes=("5x5",), count=3, output_dir=str(tmp_path / "out"),
                         modalities=("gen-image",), generations=str(tmp_path / "generations"),
                         judge_model="local:test_suite:judge_policy")
    run = run_suite(config, toolkit())
    assert {r["player"] for r in run.records} == {"painter"}
    by_maze = {r["maze"]: r for r in run.records}
    assert [by_maze[m.key]["outcome"] for m in mazes] == ["solved", "failed the pixel gates", "missing"]
    assert by_maze[mazes[0].key]["detail"]["judge_pass"] == 1 and by_maze[mazes[0].key]["tokens"] > 0
    agreement = run.summary["agreement"]["painter"]
    assert agreement["n"] == 2 and agreement["matrix"] == [[0, 1], [0, 1]]
    assert run.summary["success"]["painter"]["gen-image"]["all"]["solved"] == 1


def test_killed_suite_resumes_without_losing_or_duplicating(tmp_path):
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "maze_envs", "suite", "--models", "oracle", "local:text-only", "--sizes", "5x5",
           "7x7", "--count", "3", "--trials", "3", "--modalities", "text2d", "image2d", "ai-text", "partial-text",
           "--output-dir", str(out), "--workers", "2"]
    total = 2 * 2 * 3 * 3 * 4
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    proc = subprocess.Popen(cmd, cwd=tmp_path, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    log = out / "results.jsonl"
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and (not log.exists() or len(log.read_text().splitlines()) < 10):
        time.sleep(0.01)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    before = read_jsonl(log, skip_bad=True)
    assert 10 <= len(before) < total
    done = subprocess.run([*cmd, "--resume"], cwd=tmp_path, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr
    after = read_jsonl(log)
    ids = [r["id"] for r in after]
    assert len(ids) == len(set(ids)) == total
    assert {r["id"]: r for r in after if r["id"] in {b["id"] for b in before}} == {b["id"]: b for b in before}
    summary = read_json(out / "summary.json")
    assert summary["counts"] == {"items": total, "resumed": len(before), "run_now": total - len(before), "errors": 0}
    assert summary["finished"]


@pytest.mark.parametrize(("argv", "message"), [
    (["--sizes", "2x2"], "--sizes: must be a size HxW such as 9x9 of at least 3x3, got '2x2'"),
    (["--models", "policy"], "--policy: the 'policy' player needs a trained policy file"),
    (["--models", "local:"], "--models: 'local:': name the local server's policy"),
    (["--generations", "{tmp}/missing"], "--generations: {tmp}/missing: not a directory"),
])
def test_bad_flags_fail_on_one_line_naming_the_flag(tmp_path, capsys, argv, message):
    argv = [a.format(tmp=tmp_path) for a in argv]
    assert main(["suite", "--output-dir", str(tmp_path / "out"), *argv]) == 2
    err = capsys.readouterr().err
    assert message.format(tmp=tmp_path) in err and len(err.strip().splitlines()) == 1


def test_a_trained_policy_file_plays_the_partial_view_of_the_same_mazes(tmp_path):
    pytest.importorskip("torch")
    from maze_envs.agents.rl.ppo_native import Args, train

    run_dir = train(Args(env_id="Maze-PartialObs-v0", env_kwargs={"rows": 3, "cols": 3}, seed=0, total_timesteps=512,
                         num_envs=4, num_steps=32, torch_threads=1, out=str(tmp_path / "ppo")))
    config = SuiteConfig(models=("policy", "explorer"), sizes=("5x5",), count=2, output_dir=str(tmp_path / "out"),
                         policy=str(run_dir / "model.pt"))
    run = run_suite(config, toolkit(config.policy))
    assert {(r["player"], r["modality"]) for r in run.records} == {("policy", "grid-partial"),
                                                                   ("explorer", "grid-partial")}
    assert all(r["status"] == "ok" and r["path"] and r["tokens"] == 0 for r in run.records)
    assert run.summary["success"]["explorer"]["grid-partial"]["all"]["solved"] == 2


def test_an_ego_map_policy_keeps_its_map_and_refuses_other_shapes_before_the_run(tmp_path):
    pytest.importorskip("torch")
    from maze_envs.agents.rl.policy_file import PolicyMismatchError
    from maze_envs.agents.rl.ppo_native import Args, train

    run_dir = train(Args(env_id="Maze-PartialObs-v0", env_kwargs={"rows": 3, "cols": 3}, ego_map=True, seed=0,
                         total_timesteps=512, num_envs=4, num_steps=32, torch_threads=1, out=str(tmp_path / "ppo")))
    config = SuiteConfig(models=("policy",), sizes=("7x7",), count=1, output_dir=str(tmp_path / "out"),
                         policy=str(run_dir / "model.pt"))
    records = run_suite(config, toolkit(config.policy)).records
    assert [r["status"] for r in records] == ["ok"] and len(records[0]["path"]) > 1   # 7x7 blocks, as trained
    mixed = SuiteConfig(models=("policy",), sizes=("7x7", "5x5"), count=1, output_dir=str(tmp_path / "mixed"),
                        policy=str(run_dir / "model.pt"))
    with pytest.raises(PolicyMismatchError, match=r"trained on Maze-PartialObs-v0 .*ego map.*Box\(0, 4, \(13, 13\), "
                                                  r"uint8\).*5x5 maze.*Box\(0, 4, \(9, 9\), uint8\)"):
        run_suite(mixed, toolkit(mixed.policy))
    assert not (tmp_path / "mixed" / "results.jsonl").exists()


def test_the_readme_sequence_refuses_a_full_view_policy_in_one_line_and_plays_a_narrower_view(tmp_path, capsys):
    pytest.importorskip("torch")
    from maze_envs.agents.rl.ppo_native import Args, train

    full = train(Args(env_id="Maze-v0", env_kwargs={"rows": 3, "cols": 3}, seed=0, total_timesteps=256, num_envs=4,
                      num_steps=32, torch_threads=1, out=str(tmp_path / "full")))
    argv = ["suite", "--models", "policy", "explorer", "--policy", str(full / "model.pt"), "--modalities",
            "grid-partial", "--sizes", "5x5", "--count", "1", "--output-dir", str(tmp_path / "out")]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and "--policy" in err
    assert "trained on Maze-v0 {'rows': 3, 'cols': 3} (observation Box(0, 3, (7, 7), uint8)" in err
    assert "the suite's Maze-PartialObs-v0 on a 5x5 maze gives observation Box(0, 4, (7, 7), uint8)" in err
    assert not (tmp_path / "out" / "results.jsonl").exists()
    narrow = train(Args(env_id="Maze-PartialObs-Flat-v0", env_kwargs={"rows": 3, "cols": 3}, seed=0,
                        total_timesteps=256, num_envs=4, num_steps=32, torch_threads=1, out=str(tmp_path / "flat")))
    argv[5] = str(narrow / "model.pt")
    assert main(argv) == 2 and "Box(0.0, 1.0, (245,), float32)" in capsys.readouterr().err
    seeing = train(Args(env_id="Maze-PartialObs-v0", env_kwargs={"rows": 3, "cols": 3, "visibility": 2}, seed=0,
                        total_timesteps=256, num_envs=4, num_steps=32, torch_threads=1, out=str(tmp_path / "k2")))
    argv[5] = str(seeing / "model.pt")
    assert main(argv) == 0
    records = [json.loads(line) for line in (tmp_path / "out" / "results.jsonl").read_text().splitlines()]
    assert {r["player"]: r["status"] for r in records} == {"policy": "ok", "explorer": "ok"}


def test_ray_backend_gives_the_records_of_the_local_backend(tmp_path, tmp_path_factory):
    ray = pytest.importorskip("ray")
    ray_temp = ExitStack()
    ray.init(num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False,
             _temp_dir=ray_temp.enter_context(socket_temp_dir()), runtime_env={"env_vars": {"PYTHONPATH": str(REPO)}})
    ray_temp.callback(ray.shutdown)
    try:
        def outcomes(backend: str) -> list[tuple]:
            config = SuiteConfig(models=("oracle", "local:text-only"), sizes=("5x5",), count=1, timeout=10,
                                 modalities=("text2d", "image2d", "grid", "nav3d"), output_dir=str(tmp_path / backend))
            run = run_suite(config, toolkit(), options=RunOptions(backend=backend, workers=2))
            return [(r["id"], r["status"], r["success"], r["outcome"], r["path"], r["tokens"]) for r in run.records]
        assert outcomes("ray") == outcomes("local")
    finally:
        ray_temp.close()


def test_the_ego_map_agent_sees_what_the_ego_map_wrapper_shows():
    import gymnasium as gym
    import numpy as np

    from maze_envs.agents.rl.egomap import EgocentricMap, EgocentricMapAgent

    class Recorder:
        """A policy that plays a fixed action sequence and keeps every observation it is shown."""

        def __init__(self, actions):
            self.actions, self.seen = list(actions), []

        def reset(self):
            self.seen = []

        def act(self, observation, info):
            self.seen.append(np.array(observation))
            return self.actions[len(self.seen) - 1]

    actions = [np.array(a) for a in ((1, 2), (2, 1), (3, 0), (0, 2), (1, 0), (2, 2), (3, 1), (1, 1))]
    wrapped = EgocentricMap(gym.make("Maze-PartialObs-v0", rows=4, cols=4, action_mode="multi"))
    observation, _ = wrapped.reset(seed=3)
    expected = []
    for action in actions:
        expected.append(observation)
        observation, *_ = wrapped.step(action)
    raw = gym.make("Maze-PartialObs-v0", rows=4, cols=4, action_mode="multi")
    recorder = Recorder(actions)
    agent = EgocentricMapAgent(recorder, raw)
    agent.reset()
    observation, info = raw.reset(seed=3)
    for _ in actions:
        observation, *_, info = raw.step(agent.act(observation, info))
    assert all(np.array_equal(a, b) for a, b in zip(recorder.seen, expected, strict=True))


def test_resume_keeps_the_records_whose_settings_still_hold(tmp_path):
    base = dict(models=("oracle",), sizes=("5x5",), count=2, output_dir=str(tmp_path / "out"), timeout=10,
                modalities=("text2d", "grid"))
    first = run_suite(SuiteConfig(**base), toolkit())
    again = run_suite(SuiteConfig(**base), toolkit(), options=RunOptions(resume=True))
    assert again.summary["counts"] == {"items": 4, "resumed": 4, "run_now": 0, "errors": 0}
    assert again.records == first.records
    changed = run_suite(SuiteConfig(**base, anti_cheat=False), toolkit(), options=RunOptions(resume=True))
    assert changed.summary["counts"]["resumed"] == 2                    # text2d runs again, the grid is kept
    assert {r["modality"] for r in changed.records if r not in first.records} == {"text2d"}


def test_a_remote_chat_model_without_a_key_is_refused_naming_the_key(tmp_path, monkeypatch):
    from maze_envs.core.errors import MazeEnvsError

    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    config = SuiteConfig(models=("some-remote-model",), sizes=("5x5",), count=1, modalities=("text2d",),
                         output_dir=str(tmp_path / "out"), timeout=2)
    with pytest.raises(MazeEnvsError, match=r"needs an API key: set \$OPENAI_API_KEY"):
        run_suite(config, toolkit())
