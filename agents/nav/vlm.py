"""A vision-language agent on the chat-model layer (``maze_envs.llm``): the three views and the goal vector go
in, a waypoint and an arrival flag come out. Runs against any OpenAI-compatible endpoint, including the local
model server (``maze-envs serve-model``).

The reply is parsed tolerantly (``parse_reply``): a JSON object anywhere in the text (``waypoint`` or
``waypoints``, ``arrive``), else ``waypoint: [f, l]`` / ``arrive: yes`` lines. Steps longer than ``max_step``
are shortened. A reply with no usable waypoint makes the agent step straight towards the goal and count the
miss in ``extra["parse_failures"]``.
"""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np

from maze_envs.llm import ChatClient, ResponseCache, chat_client
from maze_envs.nav.interface.poi_goal import BasePoiGoalAgent, PoiGoalObservation
from maze_envs.nav.interface.point_goal import BasePointGoalAgent, Observation, WaypointPrediction

_NUMBER = r"[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?"
_PAIR = re.compile(rf"\[\s*({_NUMBER})\s*,\s*({_NUMBER})\s*\]")
_WAYPOINT_LINE = re.compile(rf"waypoints?\W*[:=]\s*((?:\[\s*{_NUMBER}\s*,\s*{_NUMBER}\s*\][\s,]*)+)", re.I)
_ARRIVE_LINE = re.compile(r"arrive[d]?\W*[:=]\s*\"?(true|false|yes|no|1|0)", re.I)
AGENT_DEFAULTS = {"model": "local", "max_retries": 2}
PROMPT = (
    "You are a robot navigating a building. The three images are your left, front and right camera views "
    "(left = 90 degrees to your left). {goal} Coordinates are metres in your own frame: [front, left], so "
    "[2, 0] is two metres straight ahead and [0, 1] one metre to your left. Walls cannot be crossed. "
    "Choose your next waypoint (at most {max_step} m away) and say whether you have arrived (within "
    "{threshold} m of the goal). Answer with JSON only: {{\"waypoint\": [front, left], \"arrive\": false}}")


def _truthy(value: Any) -> bool:
    if isinstance(value, str):
        return value.strip().lower() in ("true", "yes", "1")
    return bool(value)


def parse_reply(text: str) -> tuple[np.ndarray | None, bool]:
    """Return (waypoints as (N,2) ``[front, left]`` or None, arrive) read from a model reply."""
    for match in re.finditer(r"\{[^{}]*\}", text):
        try:
            doc = json.loads(match.group(0))
        except ValueError:
            continue
        if not isinstance(doc, dict):
            continue
        raw = doc.get("waypoint", doc.get("waypoints"))
        try:
            waypoints = np.atleast_2d(np.asarray(raw, float)) if raw is not None else None
        except (TypeError, ValueError):
            waypoints = None
        if waypoints is not None and (
            waypoints.ndim != 2 or waypoints.shape[1] != 2 or not np.isfinite(waypoints).all()
        ):
            waypoints = None
        if waypoints is not None or "arrive" in doc:
            return waypoints, _truthy(doc.get("arrive", False))
    line = _WAYPOINT_LINE.search(text)
    waypoints = np.array([[float(a), float(b)] for a, b in _PAIR.findall(line.group(1))]) if line else None
    arrive = _ARRIVE_LINE.search(text)
    return waypoints, bool(arrive and _truthy(arrive.group(1)))


class VLMPointGoalAgent(BasePointGoalAgent):
    """Asks a chat model for each step. ``client`` is the chat client to ask; without one, ``model``,
    ``base_url``, ``api_key_env``, ``timeout`` and ``max_retries`` (None: not given) configure the endpoint,
    then the environment, then the ``model_config`` YAML file, then the defaults (model ``local``, 2 retries,
    as ``maze_envs.llm.factory`` orders them); ``image_size`` is the longest side the views are shrunk to;
    ``cache_dir`` caches replies; ``temperature`` and ``max_tokens`` go with each request."""

    def __init__(self, model: str | None = None, base_url: str | None = None, api_key_env: str | None = None,
                 timeout: float | None = None, max_retries: int | None = None, temperature: float = 0.0,
                 max_tokens: int = 200, max_step: float = 2.0, arrive_threshold: float = 0.5, image_size: int = 256,
                 cache_dir: str | None = None, model_config: str | None = None, client: ChatClient | None = None,
                 **_: object):
        self.client = client or chat_client(model_config, cache=ResponseCache(cache_dir) if cache_dir else None,
                                            defaults=AGENT_DEFAULTS, model=model, base_url=base_url,
                                            api_key_env=api_key_env, timeout=timeout, max_retries=max_retries)
        self.params = {"temperature": temperature, "max_tokens": max_tokens}
        self.max_step = max_step
        self.arrive_threshold = arrive_threshold
        self.image_size = image_size
        self.parse_failures = 0

    def reset(self) -> None:
        """Start counting parse failures afresh."""
        self.parse_failures = 0

    def goal_text(self, observation: Observation) -> str:
        """Return the prompt's sentence about the goal."""
        front, left = (float(v) for v in observation.target_position)
        return (f"The goal is at [{front:.2f}, {left:.2f}], {observation.distance_to_goal:.2f} m away.")

    def _views(self, observation: Observation) -> list[np.ndarray]:
        views = []
        for name in ("left", "front", "right"):
            image = np.asarray(observation.images[name])
            step = max(1, int(np.ceil(max(image.shape[:2]) / self.image_size)))
            views.append(np.ascontiguousarray(image[::step, ::step]))
        return views

    def predict(self, observation: Observation) -> WaypointPrediction:
        """Return the model's waypoint (shortened to ``max_step``) and arrival flag."""
        prompt = PROMPT.format(goal=self.goal_text(observation), max_step=self.max_step,
                               threshold=self.arrive_threshold)
        reply = self.client.chat(prompt, images=self._views(observation), **self.params)
        waypoints, arrive = parse_reply(reply.text)
        if waypoints is None:
            self.parse_failures += 1
            target = np.asarray(observation.target_position, float)
            waypoints = target[None] if not arrive else np.zeros((1, 2))
        norms = np.linalg.norm(waypoints, axis=1, keepdims=True)
        waypoints = waypoints * np.minimum(1.0, self.max_step / np.maximum(norms, 1e-9))
        return WaypointPrediction(waypoints, arrive=arrive,
                                  extra={"reply": reply.text[:500], "parse_failures": self.parse_failures})


class VLMPoiGoalAgent(VLMPointGoalAgent, BasePoiGoalAgent):
    """The VLM agent for POI tasks: the prompt names the POI too (arrival within 2.0 m by default)."""

    def __init__(self, arrive_threshold: float = 2.0, **kwargs: Any):
        super().__init__(arrive_threshold=arrive_threshold, **kwargs)

    def goal_text(self, observation: PoiGoalObservation) -> str:
        """Return the prompt's sentence about the named goal."""
        return f"Go to the {observation.poi_name}. " + super().goal_text(observation)
