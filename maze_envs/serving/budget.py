"""A budget of work in flight: requests take units (pixels, bytes) from it while they run, and one that does not
fit is refused at once with HTTP 503 and ``Retry-After`` instead of waiting or piling up memory."""

from __future__ import annotations

import threading
from contextlib import contextmanager
from typing import Iterator

from .app import check_size
from .errors import HTTPError

RETRY_AFTER_SECONDS = 1


class InFlightBudget:
    """At most ``capacity`` ``unit`` held by the requests in flight at once (thread-safe); ``in_use`` is what
    they hold now and ``refused`` how many were turned away since the start."""

    def __init__(self, capacity: int, unit: str = "pixels", *, parameter: str = "capacity"):
        self.capacity = check_size(capacity, parameter)
        self.unit = unit
        self.in_use = 0
        self.refused = 0
        self._lock = threading.Lock()

    @contextmanager
    def hold(self, amount: int) -> Iterator[None]:
        """Hold ``amount`` units while the ``with`` block runs; yields nothing.

        Raises ``HTTPError`` 503 with ``Retry-After`` when they do not fit beside what is in flight, and 400 when
        ``amount`` alone is over the capacity (the request can never fit).
        """
        with self._lock:
            if amount > self.capacity:
                self.refused += 1
                raise HTTPError(400, f"the request needs {amount} {self.unit}, more than this server's budget of "
                                     f"{self.capacity} {self.unit} in flight")
            if self.in_use + amount > self.capacity:
                self.refused += 1
                raise HTTPError(503, f"busy: {self.in_use} of {self.capacity} {self.unit} in flight, {amount} more "
                                     f"do not fit; retry in {RETRY_AFTER_SECONDS} s",
                                headers={"Retry-After": str(RETRY_AFTER_SECONDS)})
            self.in_use += amount
        try:
            yield
        finally:
            with self._lock:
                self.in_use -= amount
