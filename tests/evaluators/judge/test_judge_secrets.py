"""A canary key given in the environment, inside --base-url and nested in the model YAML reaches no output, cache
or log file of a judge run and no message it prints."""

from _llm_support import FAST_FLAGS, math_manifest, problem_index, verdict

from maze_envs.cli import main
from maze_envs.core.jsonfiles import read_json
from maze_envs.llm import ModelServer

CANARY = "sk-CANARY-7d1c0b2e"


def _with_credentials(base_url):
    scheme, rest = base_url.split("://", 1)
    return f"{scheme}://judge:{CANARY}@{rest}"


def _scan(root):
    written = [p for p in root.rglob("*") if p.is_file()]
    return written, [p for p in written if CANARY.encode() in p.read_bytes()]


def test_a_canary_key_reaches_no_file_and_no_message(tmp_path, monkeypatch, capsys):
    monkeypatch.setenv("JUDGE_CANARY_KEY", CANARY)
    monkeypatch.setenv("MAZE_ENVS_CACHE", str(tmp_path / "run" / "default-cache"))
    manifest = math_manifest(tmp_path / "run" / "in", 3)
    out = tmp_path / "run" / "out"
    with ModelServer(lambda request: verdict(1, problem_index(request) % 2, 0)) as server:
        status = main(["judge", "--task", "math", "--manifest", str(manifest), "--model", "judge-model",
                       "--base-url", _with_credentials(server.base_url), "--api-key-env", "JUDGE_CANARY_KEY",
                       "--cache-dir", str(out / "cache"), "--output-dir", str(out), *FAST_FLAGS])
        assert status == 0 and server.request_count == 3
    summary = read_json(out / "summary.json")
    assert ":***@" in summary["endpoint"]["base_url"] and ":***@" in summary["config"]["base_url"]

    nested = tmp_path / "run" / "model.yaml"
    nested.write_text(f"model:\n  name: judge-model\n  api_key: {CANARY}\n", encoding="utf-8")
    assert main(["judge", "--task", "math", "--manifest", str(manifest), "--model-config", str(nested),
                 "--output-dir", str(tmp_path / "run" / "refused"), *FAST_FLAGS]) == 2

    written, leaked = _scan(tmp_path / "run")
    assert any("cache" in p.parts for p in written) and (out / "results.jsonl") in written
    assert leaked == [nested]  # only the file the user wrote holds it
    captured = capsys.readouterr()
    assert "model.api_key" in captured.err and CANARY not in captured.out + captured.err
