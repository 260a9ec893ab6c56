"""Where a run's items execute: in this thread, a thread pool, a process pool, or a Ray cluster.

Every backend takes work items lazily and keeps at most ``2 * workers`` of them in flight, so a run of a
million items never holds a million futures, and yields one ``Outcome`` per item as it finishes.
"""

from __future__ import annotations

import ctypes
import os
import pickle
import signal
import sys
import threading
import time
from concurrent.futures import FIRST_COMPLETED, Executor, Future, ProcessPoolExecutor, ThreadPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any, Callable, Iterator, Literal

from maze_envs.core.errors import FatalRunError, MazeEnvsError, MissingExtraError
from maze_envs.core.validate import choice, positive_int

from .ray_state import record_ray, release_ray
from .socket_dir import socket_temp_dir

Work = Callable[[Any], dict]
BACKENDS = ("local", "threads", "processes", "ray")
Backend = Literal["local", "threads", "processes", "ray"]
WorkKind = Literal["io", "cpu"]
MAX_ATTEMPTS = 3
PARENT_POLL_S = 0.25
_PR_SET_PDEATHSIG = 1


@dataclass(frozen=True)
class WorkItem:
    """One unit of a run: a stable ``id`` (unique within the run) and the ``payload`` handed to the work."""

    id: str
    payload: Any


@dataclass(frozen=True)
class Outcome:
    """What became of one item: its ``record``, or the ``error`` message of a per-item failure, or a ``fatal``
    exception that must stop the run."""

    item: WorkItem
    record: dict | None = None
    error: str | None = None
    fatal: BaseException | None = None


def _message(exc: BaseException) -> str:
    if isinstance(exc, MazeEnvsError):
        return str(exc)
    return f"{type(exc).__name__}: {exc}"


def _transportable(exc: BaseException) -> BaseException:
    try:
        pickle.loads(pickle.dumps(exc))
    except Exception:
        return FatalRunError(str(exc))
    return exc


def execute(work: Work, item: WorkItem) -> Outcome:
    """Return the outcome of running ``work`` on ``item``'s payload (every exception is caught and sorted into
    a per-item error or a fatal one)."""
    try:
        record = work(item.payload)
        if not isinstance(record, dict):
            raise TypeError(f"the work returned {type(record).__name__}, not a record (dict)")
        return Outcome(item, record=record)
    except FatalRunError as exc:
        return Outcome(item, fatal=_transportable(exc))
    except Exception as exc:  # one item's failure is recorded and the run goes on
        return Outcome(item, error=_message(exc))


def _watch_parent(parent: int) -> None:
    while os.getppid() == parent:
        time.sleep(PARENT_POLL_S)
    os._exit(1)


