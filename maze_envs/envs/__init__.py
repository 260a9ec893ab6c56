"""Gymnasium environments; importing ``maze_envs`` registers every id listed in ``registration``.

``EpisodeMetricsWrapper`` and ``VectorEpisodeMetrics`` (``metrics``) measure episodes of any of them.
"""

from .metrics import METRIC_KEYS, EpisodeMetricsWrapper, VectorEpisodeMetrics

__all__ = ["METRIC_KEYS", "EpisodeMetricsWrapper", "VectorEpisodeMetrics"]
