"""The run engine: work items -> records through a locked, resumable JSONL log, on threads, processes or Ray."""

from .backends import BACKENDS, Outcome, WorkItem, execute, make_backend
from .engine import Run, RunCounts, RunOptions
from .lock import LOCK_NAME, RunLock
from .log import ResultLog
from .result import RunResult

__all__ = ["BACKENDS", "LOCK_NAME", "Outcome", "ResultLog", "Run", "RunCounts", "RunLock", "RunOptions",
           "RunResult", "WorkItem", "execute", "make_backend"]
