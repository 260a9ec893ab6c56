"""Prompt template files of the VLM judges (a package so that installs ship the .txt files)."""

from pathlib import Path

PROMPTS_DIR = Path(__file__).parent
