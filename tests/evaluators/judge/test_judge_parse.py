"""Judge replies of every shape seen in practice: parsed directly and end to end through the local server."""

import pytest
from _llm_support import client_for, math_manifest, problem_index, verdict

from maze_envs.core.errors import MazeConfigError
from maze_envs.evaluators.judge import MATH_FIELDS, math_items, math_task, parse_verdict, run_judge
from maze_envs.llm import ModelServer
from maze_envs.llm.prompts import PromptTemplate
from maze_envs.runs import RunOptions

SHAPES = [
    ("plain", verdict(1, 0, 1, "steps fine, answer wrong"),
     {"INTERMEDIATE_CORRECT": 1, "FINAL_CORRECT": 0, "ACTION_REFLECTION": 1}),
    ("bold keys", "**INTERMEDIATE_CORRECT:** 1\n**FINAL_CORRECT:** 1\n**ACTION_REFLECTION:** 0\n**EXPLANATION:** good",
     {"INTERMEDIATE_CORRECT": 1, "FINAL_CORRECT": 1, "ACTION_REFLECTION": 0}),
    ("bold values", "**INTERMEDIATE_CORRECT**: **0**\n**FINAL_CORRECT**: **1**\n**ACTION_REFLECTION**: **1**",
     {"INTERMEDIATE_CORRECT": 0, "FINAL_CORRECT": 1, "ACTION_REFLECTION": 1}),
    ("bullets", "- INTERMEDIATE_CORRECT: 1\n- FINAL_CORRECT: 1\n- ACTION_REFLECTION: 1\n- EXPLANATION: all good",
     {"INTERMEDIATE_CORRECT": 1, "FINAL_CORRECT": 1, "ACTION_REFLECTION": 1}),
    ("numbered", "1. INTERMEDIATE_CORRECT: 0\n2. FINAL_CORRECT: 0\n3. ACTION_REFLECTION: 0",
     {"INTERMEDIATE_CORRECT": 0, "FINAL_CORRECT": 0, "ACTION_REFLECTION": 0}),
    ("swapped order", "EXPLANATION: reversed\nACTION_REFLECTION: 1\nFINAL_CORRECT: 0\nINTERMEDIATE_CORRECT: 1",
     {"INTERMEDIATE_CORRECT": 1, "FINAL_CORRECT": 0, "ACTION_REFLECTION": 1}),
    ("case and spaces", "  intermediate_correct :   1 \nFinal_Correct:1\naction_reflection   :  0",
     {"INTERMEDIATE_CORRECT": 1, "FINAL_CORRECT": 1, "ACTION_REFLECTION": 0}),
    ("words", "Intermediate Correct = yes\nFinal-Correct = no\nAction Reflection = false",
     {"INTERMEDIATE_CORRECT": 1, "FINAL_CORRECT": 0, "ACTION_REFLECTION": 0}),
    ("preamble and fence",
     "Here is my grading.\n```\nINTERMEDIATE_CORRECT: 1\nFINAL_CORRECT: 1\nACTION_REFLECTION: 0\n```",
     {"INTERMEDIATE_CORRECT": 1, "FINAL_CORRECT": 1, "ACTION_REFLECTION": 0}),
    ("table",
     "| Metric | Score |\n|---|---|\n| INTERMEDIATE_CORRECT | 0 |\n| FINAL_CORRECT | 1 |\n| ACTION_REFLECTION | 1 |",
     {"INTERMEDIATE_CORRECT": 0, "FINAL_CORRECT": 1, "ACTION_REFLECTION": 1}),
    ("italics and heading",
     "### INTERMEDIATE_CORRECT: 1\n*FINAL_CORRECT*: *0*\n_ACTION_REFLECTION_: 1\n*EXPLANATION:* ok",
     {"INTERMEDIATE_CORRECT": 1, "FINAL_CORRECT": 0, "ACTION_REFLECTION": 1}),
    ("format echo first", "FINAL_CORRECT: <0 or 1>\nINTERMEDIATE_CORRECT: 1\nFINAL_CORRECT: 1\nACTION_REFLECTION: 0",
     {"INTERMEDIATE_CORRECT": 1, "FINAL_CORRECT": 1, "ACTION_REFLECTION": 0}),
]


