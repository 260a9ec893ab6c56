"""The transcript of one ai/partial-observe sandbox episode: for each move the view the agent was given, the
model's replies that led to it (with the feedback of any it could not use), the move and the env's feedback,
then the outcome."""

from __future__ import annotations

from typing import Any, Sequence, TextIO

from ..episode import Budgets, Episode


def _indented(text: str, prefix: str = "    ") -> str:
    return "\n".join(prefix + line for line in text.splitlines())


def _write_call(call: Any, out: TextIO) -> None:
    print(f"  reply (API call {call.call}):\n{_indented(call.raw_reply)}", file=out)
    if call.outcome != "ok":
        print(f"  not played: {call.outcome}" + (f" ({call.feedback})" if call.feedback else ""), file=out)


def write_transcript(episode: Episode, out: TextIO, *, title: str, budgets: Budgets,
                     calls: Sequence[Any] = ()) -> None:
    """Write the transcript of ``episode`` under ``title`` to ``out``; ``calls`` are the model agent's call
    records (``agents.llm.agent.CallRecord``), shown at the move they led to. Returns nothing."""
    print(f"{title}; budgets: {budgets.max_calls} API calls, {budgets.max_moves} cell moves, "
          f"{budgets.max_no_exploration} decisions without a new cell", file=out)
    shown = 0
    for number, turn in enumerate(episode.turns, 1):
        print(f"Step {number}", file=out)
        if turn.view:
            print(f"  view:\n{_indented(turn.view)}", file=out)
        for index in turn.calls:
            _write_call(calls[index], out)
            shown = index + 1
        print(f"  move: {turn.action} -> {turn.feedback} (now at {turn.position})", file=out)
    if shown < len(calls):
        print("After the last move", file=out)
        for call in calls[shown:]:
            _write_call(call, out)
    verdict = "success" if episode.success else "failed"
    print(f"Result: {verdict}, stopped by {episode.stopped_by}; cell moves {episode.cell_moves}, API calls "
          f"{episode.api_calls}, decisions {episode.decisions}, wall collisions {episode.wall_collisions}, "
          f"invalid outputs {episode.invalid_outputs}, exploration rate {episode.exploration_rate:.2%}", file=out)
