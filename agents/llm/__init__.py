"""Chat-model agents for the grid maze envs and the maze benchmark: the reply parser (``parse``), prompts and
the ``LLMAgent`` / ``VLMAgent`` on ``maze_envs.llm``."""
