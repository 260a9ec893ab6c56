"""Terminal play under ``--protocol mazebench``: MazeBench's ``run_sandbox.py cli`` loop on its env (its Chinese
messages, ``#`` walls, the status block after each move with the available actions; play goes on after the
goal, where every move answers ``Game ended``). The maze is named on the command line instead of picked from a
numbered menu."""

from __future__ import annotations

from typing import TextIO

from ..mazes import BenchMaze
from .sandbox import MazeBenchEnv

KEYS = {"w": "up", "up": "up", "s": "down", "down": "down", "a": "left", "left": "left", "d": "right",
        "right": "right"}
HELP = ("\n=== 迷宫沙盒帮助 ===\n移动命令:\n  w 或 up    - 向上移动\n  s 或 down  - 向下移动\n  a 或 left  - 向左移动\n"
        "  d 或 right - 向右移动\n其他命令:\n  h 或 help  - 显示此帮助\n  r 或 reset - 重置迷宫\n"
        "  i 或 info  - 显示迷宫信息\n  p 或 path  - 显示最短路径\n  q 或 quit  - 退出游戏\n==================\n")


def _status(env: MazeBenchEnv, message: str, out: TextIO) -> None:
    info = env.info()
    goal = tuple(info["goal"])
    lines = ["", "=" * 50, *([message] if message else []), "", "当前迷宫:", env.render_ascii(), "状态信息:",
             f"  当前位置: {tuple(env.position)}", f"  终点位置: {goal}", f"  已走步数: {info['steps']}",
             f"  可用动作: {', '.join(info['available_actions'])}"]
    if info["done"]:
        lines.append("  🎉 恭喜！你到达了终点！")
    lines.append("=" * 50)
    print("\n".join(lines), file=out)


def play_mazebench_terminal(env: MazeBenchEnv, commands: TextIO, out: TextIO) -> dict:
    """Play ``env`` from the ``commands`` lines as MazeBench's CLI does, writing to ``out``; return the final
    state when the player quits or the input ends."""
    print(f"已加载迷宫: {env.maze.name}", file=out)
    print(HELP, file=out)
    _status(env, "游戏开始！使用 WASD 或方向键移动，输入 'h' 查看帮助。", out)
    for line in commands:
        command = line.strip().lower()
        if command in KEYS:
            info = env.step(KEYS[command])
            if "error" in info:
                _status(env, f"❌ {info['error']}", out)
            elif info.get("success"):
                _status(env, f"✅ {info['message']}" if "message" in info else
                        f"移动成功！当前位置: {tuple(env.position)}", out)
            else:
                _status(env, "移动执行完毕", out)
        elif command in ("h", "help"):
            print(HELP, file=out)
        elif command in ("r", "reset"):
            env.reset()
            _status(env, "迷宫已重置！", out)
        elif command in ("i", "info"):
            info = env.info()
            print(f"\n=== 迷宫信息 ===\n大小: {info['size']}\n起点: {tuple(info['start'])}\n"
                  f"终点: {tuple(info['goal'])}\n当前位置: {tuple(env.position)}\n步数: {info['steps']}\n"
                  f"状态: {'已完成' if info['done'] else '进行中'}\n"
                  "===============\n", file=out)
        elif command in ("p", "path"):
            print(f"\n显示最短路径:\n{env.render_ascii(show_path=True)}\n", file=out)
        elif command in ("q", "quit"):
            print("感谢游玩！再见！", file=out)
            break
        else:
            print(f"未知命令: {command}\n输入 'h' 或 'help' 查看可用命令", file=out)
    return env.state()


def play_mazebench_maze(maze: BenchMaze, commands: TextIO, out: TextIO, *, visibility: int = -1) -> dict:
    """Play ``maze`` as MazeBench's CLI does (the protocol's ``SandboxRules.terminal``; its CLI shows the whole
    maze, so ``visibility`` is not used); return the final state."""
    return play_mazebench_terminal(MazeBenchEnv(maze), commands, out)
