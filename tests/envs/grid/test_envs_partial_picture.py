"""The partial-view picture (``Maze-PartialObs-v0``'s rgb_array, used by the env pages, the index GIF and the demo
report): the whole maze is drawn, walls visible where the agent has not looked, its window in full colour and
framed, its line of sight marked."""

from __future__ import annotations

import gymnasium as gym
import numpy as np

import maze_envs  # noqa: F401
from maze_envs.core.render import FREE, SIGHT, WALL, WINDOW_EDGE

PX = 8


def _blocks(frame: np.ndarray) -> np.ndarray:
    """The colour at the centre of every block of a frame drawn ``PX`` pixels a block."""
    return frame[PX // 2::PX, PX // 2::PX].astype(int)


def test_partial_picture_shows_the_whole_maze_and_highlights_the_window():
    env = gym.make("Maze-PartialObs-v0", rows=6, cols=6, visibility=2, render_mode="rgb_array", cell_px=PX)
    env.reset(seed=4)
    base = env.unwrapped
    walls = base.layout.blocks == 1 if hasattr(base.layout, "blocks") else None
    assert walls is not None
    frame = env.render()
    blocks = _blocks(frame)
    assert blocks.shape[:2] == walls.shape  # the whole maze, one block per cell of the layout's block grid
    seen = base._visible_for_render()
    row, col = base.agent_position
    window = np.zeros_like(walls)
    window[max(row - 2, 0):row + 3, max(col - 2, 0):col + 3] = True
    unseen = ~seen & ~window
    unseen[base.layout.start] = unseen[base.layout.goal] = False  # coloured blocks, not passages
    assert unseen.any()
    brightness = blocks.sum(axis=-1)
    # unseen walls stay visibly darker than unseen passages: the maze shows through the dimming
    assert brightness[unseen & walls].max() + 150 < brightness[unseen & ~walls].min()
    # nothing unseen is drawn in full colour, and the window is: its walls black, its passages white or marked
    assert not (blocks[unseen] == FREE).all(axis=-1).any() and not (blocks[unseen] == WALL).all(axis=-1).any()
    inside = blocks[window & walls]
    assert (inside == WALL).all()
    marked = (blocks == SIGHT).all(axis=-1)
    assert marked.any() and (marked <= (window & ~walls)).all()
    # the window is framed
    top, left = max(row - 2, 0) * PX, max(col - 2, 0) * PX
    assert (frame[top + PX, left] == WINDOW_EDGE).all() or (frame[top, left + PX] == WINDOW_EDGE).all()


def test_partial_picture_follows_the_agent_and_keeps_what_it_saw():
    env = gym.make("Maze-PartialObs-v0", rows=6, cols=6, visibility=2, render_mode="rgb_array", cell_px=PX)
    env.reset(seed=4)
    first = env.render()
    for action in (0, 1, 2, 3, 1, 1, 3, 3):
        env.step(action)
    later = env.render()
    assert first.shape == later.shape and not np.array_equal(first, later)
    # away from the window, every passage seen so far is drawn brighter than one never seen
    base = env.unwrapped
    seen, passages = base._visible_for_render(), base.layout.blocks == 0
    passages[base.layout.start] = passages[base.layout.goal] = False
    row, col = base.agent_position
    passages[max(row - 2, 0):row + 3, max(col - 2, 0):col + 3] = False
    brightness = _blocks(later).sum(axis=-1)
    assert (seen & passages).any() and brightness[seen & passages].min() > brightness[~seen & passages].max()
