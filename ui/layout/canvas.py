"""Charts drawn on one canvas (Vega-Lite) rather than as plotly's SVG, whose redraw a change waits for: a heatmap,
with a number in every cell or not, and any chart whose spec is built for a title, a text size and a height."""
from __future__ import annotations

import html
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pandas as pd
import streamlit as st

from ui.layout import present
from ui.links import presenting


def canvas_heatmap(matrix: np.ndarray, x_labels: Sequence[str], y_labels: Sequence[str], title: str, key: str,
                   colorscale: str = "Blues", zrange: tuple[float, float] | None = None, zmid: float | None = None,
                   annotate: bool = True, best_cells: Sequence[tuple[int, int]] = (), container: Any = None,
                   x_title: str | None = None, y_title: str | None = None, hover_format: str = ".3f",
                   value_title: str = "value", boundary: int | None = None, numbered_columns: bool = False) -> None:
    """``canvas_heatmaps.heatmap_spec`` of ``matrix`` (rows, columns) drawn in a container keyed ``key`` (on
    ``container``: a column, or the page), its title wrapped to the column; in presentation mode its text is larger
    and its rows share one screen. ``x_title``, ``y_title`` (the axes' titles, none by default), ``hover_format``,
    ``value_title`` (a cell's number on hover) and ``boundary`` (a pair's red rules) are ``heatmap_spec``'s; with
    ``numbered_columns``, in presentation mode alone, each column is named by its number (the rows name the same
    tokens), so that its rows keep one screen. Streamlit's toolbar saves it as PNG. The title is drawn from the data
    and also given as hidden text (``present.CHART_TITLE_CLASS``): the view's label names the kind of heatmap, so that
    a change of values or title redraws the view in place."""
    from bertviz_core.figures.canvas_heatmaps import heatmap_spec

    shown = presenting()
    lines = present.title_lines(title, present.title_chars(shown, container))
    font_px = present.FONT_PX if shown else 12
    numbered = numbered_columns and shown
    # the rows' share of one screen: less the title and the axis below them, slanted labels as tall as they reach
    widest = len(str(len(x_labels) - 1)) if numbered else max((len(label) for label in x_labels), default=1)
    below = max(present.LINE_PX, 0.65 * 0.6 * font_px * widest)
    spec, _ = heatmap_spec(matrix, x_labels, y_labels, lines if len(lines) > 1 else title, colorscale, zrange, zmid,
                           annotate=annotate, best_cells=best_cells, font_px=font_px,
                           height_px=int(present.CHART_PX - (2 + len(lines)) * present.LINE_PX - below) if shown
                           else None, min_font_px=present.MIN_FONT_PX if shown else 8,
                           x_title=x_title, y_title=y_title, hover_format=hover_format, value_title=value_title,
                           boundary=boundary, numbered_columns=numbered)
    _draw(spec, key, container, title)


def canvas_chart(spec_of: Callable[[str | list[str], int, int | None], dict], title: str, key: str,
                 container: Any = None) -> None:
    """The Vega-Lite chart ``spec_of(title or its lines, text px, its whole height px or None)`` builds, drawn in a
    container keyed ``key`` (on ``container``: a column, or the page), its title wrapped to the column; in
    presentation mode its text is larger and it fits one screen, its legend below included. Streamlit's toolbar
    saves it as PNG. A spec with a description of its own (the kind of chart) draws its title from its data and
    keeps that label, so that a new title redraws the view in place: the title is then also hidden text beside it
    (``present.CHART_TITLE_CLASS``); otherwise the view's label is the whole title."""
    shown = presenting()
    lines = present.title_lines(title, present.title_chars(shown, container))
    height = present.CHART_PX if shown else None
    spec = spec_of(lines if len(lines) > 1 else title, present.FONT_PX if shown else 12, height)
    if "description" in spec:
        _draw(spec, key, container, title)
    else:
        _draw(spec | {"description": title}, key, container)


def _draw(spec: dict, key: str, container: Any, hidden_title: str | None = None) -> None:
    # tests and browser checks find the chart by its container's key; the hidden title takes no room (no gap)
    with (container or st).container(key=key, gap=None):
        if hidden_title is not None:
            st.html(f'<div class="{present.CHART_TITLE_CLASS}">{html.escape(hidden_title)}</div>')
        st.vega_lite_chart(spec=spec, key=f"{key}_chart", width="stretch")


def canvas_table_heatmap(table: pd.DataFrame, title: str, key: str, **options: Any) -> None:
    """``canvas_heatmap`` of a numeric table, its index down the side and its columns across."""
    from bertviz_core.figures import table_cells

    canvas_heatmap(*table_cells(table), title, key, **options)
