"""The LLM maze benchmark as Inspect tasks (https://inspect.aisi.org.uk/; extra ``inspect``: ``pip install
maze-envs[inspect]``): ``text2d``, ``image2d``, ``ai``, ``partial-observe`` (``partial_observe``) and ``tools`` (the
model moves by calling Inspect tools, ``maze_envs.integrations.inspect.tools``), registered
under the ``maze_envs`` package, so ``inspect eval maze_envs/text2d --model openai/<name>`` runs one.

Each sample is one benchmark trial (``maze_envs.evaluators.bench.trials``) and keeps its trial id; the solver
``bench_solver`` plays it through the trial API (one reply in the one-shot modes, one per decision in the ai and
partial-observe modes) with the model under evaluation, and ``bench_scorer`` reports the protocol's scores, its
success and this benchmark's strict success, so for the same settings the scores equal ``maze-envs bench``'s trial
by trial. Task arguments: ``protocol``, ``sizes`` (``"5x5,9x9"``), ``count`` mazes per size, ``seed``, ``trials`` per
maze, ``mazes_dir`` (default: a generated set under ``maze_envs_inspect_mazes`` in the working folder's
``.cache``-free temporary folder) and ``scoring``.
"""

from .tasks import ai, bench_scorer, bench_solver, bench_task, image2d, partial_observe, text2d
from .tools import maze_continue, maze_scorer, maze_setup, maze_tools, tools

__all__ = ["ai", "bench_scorer", "bench_solver", "bench_task", "image2d", "maze_continue", "maze_scorer", "maze_setup",
           "maze_tools", "partial_observe", "text2d", "tools"]
