"""The pygame window of the envs' ``human`` render mode and of human play: RGB frames with optional status text.

pygame is imported only here, lazily, when a window opens.
"""

from __future__ import annotations

import numpy as np


class Window:
    """A resizable-by-frame pygame window: ``show(frame)`` draws an ``(H, W, 3)`` uint8 image and pumps events."""

    def __init__(self, title: str, status_px: int = 0) -> None:
        import pygame

        self.pygame = pygame
        pygame.display.init()
        pygame.font.init()
        pygame.display.set_caption(title)
        self.status_px = status_px
        self.surface = None
        self.clock = pygame.time.Clock()
        self.font = pygame.font.Font(None, 22)

    def show(self, frame: np.ndarray, fps: int = 60, status: str = "") -> None:
        """Draw ``frame`` with ``status`` text below it, pump the event queue and cap the rate at ``fps``."""
        pygame = self.pygame
        h, w = frame.shape[:2]
        size = (w, h + self.status_px)
        if self.surface is None or self.surface.get_size() != size:
            self.surface = pygame.display.set_mode(size)
        self.surface.fill((255, 255, 255))
        self.surface.blit(pygame.surfarray.make_surface(np.ascontiguousarray(frame.transpose(1, 0, 2))), (0, 0))
        if status and self.status_px:
            self.surface.blit(self.font.render(status, True, (0, 0, 0)), (4, h + 4))
        pygame.event.pump()
        pygame.display.flip()
        self.clock.tick(fps)

    def close(self) -> None:
        """Close the window."""
        self.pygame.display.quit()
