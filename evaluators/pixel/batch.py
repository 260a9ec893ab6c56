"""Batch evaluation of a directory of generated images or videos on the run engine: solution matching, logs,
incremental/atomic outputs, resume, any backend. Every file gets a result or an error record.
"""

from __future__ import annotations

import logging
import os
import time
import traceback
from dataclasses import asdict, dataclass, replace
from pathlib import Path
from typing import Any, Literal

from maze_envs.core.atomic import ensure_directory
from maze_envs.core.errors import MazeConfigError
from maze_envs.core.render import PixelGeometry
from maze_envs.runs import Run, RunOptions, WorkItem
from maze_envs.tasks.files import IMAGE_SUFFIXES, VIDEO_SUFFIXES, media_of, solution_name, solution_stems, task_of

from .errors import PixelEvalError
from .image import ImageParams, score_image
from .reference import load_solution, metadata_geometries, read_image
from .results import RunOutputs, record_schema, round_suffix
from .video import VideoParams, iter_frames, score_video

Kind = Literal["image", "video"]
LOG_NAMES = {"image": "maze_vis_evaluation", "video": "maze_video_vis_evaluation"}
log = logging.getLogger("evaluators.pixel")


def generated_files(input_dir: str | os.PathLike, kind: Kind) -> list[Path]:
    """Return the generated images or videos in ``input_dir``, sorted; raise ``MazeConfigError`` naming
    ``input_dir`` when it is missing or holds none."""
    folder = Path(input_dir)
    if not folder.is_dir():
        raise MazeConfigError(f"{folder} is not a directory", parameter="input_dir")
    extensions = IMAGE_SUFFIXES if kind == "image" else VIDEO_SUFFIXES
    files = sorted(p for p in folder.iterdir() if p.is_file() and media_of(p) == kind)
    if not files:
        raise MazeConfigError(f"{folder} holds no generated {kind}s (expected files named <task>{extensions[0]}, "
                              f"any of {', '.join(extensions)})", parameter="input_dir")
    return files


@dataclass
class Job:
    """One file to score."""

    kind: Kind
    file: Path
    solution: Path
    geometry: PixelGeometry | None
    params: ImageParams | VideoParams
    visualization: Path | None


def score_job(job: Job) -> dict[str, Any]:
    """Return the result record of a job; raises ``PixelEvalError`` naming the file when it cannot be scored."""
    try:
        ref = load_solution(job.solution, geometry=job.geometry, colours=job.params.colours)
        if job.kind == "image":
            result, panels = score_image(read_image(job.file), ref, job.params, filename=job.file.name)
        else:
            frames = iter_frames(job.file, job.params.num_frames)
            result, panels = score_video(frames, ref, job.params, filename=job.file.name)
        if job.visualization is not None:
            from .visualize import save_visualization

            save_visualization(panels, result, job.visualization, video=job.kind == "video")
        return result.to_dict()
    except PixelEvalError:
        raise
    except Exception as exc:  # anything else a hostile file triggers is still one file's error
        detail = "".join(traceback.format_exception_only(type(exc), exc)).strip()
        raise PixelEvalError(f"{job.file}: unexpected error: {detail}") from exc


def error_record(item: WorkItem, message: str) -> dict[str, Any]:
    """Return the fields of the error record of a job that could not be scored (the engine adds ``error``)."""
    job: Job = item.payload
    return {"filename": job.file.name, "solution_file": job.solution.name}


def setup_logging(kind: Kind, log_dir: str | os.PathLike | None = "evaluation_logs") -> Path | None:
    """Send this package's log to ``<log_dir>/<maze_vis|maze_video_vis>_evaluation_<timestamp>.log``; return the
    file (with ``log_dir`` None: to nowhere, returning None)."""
    if log_dir is None:
        log.handlers[:] = [logging.NullHandler()]
        log.propagate = False
        return None
    folder = ensure_directory(log_dir, "log_dir")
    path = folder / f"{LOG_NAMES[kind]}_{time.strftime('%Y%m%d_%H%M%S')}.log"
    handler = logging.FileHandler(path, encoding="utf-8", errors="backslashreplace")  # any file name can be logged
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    log.handlers[:] = [handler]
    log.setLevel(logging.INFO)
    log.propagate = False
    return path


