"""VLM-as-judge evaluators: the math judge and the maze judge, sharing one loop over the chat-model layer."""

from .agreement import agreement_report, cohen_kappa, confusion, load_pixel_results, pixel_pass
from .inputs import judge_inputs
from .math_task import MATH_FIELDS, math_items, math_task
from .maze_task import MAZE_FIELDS, maze_items_from_dir, maze_items_from_manifest, maze_task
from .parse import Verdict, parse_verdict
from .runner import JudgeItem, JudgeTask, judge_item, run_judge, summarise

__all__ = [
    "MATH_FIELDS", "MAZE_FIELDS", "JudgeItem", "JudgeTask", "Verdict",
    "agreement_report", "cohen_kappa", "confusion", "judge_inputs", "judge_item", "load_pixel_results", "math_items",
    "math_task", "maze_items_from_dir", "maze_items_from_manifest", "maze_task", "parse_verdict", "pixel_pass",
    "run_judge",
    "summarise",
]
