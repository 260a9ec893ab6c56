"""Reinforcement-learning baselines (``maze-envs[rl]``): SB3 PPO and RecurrentPPO, the SB3 adapter for the native
vector env, a single-file torch PPO on the native vector env, and dependency-free tabular Q-learning.

Nothing here is imported by ``agents``; torch and stable-baselines3 load only with the module that needs them.
"""
