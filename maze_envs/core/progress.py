"""A progress bar for long loops (tqdm on stderr; silent when stderr is not a terminal)."""

from __future__ import annotations

from typing import Iterable, Iterator, TypeVar

T = TypeVar("T")


def progress(items: Iterable[T], *, desc: str | None = None, total: int | None = None) -> Iterator[T]:
    """Return an iterator over ``items`` that draws a progress bar on an interactive stderr."""
    from tqdm import tqdm

    if total is None and hasattr(items, "__len__"):
        total = len(items)  # type: ignore[arg-type]
    return iter(tqdm(items, desc=desc, total=total, disable=None, leave=False))
