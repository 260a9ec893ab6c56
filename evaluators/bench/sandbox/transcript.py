"""The transcript of one ai/partial-observe sandbox episode: for each move the view the agent was given, the
move and the env's feedback, then the outcome."""

from __future__ import annotations

from typing import TextIO

from ..episode import Budgets, Episode


def _indented(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line for line in text.splitlines())


def write_transcript(episode: Episode, out: TextIO, *, title: str, budgets: Budgets) -> None:
    """Write the transcript of ``episode`` under ``title`` to ``out``; returns nothing."""
    print(f"{title}; budgets: {budgets.max_calls} API calls, {budgets.max_moves} cell moves, "
          f"{budgets.max_no_exploration} decisions without a new cell", file=out)
    for number, turn in enumerate(episode.turns, 1):
        print(f"Step {number}", file=out)
        if turn.view:
            print(f"  view:\n{_indented(turn.view)}", file=out)
        print(f"  move: {turn.action} -> {turn.feedback} (now at {turn.position})", file=out)
    verdict = "success" if episode.success else "failed"
    print(f"Result: {verdict}, stopped by {episode.stopped_by}; cell moves {episode.cell_moves}, API calls "
          f"{episode.api_calls}, decisions {episode.decisions}, wall collisions {episode.wall_collisions}, "
          f"exploration rate {episode.exploration_rate:.2%}", file=out)
