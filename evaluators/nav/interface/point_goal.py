"""The point-goal agent interface (defined in ``maze_envs.nav.interface.point_goal``), at the import path an agent
written for ABot-Navigation's ``abotn_evaluator.interface.point_goal`` uses after its package name changes."""

from maze_envs.nav.interface.point_goal import AgentConfigError, BasePointGoalAgent, Observation, WaypointPrediction

__all__ = ["AgentConfigError", "BasePointGoalAgent", "Observation", "WaypointPrediction"]
