"""Blocking work of a server's handlers run one call at a time, off the event loop: for a server whose state (one
game, one model) is not safe to touch from two requests at once."""

from __future__ import annotations

import threading
from typing import Callable, TypeVar

from starlette.concurrency import run_in_threadpool

T = TypeVar("T")


class OneAtATime:
    """Runs each piece of blocking work in Starlette's thread pool, after the one before it has ended."""

    def __init__(self) -> None:
        self._lock = threading.Lock()

    async def run(self, work: Callable[[], T]) -> T:
        """Return what ``work()`` returns, run in the thread pool while no other work of this runner runs."""
        def alone() -> T:
            with self._lock:
                return work()
        return await run_in_threadpool(alone)
