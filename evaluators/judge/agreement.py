"""Agreement between the maze judge and the pixel evaluator: confusion matrices and Cohen's kappa.

Pixel results are read by the pixel-evaluation spec's field names (``filename``,
``overall_score_gated``, ``maze_structure_iou``, ``wall_crossing_detected``, ``target_achievement``)
from any JSON layout that holds per-file records (a list, a ``results`` list, or a mapping of file
names to records), such as the pixel evaluator's ``evaluation_results_*.json`` and per-video
``*_result.json`` files.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Iterator, Mapping

from maze_envs.core.errors import MazeFormatError
from maze_envs.core.jsonfiles import read_json

from ..pixel.gates import gates


def _walk(doc: Any) -> Iterator[dict[str, Any]]:
    if isinstance(doc, dict):
        if "filename" in doc:
            yield doc
            return
        for value in doc.values():
            yield from _walk(value)
    elif isinstance(doc, list):
        for value in doc:
            yield from _walk(value)


def load_pixel_results(path: str | os.PathLike) -> dict[str, dict[str, Any]]:
    """Return the pixel evaluator's per-file records by file name; raises ``MazeFormatError`` naming the file
    when it is unreadable or holds no record with a ``filename``."""
    records = {Path(str(r["filename"])).name: r for r in _walk(read_json(path))}
    if not records:
        raise MazeFormatError("no per-file pixel results (records with a 'filename') found", source=path)
    return records


def pixel_pass(record: dict[str, Any]) -> int | None:
    """Return the pixel verdict: ``overall_score_gated`` when present (videos), else the same gate computed
    from an image record: ``maze_structure_iou > 0.8`` (when recorded), no wall crossing and
    ``target_achievement > 0.95``; None when the record has none of these (e.g. an error record)."""
    if record.get("overall_score_gated") is not None:
        return int(bool(record["overall_score_gated"]))
    if record.get("target_achievement") is None or record.get("wall_crossing_detected") is None:
        return None
    iou = record.get("maze_structure_iou")
    layout_iou = 1.0 if iou is None else float(iou)  # no recorded IoU does not fail the layout gate
    return gates(
        layout_iou, float(record["target_achievement"]), bool(record["wall_crossing_detected"])
    ).overall_score_gated


def cohen_kappa(matrix: list[list[int]]) -> float | None:
    """Return Cohen's kappa of a 2x2 confusion matrix; None when chance agreement is 1 (kappa undefined)."""
    n = sum(map(sum, matrix))
    if n == 0:
        return None
    observed = (matrix[0][0] + matrix[1][1]) / n
    rows = [sum(row) / n for row in matrix]
    cols = [(matrix[0][j] + matrix[1][j]) / n for j in range(2)]
    expected = rows[0] * cols[0] + rows[1] * cols[1]
    return None if expected >= 1 else (observed - expected) / (1 - expected)


def confusion(pairs: list[tuple[int, int]]) -> dict[str, Any]:
    """Return the 2x2 confusion matrix (rows: pixel 0/1, columns: judge 0/1), the agreement rate and kappa."""
    matrix = [[0, 0], [0, 0]]
    for pixel, judge in pairs:
        matrix[pixel][judge] += 1
    n = len(pairs)
    return {"n": n, "matrix": matrix, "rows": "pixel evaluator 0/1", "columns": "VLM judge 0/1",
            "agreement": (matrix[0][0] + matrix[1][1]) / n if n else None, "cohen_kappa": cohen_kappa(matrix)}


def agreement_report(records: list[dict[str, Any]], pixel_results: str | os.PathLike,
                     pixel: Mapping[str, dict[str, Any]] | None = None) -> dict[str, Any]:
    """Return the agreement of judged records with the pixel results file, on overall success
    (``SUCCESS`` vs the gated pixel pass) and on wall crossing.

    ``pixel`` is the file's records as ``load_pixel_results`` returns them (read from ``pixel_results`` when None).
    """
    if pixel is None:
        pixel = load_pixel_results(pixel_results)
    success, walls, unmatched = [], [], []
    for record in records:
        if record.get("status") != "ok":
            continue
        found = pixel.get(Path(record["file"]).name)
        if found is None:
            unmatched.append(Path(record["file"]).name)
            continue
        verdict = pixel_pass(found)
        if verdict is not None:
            success.append((verdict, record["scores"]["SUCCESS"]))
        if found.get("wall_crossing_detected") is not None:
            walls.append((int(bool(found["wall_crossing_detected"])), record["scores"]["WALL_CROSSING"]))
    return {"pixel_results": str(pixel_results), "success": confusion(success), "wall_crossing": confusion(walls),
            "judged_without_pixel_result": unmatched}
