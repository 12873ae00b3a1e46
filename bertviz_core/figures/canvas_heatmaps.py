"""A heatmap with a number in every cell as one Vega-Lite view drawn on a canvas (``heatmap_spec``), for the
matrices whose change a class waits for: a plotly heatmap redraws as hundreds of SVG nodes, 30-40 ms of the
browser's main thread a change more than a canvas (docs/performance.md, "Heatmaps on a canvas, measured"). No
computation beyond layout; canvas text and Vega's tooltips show markup as typed, so labels need no ``plain``.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

# plotly's colour scale names as the pages give them -> Vega's scheme, whether it runs the other way, and which of
# its ends is dark (where a cell's number is white). plotly's "RdBu" runs from red (low) to blue (high), as Vega's
# "redblue" does.
SCHEMES = {"Blues": ("blues", False, "high"), "Blues_r": ("blues", True, "low"),
           "Greens": ("greens", False, "high"), "RdBu": ("redblue", False, "ends"),
           "RdBu_r": ("redblue", True, "ends"), "Viridis": ("viridis", False, "low")}
CELL_PX = {True: 44, False: 22}  # a row's height with numbers (two decimals at 16 px fit) and without
MISSING = "—"  # a cell without a value, as the tables show one
BOUNDARY = {"type": "rule", "color": "#dc2626", "strokeWidth": 2}  # between a pair's two texts
# Every canvas view's config: Vega computes an ARIA description for each mark item, which a canvas never exposes
# (the view keeps its own description as its label); left out, a redraw of the pooling grid's 3,520 points did a
# third less work (docs/performance.md).
CANVAS_CONFIG = {"aria": False}
_FIRST = "data('cells')[0]"  # a heatmap's first cell, which carries its title and its colour scale's fixed ends


def title_from_data(dataset: str) -> dict:
    """A Vega-Lite title text drawn from the first row of the named ``dataset`` (its column "title", lines joined by
    newlines; none while it is empty): a view whose title travels with its data keeps a spec that a change of title
    leaves alone, so Streamlit redraws the view in place."""
    return {"expr": f"length(data('{dataset}')) ? split(data('{dataset}')[0].title, '\\n') : ''"}


def title_rows(title: str | list[str], rows: int) -> pd.Categorical:
    """The column "title" that ``title_from_data`` reads: ``title`` (one line, or its lines joined by newlines) on
    each of ``rows`` rows, as one category (it travels once in the Arrow table)."""
    lines = [title] if isinstance(title, str) else list(title)
    return pd.Categorical(["\n".join(lines)] * rows)


def _description(value_title: str, x_title: str | None, y_title: str | None) -> str:
    """A heatmap's label for a screen reader: its value and, when titled, its axes."""
    axes = f": {y_title} down the side, {x_title} across" if x_title and y_title else ""
    return f"Heatmap of each cell's {value_title}{axes}"


