"""Point-goal evaluation: ``evaluator`` (settings, ``PointGoalEvaluator``) and ``metrics``."""