@dataclass
class BatchConfig:
    """Where a batch reads and writes, and how it runs (``run``: backend, workers, resume)."""

    kind: Kind
    solution_dir: Path
    output_dir: Path
    model_name: str
    params: ImageParams | VideoParams
    input_dir: Path | None = None
    files: list[Path] | None = None
    metadata: Path | None = None
    run: RunOptions = RunOptions()
    visualize: bool = True


def _config_dict(config: BatchConfig) -> dict[str, Any]:
    params = asdict(config.params)
    return {"kind": config.kind, "input_dir": str(config.input_dir) if config.input_dir else None,
            "solution_dir": str(config.solution_dir), "model_name": config.model_name,
            "metadata": str(config.metadata) if config.metadata else None, "workers": config.run.workers,
            "backend": config.run.backend, **params}


def batch_files(config: BatchConfig) -> list[Path]:
    """Return the files ``config`` scores (``files`` or all of ``input_dir``) once its inputs check out, having
    written nothing. Raises ``MazeConfigError`` naming ``input_dir``, ``solution_dir`` or ``metadata`` when one is
    missing."""
    files = config.files if config.files is not None else generated_files(config.input_dir, config.kind)
    if not config.solution_dir.is_dir():
        raise MazeConfigError(f"{config.solution_dir} is not a directory", parameter="solution_dir")
    if config.metadata is not None and not config.metadata.is_file():
        raise MazeConfigError(f"{config.metadata} is not a file", parameter="metadata")
    return files


def evaluate_batch(config: BatchConfig) -> tuple[dict[str, Any], Path, RunOutputs]:
    """Score every file of ``config`` (``files`` or all of ``input_dir``) through the run engine, writing results
    as they come; the output directory is locked for the run.

    Returns the summary, the timestamped results file and the run's outputs (records by file name).
    Raises ``MazeConfigError`` naming ``input_dir``, ``solution_dir`` or ``metadata`` when one is missing
    (``batch_files``), before anything is written.
    """
    files = batch_files(config)
    metadata = config.metadata or config.solution_dir / "metadata.jsonl"
    geometries = metadata_geometries(metadata)
    round_name = round_suffix(config.input_dir if config.input_dir else (files[0].parent if files else None))
    params = config.params
    workers = config.run.workers
    if config.kind == "video" and config.run.backend == "ray":
        params = replace(params, frame_workers=1)  # a Ray task holds one CPU
    elif config.kind == "video" and workers > 1:
        params = replace(params, frame_workers=max(1, (os.cpu_count() or 1) // workers))
    outputs = RunOutputs(config.output_dir, model_name=config.model_name, config=_config_dict(config),
                         round_name=round_name, per_file_results=config.kind == "video")
    stems = solution_stems(config.solution_dir)
    items = []
    for file in files:
        name = solution_name(task_of(file.name, stems) or task_of(file.name))
        job = Job(config.kind, file, config.solution_dir / name, geometries.get(name), params,
                  outputs.visualization_path(file.name) if config.visualize else None)
        items.append(WorkItem(file.name, job))
    with Run(outputs.dir, items, config.run, log_name=outputs.log_name, schema=record_schema(config.kind),
             accept=lambda record: record.get("filename") == record["id"]) as run:
        outputs.resume(run.records())
        log.info("evaluating %d of %d %ss (%d already done) for %s", len(run.todo), len(files), config.kind,
                 run.resumed, config.model_name)
        try:
            run.execute(score_job, kind="cpu", desc="evaluating", error_record=error_record,
                        on_record=lambda record: _add(outputs, record))
        finally:
            outputs.flush()
        summary, final = outputs.finish()
    log.info("summary: %s", summary)
    return summary, final, outputs


def _add(outputs: RunOutputs, record: dict[str, Any]) -> None:
    outputs.add(record)
    if "error" in record:
        log.warning("%s: error: %s", record["filename"], record["error"])
    else:
        log.info("%s: overall %.3f, target %.3f, crossing %s", record["filename"], record["overall_score"],
                 record["target_achievement"], record["wall_crossing_detected"])
