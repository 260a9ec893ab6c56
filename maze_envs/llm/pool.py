"""A thread pool for concurrent chat requests: results in completion order, per-item errors kept."""

from __future__ import annotations

from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from typing import Callable, Iterable, Iterator, TypeVar

T = TypeVar("T")
R = TypeVar("R")


def map_unordered(fn: Callable[[T], R], items: Iterable[T], workers: int = 1) -> Iterator[tuple[T, R | None, BaseException | None]]:
    """Yield ``(item, result, None)`` or ``(item, None, error)`` as each call of ``fn`` finishes.

    At most ``workers`` calls run at once and no more are queued than that; closing the iterator
    early (``break`` or an exception in the consumer) stops submitting and waits for running calls.
    """
    workers = max(1, int(workers))
    pending: dict[Future, T] = {}
    source = iter(items)
    with ThreadPoolExecutor(max_workers=workers, thread_name_prefix="maze-envs-llm") as pool:
        try:
            for item in source:
                pending[pool.submit(fn, item)] = item
                if len(pending) < workers:
                    continue
                yield from _drain(pending, FIRST_COMPLETED)
            yield from _drain(pending, None)
        finally:
            for future in pending:
                future.cancel()


def _drain(pending: dict[Future, T], mode: str | None) -> Iterator[tuple[T, R | None, BaseException | None]]:
    done, _ = wait(pending, return_when=mode) if mode else wait(pending)
    for future in done:
        item = pending.pop(future)
        error = future.exception()
        yield item, (None if error else future.result()), error
