"""The judge loop shared by every task: fill the template, attach the media, ask, parse (one format retry),
record each result incrementally, resume, and summarise."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any, Callable, Sequence

from maze_envs.core.excerpts import excerpt, reply_fields
from maze_envs.core.jsonfiles import write_json_atomic
from maze_envs.llm import SERVER_NOTE, ChatClient, Reply, RunStats, sum_usage
from maze_envs.llm.prompts import PromptTemplate
from maze_envs.runs import Run, RunOptions, RunResult, WorkItem
from maze_envs.runs.log import RecordSchema
from maze_envs.tasks.files import media_of

from .parse import parse_verdict

LOG_NAME = "results.jsonl"
RESULTS_NAME = "results.json"
SUMMARY_NAME = "summary.json"
REPORT_NAME = "report.html"
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
        return media_of(self.file) == "video"


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
        "id": item.id, "file": str(item.file), task.group_name: item.group,
        "status": "ok" if verdict.complete else "parse_error",
        "scores": {}, "explanation": verdict.explanation, **reply_fields(reply.text), "attempts": len(replies),
        "model": client.config.model, "template": str(task.template.path), "template_sha256": task.template.sha256,
        "values": item.values, **item.meta,
        "usage": _usage(replies, client),
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
        record["first_reply"] = excerpt(replies[0].text)
    return record


def _usage(replies: list[Reply], client: ChatClient) -> dict[str, Any]:
    stats = RunStats()
    for reply in replies:
        stats.add(reply, client.config)
    return stats.to_dict()


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


def _error_fields(task: JudgeTask, model: str):
    def fields(work_item: WorkItem, message: str) -> dict[str, Any]:
        item: JudgeItem = work_item.payload
        return {"file": str(item.file), task.group_name: item.group, "model": model, **item.meta}
    return fields


JUDGE_RECORD = RecordSchema(ok={"scores": dict}, error={"model": str},
                            others={"parse_error": {"missing_fields": list, "first_reply": str}})


def _accept(record: dict[str, Any]) -> bool:
    """Return whether a logged record from an earlier run is one this runner wrote (else the item runs again)."""
    return record.get("status") in (*DONE_STATUSES, "error") and isinstance(record.get("scores", {}), dict)


def run_judge(task: JudgeTask, items: Sequence[JudgeItem], client: ChatClient, output_dir: str | Path, *,
              options: RunOptions = RunOptions(), params: dict[str, Any] | None = None,
              extra_summary: Callable[[list[dict[str, Any]]], dict[str, Any]] | None = None) -> RunResult:
    """Judge every item on the run engine (``options``: backend, workers, resume); return the run.

    Each record is appended to ``results.jsonl`` as soon as it is done, so an interrupted run loses
    nothing; ``results.json`` (all records in item order), ``summary.json`` and ``report.html`` are written
    atomically at the end, or when the run stops. With ``options.resume`` items already ``ok`` or ``parse_error`` in
    the log are skipped. A per-item failure is recorded as ``error`` and the run goes on; a rejected key or
    an unreachable endpoint stops the run (results so far are kept) and is raised. Token and cost totals
    cover every record of the run, resumed ones included. ``extra_summary(records)`` adds sections.
    """
    from .report import write_report

    out = Path(output_dir)
    results_path, summary_path, report_path = out / RESULTS_NAME, out / SUMMARY_NAME, out / REPORT_NAME
    params = dict(params or {})
    work_items = [WorkItem(item.id, item) for item in items]

    with Run(out, work_items, options, log_name=LOG_NAME, accept=_accept, schema=JUDGE_RECORD) as run:
        def save(failure: str | None = None) -> dict[str, Any]:
            records = run.records()
            write_json_atomic(results_path, {"task": task.name, "model": client.config.model, "records": records})
            usage = sum_usage(r["usage"] for r in records if "usage" in r)
            local = usage["local_server"] or client.stats.local_server
            counts = run.counts()
            summary = {
                "task": task.name, "finished": run.finished, "model": client.config.model,
                "endpoint": {"base_url": client.base_url, "provider": client.config.provider,
                             "local_embedded_server": local, **({"note": SERVER_NOTE} if local else {})},
                "config": client.config.describe(), "template": task.template.describe(), "params": params,
                "backend": {"name": options.backend, "workers": options.workers},
                "counts": {"items": counts.items, "resumed": counts.resumed, "judged_now": counts.completed},
                "metrics": summarise(records, task), "usage": usage,
                "wall_time_s": round(run.elapsed_s, 3), "results": str(results_path),
            }
            if failure:
                summary["stopped_by"] = failure
            if extra_summary is not None:
                summary.update(extra_summary(records))
            write_json_atomic(summary_path, summary, indent=2)
            write_report(report_path, summary, task.group_name)
            return summary

        try:
            run.execute(partial(judge_item, client, task, params=params), kind="io", desc=f"judge {task.name}",
                        error_record=_error_fields(task, client.config.model))
        except BaseException as exc:
            save(str(exc) or type(exc).__name__)
            raise
        summary = save()
        return RunResult(run.records(), summary, results_path, summary_path, report_path)
