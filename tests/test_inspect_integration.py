"""Inspect runs the benchmark's tasks (``inspect eval maze_envs/<mode>``) against the local model server through its
own OpenAI provider, and scores every trial as ``maze-envs bench`` does for the same seeds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytest.importorskip("inspect_ai")

from inspect_ai.log import list_eval_logs, read_eval_log  # noqa: E402

from maze_envs.cli import main  # noqa: E402
from maze_envs.core.jsonfiles import read_jsonl  # noqa: E402
from maze_envs.llm import ModelServer, OraclePolicy  # noqa: E402

REPO = Path(__file__).resolve().parents[1]
MODES = ("text2d", "image2d", "ai", "partial-observe")


def entry_point_site(root: Path) -> Path:
    """Return a folder holding the metadata of an editable install of this checkout (what ``pip install -e
    .[inspect]`` writes: the ``inspect_ai`` entry point and ``direct_url.json``), put first on the path so that
    neither a stale ``maze_envs.egg-info`` in the checkout nor an install of another tree answers for it; Inspect
    then names the tasks ``maze_envs/<task>``."""
    info = root / "maze_envs-0.1.0.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: maze-envs\nVersion: 0.1.0\n")
    (info / "entry_points.txt").write_text("[inspect_ai]\nmaze_envs = maze_envs.integrations.inspect._registry\n")
    (info / "direct_url.json").write_text(json.dumps({"dir_info": {"editable": True}, "url": REPO.as_uri()}))
    return root


def inspect_eval(tmp_path: Path, server: ModelServer, modes: tuple[str, ...], *flags: str) -> dict[str, dict]:
    """Run ``inspect eval maze_envs/<mode> ...`` for every mode at once against ``server``; return, by mode, each
    sample's scores by trial id."""
    logs = tmp_path / "logs"
    site = entry_point_site(tmp_path / "site")
    env = {**os.environ, "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "local", "INSPECT_LOG_DIR": str(logs),
           "PYTHONPATH": os.pathsep.join([str(site), str(REPO)]), "TMPDIR": str(tmp_path),
           "INSPECT_DISPLAY": "none",
           **{f"XDG_{kind}_HOME": str(tmp_path / f"xdg-{kind}") for kind in ("CACHE", "CONFIG", "DATA", "STATE")}}
    done = subprocess.run([sys.executable, "-m", "inspect_ai", "eval", *(f"maze_envs/{mode}" for mode in modes),
                           "--model", f"openai/{server.model_name}", "-T", "sizes=5x5", "-T", "count=2", "-T", "seed=5",
                           "-T", "trials=2", *flags], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    scores = {}
    for info in list_eval_logs(str(logs)):
        log = read_eval_log(info)
        assert log.status == "success", log.error
        scores[log.eval.task.split("/")[-1]] = {sample.id: sample.scores["bench_scorer"].value
                                                for sample in log.samples}
    return scores


def bench_scores(tmp_path: Path, mode: str, protocol: str = "default") -> dict[str, dict]:
    """Return the ``maze-envs bench`` record of every trial of the same settings, by trial id of Inspect's
    samples (model name ``inspect``)."""
    out = tmp_path / f"bench-{mode}"
    assert main(["bench", "--mode", mode, "--protocol", protocol, "--sizes", "5x5", "--generate-mazes",
                 "--maze-count", "2", "--seed", "5", "--trials", "2", "--mazes-dir", str(tmp_path / f"mazes-{mode}"),
                 "--output-dir", str(out), "--local-policy", "oracle", "--workers", "1"]) == 0
    return {f"inspect|{r['size']}|{r['maze']}|{r['trial']}": r for r in read_jsonl(out / "results.jsonl")}


@pytest.fixture(scope="module")
def inspect_run(tmp_path_factory) -> tuple[dict[str, dict], set[str]]:
    """One ``inspect eval`` of the four tasks against the local server: the scores by mode, and the APIs asked."""
    with ModelServer(OraclePolicy(), model_name="maze-envs-local") as server:
        scores = inspect_eval(tmp_path_factory.mktemp("inspect"), server, MODES)
        return scores, {request.api for request in server.requests}


def test_inspect_asks_the_responses_api_with_its_defaults(inspect_run):
    assert inspect_run[1] == {"responses"}  # Inspect's OpenAI provider, with its defaults, asks the Responses API


@pytest.mark.parametrize("mode", MODES)
def test_inspect_scores_equal_the_bench_trial_by_trial(tmp_path, inspect_run, mode):
    scores = inspect_run[0][mode]
    records = bench_scores(tmp_path, mode)
    assert sorted(scores) == sorted(records) and len(scores) == 4
    for trial_id, value in scores.items():
        record = records[trial_id]
        assert value["total"] == record["scores"]["total"] and value["S"] == record["scores"]["S"], trial_id
        assert value["success"] == float(record["success"]), trial_id
