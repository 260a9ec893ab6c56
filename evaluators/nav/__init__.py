"""Gaussian-splat navigation evaluation in the layout of ABot-Navigation's evaluator
(https://github.com/amap-cvlab/ABot-Navigation): an agent written for ``abotn_evaluator`` runs after its import
lines change from ``abotn_evaluator.X`` to ``evaluators.nav.X``.

- ``interface.point_goal`` / ``interface.poi_goal``: agent base classes, ``Observation``, ``WaypointPrediction``
  (re-exported from ``maze_envs.nav.interface``, which agents import);
- ``point_goal.evaluator`` / ``poi_goal.evaluator``: settings and evaluators; ``loop``: the episode loop on the
  run engine; ``point_goal.metrics`` / ``poi_goal.metrics`` / ``metrics``: ``analyze_and_report``;
- ``report``: ``report(run_dir, MetricsSettings(...))``; ``cli``: the flags of ``nav-eval`` / ``nav-metrics``;
- ``config``, ``agent_loader``, ``memory``, ``scene``, ``render_client``, ``visualization``: the helpers.

``protocol="abot"`` (``--protocol abot``) reproduces ABot-Navigation's evaluator, defects included.
"""
