"""The report kit: ``draw`` (mazes with the walks over them, line and bar charts as SVG, images as PNG), ``page``
(the one page writer: stylesheet, document, tables, statistics as text), ``sizes`` (the one size vocabulary).
The benchmark, suite, judge and demo reports are written with it."""

from .draw import PALETTE, Axis, Bar, Series, Trace, bar_chart, line_chart, maze_svg, png_data_uri, png_img
from .page import (
    DASH,
    Section,
    escape,
    figure,
    html_page,
    interval_text,
    legend,
    rate_html,
    statistic_html,
    table,
    wide,
    write_page,
)
from .sizes import cells_label, size_area, size_label

__all__ = ["DASH", "PALETTE", "Axis", "Bar", "Section", "Series", "Trace", "bar_chart", "cells_label", "escape",
           "figure", "html_page", "interval_text", "legend", "line_chart", "maze_svg", "png_data_uri", "png_img",
           "rate_html", "size_area", "size_label", "statistic_html", "table", "wide", "write_page"]
