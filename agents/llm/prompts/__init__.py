"""Prompt templates of the LLM agents (MazeBench's ai, partial-observe and image prompts in English), as text files
with {placeholders}."""

from pathlib import Path

PROMPTS_DIR = Path(__file__).parent
