"""Hostile inputs for the run engine's two ends: resumed logs whose records are damaged (missing, null or
mistyped fields, unknown statuses) read back by each consumer, and records full of strings that could crash a
writer or leak a credential (lone surrogates, undecodable path bytes, URLs with passwords and keys, headers).

Shared by ``tests/runs/test_runs_writers.py`` and ``benchmarks/fuzz_readers.py``. A resumed log is handled when the
consumer's resumed run returns (or stops with a ``MazeEnvsError``); a write is handled when it returns, its file
is valid UTF-8 holding the record read back as written (credentials redacted) and no credential is in it.
"""

from __future__ import annotations

import json
import os
import random
from pathlib import Path
from typing import Any, Callable

from _bench_support import write_mazes
from _hostile_inputs import Reader, mutate
from _writers_support import pixel_inputs, writer_commands

from maze_envs.cli import main
from maze_envs.core.atomic import atomic_write
from maze_envs.core.jsonfiles import read_json, read_jsonl, write_json_atomic
from maze_envs.core.secrets import redact_secrets
from maze_envs.runs import ResultLog, Run, RunOptions, WorkItem
from maze_envs.runs.log import RecordSchema

CANARY = "sk-CANARY-fuzz-77a1"
WRONG_VALUES = (None, "", "x", 0, -1, 1.5, True, [], {}, [1, 2], {"a": None}, "A" * 10_000, 10**30)


def mutate_record(data: bytes, rng: random.Random) -> bytes:
    """Return the JSONL ``data`` with one record damaged as a stopped or edited run leaves it (a field removed,
    nulled or of another type, the status changed, only ``id`` and ``status`` kept), or, one time in four, a
    byte-level mutation (``mutate``)."""
    lines = data.decode("utf-8", "replace").splitlines()
    objects = [i for i, line in enumerate(lines) if line.startswith("{")]
    if not objects or rng.random() < 0.25:
        return mutate(data, rng)
    index = rng.choice(objects)
    record = json.loads(lines[index])
    action = rng.randrange(4)
    fields = [k for k in record if k != "id"]
    if action == 0 and fields:
        del record[rng.choice(fields)]
    elif action == 1 and fields:
        record[rng.choice(fields)] = rng.choice(WRONG_VALUES)
    elif action == 2:
        record["status"] = rng.choice(("ok", "error", "parse_error", "done", None, 1))
    else:
        record = {"id": record.get("id"), "status": rng.choice(("ok", "error"))}
    line = json.dumps(record)
    lines = lines + [line] if rng.random() < 0.5 else lines[:index] + [line] + lines[index + 1:]
    return ("\n".join(lines) + "\n").encode("utf-8")


# resumed logs

_SCHEMA = RecordSchema(ok={"n": int, "square": int}, error={"n": int})


def _engine_items() -> list[WorkItem]:
    return [WorkItem(f"item-{i}", i) for i in range(4)]


def _square(n: int) -> dict:
    if n == 3:
        raise ValueError("three fails")
    return {"n": n, "square": n * n}


def _engine_log(directory: Path) -> Path:
    with Run(directory, _engine_items(), schema=_SCHEMA) as run:
        run.execute(_square, kind="io", error_record=lambda item, message: {"n": item.payload})
    return run.log_path


def _engine_resume(path: Path) -> None:
    with Run(path.parent, _engine_items(), RunOptions(resume=True, retry_errors=False), schema=_SCHEMA) as run:
        run.execute(_square, kind="io", error_record=lambda item, message: {"n": item.payload})
        for record in run.records():  # what a consumer does with every record
            _ = record["square"] + record["n"] if record["status"] == "ok" else record["error"] + str(record["n"])


def _command(name: str) -> Callable[[Path], list[str]]:
    def command(directory: Path) -> list[str]:
        inputs = directory / "in"
        return [*writer_commands(inputs)[name], "--output-dir", str(directory / "out")]
    return command


def _cli_log(name: str, log_name: str, make_inputs: Callable[[Path], Any]) -> Reader:
    command = _command(name)

    def write(directory: Path) -> Path:
        make_inputs(directory / "in")
        if main(command(directory)) != 0:
            raise RuntimeError(f"the {name} run that makes the sample log failed")
        return directory / "out" / log_name

    def read(path: Path) -> None:
        main([*command(path.parent.parent), "--resume", "--no-retry-errors"])
    return Reader(f"{name} --resume log", write, read)


def _pixel_inputs(inputs: Path) -> None:
    pixel_inputs(inputs / "pixel")


def _maze_inputs(inputs: Path) -> None:
    write_mazes(inputs / "mazes", sizes=("5x5",), count=1)


