"""Dataset writers on the run engine: one work item per sample, its files written atomically, the index files
rebuilt from the run's log.

Each sample is a ``WorkItem`` whose payload (a JSON object) says what to make; ``make(out, payload)`` writes the
sample's files atomically and returns its index record and the files it wrote. The log ``generation_log.jsonl``
in the output directory gets one line per sample as it is done::

    {"id", "status", "item": payload, "settings", "record", "files": {path: bytes}, "digest"}

The writer's index files (``metadata.jsonl``, ``annotations.jsonl``, ...) are rewritten atomically from the log,
in item order, when the run ends or stops (Ctrl-C, a fatal error). The output directory is locked for the run.

A directory that already holds files is refused unless the run resumes it or overwrites it. Resuming keeps a
sample when its log line checks out (same item and settings, digest intact, every file present with its logged
size and readable) and makes every other one again; overwriting first removes the files the earlier run's log
lists, the index files and the log, and leaves files no writer wrote. Either way the temporary files of writes
cut short are removed first.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path, PurePosixPath
from typing import Any, Callable, Sequence

from PIL import Image

from maze_envs.core.datafiles import open_data_file
from maze_envs.core.errors import FatalRunError, MazeConfigError, MazeEnvsError
from maze_envs.core.jsonfiles import read_json
from maze_envs.runs import ResultLog, Run, RunOptions, WorkItem
from maze_envs.runs.log import ERROR, OK

LOG_NAME = "generation_log.jsonl"

Make = Callable[[Path, dict], tuple[dict, list[str]]]


@dataclass(frozen=True)
class Dataset:
    """What one writer makes.

    ``items``: one per sample, each payload a JSON object that determines the sample. ``make(out, payload)``
    writes the sample and returns ``(record, files)``: its index record and the paths it wrote, relative to
    ``out`` (a module-level function or a ``functools.partial`` of one, so worker processes can run it).
    ``settings``: the run-wide settings (JSON) a logged sample must have been made with. ``write_indexes(out,
    entries)`` writes the index files from the log entries in item order and returns their paths;
    ``index_names`` are those files (``overwrite`` removes them). ``error_fields(payload)`` adds fields to the
    log entry of a failed sample. ``prepare(out, resume)`` runs under the lock before the log is read (e.g. to
    check and write a settings file).
    """

    items: Sequence[WorkItem]
    make: Make
    settings: dict[str, Any]
    desc: str
    write_indexes: Callable[[Path, list[dict]], list[Path]] | None = None
    index_names: tuple[str, ...] = ()
    error_fields: Callable[[dict], dict] | None = None
    prepare: Callable[[Path, bool], None] | None = None


@dataclass(frozen=True)
class WriteSummary:
    """What a writer's run did: samples ``written`` now and ``resumed`` from an earlier run, the index ``records``
    of every sample made and the log entries of those that failed (``failures``), both in item order, the
    index files and the log; ``finished`` is true when every sample has a record or a failure."""

    written: int
    resumed: int
    records: list[dict]
    failures: list[dict]
    indexes: list[Path]
    log: Path
    finished: bool


def _canonical(value: Any) -> Any:
    """Return ``value`` as it reads back from JSON (tuples become lists), so it compares equal to a logged copy."""
    return json.loads(json.dumps(value))


def _digest(entry: dict) -> str:
    body = {key: entry.get(key) for key in ("item", "settings", "record", "files")}
    return hashlib.sha256(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


def make_sample(make: Make, out: Path, settings: dict, payload: dict) -> dict:
    """Return the log entry of the sample ``payload`` after ``make`` has written it under ``out`` (the engine adds
    ``id`` and ``status``). A ``MazeConfigError`` stops the run: bad settings would fail every sample alike."""
    try:
        record, files = make(out, payload)
    except MazeConfigError as exc:
        raise FatalRunError(str(exc)) from exc
    entry = {"item": payload, "settings": settings, "record": record,
             "files": {name: (out / name).stat().st_size for name in files}}
    entry["digest"] = _digest(entry)
    return entry


def _inside(out: Path, name: Any) -> Path | None:
    """Return ``out / name`` when ``name`` is a relative path that stays inside ``out``, else None."""
    if not isinstance(name, str) or not name:
        return None
    path = PurePosixPath(name)
    if path.is_absolute() or ".." in path.parts or "\\" in name:
        return None
    return out / path


def _readable(path: Path) -> bool:
    if path.suffix == ".png":
        try:
            with open_data_file(path) as fh, Image.open(fh) as image:
                image.verify()
        except Exception:  # any decoding failure means the file is not the one logged
            return False
        return True
    if path.suffix == ".json":
        try:
            read_json(path)
        except MazeEnvsError:
            return False
    return True


def files_intact(out: Path, files: Any) -> bool:
    """Return whether every file of a log entry's ``files`` ({path: bytes}) is under ``out``, a regular file of
    that many bytes (more than none) and, for PNG and JSON, readable."""
    if not isinstance(files, dict) or not files:
        return False
    for name, size in files.items():
        path = _inside(out, name)
        if path is None or type(size) is not int or size < 1:
            return False
        try:
            if not path.is_file() or path.stat().st_size != size:
                return False
        except OSError:
            return False
        if not _readable(path):
            return False
    return True


def _accept(out: Path, expected: dict[str, dict], settings: dict, entry: dict) -> bool:
    """Return whether a logged entry of an earlier run still checks out (else its sample is made again)."""
    payload = expected.get(entry["id"])
    if payload is None or entry.get("item") != payload or entry.get("settings") != settings:
        return False
    if entry.get("status") == ERROR:
        return isinstance(entry.get("error"), str)
    try:
        digest = _digest(entry)
    except (ValueError, TypeError, RecursionError):
        return False
    return entry.get("status") == OK and entry.get("digest") == digest and files_intact(out, entry.get("files"))


def _remove_previous(out: Path, index_names: Sequence[str]) -> None:
    """Remove the files the log in ``out`` lists, the index files and the log; then the folders left empty."""
    log_path = out / LOG_NAME
    names = list(index_names) + [LOG_NAME]
    if log_path.is_file():
        for entry in ResultLog(log_path).records.values():
            files = entry.get("files")
            names += list(files) if isinstance(files, dict) else []
    real = out.resolve()
    folders = set()
    for name in names:
        path = _inside(out, name)
        if path is not None and path.is_file() and real in path.resolve().parents:
            path.unlink()
            folders.update(p for p in path.parents if out in p.parents)
    for folder in sorted(folders, key=lambda p: len(p.parts), reverse=True):
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()


def _prepare(out: Path, dataset: Dataset, resume: bool, overwrite: bool) -> None:
    if overwrite:
        _remove_previous(out, dataset.index_names)
    if dataset.prepare is not None:
        dataset.prepare(out, resume)


def write_dataset(output_dir: str | os.PathLike, dataset: Dataset, options: RunOptions = RunOptions(), *,
                  overwrite: bool = False) -> WriteSummary:
    """Make every sample of ``dataset`` under ``output_dir`` on the run engine (``options``: backend, workers,
    resume); return the summary. The index files are rewritten even when the run stops.

    Raises ``OutputNotEmptyError`` when ``output_dir`` holds files and neither ``options.resume`` nor
    ``overwrite`` is set, ``MazeConfigError`` when both are, ``RunLockedError`` when another run holds it.
    """
    overwrite = overwrite or options.overwrite
    if options.resume and overwrite:
        raise MazeConfigError("cannot be combined with resume: resume keeps the dataset, overwrite replaces it",
                              parameter="overwrite")
    options = replace(options, overwrite=overwrite)
    out = Path(output_dir)
    items = [WorkItem(item.id, _canonical(item.payload)) for item in dataset.items]
    expected = {item.id: item.payload for item in items}
    settings = _canonical(dataset.settings)

    def error_entry(item: WorkItem, message: str) -> dict:
        fields = dataset.error_fields(item.payload) if dataset.error_fields is not None else {}
        return {"item": item.payload, "settings": settings, **fields}

    made: list[str] = []

    def count(entry: dict) -> None:
        if entry["status"] == OK:
            made.append(entry["id"])

    with Run(out, items, options, log_name=LOG_NAME, accept=partial(_accept, out, expected, settings),
             prepare=partial(_prepare, out, dataset, options.resume, overwrite)) as run:
        indexes: list[Path] = []
        try:
            run.execute(partial(make_sample, dataset.make, out, settings), kind="cpu", desc=dataset.desc,
                        error_record=error_entry, on_record=count)
        finally:
            entries = run.records()
            if dataset.write_indexes is not None:
                indexes = dataset.write_indexes(out, entries)
        return WriteSummary(written=len(made), resumed=run.resumed,
                            records=[e["record"] for e in entries if e["status"] == OK],
                            failures=[e for e in entries if e["status"] == ERROR], indexes=indexes,
                            log=run.log_path, finished=run.finished)