@pytest.mark.parametrize("name,text,expected", SHAPES, ids=[s[0] for s in SHAPES])
def test_shapes_parse(name, text, expected):
    parsed = parse_verdict(text, MATH_FIELDS)
    assert parsed.complete and parsed.scores == expected


def test_explanation_spans_lines_until_the_next_field():
    parsed = parse_verdict("EXPLANATION: first line\nsecond line\nFINAL_CORRECT: 1", MATH_FIELDS)
    assert parsed.explanation == "first line second line"
    assert parsed.missing == ("INTERMEDIATE_CORRECT", "ACTION_REFLECTION")


@pytest.mark.parametrize("text", ["The answer looks right.", "FINAL_CORRECT: maybe\nINTERMEDIATE_CORRECT: 1",
                                  "INTERMEDIATE_CORRECT: 1\nFINAL_CORRECT: 1"])
def test_missing_or_unreadable_fields_are_reported_missing(text):
    parsed = parse_verdict(text, MATH_FIELDS)
    assert not parsed.complete and parsed.missing


def test_every_shape_end_to_end_with_retry_and_parse_error(tmp_path):
    n = len(SHAPES) + 2
    manifest = math_manifest(tmp_path / "in", n)
    task = math_task()

    def policy(request):
        i = problem_index(request)
        retried = "could not be read" in request.text()
        if i < len(SHAPES):
            return SHAPES[i][1]
        if i == len(SHAPES):  # missing a field, fixed after the format reminder
            return verdict(1, 1, 0) if retried else "INTERMEDIATE_CORRECT: 1\nACTION_REFLECTION: 0"
        return "I think it is mostly right." if not retried else "Still just prose, sorry."

    with ModelServer(policy) as server:
        run = run_judge(task, math_items(manifest), client_for(server), tmp_path / "out",
                        options=RunOptions(workers=3))
        assert server.request_count == len(SHAPES) + 4
    by_id = {r["id"]: r for r in run.records}
    for i, (_, _, expected) in enumerate(SHAPES):
        assert by_id[f"p{i:02d}"]["status"] == "ok" and by_id[f"p{i:02d}"]["scores"] == expected
    fixed, failed = by_id[f"p{len(SHAPES):02d}"], by_id[f"p{len(SHAPES) + 1:02d}"]
    assert fixed["status"] == "ok" and fixed["attempts"] == 2 and fixed["scores"]["FINAL_CORRECT"] == 1
    assert failed["status"] == "parse_error" and failed["scores"] == {} and failed["attempts"] == 2
    assert failed["raw_reply"] == "Still just prose, sorry." and failed["first_reply"] == "I think it is mostly right."
    overall = run.summary["metrics"]["overall"]
    assert overall["n"] == n and overall["n_judged"] == n - 1 and overall["parse_errors"] == 1
    judged = [r for r in run.records if r["status"] == "ok"]
    assert overall["accuracy"] == pytest.approx(sum(r["scores"]["FINAL_CORRECT"] for r in judged) / len(judged))


def test_templates_fill_by_name_and_name_what_is_missing(tmp_path):
    path = tmp_path / "t.txt"
    path.write_text("Truth: {solution_text}\nNot a field: {Capital} or {1}")
    template = PromptTemplate.load(path)
    assert template.fields == ("solution_text",)
    assert template.fill({"solution_text": "x = 2"}).startswith("Truth: x = 2\nNot a field: {Capital}")
    with pytest.raises(MazeConfigError, match="solution_text"):
        template.fill({})
    with pytest.raises(MazeConfigError, match="maze_text"):
        template.require(("maze_text",))
    bundled = math_task().template
    assert bundled.fields == ("solution_text",) and bundled.text.count("Example ") == 5
