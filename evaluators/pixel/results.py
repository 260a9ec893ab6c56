"""Result records (spec JSON fields), summary statistics, and the run's output files.

Output files follow the spec: ``evaluation_results[_<round>]_<timestamp>.json``, ``..._latest.json``,
``..._incremental.json`` (rewritten atomically while the run goes, and when it stops), per-video
``<name>[_<round>]_result.json`` and ``visualizations/<name>[_<round>]_evaluation.png``; beside them the run
engine's log ``evaluation_log[_<round>].jsonl``, one line per scored file, from which ``--resume`` skips
files already scored.
"""

from __future__ import annotations

import re
import time
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any, Iterable

import numpy as np

from maze_envs.core.atomic import ensure_directory
from maze_envs.core.jsonfiles import write_json_atomic
from maze_envs.runs.log import NUMBER, OPTIONAL_NUMBER, RecordSchema

ROUND_PATTERN = re.compile(r"(?:^|_)(round\d+)$")


@dataclass
class ImageResult:
    """One scored generated image (the spec's image fields, plus grid/alignment/colour-level provenance)."""

    filename: str
    solution_file: str
    wall_crossing_detected: bool
    wall_crossing_pixels: int
    wall_crossing_ratio: float
    layout_match_score: float
    maze_structure_iou: float
    green_position_match: bool
    red_position_match: bool
    green_centroid_distance: float | None
    red_centroid_distance: float | None
    path_match_iou: float
    path_precision: float
    path_recall: float
    target_achievement: float
    has_reflection: bool
    loop_count: int
    path_length_ratio: float
    exploration_score: float
    overall_score: float
    crossed_wall_segments: int = 0
    grid: dict[str, Any] = field(default_factory=dict)
    alignment: dict[str, Any] = field(default_factory=dict)
    colour_levels: dict[str, Any] = field(default_factory=dict)
    elapsed_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        """Return the JSON-ready record (floats rounded to 4 places)."""
        return {k: _rounded(v) for k, v in asdict(self).items()}


@dataclass
class VideoResult(ImageResult):
    """One scored generated video: the image fields plus the video-specific and gated ones."""

    total_frames: int = 0
    frames_with_marker: int = 0
    path_extraction_method: str = "green_marker_tracking"
    worst_layout_frame: int = 0
    layout_match_score_gated: int = 0
    target_achievement_gated: int = 0
    overall_score_gated: int = 0


_FIELD_TYPES = {"str": str, "bool": bool, "int": int, "float": NUMBER, "float | None": OPTIONAL_NUMBER,
                "dict[str, Any]": dict}


def record_schema(kind: str) -> RecordSchema:
    """Return the fields a logged record of a ``kind`` (``image`` or ``video``) run must carry to be used on
    resume: every field of its result for a scored file, the file names for a failed one."""
    result = ImageResult if kind == "image" else VideoResult
    return RecordSchema(ok={f.name: _FIELD_TYPES[f.type] for f in fields(result)},
                        error={"filename": str, "solution_file": str})


def _rounded(value: Any) -> Any:
    if isinstance(value, (float, np.floating)):
        return round(float(value), 4)
    if isinstance(value, (np.integer,)):
        return int(value)
    if isinstance(value, (np.bool_,)):
        return bool(value)
    return value


def _mean(values: list[float]) -> float:
    return float(np.mean(values)) if values else 0.0


def summarize(records: Iterable[dict[str, Any]]) -> dict[str, Any]:
    """Return the spec's summary statistics of result records (dicts); error records are counted apart.

    Gated and video-specific blocks appear when the records carry video fields.
    """
    records = list(records)
    ok = [r for r in records if "error" not in r]
    errors = [r for r in records if "error" in r]
    n = len(ok)

    def rate(count: int) -> float:
        return round(count / n, 4) if n else 0.0

    def values(key: str) -> list[float]:
        return [float(r[key]) for r in ok]

    overall = values("overall_score")
    crossings = sum(bool(r["wall_crossing_detected"]) for r in ok)
    reflections = sum(bool(r["has_reflection"]) for r in ok)
    summary: dict[str, Any] = {
        "total_files": len(records),
        "evaluated": n,
        "errors": {"count": len(errors), "files": [r["filename"] for r in errors]},
        "wall_crossing": {"count": crossings, "rate": rate(crossings)},
        "path_matching": {
            "mean_iou": round(_mean(values("path_match_iou")), 4),
            "std_iou": round(float(np.std(values("path_match_iou"))) if n else 0.0, 4),
            "mean_precision": round(_mean(values("path_precision")), 4),
            "mean_recall": round(_mean(values("path_recall")), 4),
            "mean_target_achievement": round(_mean(values("target_achievement")), 4),
        },
        "layout_matching": {
            "mean_score": round(_mean(values("layout_match_score")), 4),
            "green_match_rate": rate(sum(bool(r["green_position_match"]) for r in ok)),
            "red_match_rate": rate(sum(bool(r["red_position_match"]) for r in ok)),
        },
        "reflection": {"count": reflections, "rate": rate(reflections)},
        "overall": {
            "mean_score": round(_mean(overall), 4),
            "std_score": round(float(np.std(overall)) if n else 0.0, 4),
            "min_score": round(min(overall), 4) if n else 0.0,
            "max_score": round(max(overall), 4) if n else 0.0,
        },
    }
    if any("overall_score_gated" in r for r in ok):
        gated = {}
        for key in ("layout_match_score_gated", "target_achievement_gated", "overall_score_gated"):
            count = sum(int(r[key]) for r in ok)
            gated[f"{key}_count"] = count
            gated[f"{key}_rate"] = rate(count)
        summary["gated_metrics"] = gated
        summary["video_specific"] = {"avg_frames_with_marker": round(_mean(values("frames_with_marker")), 4)}
    return summary


