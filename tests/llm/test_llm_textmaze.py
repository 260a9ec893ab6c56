"""Text mazes: reading ``render_text`` grids back, planning paths and moves."""

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from maze_envs.core import MazeFormatError, generate, shortest_path, validate_path
from maze_envs.core.explore import explore_route
from maze_envs.core.maze import Grid, as_grid
from maze_envs.core.render import Symbols, render_text
from maze_envs.core.replies import read_path
from maze_envs.core.textmaze import find_text_grid, format_path, move_between, next_move, parse_text_maze, plan_path
from maze_envs.tasks.render import solution_blocks


@settings(max_examples=25, deadline=None)
@given(rows=st.integers(1, 7), cols=st.integers(1, 7), seed=st.integers(0, 10_000),
       algo=st.sampled_from(["dfs", "wilson", "prim", "kruskal"]), loops=st.sampled_from([0.0, 0.3]))
def test_render_then_parse_gives_the_same_grid_and_a_shortest_path(rows, cols, seed, algo, loops):
    maze = generate(rows, cols, algo, seed, loops=loops, placement="random")
    assume(maze.start != maze.goal)
    text = f"Here is your maze:\n\n{render_text(maze)}\n\nAnswer with the path."
    parsed = parse_text_maze(text)
    grid = as_grid(maze)
    assert np.array_equal(parsed.blocks, grid.blocks)
    assert (parsed.start, parsed.goal, parsed.agent, parsed.partial) == (grid.start, grid.goal, None, False)
    path = plan_path(parsed)
    assert validate_path(grid, path).valid
    assert len(path) == len(shortest_path(grid))
    assert read_path(format_path(path)).cells == path


def test_custom_symbols_and_route_marks_and_lost_trailing_spaces():
    maze = generate(4, 4, "dfs", 3)
    symbols = Symbols(wall="#", path=".", route="*")
    text = render_text(maze, route=solution_blocks(maze), symbols=symbols)
    assert symbols.route in text
    parsed = parse_text_maze(text, symbols)
    assert np.array_equal(parsed.blocks, as_grid(maze).blocks)
    opened = maze.to_blocks().copy()
    opened[3, -1] = 0  # an opening on the right border renders as a trailing space that transports may strip
    stripped = "\n".join(row.rstrip() for row in render_text(Grid(opened, (1, 1), (7, 7))).split("\n"))
    assert parse_text_maze(stripped).blocks.shape == opened.shape


def test_the_last_grid_in_a_prompt_wins_and_prose_is_ignored():
    a, b = generate(3, 3, "dfs", 1), generate(4, 5, "dfs", 2)
    text = f"Example:\n{render_text(a)}\nNow yours (S to G):\n{render_text(b)}\nThanks!"
    assert len(find_text_grid(text)) == 9
    assert parse_text_maze(text).blocks.shape == (9, 11)
    with pytest.raises(MazeFormatError, match="no maze grid"):
        parse_text_maze("no maze here, only words\nand ### hashes")


def test_move_toward_a_visible_goal_and_exploration_when_the_goal_is_hidden():
    maze = generate(5, 5, "dfs", 4)
    grid = as_grid(maze)
    path = shortest_path(grid)
    agent = path[3]
    full = parse_text_maze(render_text(maze, agent=agent))
    assert next_move(full) == move_between(path[3], path[4])

    visible = np.zeros(grid.shape, bool)
    visible[max(0, agent[0] - 2):agent[0] + 3, max(0, agent[1] - 2):agent[1] + 3] = True
    partial = parse_text_maze(render_text(maze, agent=agent, visible=visible))
    assert partial.partial and partial.goal is None
    route = explore_route(partial.known, partial.blocks == 0, partial.position)
    assert route[0] == agent and partial.known[route[-1]] and partial.blocks[route[-1]] == 0
    move = next_move(partial)
    assert move == move_between(route[0], route[1])
    step = {"up": (-1, 0), "right": (0, 1), "down": (1, 0), "left": (0, -1)}[move]
    assert grid.is_free((agent[0] + step[0], agent[1] + step[1]))


def test_legend_symbols_read_a_declared_legend_and_clear_clashing_defaults():
    from maze_envs.core.textmaze import legend_symbols

    symbols = legend_symbols("Legend: 'X' = wall, '_' = passage, 'A' = start, 'B' = goal.")
    assert (symbols.wall, symbols.path, symbols.start, symbols.goal) == ("X", "_", "A", "B")
    assert symbols.agent != "A"
    assert legend_symbols("no legend here") == Symbols()
    maze = parse_text_maze("Legend: '#' = wall, '.' = passage, 'S' = start, 'G' = goal\nS....\n###.#\nG....",
                           legend_symbols("'#' = wall, '.' = passage, 'S' = start, 'G' = goal"))
    assert (maze.start, maze.goal, maze.blocks.shape) == ((0, 0), (2, 0), (3, 5))


def test_image_maze_reads_pure_colour_cells():
    from maze_envs.core.textmaze import image_maze

    cells = np.array([[[0, 255, 0], [0, 0, 0]], [[255, 255, 255], [255, 0, 0]]], dtype=np.uint8)
    maze = image_maze(np.repeat(np.repeat(cells, 7, axis=0), 7, axis=1), 2, 2)
    assert (maze.start, maze.goal, maze.blocks.tolist()) == ((0, 0), (1, 1), [[0, 1], [0, 0]])
