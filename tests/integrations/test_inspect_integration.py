"""Inspect runs the benchmark's tasks (``inspect eval maze_envs/<mode>``) against the local model server through its
own OpenAI provider, and scores every trial as ``maze-envs bench`` does for the same seeds; in the ``tools`` task
Inspect's own ``react`` agent plays the maze functions as Inspect tools."""

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
from maze_envs.core.maze_tools import ToolCall  # noqa: E402
from maze_envs.llm import ChatRequest, ModelServer, OraclePolicy, PolicyReply  # noqa: E402

REPO = Path(__file__).resolve().parents[2]
MODES = ("text2d", "image2d", "ai", "partial-observe")
TASKS = (*MODES, "tools")


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


def inspect_eval(tmp_path: Path, server: ModelServer, modes: tuple[str, ...], *flags: str,
                 models: tuple[str, ...] = ()) -> dict[str, dict]:
    """Run ``inspect eval maze_envs/<mode> ...`` for every mode at once against ``server`` (as the ``models`` it
    serves, default its own name); return, by mode (``mode@model`` with several models), each sample's scores by
    trial id."""
    logs = tmp_path / "logs"
    site = entry_point_site(tmp_path / "site")
    env = {**os.environ, "OPENAI_BASE_URL": server.base_url, "OPENAI_API_KEY": "local", "INSPECT_LOG_DIR": str(logs),
           "PYTHONPATH": os.pathsep.join([str(site), str(REPO)]), "TMPDIR": str(tmp_path),
           "INSPECT_DISPLAY": "none",
           **{f"XDG_{kind}_HOME": str(tmp_path / f"xdg-{kind}") for kind in ("CACHE", "CONFIG", "DATA", "STATE")}}
    done = subprocess.run([sys.executable, "-m", "inspect_ai", "eval", *(f"maze_envs/{mode}" for mode in modes),
                           "--model", ",".join(f"openai/{m}" for m in models or (server.model_name,)),
                           "-T", "sizes=5x5", "-T", "count=2", "-T", "seed=5",
                           "-T", "trials=2", *flags], env=env, cwd=tmp_path, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    scores = {}
    for info in list_eval_logs(str(logs)):
        log = read_eval_log(info)
        assert log.status == "success", log.error
        name = log.eval.task.split("/")[-1] + (f"@{log.eval.model.split('/')[-1]}" if models else "")
        scores[name] = {sample.id: next(iter(sample.scores.values())).value for sample in log.samples}
    return scores


def bench_scores(tmp_path: Path, mode: str, protocol: str = "default", *flags: str) -> dict[str, dict]:
    """Return the ``maze-envs bench`` record of every trial of the same settings (and ``flags``), by trial id of
    Inspect's samples (model name ``inspect``)."""
    out = tmp_path / f"bench-{mode}"
    assert main(["bench", "--mode", mode, "--protocol", protocol, "--sizes", "5x5", "--generate-mazes",
                 "--maze-count", "2", "--seed", "5", "--trials", "2", "--mazes-dir", str(tmp_path / f"mazes-{mode}"),
                 "--output-dir", str(out), "--local-policy", "oracle", "--workers", "1", *flags]) == 0
    return {f"inspect|{r['size']}|{r['maze']}|{r['trial']}": r for r in read_jsonl(out / "results.jsonl")}


@pytest.fixture(scope="module")
def inspect_run(tmp_path_factory) -> tuple[dict[str, dict], set[str]]:
    """One ``inspect eval`` of the five tasks against the local server: the scores by mode, and the APIs asked."""
    with ModelServer(OraclePolicy(), model_name="maze-envs-local") as server:
        scores = inspect_eval(tmp_path_factory.mktemp("inspect"), server, TASKS)
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


# The bench's record fields each tools sample reports (SCORE_FIELDS of maze_envs.integrations.inspect.tools).
TOOL_FIELDS = ("api_calls", "function_calls", "invalid_calls", "cell_moves", "wall_collisions", "path_efficiency",
               "revisits", "revisits_per_cell", "max_cell_visits", "longest_revisit_run", "ended_in_loop")


def assert_fields_equal(scores: dict[str, dict], records: dict[str, dict], count: int = 4) -> None:
    assert sorted(scores) == sorted(records) and len(scores) == count
    for trial_id, value in scores.items():
        record = records[trial_id]
        assert value["success"] == 1.0 == float(record["success"]) and value["total"] == record["scores"]["total"]
        assert {k: value[k] for k in TOOL_FIELDS} == {k: float(record[k]) for k in TOOL_FIELDS}, trial_id


def test_inspect_react_plays_the_tools_task_with_the_bench_fields(tmp_path, inspect_run):
    assert_fields_equal(inspect_run[0]["tools"], bench_scores(tmp_path, "tools"))


def oracle_or_wrong(request: ChatRequest) -> PolicyReply:
    """The oracle for the model ``maze-envs-local``; for ``wrong`` a policy that walks up into the wall forever."""
    if request.model != "wrong":
        return OraclePolicy()(request)
    return PolicyReply(tool_calls=(ToolCall(f"w{len(request.messages)}", "move", '{"direction": "up"}'),))


def test_inspect_tools_partial_scores_the_oracle_1_and_a_wrong_policy_0(tmp_path, monkeypatch):
    """The partial variant through Inspect's own OpenAI provider, in this process (``inspect_ai.eval``, as the CLI
    calls it): the oracle scores 1 with the bench's fields, a policy that walks into a wall scores 0."""
    from inspect_ai import eval as inspect_ai_eval

    from maze_envs.integrations.inspect import tools

    monkeypatch.setenv("OPENAI_API_KEY", "local")
    monkeypatch.setenv("INSPECT_DISPLAY", "none")
    task = tools(variant="partial", sizes="5x5", count=1, seed=5, trials=1, max_calls=8)
    with ModelServer(oracle_or_wrong, model_name="maze-envs-local") as server:
        logs = inspect_ai_eval([task], model=["openai/maze-envs-local", "openai/wrong"], model_base_url=server.base_url,
                               log_dir=str(tmp_path / "logs"), display="none")
    scores = {log.eval.model.split("/")[-1]: {s.id: s.scores["maze_scorer"].value for s in log.samples}
              for log in logs}
    assert all(log.status == "success" for log in logs)
    assert_fields_equal(scores["maze-envs-local"], bench_scores(
        tmp_path, "tools", "default", "--variant", "partial", "--max-calls", "8", "--maze-count", "1", "--trials", "1"),
        count=1)
    wrong = scores["wrong"]
    assert len(wrong) == 1 and all(v["success"] == 0.0 and v["function_calls"] == 8.0 for v in wrong.values())
