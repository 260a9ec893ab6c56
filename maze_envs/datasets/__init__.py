"""Dataset writers on the run engine (``maze_envs.runs``): task images, benchmark text mazes, labelled-openings
puzzles and navigation scenes, each written sample by sample, locked, resumable and the same on any backend."""

from .nav_scenes import generate_nav_scenes
from .openings import write_openings_dataset
from .tasks import generate_tasks
from .text import generate_text_mazes
from .writer import LOG_NAME, Dataset, WriteSummary, write_dataset

__all__ = ["LOG_NAME", "Dataset", "WriteSummary", "generate_nav_scenes", "generate_tasks", "generate_text_mazes",
           "write_dataset", "write_openings_dataset"]