def _die_with_parent(forked_by_main_thread: bool) -> None:
    """Make this worker process end when the process that started it ends, however it ends (``SIGKILL`` too)."""
    parent = os.getppid()
    if sys.platform.startswith("linux") and forked_by_main_thread:
        # the kernel's signal follows the forking *thread*, so only a pool started by the main thread asks for it
        try:
            ctypes.CDLL(None, use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:
        os._exit(1)
    threading.Thread(target=_watch_parent, args=(parent,), name="maze-envs-parent-watch", daemon=True).start()


def _worker_init(forked_by_main_thread: bool) -> None:
    """Initialise a worker process: it ends with its parent, and Ctrl-C is the driver's to handle (workers finish
    or are stopped)."""
    _die_with_parent(forked_by_main_thread)
    signal.signal(signal.SIGINT, signal.SIG_IGN)


class InlineBackend:
    """Runs each item in the calling thread, one after another."""

    def run(self, work: Work, items: Iterator[WorkItem]) -> Iterator[Outcome]:
        """Yield the outcome of each item in order."""
        for item in items:
            yield execute(work, item)

    def close(self) -> None:
        """Nothing to release."""


class PoolBackend:
    """Runs items on ``workers`` threads (I/O-bound work such as model calls) or, with ``processes``, in worker
    processes (CPU-bound work); a dead worker process's items are run again, up to three attempts each."""

    def __init__(self, workers: int, *, processes: bool):
        self.workers = workers
        self.processes = processes
        self.pool = self._new_pool()

    def _new_pool(self) -> Executor:
        if self.processes:
            main = threading.current_thread() is threading.main_thread()
            return ProcessPoolExecutor(max_workers=self.workers, initializer=_worker_init, initargs=(main,))
        return ThreadPoolExecutor(max_workers=self.workers, thread_name_prefix="maze-envs-run")

    def run(self, work: Work, items: Iterator[WorkItem]) -> Iterator[Outcome]:
        """Yield outcomes as items finish, keeping at most ``2 * workers`` in flight."""
        pending: dict[Future, tuple[WorkItem, int]] = {}
        retry: list[tuple[WorkItem, int]] = []
        source = iter(items)
        while True:
            broken = False
            while len(pending) < 2 * self.workers:
                if retry:
                    item, attempt = retry.pop()
                else:
                    item = next(source, None)
                    attempt = 1
                    if item is None:
                        break
                try:
                    future = self.pool.submit(execute, work, item)
                except BrokenProcessPool:  # a worker died since the last wait: rebuild below, then submit again
                    retry.append((item, attempt))
                    broken = True
                    break
                pending[future] = (item, attempt)
            if not pending and not broken:
                return
            done, _ = wait(pending, return_when=FIRST_COMPLETED) if pending else (set(), set())
            for future in done:
                item, attempt = pending.pop(future)
                try:
                    yield future.result()
                except BrokenProcessPool:
                    broken = True
                    if attempt >= MAX_ATTEMPTS:
                        yield Outcome(item, error=f"its worker process died {attempt} times")
                    else:
                        retry.append((item, attempt + 1))
            if broken:
                self.pool.shutdown(wait=False, cancel_futures=True)
                for future, (item, attempt) in pending.items():
                    if future.done() and not future.cancelled() and future.exception() is None:
                        yield future.result()  # finished before the pool broke: not run twice
                    else:
                        retry.append((item, attempt))
                pending.clear()
                self.pool = self._new_pool()

    def close(self) -> None:
        """Stop the pool, dropping items not yet started."""
        self.pool.shutdown(wait=True, cancel_futures=True)


class RayBackend:
    """Runs items as Ray tasks on a local runtime it starts (``address`` None) or on an existing cluster
    (``"auto"`` or ``"ray://host:port"``); tasks whose worker dies are retried by Ray. A local runtime and every
    helper process of it end with the run, even a killed one (``maze_envs.runs.ray_state``)."""

    def __init__(self, workers: int, address: str | None, state_dir: str | os.PathLike | None = None):
        try:
            import ray
        except ImportError as exc:
            raise MissingExtraError("the ray backend needs Ray: pip install 'maze-envs[ray]'") from exc
        self.ray = ray
        self.workers = workers
        self.started = False
        self.state_dir = state_dir
        self.temp_dir: str | None = None
        self._watcher = None
        self._temp = ExitStack()
        if not ray.is_initialized():
            try:
                if address is None:  # a local runtime, its sockets under a short temp dir (maze_envs.runs.socket_dir)
                    self.temp_dir = self._temp.enter_context(socket_temp_dir())
                    self._watcher = record_ray(state_dir, self.temp_dir)
                    ray.init(num_cpus=workers, include_dashboard=False, log_to_driver=False, configure_logging=False,
                             _temp_dir=self.temp_dir)
                else:
                    ray.init(address=address, log_to_driver=False, configure_logging=False)
            except (ConnectionError, RuntimeError, ValueError) as exc:
                self._release()
                raise FatalRunError(f"ray_address {address!r}: cannot connect to a Ray cluster: {exc}") from exc
            self.started = True
        self.remote = ray.remote(num_cpus=1, max_retries=MAX_ATTEMPTS)(execute)
        self.pending: dict = {}

    def run(self, work: Work, items: Iterator[WorkItem]) -> Iterator[Outcome]:
        """Yield outcomes as tasks finish, keeping at most ``2 * workers`` tasks in flight."""
        ray = self.ray
        work_ref = ray.put(work)
        source = iter(items)
        exhausted = False
        while True:
            while not exhausted and len(self.pending) < 2 * self.workers:
                item = next(source, None)
                if item is None:
                    exhausted = True
                else:
                    self.pending[self.remote.remote(work_ref, item)] = item
            if not self.pending:
                return
            ready, _ = ray.wait(list(self.pending), num_returns=1)
            for ref in ready:
                item = self.pending.pop(ref)
                try:
                    yield ray.get(ref)
                except ray.exceptions.RayError as exc:
                    yield Outcome(item, error=f"Ray task failed after {MAX_ATTEMPTS} retries: {type(exc).__name__}")

    def close(self) -> None:
        """Cancel tasks still in flight, and stop the local runtime if this backend started it (with every helper
        process it leaves, its temp dir and its record in the run directory)."""
        for ref in self.pending:
            self.ray.cancel(ref, force=True)
        self.pending.clear()
        try:
            if self.started:
                self.ray.shutdown()
        finally:
            self._release()

    def _release(self) -> None:
        if self.temp_dir is not None:
            release_ray(self.temp_dir, self.state_dir, self._watcher)
        self._temp.close()


def make_backend(backend: Backend, workers: int, kind: WorkKind, ray_address: str | None = None, *,
                 state_dir: str | os.PathLike | None = None):
    """Return the backend to run with: ``local`` means threads for ``io`` work and processes for ``cpu`` work,
    and one worker runs inline; a local Ray runtime is recorded in ``state_dir`` (the run directory) so that the
    next run there can clean up after a killed one. Raises ``MazeConfigError`` naming ``backend`` or ``workers``
    when invalid."""
    choice(backend, BACKENDS, name="backend")
    positive_int(workers, name="workers")
    if backend == "ray":
        return RayBackend(workers, ray_address, state_dir)
    if backend == "local":
        backend = "threads" if kind == "io" else "processes"
    if workers == 1:
        return InlineBackend()
    return PoolBackend(workers, processes=backend == "processes")

