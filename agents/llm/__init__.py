"""Chat-model agents for the grid maze envs and the maze benchmark: prompts, views and the ``LLMAgent`` /
``VLMAgent`` on ``maze_envs.llm`` (replies are read by ``maze_envs.core.replies``)."""
