"""Agent interfaces: ``point_goal`` and ``poi_goal``."""
