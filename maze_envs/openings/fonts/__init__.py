"""Fonts shipped with maze-envs: DejaVu Sans (Bitstream Vera licence, see LICENSE-DejaVu.txt; unmodified)."""

from pathlib import Path

DEJAVU_SANS = Path(__file__).with_name("DejaVuSans.ttf")
