"""Prompt templates of the benchmark's one-shot modes (text2d, image2d), as text files with {placeholders}."""

from pathlib import Path

PROMPTS_DIR = Path(__file__).parent
