"""POI-goal evaluation: ``evaluator`` (settings, ``PoiGoalEvaluator``) and ``metrics``."""
