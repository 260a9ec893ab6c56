"""MazeBench's sandboxes on the grid env: the game one maze at a time, its HTTP API and client, terminal play."""

from .api import sandbox_app
from .client import SandboxAPIError, SandboxClient
from .game import ACTIONS, SandboxGame

__all__ = ["ACTIONS", "SandboxAPIError", "SandboxClient", "SandboxGame", "sandbox_app"]