def round_suffix(input_dir: str | Path | None) -> str:
    """Return ``roundN`` when a component of ``input_dir`` ends in ``_roundN`` (or is ``roundN``), else ''."""
    if input_dir is None:
        return ""
    for part in reversed(Path(input_dir).resolve().parts):
        match = ROUND_PATTERN.search(part)
        if match:
            return match.group(1)
    return ""


class RunOutputs:
    """The output files of one evaluation run; results are written as they arrive.

    The run engine's log (``evaluation_log[_<round>].jsonl``) is what ``--resume`` reads; the incremental JSON
    is rewritten from it at most once a second and when the run stops.
    """

    FLUSH_EVERY_S = 1.0

    def __init__(self, output_dir: str | Path, *, model_name: str, config: dict[str, Any], round_name: str = "",
                 per_file_results: bool = False):
        self.dir = ensure_directory(output_dir, "output_dir")
        self.model_name = model_name
        self.config = config
        self.suffix = f"_{round_name}" if round_name else ""
        self.per_file_results = per_file_results
        self.timestamp = time.strftime("%Y%m%d_%H%M%S")
        self.records: dict[str, dict[str, Any]] = {}
        self._flushed_at = 0.0

    @property
    def log_name(self) -> str:
        """Return the file name of the run engine's log in the output directory."""
        return f"evaluation_log{self.suffix}.jsonl"

    @property
    def incremental_path(self) -> Path:
        """Return the path of the incremental results file."""
        return self.dir / f"evaluation_results{self.suffix}_incremental.json"

    def visualization_path(self, filename: str) -> Path:
        """Return where the 2x2 visualisation of ``filename`` goes."""
        return self.dir / "visualizations" / f"{Path(filename).stem}{self.suffix}_evaluation.png"

    def resume(self, logged: Iterable[dict[str, Any]]) -> None:
        """Take the records of an earlier run (run-engine log records) as already done; returns nothing."""
        for record in logged:
            self.records[record["filename"]] = _spec_record(record)

    def add(self, logged: dict[str, Any]) -> None:
        """Store a result or error record (a run-engine log record) and write the per-file result; the
        incremental file is rewritten when a second has passed since the last time."""
        record = _spec_record(logged)
        self.records[record["filename"]] = record
        if self.per_file_results and "error" not in record:
            write_json_atomic(self.dir / f"{Path(record['filename']).stem}{self.suffix}_result.json", record, indent=2)
        if time.monotonic() - self._flushed_at >= self.FLUSH_EVERY_S:
            self.flush()

    def flush(self) -> None:
        """Rewrite the incremental file atomically with every record so far; returns nothing."""
        write_json_atomic(self.incremental_path, {"model_name": self.model_name, "config": self.config,
                                                  "completed": len(self.records),
                                                  "results": list(self.records.values())}, indent=2)
        self._flushed_at = time.monotonic()

    def finish(self) -> tuple[dict[str, Any], Path]:
        """Write the timestamped and ``_latest`` results with the summary; return the summary and the file."""
        results = sorted(self.records.values(), key=lambda r: r["filename"])
        payload = {"model_name": self.model_name, "timestamp": self.timestamp, "config": self.config,
                   "summary": summarize(results), "results": results}
        final = write_json_atomic(
            self.dir / f"evaluation_results{self.suffix}_{self.timestamp}.json", payload, indent=2
        )
        write_json_atomic(self.dir / f"evaluation_results{self.suffix}_latest.json", payload, indent=2)
        return payload["summary"], final


def _spec_record(logged: dict[str, Any]) -> dict[str, Any]:
    """Return a run-engine log record without the engine's ``id`` and ``status`` keys (the spec's fields)."""
    return {k: v for k, v in logged.items() if k not in ("id", "status")}
