"""Agent interfaces ``point_goal`` and ``poi_goal``: re-exports of ``maze_envs.nav.interface``."""
