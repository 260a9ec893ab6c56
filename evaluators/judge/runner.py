"""The judge loop shared by every task: fill the template, attach the media, ask, parse (one format retry),
record each result incrementally, resume, and summarise."""

from __future__ import annotations

import contextlib
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Sequence

from maze_envs.core.errors import MazeEnvsError
from maze_envs.core.formats import append_jsonl, read_jsonl, write_json_atomic, write_jsonl
from maze_envs.core.progress import progress
from maze_envs.llm import SERVER_NOTE, ChatClient, LLMAuthError, LLMConnectionError, map_unordered

from .parse import parse_verdict
from .template import PromptTemplate

VIDEO_SUFFIXES = (".mp4", ".webm", ".mov", ".avi", ".mkv")
IMAGE_SUFFIXES = (".png", ".jpg", ".jpeg", ".webp", ".bmp")
LOG_NAME = "results.jsonl"
RESULTS_NAME = "results.json"
SUMMARY_NAME = "summary.json"
DONE_STATUSES = ("ok", "parse_error")


@dataclass(frozen=True)
class JudgeItem:
    """One output to judge: its ``id``, media ``file``, the template ``values``, its ``group`` (subtask or
    difficulty) and extra ``meta`` copied into the result."""

    id: str
    file: Path
    values: dict[str, Any]
    group: str = ""
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def is_video(self) -> bool:
        """Return whether the media is a video (by its suffix)."""
        return is_video(self.file)


def is_video(path: Path) -> bool:
    """Return whether ``path`` names a video file (by its suffix)."""
    return path.suffix.lower() in VIDEO_SUFFIXES


@dataclass(frozen=True)
class JudgeTask:
    """What a judge asks: the prompt ``template``, the binary ``fields`` of the reply, the name of the item
    groups, the ``primary`` metric and ``derive`` (extra binary scores computed from the parsed ones)."""

    name: str
    template: PromptTemplate
    fields: tuple[str, ...]
    group_name: str
    primary: str
    derive: Callable[[dict[str, int]], dict[str, int]] | None = None

    def reminder(self) -> str:
        """Return the format reminder sent after an unreadable reply."""
        lines = "\n".join(f"{f}: <0 or 1>" for f in self.fields)
        return ("Your reply could not be read. Answer again in exactly this format, each field on its own line "
                f"and nothing before the first line:\n{lines}\nEXPLANATION: <one sentence per dimension>")


@dataclass(frozen=True)
class JudgeRun:
    """A finished (or aborted) run: every record, the summary, and where both were written."""

    records: list[dict[str, Any]]
    summary: dict[str, Any]
    results_path: Path
    summary_path: Path


def judge_item(client: ChatClient, task: JudgeTask, item: JudgeItem, params: dict[str, Any]) -> dict[str, Any]:
    """Return the result record of one item: ``ok`` with scores, or ``parse_error`` with the raw reply after
    one retry with a format reminder. Raises the client's errors."""
    prompt = task.template.fill(item.values)
    media = {"video": item.file} if item.is_video else {"images": [item.file]}
    messages = client.messages(prompt, **media)
    began = time.perf_counter()
    reply = client.chat(messages, **params)
    replies = [reply]
    verdict = parse_verdict(reply.text, task.fields)
    if not verdict.complete:
        messages = messages + [{"role": "assistant", "content": reply.text},
                               {"role": "user", "content": task.reminder()}]
        reply = client.chat(messages, **params)
        replies.append(reply)
        verdict = parse_verdict(reply.text, task.fields)
    record: dict[str, Any] = {
        "id": item.id, "file": str(item.file), task.group_name: item.group, "status": "ok" if verdict.complete else "parse_error",
        "scores": {}, "explanation": verdict.explanation, "raw_reply": reply.text, "attempts": len(replies),
        "model": client.config.model, "template": str(task.template.path), "template_sha256": task.template.sha256,
        "values": item.values, **item.meta,
        "usage": {"prompt_tokens": sum(r.usage.prompt_tokens for r in replies),
                  "completion_tokens": sum(r.usage.completion_tokens for r in replies)},
        "cached": all(r.cached for r in replies), "latency_s": round(time.perf_counter() - began, 4),
        "local_server": any(r.local_server for r in replies),
    }
    if verdict.complete:
        scores = dict(verdict.scores)
        if task.derive is not None:
            scores.update(task.derive(scores))
        record["scores"] = scores
    else:
        record["missing_fields"] = list(verdict.missing)
        record["first_reply"] = replies[0].text
    return record


