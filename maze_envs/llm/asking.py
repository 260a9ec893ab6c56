"""Code that talks to a chat model without holding a client: a generator that yields each question (``Ask``) and
receives each ``Reply``.

Written so, a multi-turn loop (a benchmark trial, an agent's decision) reads top to bottom, and whoever drives it
decides where the replies come from: ``answer(steps, client)`` sends each question with ``client.chat``; a
framework (Inspect, a step-by-step API) sends them its own way, one reply at a time. A call that fails is thrown
into the generator at its question, so the code that asked decides what a failure means.

Example::

    def two_questions(n):
        first = yield ask(f"What is {n} + 1?", temperature=0)
        second = yield ask(f"And {first.text} + 1?", temperature=0)
        return second.text

    answer(two_questions(1), client)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generator, Protocol, Sequence, TypeVar

from .client import Message, Reply, RunStats, build_messages
from .config import ModelConfig
from .media import ImageLike

T = TypeVar("T")


@dataclass(frozen=True)
class Ask:
    """A question: the chat ``messages`` (images as ``image_url`` data-URL parts of the last user message) and
    the request ``params`` (temperature, max_tokens) to send them with."""

    messages: list[Message]
    params: dict[str, Any]


Asking = Generator[Ask, Reply, T]  # yields each question, is sent each reply, returns its result


def ask(messages: str | Sequence[Message], *, images: Sequence[ImageLike] = (), **params: Any) -> Ask:
    """Return the question of ``messages`` (a string is one user message) with ``images`` attached, sent with
    ``params``."""
    return Ask(build_messages(messages, images), dict(params))


class Meter(Protocol):
    """What prices and counts the replies a piece of asking code gets: ``config`` (the model, its prices) and
    ``stats`` (the totals; ``stats.local_server`` says a reply came from the local server). A ``ChatClient`` is the
    meter of its own replies; ``Tally`` is one for replies that come from elsewhere."""

    config: ModelConfig
    stats: RunStats


@dataclass(frozen=True)
class Tally:
    """A ``Meter`` kept apart from any client: replies are counted with ``count``."""

    config: ModelConfig
    stats: RunStats

    def count(self, reply: Reply) -> None:
        """Add ``reply`` to the totals."""
        self.stats.add(reply, self.config)


def answer(steps: Asking[T], client: Any, *, tally: Tally | None = None) -> T:
    """Return what ``steps`` returns once every question it yields is answered by ``client.chat`` (a
    ``ChatClient``; None for steps that ask nothing), each reply also counted in ``tally`` when given. A call that
    raises an ``Exception`` is thrown into ``steps`` at its question; what ``steps`` does not handle is raised
    here."""
    try:
        question = next(steps)
        while True:
            try:
                reply = client.chat(question.messages, **question.params)
            except Exception as exc:  # the asking code decides what a failed call means
                question = steps.throw(exc)
            else:
                if tally is not None:
                    tally.count(reply)
                question = steps.send(reply)
    except StopIteration as done:
        return done.value
