"""The labelled-openings env family: ``Maze-Openings-v0`` and its observation variants."""
