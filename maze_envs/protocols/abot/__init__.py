"""The abot protocol: ABot-Navigation's evaluator (https://github.com/amap-cvlab/ABot-Navigation), defects included
(README, "Differences").

Its one part is the navigation rules: a task plays ABot's own code paths (its motion, distances, ground height,
collision length, status following success and its ``result.json``), waypoints in its ``right_front`` frame, its
runner's camera (fx 252.075, cx 360, cy 320 at every size), its client's extrinsics lines, missing distances
counted as 0.0, means over every task (``np.mean``, inf included), ``park3`` left out of outdoor POI metrics,
injected settings replacing the agent YAML's, inf/nan written as strings, the POI summary of this run's
tasks only, history views shrunk with Pillow's default filter (bicubic), renders saved re-encoded with Pillow's
JPEG defaults, a move to a non-finite pose ending as ``render_error`` and summaries reduced with numpy.
"""

from __future__ import annotations

from ..registry import NavRules, Protocol, register_protocol

PROTOCOL = register_protocol(Protocol(
    name="abot",
    description="reproduce ABot-Navigation's evaluator, defects included",
    nav=NavRules(public_code=True, waypoint_frame="right_front", fixed_camera=True, request_format="abot",
                 missing_distance=0.0, mean_over_every_task=True, nonfinite_is_missing=True,
                 poi_outdoor_excluded=("park3",),
                 overwrite_agent_config=True, nonfinite_as_strings=True, summary_of_run_only=True,
                 history_resample="bicubic", saved_renders="reencoded", nonfinite_waypoint_status="render_error",
                 numpy_reductions=True,
                 about="reproduce ABot-Navigation (github.com/amap-cvlab/ABot-Navigation @70411225), defects "
                       "included (README, 'Differences from ABot-Navigation')"),
))
