"""The navigation agent interface, below both the evaluators and the agents: ``point_goal`` (``Observation``,
``WaypointPrediction``, ``BasePointGoalAgent``, ``AgentConfigError``) and ``poi_goal`` (``PoiGoalObservation``,
``BasePoiGoalAgent``). ``evaluators.nav.interface`` re-exports both modules, the import path of agent files
written for ABot-Navigation's ``abotn_evaluator.interface``."""