def heatmap_spec(matrix: np.ndarray, x_labels: Sequence[str], y_labels: Sequence[str], title: str | list[str],
                 colorscale: str = "Blues", zrange: tuple[float | None, float | None] | None = None,
                 zmid: float | None = None,
                 annotate: bool = True, best_cells: Sequence[tuple[int, int]] = (), font_px: int = 12,
                 height_px: int | None = None, min_font_px: int = 8,
                 x_title: str | None = None, y_title: str | None = None, hover_format: str = ".3f",
                 value_title: str = "value", boundary: int | None = None,
                 numbered_columns: bool = False) -> tuple[dict, pd.DataFrame]:
    """A heatmap of ``matrix`` (rows, columns), ``y_labels`` down the side (the first at the top) and ``x_labels``
    across; with ``annotate`` each cell's value to 2 decimals in it (white on the darker cells); on hover as
    ``value_title`` in ``hover_format`` (a Python format spec: 3 decimals, or "+.3g" for small signed values) with
    both its labels, each titled as its axis (``x_title`` across, at the axis's right end, ``y_title`` down the
    side, or none); NaN cells read ``MISSING``; each of ``best_cells`` (row, column) boxed in red (one best, or
    every cell of a tie). ``title``: one line, or its lines, drawn from the data; the view's label for a screen
    reader says what kind of heatmap it is (from the axes' and value's titles). Nothing in the spec but the
    data depends on the values or the title, so a change of them alone is handed to the drawn view, which redraws
    without being built again (docs/performance.md, "... heatmaps redrawn in place"). ``colorscale`` is one of
    ``SCHEMES``; ``zrange`` fixes the colour scale's ends (an end None: the data's), ``zmid`` its middle. Rows are
    ``CELL_PX`` tall, or share ``height_px`` when that is less (presentation mode), but are never shorter than
    ``min_font_px``: a heatmap of more rows than that allows runs past ``height_px``, each row named. Text is
    ``font_px``, the row labels and the cells' numbers as large as their rows and columns allow, the numbers left
    out (on hover alone) where that is under ``min_font_px``. ``boundary`` (a row and column index of a square
    matrix: a pair's second text's first token) draws a red rule before that row and before that column; with
    ``numbered_columns`` each column is labelled by its number alone, from 0 (the rows name the same tokens).
    Returns the spec (its data as the named dataset "cells", for ``st.vega_lite_chart``, each row also holding the
    title, its lines joined by newlines, and the colour scale's ends, low and high) and the cells as a frame: row,
    column, value, text, hover, dark, best."""
    values = np.asarray(matrix, dtype=float)
    rows, cols = values.shape
    if (rows, cols) != (len(y_labels), len(x_labels)):
        raise ValueError(f"A heatmap of shape {values.shape} needs {rows} row and {cols} column labels; "
                         f"got {len(y_labels)} and {len(x_labels)}.")
    if colorscale not in SCHEMES:
        raise ValueError(f"Unknown colour scale {colorscale!r}; choose one of {', '.join(SCHEMES)}.")
    scheme, reverse, dark_end = SCHEMES[colorscale]
    finite = values[np.isfinite(values)]
    fixed_low, fixed_high = zrange if zrange is not None else (None, None)
    low = fixed_low if fixed_low is not None else (finite.min() if finite.size else 0.0)
    high = fixed_high if fixed_high is not None else (finite.max() if finite.size else 1.0)
    share = (values - low) / ((high - low) or 1.0)  # where each value falls on the colour scale, 0 to 1
    middle = (low + high) / 2 if zmid is None else zmid
    dark = {"high": share > 0.6, "low": share < 0.4,  # a diverging scale is darkest at both ends
            "ends": np.abs(values - middle) > 0.6 * max(abs(high - middle), abs(middle - low), 1e-12)}[dark_end]
    cells = pd.DataFrame({
        "row": np.repeat(list(y_labels), cols), "column": np.tile(list(x_labels), rows), "value": values.ravel(),
        "text": [MISSING if np.isnan(v) else f"{v:.2f}" for v in values.ravel()],
        "hover": [MISSING if np.isnan(v) else f"{v:{hover_format}}" for v in values.ravel()],
        "dark": (dark & np.isfinite(values)).ravel(), "best": np.zeros(rows * cols, dtype=bool)})
    for row, col in best_cells:
        if not (0 <= row < rows and 0 <= col < cols):
            raise ValueError(f"A best cell ({row}, {col}) lies outside the heatmap's {rows} × {cols} cells.")
        cells.loc[row * cols + col, "best"] = True
    if boundary is not None and not 0 < boundary < min(rows, cols):
        raise ValueError(f"A boundary before row and column {boundary} lies outside the heatmap's {rows} × {cols} "
                         "cells.")
    # squeezed onto one screen, but never below the least text size: every row keeps its name, however tall
    row_px = CELL_PX[annotate] if height_px is None else max(min_font_px, min(CELL_PX[annotate], height_px // rows))
    cell_font_px = min(font_px, row_px - 6)  # the numbers shrink with rows squeezed onto one screen
    if fixed_low is not None and fixed_high is not None:  # both fixed: they travel with the cells (low, high)
        ends = {"domainMin": {"expr": f"length(data('cells')) ? {_FIRST}.low : 0"},
                "domainMax": {"expr": f"length(data('cells')) ? {_FIRST}.high : 1"}}
    else:  # an end not fixed is the data's: Vega takes it from the cells
        ends = {name: float(end) for name, end in (("domainMin", fixed_low), ("domainMax", fixed_high))
                if end is not None}
    scale = {"scheme": scheme, "reverse": reverse, "nice": False} | ends | (
        {"domainMid": float(zmid)} if zmid is not None else {})
    # each label at its row's or column's middle (Streamlit's theme pulls the end labels in), beside it (the theme's
    # 1rem is 22 px in presentation mode)
    axis = {"titleFontSize": font_px, "titlePadding": 6, "labelFontSize": font_px, "labelAngle": 0, "labelLimit": 240,
            "ticks": False, "domain": False, "labelFlush": False, "labelBound": False, "labelPadding": 4}
    # every column named: its label slants where a column is narrower than it (Vega would leave crowded ones out)
    widest = len(str(cols - 1)) if numbered_columns else max((len(label) for label in x_labels), default=1)
    slant = f"bandwidth('x') < {0.6 * font_px * widest + 6:.0f}"
    # its title at the axis's right end, beside the last label (slanted ones reach down left) and below the legend: no
    # line of its own under the labels, which one screen in presentation mode has no room for
    x = {"field": "column", "type": "ordinal", "sort": list(x_labels), "axis": {
        **axis, "title": x_title, "titleAnchor": "end", "titleAlign": "left", "titleAngle": 0, "titleBaseline": "top",
        "titleY": 2 * font_px, "orient": "bottom", "labelOverlap": False, "labelAngle": {"expr": f"{slant} ? -40 : 0"},
        "labelAlign": {"expr": f"{slant} ? 'right' : 'center'"}}
        # short level numbers: the title on their line, beside the last (no line of its own on one screen)
        | ({"labelExpr": "indexof(domain('x'), datum.value)", "titleY": 4} if numbered_columns else {})}
    # rows squeezed onto one screen: labels as tall as a row, each one named (Vega would leave crowded ones out)
    y = {"field": "row", "type": "ordinal", "sort": list(y_labels),
         "axis": {**axis, "title": y_title, "labelFontSize": min(font_px, row_px), "labelOverlap": False}}
    # each rule at its band's start, across the whole plot; no tooltip of its own (the cells under it have theirs)
    rules = [] if boundary is None else [
        {"data": {"values": [{"column": x_labels[boundary]}]}, "mark": BOUNDARY, "encoding": {
            "x": {**x, "bandPosition": 0}, "y": {"value": 0}, "y2": {"value": "height"}, "tooltip": None}},
        {"data": {"values": [{"row": y_labels[boundary]}]}, "mark": BOUNDARY, "encoding": {
            "y": {**y, "bandPosition": 0}, "x": {"value": 0}, "x2": {"value": "width"}, "tooltip": None}}]
    tooltip = [{"field": "row", "type": "ordinal"} | ({"title": y_title} if y_title else {}),
               {"field": "column", "type": "ordinal"} | ({"title": x_title} if x_title else {}),
               {"field": "hover", "type": "nominal", "title": value_title}]
    # numbers shrink to a narrow column (many columns, or half a screen), and show on hover alone past the least size
    fitted = f"min({cell_font_px}, (bandwidth('x') - 4) / {0.6 * max((len(t) for t in cells['text']), default=1):.2f})"
    numbers = [{"mark": {"type": "text", "fontSize": {"expr": fitted},
                         "opacity": {"expr": f"{fitted} >= {min_font_px} ? 1 : 0"}},
                "encoding": {"text": {"field": "text"},
                             "color": {"condition": {"test": "datum.dark", "value": "white"}, "value": "#31333f"}}}]
    spec = {
        "usermeta": {"embedOptions": {"renderer": "canvas"}},
        "title": {"text": title_from_data("cells"),
                  "anchor": "start", "fontSize": font_px + 3, "limit": 0},
        # the canvas's label for a screen reader: what it shows, not the title of the moment (the spec would change)
        "description": _description(value_title, x_title, y_title),
        "width": "container", "height": rows * row_px, "autosize": {"type": "fit-x", "contains": "padding"},
        # one dataset: Streamlit hands a changed one to the drawn view, every dataset a mark of the view must use
        "datasets": {"cells": cells[["row", "column", "value", "hover", "text", "dark", "best"]]
                     .assign(title=title_rows(title, len(cells)), low=float(low), high=float(high))},
        "data": {"name": "cells"},
        "encoding": {"x": x, "y": y, "tooltip": tooltip},  # the cell and its number both show it
        "layer": [
            {"mark": {"type": "rect"},
             "encoding": {"color": {"field": "value", "type": "quantitative", "title": None, "scale": scale,
                                    "legend": {"gradientLength": min(rows * row_px, 240)}}}},
        ] + (numbers if annotate and cell_font_px >= min_font_px else []) + ([
            {"transform": [{"filter": "datum.best"}],
             "mark": {"type": "rect", "fill": None, "stroke": "red", "strokeWidth": 3}}] if len(best_cells) else [])
        + rules,
        "config": {**CANVAS_CONFIG, "legend": {"labelFontSize": font_px}},
    }
    return spec, cells
