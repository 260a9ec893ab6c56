"""A record keeps a bounded excerpt of a huge model reply and says it was cut, while grading reads the whole reply: 256
KiB replies of the ai mode grow its ``calls`` by under 10 KiB each (a whole one would be 25 times that), and a one-
shot answer followed by 1 MiB of chatter still scores."""

import json

import pytest

from maze_envs.agents.players import PLAYERS
from maze_envs.core.excerpts import REPLY_EXCERPT_CHARS, excerpt, reply_fields
from maze_envs.evaluators.bench.trials import Ask, start
from maze_envs.integrations.inspect.tasks import config_for, task_trials
from maze_envs.llm import ChatRequest, OraclePolicy

MEBIBYTE = 1 << 20
HUGE = MEBIBYTE // 4


def trial(mode: str):
    config = config_for(mode, protocol="default", sizes="5x5", count=1, seed=1, trials=1, mazes_dir=None,
                        scoring="v2", anti_cheat=True)
    return task_trials(config)[0]


def test_an_excerpt_keeps_start_and_end_and_says_how_much_was_cut():
    text = "A" * 10_000 + "Z" * 10_000
    cut = excerpt(text, 1000)
    assert cut.startswith("A" * 750) and cut.endswith("Z" * 250)
    assert "[... 19,000 characters cut ...]" in cut and len(cut) < 1100
    assert excerpt("short", 1000) == "short"
    assert reply_fields(text, limit=1000) == {"raw_reply": cut, "raw_reply_chars": 20_000}


def test_huge_replies_grow_an_ai_record_by_a_bounded_excerpt_each():
    session = start(trial("ai"), PLAYERS)
    step, calls = session.ask, 0
    while isinstance(step, Ask):
        step = session.observe("x" * HUGE)
        calls += 1
    record = step.record
    assert calls == len(record["calls"]) >= 10
    assert len(json.dumps(record["calls"])) < calls * 10_000
    for call in record["calls"]:
        assert call["raw_reply_chars"] == HUGE and len(call["raw_reply"]) < REPLY_EXCERPT_CHARS + 100
        assert "characters cut" in call["raw_reply"]


@pytest.mark.parametrize("mode", ["text2d"])
def test_a_cut_reply_is_still_graded_whole(mode):
    session = start(trial(mode), PLAYERS)
    answer = OraclePolicy("path")(ChatRequest("m", session.ask.messages)).text
    record = session.observe(answer + "\n" + "So that is my path. " * (MEBIBYTE // 20)).record
    assert record["success"] is True
    assert record["raw_reply"].startswith(answer) and "characters cut" in record["raw_reply"]
    assert record["raw_reply_chars"] > MEBIBYTE
