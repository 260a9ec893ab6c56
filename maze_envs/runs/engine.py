"""The run engine: a list of work items with stable ids becomes records in a locked, resumable JSONL log.

    with Run(out_dir, items, RunOptions(workers=4, resume=True)) as run:
        try:
            run.execute(score, kind="cpu", desc="scoring")
        finally:
            write_summary(run.records(), finished=run.finished)

Each finished item is appended to the log at once; a per-item failure becomes an ``error`` record and the
run goes on; a ``FatalRunError`` (rejected key, unreachable endpoint, missing extra) or Ctrl-C stops the run
after the finished records are written, and propagates. Resuming skips the ids already in the log (retrying
``error`` ones unless ``retry_errors`` is off), whatever backend wrote them.
"""

from __future__ import annotations

import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Collection, Iterator, Sequence

from maze_envs.core.atomic import is_stale_temporary, remove_stale_temporaries
from maze_envs.core.errors import MazeConfigError, OutputNotEmptyError, brief_repr
from maze_envs.core.progress import progress

from .backends import Backend, Outcome, Work, WorkItem, WorkKind, make_backend
from .lock import LOCK_NAME, RunLock
from .log import ANY_RECORD, ERROR, OK, RecordSchema, ResultLog
from .ray_state import RAY_RECORD, clean_stale_ray

ErrorRecord = Callable[[WorkItem, str], dict]


@dataclass(frozen=True)
class RunOptions:
    """How a run executes: ``backend`` (local, threads, processes, ray), ``workers``, ``ray_address`` (None
    starts a local Ray runtime; ``"auto"`` or ``"ray://host:port"`` joins a cluster), whether to ``resume``
    from the log, whether resuming runs ``error`` items again (``retry_errors``), and whether a run may start
    afresh in a directory that already holds files (``overwrite``: the earlier log is discarded; without it or
    ``resume`` such a directory is refused)."""

    backend: Backend = "local"
    workers: int = 1
    ray_address: str | None = None
    resume: bool = False
    retry_errors: bool = True
    overwrite: bool = False


@dataclass(frozen=True)
class RunCounts:
    """How many items a run has: in all, taken from an earlier run, finished now, and failed (of both)."""

    items: int
    resumed: int
    completed: int
    errors: int


def _occupant(directory: Path, inputs: Collection[str]) -> str | None:
    """Return the name of an entry of ``directory`` that makes it count as holding files (not the lock, the Ray
    record of a killed run, a killed writer's temporary file or one of ``inputs``), or None."""
    for path in directory.iterdir():
        if path.name in (LOCK_NAME, RAY_RECORD) or path.name in inputs or is_stale_temporary(path.name):
            continue
        return path.name
    return None


def entries_holding(folder: str | os.PathLike, paths: Collection[str | os.PathLike | None]) -> set[str]:
    """Return the names of the entries of ``folder`` that hold one of ``paths`` (None entries are skipped): the
    ``inputs`` of a ``Run`` whose inputs live inside its directory, such as nav-eval's procedural scenes or
    bench's generated mazes."""
    root = Path(folder).resolve()
    names = set()
    for path in paths:
        if path is not None:
            inside = Path(path).resolve()
            if root in inside.parents:
                names.add(inside.relative_to(root).parts[0])
    return names


