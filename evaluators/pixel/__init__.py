"""Offline pixel evaluators for maze-solution images and videos (see ``image``, ``video``)."""