def _rates(records: list[dict[str, Any]], task: JudgeTask) -> dict[str, Any]:
    judged = [r for r in records if r["status"] == "ok"]
    out: dict[str, Any] = {"n": len(records), "n_judged": len(judged),
                           "parse_errors": sum(r["status"] == "parse_error" for r in records),
                           "errors": sum(r["status"] == "error" for r in records)}
    names = list(judged[0]["scores"]) if judged else list(task.fields)
    out["accuracy"] = (sum(r["scores"][task.primary] for r in judged) / len(judged)) if judged else None
    for name in names:
        out[f"{name.lower()}_rate"] = (sum(r["scores"][name] for r in judged) / len(judged)) if judged else None
    return out


def summarise(records: list[dict[str, Any]], task: JudgeTask) -> dict[str, Any]:
    """Return the metrics: ``overall`` and per group, each with counts, ``accuracy`` (mean of the primary
    score over judged items) and the rate of every binary score."""
    groups = sorted({str(r.get(task.group_name, "")) for r in records})
    return {"primary": task.primary, "overall": _rates(records, task),
            f"by_{task.group_name}": {g: _rates([r for r in records if str(r.get(task.group_name, "")) == g], task)
                                      for g in groups}}


def _load_done(path: Path, ids: set[str]) -> list[dict[str, Any]]:
    """Return the last record per item id in the JSONL log at ``path`` that is done (a cut-off last line is ignored)."""
    latest = {r["id"]: r for r in read_jsonl(path, skip_bad=True) if isinstance(r, dict) and r.get("id") in ids}
    return [r for r in latest.values() if r.get("status") in DONE_STATUSES]


def run_judge(task: JudgeTask, items: Sequence[JudgeItem], client: ChatClient, output_dir: str | Path, *,
              workers: int = 1, resume: bool = False, params: dict[str, Any] | None = None,
              extra_summary: Callable[[list[dict[str, Any]]], dict[str, Any]] | None = None) -> JudgeRun:
    """Judge every item with ``workers`` concurrent requests; return the run.

    Each record is appended to ``results.jsonl`` as soon as it is done, so an interrupted run loses
    nothing; ``results.json`` (all records in item order) and ``summary.json`` are written atomically
    at the end, or when the run stops. With ``resume`` items already ``ok`` or ``parse_error`` in the
    log are skipped. A per-item failure is recorded as ``error`` and the run goes on; a rejected key or
    an unreachable endpoint stops the run (results so far are kept) and is raised.
    ``extra_summary(records)`` adds sections to the summary.
    """
    out = Path(output_dir)
    out.mkdir(parents=True, exist_ok=True)
    log_path, results_path, summary_path = out / LOG_NAME, out / RESULTS_NAME, out / SUMMARY_NAME
    params = dict(params or {})
    done = _load_done(log_path, {i.id for i in items}) if resume else []
    write_jsonl(log_path, done)
    done_ids = {r["id"] for r in done}
    todo = [i for i in items if i.id not in done_ids]
    records = list(done)
    began = time.time()

    def save(finished: bool, failure: str | None = None) -> dict[str, Any]:
        order = {i.id: n for n, i in enumerate(items)}
        records.sort(key=lambda r: order.get(r["id"], len(order)))
        write_json_atomic(results_path, {"task": task.name, "model": client.config.model, "records": records})
        local = client.stats.local_server or any(r.get("local_server") for r in records)
        summary = {
            "task": task.name, "finished": finished, "model": client.config.model,
            "endpoint": {"base_url": client.base_url, "provider": client.config.provider,
                         "local_embedded_server": local, **({"note": SERVER_NOTE} if local else {})},
            "config": client.config.describe(), "template": task.template.describe(), "params": params,
            "counts": {"items": len(items), "resumed": len(done), "judged_now": len(records) - len(done)},
            "metrics": summarise(records, task), "usage": client.stats.to_dict(),
            "wall_time_s": round(time.time() - began, 3), "results": str(results_path),
        }
        if failure:
            summary["stopped_by"] = failure
        if extra_summary is not None:
            summary.update(extra_summary(records))
        write_json_atomic(summary_path, summary, indent=2)
        return summary

    stream = map_unordered(lambda item: judge_item(client, task, item, params), todo, workers)
    with contextlib.closing(stream), open(log_path, "a", encoding="utf-8") as log:
        try:
            for item, record, error in progress(stream, desc=f"judge {task.name}", total=len(todo)):
                if isinstance(error, (LLMAuthError, LLMConnectionError)) or \
                        (error is not None and not isinstance(error, MazeEnvsError)):
                    raise error
                if error is not None:
                    record = {"id": item.id, "file": str(item.file), task.group_name: item.group, "status": "error",
                              "error": str(error), "model": client.config.model, **item.meta}
                records.append(record)
                append_jsonl(log, record)
        except BaseException as exc:
            save(False, str(exc) or type(exc).__name__)
            raise
    return JudgeRun(records, save(True), results_path, summary_path)