class Run:
    """A run over ``items`` writing ``<directory>/<log_name>``, holding the directory's lock while open.

    Entering takes the lock before anything is written, then applies the one rule of every writer: a directory
    that already holds files is refused (``OutputNotEmptyError``) unless ``options.resume`` or
    ``options.overwrite`` is set (``inputs``: names of entries that do not count, such as inputs the command put
    there itself). Then it removes what a killed run left (temporary files, Ray helper processes) and calls
    ``prepare()`` (optional), where a writer tidies or checks the directory knowing no other run is in it.

    ``items`` may be None: the caller then writes what it must under the lock and calls ``begin(items)``.
    ``accept(record)`` (optional) rejects records of an earlier run that no longer check out, and ``schema``
    (``RecordSchema``) gives the fields a resumed record must have to be used; the items of rejected and
    unusable records run again.
    """

    def __init__(self, directory: str | os.PathLike, items: Sequence[WorkItem] | None = None,
                 options: RunOptions = RunOptions(), *, log_name: str = "results.jsonl",
                 accept: Callable[[dict[str, Any]], bool] | None = None, prepare: Callable[[], None] | None = None,
                 schema: RecordSchema = ANY_RECORD, inputs: Collection[str] = ()):
        if options.resume and options.overwrite:
            raise MazeConfigError("cannot be combined with resume: resume continues the run, overwrite starts it "
                                  "afresh", parameter="overwrite")
        self.directory = Path(directory)
        self.items: list[WorkItem] = []
        self.options = options
        self.log_path = self.directory / log_name
        self.accept = accept
        self.prepare = prepare
        self.schema = schema
        self.inputs = frozenset(inputs)
        self.finished = False
        self.resumed = 0
        self.completed = 0
        self._pending_items = None if items is None else self._checked(items)
        self._lock = RunLock(self.directory)
        self._log: ResultLog | None = None
        self._started = time.perf_counter()

    @staticmethod
    def _checked(items: Sequence[WorkItem]) -> list[WorkItem]:
        items = list(items)
        ids = [item.id for item in items]
        if len(set(ids)) != len(ids):
            duplicate = next(i for i in ids if ids.count(i) > 1)
            raise MazeConfigError(f"work item ids must be unique; {duplicate[:80]!r} appears more than once")
        return items

    def _refuse_occupied(self) -> None:
        if not (self.options.resume or self.options.overwrite) and self.directory.is_dir():
            occupant = _occupant(self.directory, self.inputs)
            if occupant is not None:
                raise OutputNotEmptyError(self.directory, occupant)

    def __enter__(self) -> "Run":
        self._lock.refuse_if_held()  # a refused run leaves the directory as it was, not even a lock file
        self._refuse_occupied()
        self._lock.__enter__()
        try:
            self._refuse_occupied()
            remove_stale_temporaries(self.directory)
            clean_stale_ray(self.directory)
            if self.prepare is not None:
                self.prepare()
            if self._pending_items is not None:
                self.begin(self._pending_items)
        except BaseException:
            self._lock.__exit__(None, None, None)
            raise
        return self

    def begin(self, items: Sequence[WorkItem]) -> None:
        """Set the run's items and read the log: with ``options.resume`` the usable records of these items are
        kept, else the log starts empty; returns nothing. Called by ``__enter__`` when the items were given."""
        if not self._lock.held:
            raise RuntimeError("Run.begin is called inside the run's 'with' block")
        self.items = self._checked(items)
        wanted = {item.id for item in self.items}
        log = ResultLog(self.log_path, accept=self.accept, schema=self.schema)
        keep = log.finished(retry_errors=self.options.retry_errors) if self.options.resume else {}
        log.reset(r for i, r in keep.items() if i in wanted)
        unusable = [(i, reason) for i, reason in log.unusable if i in wanted]
        if self.options.resume and unusable:
            (first, reason), count = unusable[0], len(unusable)
            print(f"maze-envs: {count} record{'s' * (count > 1)} of {self.log_path} could not be used "
                  f"({brief_repr(first)}: {reason}); {'their items run' if count > 1 else 'its item runs'} again",
                  file=sys.stderr)
        self.resumed = len(log.records)
        self._log = log

    def __exit__(self, *exc_info) -> None:
        if self._log is not None:
            self._log.close()
        self._lock.__exit__(*exc_info)

    @property
    def todo(self) -> list[WorkItem]:
        """Return the items that have no record yet, in item order."""
        done = self._records()
        return [item for item in self.items if item.id not in done]

    def _records(self) -> dict[str, dict[str, Any]]:
        if self._log is None:
            raise RuntimeError("a Run is used inside its 'with' block, once its items are set (begin)")
        return self._log.records

    def records(self) -> list[dict[str, Any]]:
        """Return the records so far, one per finished item, in item order."""
        done = self._records()
        return [done[item.id] for item in self.items if item.id in done]

    def counts(self) -> RunCounts:
        """Return the run's counts so far."""
        records = self._records()
        errors = sum(1 for item in self.items if records.get(item.id, {}).get("status") == ERROR)
        return RunCounts(len(self.items), self.resumed, self.completed, errors)

    @property
    def elapsed_s(self) -> float:
        """Return the seconds since the run was made."""
        return time.perf_counter() - self._started

    def execute(self, work: Work, *, kind: WorkKind, desc: str = "running", error_record: ErrorRecord | None = None,
                on_record: Callable[[dict[str, Any]], None] | None = None) -> None:
        """Run ``work(payload) -> record`` on every item still to do and log each record as it comes.

        ``kind`` (``io`` or ``cpu``) picks threads or processes for the ``local`` backend. A failed item is
        logged as ``{"id", **error_record(item, message), "status": "error", "error": message}``.
        ``on_record`` sees each new record after it is logged. Sets ``finished`` when every item is done;
        raises the first fatal error, or ``KeyboardInterrupt``, after closing the backend.
        """
        todo = self.todo
        backend = make_backend(self.options.backend, self.options.workers, kind, self.options.ray_address,
                               state_dir=self.directory)
        outcomes: Iterator[Outcome] = backend.run(work, iter(todo))
        try:
            for outcome in progress(outcomes, desc=desc, total=len(todo)):
                if outcome.fatal is not None:
                    raise outcome.fatal
                record = self._record(outcome, error_record)
                self._log.append(record)
                self.completed += 1
                if on_record is not None:
                    on_record(record)
        finally:
            outcomes.close()
            backend.close()
            self._log.close()
        self.finished = not self.todo

    @staticmethod
    def _record(outcome: Outcome, error_record: ErrorRecord | None) -> dict[str, Any]:
        item = outcome.item
        if outcome.error is None:
            return {"id": item.id, "status": OK, **outcome.record, **{"id": item.id}}
        extra = error_record(item, outcome.error) if error_record is not None else {}
        return {"id": item.id, **extra, "status": ERROR, "error": outcome.error}
