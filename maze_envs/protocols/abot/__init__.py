"""The abot protocol: ABot-Navigation's evaluator (https://github.com/amap-cvlab/ABot-Navigation), defects included
(README, "Differences").

Its one part is the navigation rules, its strategies (``maze_envs.envs.nav.strategies`` and
``maze_envs.evaluators.nav.strategies``, the ``ABOT_*`` ones): waypoints in its ``right_front`` frame; its
runner's camera (fx 252.075, cx 360, cy 320 at every size); a float32 goal and ``np.linalg.norm`` distances,
path lengths added segment by segment and ``np.arctan2`` headings; its waypoint arithmetic (a zero direction faces
world yaw 0), a non-finite waypoint read as given (its pose's render request fails: ``render_error``) and a status
that follows success; its collision sampling (pixels truncated towards zero, a sample every 0.05 m); its ground
rule (x-flipped height lookup, ground above 5 m reset to 0, -0.1 m without a height map); its ``result.json``
records (``error`` with zero lengths, an infinite distance and no metrics, a failed start render being such an
error; ``render_error`` without point-goal metrics and with the closest distance reached; ``oracle_success``
copying ``success``; no run fields on error records; inf/nan written as strings); its summaries (a missing
distance counted as 0.0, a non-finite POI distance too, point-goal means over every task with ``np.mean``, inf
included, sums and POI means with numpy, ``park3`` left out of outdoor POI metrics, the POI summary of this run's
tasks only); injected settings replacing the agent YAML's; its client's extrinsics lines; renders saved
re-encoded with Pillow's JPEG defaults and history views shrunk with Pillow's default filter (bicubic).
"""

from __future__ import annotations

from ..registry import NAV, NAV_EVAL, NavRules, Protocol, register_protocol

PROTOCOL = register_protocol(Protocol(
    name="abot",
    description="reproduce ABot-Navigation's evaluator, defects included",
    nav=NavRules(waypoint_frame="right_front", camera=f"{NAV}:fixed_camera", distance=f"{NAV}:ABOT_MEASURE",
                 motion=f"{NAV}:ABOT_MOTION", collision=f"{NAV}:ABOT_SAMPLING", ground=f"{NAV}:abot_ground_height",
                 record=f"{NAV}:ABOT_RECORDS", summary=f"{NAV_EVAL}:ABOT_SUMMARY",
                 agent_settings=f"{NAV_EVAL}:injected_first", render_request="abot", saved_renders="reencoded",
                 history_resample="bicubic",
                 about="reproduce ABot-Navigation (github.com/amap-cvlab/ABot-Navigation @70411225), defects "
                       "included (README, 'Differences from ABot-Navigation')"),
))
