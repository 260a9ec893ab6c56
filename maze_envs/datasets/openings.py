"""``generate openings`` on the run engine: ``images/maze_00000.png ...``, ``annotations.jsonl`` (one record per
image), ``errors.jsonl`` (``{image, seed, error}`` per sample that cannot be made) and ``config.json`` (the
settings; resuming with other settings is refused)."""

from __future__ import annotations

import os
from functools import partial
from pathlib import Path

from maze_envs.core.atomic import save_image_atomic
from maze_envs.core.errors import MazeConfigError, MazeFormatError, brief_repr
from maze_envs.core.jsonfiles import read_json, write_json_atomic, write_jsonl
from maze_envs.openings.dataset import OpeningsDatasetConfig, build_sample, image_name, openings_record, sample_seeds
from maze_envs.runs import RunOptions, WorkItem
from maze_envs.runs.log import OK

from .writer import Dataset, WriteSummary, write_dataset

ANNOTATIONS = "annotations.jsonl"
ERRORS = "errors.jsonl"
CONFIG = "config.json"


def make_openings_sample(out: Path, payload: dict, *, config: OpeningsDatasetConfig) -> tuple[dict, list[str]]:
    """Write the image of sample ``payload`` (``index``, ``seed``) under ``out``; return its annotation record and
    files. Raises ``OpeningsError`` when the sample cannot be made."""
    name = image_name(payload["index"])
    puzzle, rendering = build_sample(config, payload["seed"])
    save_image_atomic(rendering.image, out / name)
    return openings_record(puzzle, rendering, name, config.style, config.extras), [name]


def _error_fields(payload: dict) -> dict:
    return {"image": image_name(payload["index"]), "seed": payload["seed"]}


def write_annotations(out: Path, entries: list[dict]) -> list[Path]:
    """Write ``annotations.jsonl`` and ``errors.jsonl`` from the log entries, in item order; return their paths."""
    records = [e["record"] for e in entries if e["status"] == OK]
    errors = [{**_error_fields(e["item"]), "error": e["error"]} for e in entries if e["status"] != OK]
    return [write_jsonl(out / ANNOTATIONS, records), write_jsonl(out / ERRORS, errors)]


def _settings(config: OpeningsDatasetConfig) -> dict:
    return {key: value for key, value in config.to_dict().items() if key != "count"}


def _check_config(config: OpeningsDatasetConfig, out: Path, resume: bool) -> None:
    """Refuse to resume a dataset made with other settings (count aside); then write ``config.json``."""
    path = out / CONFIG
    if resume and path.exists():
        previous = read_json(path)
        if not isinstance(previous, dict):
            raise MazeFormatError(f"expected the settings object, got {brief_repr(previous)}", source=path)
        if {k: v for k, v in previous.items() if k != "count"} != _settings(config):
            raise MazeConfigError(f"{path} was written with other settings ({brief_repr(previous, 200)}); "
                                  "use them or another output directory", parameter="resume")
    write_json_atomic(path, config.to_dict(), indent=2)


def write_openings_dataset(config: OpeningsDatasetConfig, output_dir: str | os.PathLike, *,
                           options: RunOptions = RunOptions(), overwrite: bool = False) -> WriteSummary:
    """Write ``config.count`` samples under ``output_dir``; return the summary (``failures``: the samples that
    cannot be made, also in ``errors.jsonl``). ``options`` and ``overwrite`` as for ``write_dataset``; resuming a
    dataset written with other settings raises ``MazeConfigError`` naming ``resume``."""
    seeds = sample_seeds(config.seed, config.count)
    dataset = Dataset(
        items=[WorkItem(image_name(i), {"index": i, "seed": seed}) for i, seed in enumerate(seeds)],
        make=partial(make_openings_sample, config=config), settings=_settings(config), desc="openings",
        write_indexes=write_annotations, index_names=(ANNOTATIONS, ERRORS, CONFIG), error_fields=_error_fields,
        prepare=partial(_check_config, config))
    return write_dataset(output_dir, dataset, options, overwrite=overwrite)
