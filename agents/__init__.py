"""Agents that act in maze-envs environments: baselines, LLM-backed and navigation agents."""
