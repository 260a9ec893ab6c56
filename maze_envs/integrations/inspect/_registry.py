"""Inspect's entry point (``[project.entry-points.inspect_ai]``): importing it registers the tasks."""

from . import tasks, tools  # noqa: F401