RESUMED_LOGS: tuple[Reader, ...] = (
    Reader("run engine --resume log", _engine_log, _engine_resume),
    _cli_log("eval-image", "evaluation_log_round1.jsonl", _pixel_inputs),
    _cli_log("eval-video", "evaluation_log_round1.jsonl", _pixel_inputs),
    _cli_log("bench", "results.jsonl", _maze_inputs),
    _cli_log("suite", "results.jsonl", lambda inputs: inputs.mkdir(parents=True, exist_ok=True)),
)


# writers

HOSTILE_STRINGS = ("\ud800", "\udfff", "a\udc80b", "\udcff\udcfe", "\x00\x1b[2J", "é 漢字 🙂", "\u2028\u2029",
                   "A" * 50_000, f"http://user:{CANARY}@host:8000/v1?key={CANARY}&mode=1",
                   f"see https://host/v1?api-key={CANARY}&x=1.", f"Bearer {CANARY}")
HOSTILE_KEYS = ("text", "key", "api_key", "Authorization", "x-api-key", "password", "reply\ud800", "path",
                "base_url", "max_tokens")
_CREDENTIAL_FIELDS = ("api_key", "Authorization", "x-api-key", "password")


def hostile_record(rng: random.Random, depth: int = 0) -> dict[str, Any]:
    """Return a record of hostile strings under hostile keys, nested up to three levels (seeded by ``rng``)."""
    record: dict[str, Any] = {}
    for _ in range(rng.randint(1, 5)):
        key = rng.choice(HOSTILE_KEYS)
        roll = rng.random()
        if key in _CREDENTIAL_FIELDS:
            value: Any = f"{CANARY}-{rng.randrange(100)}"
        elif roll < 0.6:
            value = rng.choice(HOSTILE_STRINGS)
        elif roll < 0.8 and depth < 3:
            value = hostile_record(rng, depth + 1)
        else:
            value = [rng.choice(HOSTILE_STRINGS), rng.randint(-10**20, 10**20)]
        record[key] = value
    return record


def _write_json(path: Path, record: dict) -> Any:
    write_json_atomic(path, record, indent=1)
    return read_json(path)


def _append_log(path: Path, record: dict) -> Any:
    log = ResultLog(path)
    log.append({"id": "a", "status": "ok", **record})
    log.close()
    (back,) = read_jsonl(path)
    return {k: v for k, v in back.items() if k not in ("id", "status")}


def _engine_record(path: Path, record: dict) -> Any:
    with Run(path, [WorkItem("a", record)]) as run:
        run.execute(lambda payload: payload, kind="io")
    (back,) = read_jsonl(run.log_path)
    return {k: v for k, v in back.items() if k not in ("id", "status")}


def _free_text(value: Any) -> list[str]:
    """Return the strings of ``value`` outside credential fields (a text file has no fields to redact by)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for k, v in value.items() if k not in _CREDENTIAL_FIELDS for t in _free_text(v)]
    if isinstance(value, list):
        return [t for v in value for t in _free_text(v)]
    return []


def _text(path: Path, record: dict) -> Any:
    with atomic_write(path) as fh:
        fh.write("\n".join(_free_text(record)))
    return None  # a text file is checked for valid UTF-8 and the credential only


WRITERS: tuple[tuple[str, Callable[[Path, dict], Any]], ...] = (
    ("write_json_atomic", _write_json), ("result log append", _append_log), ("run engine record", _engine_record),
    ("atomic_write text", _text))


def write_handled(name: str, write: Callable[[Path, dict], Any], directory: Path, rng: random.Random) -> str | None:
    """Write a ``hostile_record`` with ``write`` under ``directory``, in a folder whose name is UTF-8 or not (one
    time in two); return None when it is handled, else what went wrong."""
    folder = directory / "plain" if rng.random() < 0.5 else Path(os.fsdecode(os.fsencode(directory) + b"/bad\xff"))
    folder.mkdir(parents=True, exist_ok=True)
    record = hostile_record(rng)
    target = folder / ("out.json" if name != "run engine record" else "run")
    try:
        back = write(target, record)
    except Exception as exc:  # what is measured: a write must not fail on a string
        return f"{type(exc).__name__}: {str(exc)[:160]}"
    files = [p for p in Path(folder).rglob("*") if p.is_file()]
    for path in files:
        data = path.read_bytes()
        try:
            data.decode("utf-8")
        except UnicodeDecodeError:
            return f"{path.name} is not valid UTF-8"
        if CANARY.encode() in data:
            return f"{path.name} holds the credential"
    if back is not None and back != redact_secrets(record):
        return "the record read back differs from the one written"
    return None
