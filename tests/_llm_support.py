"""Helpers of the chat-model and judge tests: fast client settings, servers, small inputs on disk."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
from PIL import Image

from maze_envs.llm import ChatClient, ModelConfig, ResponseCache

FAST = dict(timeout=2.0, max_retries=2, backoff_base=0.01, backoff_max=0.05)
FAST_FLAGS = ["--timeout", "2", "--max-retries", "2", "--backoff", "0.01"]
SUBTASKS = ("AIME", "MATH-500", "GSM8K", "OmniMath")


def client_for(server, cache_dir: Path | None = None, **overrides) -> ChatClient:
    """Return a client for ``server`` with short timeouts and backoffs."""
    config = ModelConfig(**{"model": "test-model", "base_url": server.base_url, **FAST, **overrides})
    return ChatClient(config, cache=ResponseCache(cache_dir) if cache_dir else None)


def verdict(intermediate: int, final: int, reflection: int, explanation: str = "ok") -> str:
    """Return a well-formed math judge reply."""
    return (f"INTERMEDIATE_CORRECT: {intermediate}\nFINAL_CORRECT: {final}\nACTION_REFLECTION: {reflection}\n"
            f"EXPLANATION: {explanation}")


def math_manifest(root: Path, n: int) -> Path:
    """Write ``n`` small PNGs and a manifest.jsonl (problem i has solution text 'PROBLEM-i ...'); return its path."""
    root.mkdir(parents=True, exist_ok=True)
    lines = []
    for i in range(n):
        Image.fromarray(np.full((16, 16, 3), 20 * i % 256, np.uint8)).save(root / f"out_{i:02d}.png")
        lines.append({"id": f"p{i:02d}", "file": f"out_{i:02d}.png", "solution_text": f"PROBLEM-{i}: x = {i}",
                      "subtask": SUBTASKS[i % len(SUBTASKS)]})
    path = root / "manifest.jsonl"
    path.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    return path


def problem_index(request) -> int:
    """Return i of the 'PROBLEM-i' marker in a judge request."""
    text = request.text(last_user_only=False)
    return int(text.split("PROBLEM-")[1].split(":")[0])
