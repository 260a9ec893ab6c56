"""Navigation agents for ``maze-envs nav-eval`` and the GaussianNav envs: ``random_agent`` (the reference's
example), ``oracle`` (A* on the dilated occupancy map) and ``vlm`` (a chat model through ``maze_envs.llm``)."""
