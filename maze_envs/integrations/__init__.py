"""Bridges to evaluation frameworks (optional extras): ``maze_envs.integrations.inspect`` for Inspect."""
