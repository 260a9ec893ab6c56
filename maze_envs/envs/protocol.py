"""The grid envs' protocol: the step rules (``maze_envs.protocols.GridRules``) of the protocol an env is made with.

``protocol="default"`` keeps this project's rules; ``protocol="mazebench"`` reproduces the sandbox of MazeBench
(https://github.com/Aileen-90/MazeBench) where it is not a defect. Every protocol registered with ``grid``
rules is accepted (``maze_envs.protocols.protocol_names("grid")``).
"""

from __future__ import annotations

from typing import Any

from maze_envs.protocols import GridRules, protocol

PROTOCOL_DEFAULT = "protocol"  # an option left at this value takes the protocol's own default


def grid_rules(name: Any) -> GridRules:
    """Return the grid rules of the protocol called ``name``; raise ``MazeConfigError`` naming ``protocol``
    otherwise."""
    return protocol(name, "grid").grid
