"""The math judge (per the math VLM-judge spec): ground-truth solution text in the prompt, the generated
image or video attached, three binary scores; accuracy is the mean of ``FINAL_CORRECT``."""

from __future__ import annotations

import os
import re
from pathlib import Path

from maze_envs.core.errors import MazeFormatError, brief_repr
from maze_envs.llm.prompts import PromptTemplate

from .manifest import pick, read_records
from .prompts import PROMPTS_DIR
from .runner import JudgeItem, JudgeTask

MATH_FIELDS = ("INTERMEDIATE_CORRECT", "FINAL_CORRECT", "ACTION_REFLECTION")
SUBTASKS = {"aime": "AIME", "math500": "MATH-500", "gsm8k": "GSM8K", "omnimath": "OmniMath"}
FILE_FIELDS = ("file", "output", "image", "video", "path")
SOLUTION_FIELDS = ("solution_text", "solution", "ground_truth")
SUBTASK_FIELDS = ("subtask", "dataset", "task")


def math_task(template: str | os.PathLike | None = None) -> JudgeTask:
    """Return the math judge task (the bundled prompt unless ``template`` names another file)."""
    prompt = PromptTemplate.load(template or PROMPTS_DIR / "math_judge.txt").require(("solution_text",))
    return JudgeTask("math", prompt, MATH_FIELDS, "subtask", "FINAL_CORRECT")


def normalise_subtask(name: str) -> str:
    """Return the canonical subtask name (AIME, MATH-500, GSM8K, OmniMath) or ``name`` unchanged."""
    return SUBTASKS.get(re.sub(r"[^a-z0-9]", "", name.lower()), name)


def math_items(manifest: str | os.PathLike) -> list[JudgeItem]:
    """Return the items of a math manifest: records with the generated ``file`` (relative to the manifest),
    ``solution_text`` and ``subtask``; ``id`` defaults to the file's stem."""
    manifest = Path(manifest)
    items, seen = [], set()
    for number, record in enumerate(read_records(manifest), 1):
        file = manifest.parent / str(pick(record, FILE_FIELDS, manifest, number))
        solution = str(pick(record, SOLUTION_FIELDS, manifest, number))
        subtask = normalise_subtask(str(pick(record, SUBTASK_FIELDS, manifest, number)))
        item_id = str(record.get("id") or file.stem)
        if item_id in seen:
            raise MazeFormatError(f"record {number}: duplicate id {brief_repr(item_id)}", source=manifest, field="id")
        seen.add(item_id)
        items.append(JudgeItem(item_id, file, {"solution_text": solution}, subtask))
    return items
