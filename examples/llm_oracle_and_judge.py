"""Offline tour of the chat-model layer: start the local OpenAI-compatible server in-process, let its
oracle policy solve a text maze through the real ``openai`` client, then judge a generated maths image
with scripted replies. No API key, no network.

Run: python3 examples/llm_oracle_and_judge.py
"""

import tempfile
from pathlib import Path

from PIL import Image, ImageDraw

from maze_envs.core import generate, validate_path
from maze_envs.core.render import render_text
from maze_envs.core.replies import read_path
from maze_envs.evaluators.judge import JudgeItem, math_task, run_judge
from maze_envs.llm import ModelServer, OraclePolicy, ScriptedPolicy, local_client
from maze_envs.llm.policies import script_entry

maze = generate(4, 6, "wilson", seed=1)
with ModelServer(OraclePolicy()) as server:
    client = local_client(server.base_url, "maze-envs-local")
    reply = client.chat(f"Path from S to G as (row,col) pairs:\n{render_text(maze)}")
path = read_path(reply.text).cells
print(f"oracle path of {len(path)} blocks, valid: {validate_path(maze.to_grid(), path).valid}, "
      f"local server: {reply.local_server}")

with tempfile.TemporaryDirectory() as tmp:
    image = Path(tmp) / "answer.png"
    canvas = Image.new("RGB", (240, 80), "white")
    ImageDraw.Draw(canvas).text((10, 30), "3x + 5 = 20  ->  x = 5", fill="black")
    canvas.save(image)
    item = JudgeItem("q1", image, {"solution_text": "3x + 5 = 20, so x = 5."}, "GSM8K")
    script = ScriptedPolicy([script_entry("INTERMEDIATE_CORRECT: 1\nFINAL_CORRECT: 1\nACTION_REFLECTION: 0\n"
                                          "EXPLANATION: matches the ground truth.")])
    with ModelServer(script) as server:
        client = local_client(server.base_url, "maze-envs-local")
        run = run_judge(math_task(), [item], client, Path(tmp) / "judge")
    print(f"math judge accuracy {run.summary['metrics']['overall']['accuracy']}, "
          f"tokens {run.summary['usage']['total_tokens']}")
