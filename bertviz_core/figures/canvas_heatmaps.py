"""A heatmap with a number in every cell as one Vega-Lite view drawn on a canvas (``heatmap_spec``), for the
matrices whose change a class waits for: a plotly heatmap redraws as hundreds of SVG nodes, 30-40 ms of the
browser's main thread a change more than a canvas (docs/performance.md, "Heatmaps on a canvas, measured"). No
computation beyond layout; canvas text and Vega's tooltips show markup as typed, so labels need no ``plain``.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import pandas as pd

# plotly's colour scale names as the pages give them -> Vega's scheme and whether it runs the other way. plotly's
# "RdBu" runs from red (low) to blue (high), as Vega's "redblue" does.
SCHEMES = {"Blues": ("blues", False), "Blues_r": ("blues", True), "RdBu": ("redblue", False),
           "RdBu_r": ("redblue", True), "Viridis": ("viridis", False)}
CELL_PX = 44  # a row's height: two decimals at 12 px, or at presentation mode's 16 px, fit with room around them
MISSING = "—"  # a cell without a value, as the tables show one


def heatmap_spec(matrix: np.ndarray, x_labels: Sequence[str], y_labels: Sequence[str], title: str,
                 colorscale: str = "Blues", zrange: tuple[float, float] | None = None, zmid: float | None = None,
                 font_px: int = 12, height_px: int | None = None) -> tuple[dict, pd.DataFrame]:
    """A heatmap of ``matrix`` (rows, columns), ``y_labels`` down the side (the first at the top) and ``x_labels``
    across, each cell's value to 2 decimals in it (white on the darker cells) and to 3 on hover with both its
    labels; NaN cells read ``MISSING``. ``colorscale`` is one of ``SCHEMES``; ``zrange`` fixes the colour scale's
    ends, ``zmid`` its middle. Rows are ``CELL_PX`` tall, or share ``height_px`` when that is less (presentation
    mode); text is ``font_px``, the cells' numbers as large as their rows allow. Returns the spec (its data as the named dataset "cells", for
    ``st.vega_lite_chart``) and the cells as a frame: row, column, value, text, dark."""
    values = np.asarray(matrix, dtype=float)
    rows, cols = values.shape
    if (rows, cols) != (len(y_labels), len(x_labels)):
        raise ValueError(f"A heatmap of shape {values.shape} needs {rows} row and {cols} column labels; "
                         f"got {len(y_labels)} and {len(x_labels)}.")
    if colorscale not in SCHEMES:
        raise ValueError(f"Unknown colour scale {colorscale!r}; choose one of {', '.join(SCHEMES)}.")
    scheme, reverse = SCHEMES[colorscale]
    finite = values[np.isfinite(values)]
    low, high = zrange if zrange is not None else ((finite.min(), finite.max()) if finite.size else (0.0, 1.0))
    share = (values - low) / ((high - low) or 1.0)  # where each value falls on the colour scale, 0 to 1
    if zmid is not None:  # a diverging scale is darkest at both ends
        dark = np.abs(values - zmid) > 0.6 * max(abs(high - zmid), abs(zmid - low), 1e-12)
    else:
        dark = (1 - share if reverse else share) > 0.6
    cells = pd.DataFrame({
        "row": np.repeat(list(y_labels), cols), "column": np.tile(list(x_labels), rows),
        "value": values.ravel(), "text": [MISSING if np.isnan(v) else f"{v:.2f}" for v in values.ravel()],
        "dark": (dark & np.isfinite(values)).ravel()})
    row_px = CELL_PX if height_px is None else max(1, min(CELL_PX, height_px // rows))
    cell_font_px = max(8, min(font_px, row_px - 6))  # the numbers shrink with rows squeezed onto one screen
    scale = {"scheme": scheme, "reverse": reverse, "domain": [float(low), float(high)]} | (
        {"domainMid": float(zmid)} if zmid is not None else {})
    # each label at its row's or column's middle (Streamlit's theme pulls the end labels in)
    axis = {"title": None, "labelFontSize": font_px, "labelAngle": 0, "labelLimit": 240, "ticks": False,
            "domain": False, "labelFlush": False, "labelBound": False}
    x = {"field": "column", "type": "ordinal", "sort": list(x_labels), "axis": {**axis, "orient": "bottom"}}
    y = {"field": "row", "type": "ordinal", "sort": list(y_labels), "axis": axis}
    tooltip = [{"field": "row", "type": "ordinal"}, {"field": "column", "type": "ordinal"},
               {"field": "value", "type": "quantitative", "format": ".3f"}]
    spec = {
        "usermeta": {"embedOptions": {"renderer": "canvas"}},
        "title": {"text": title, "anchor": "start", "fontSize": font_px + 3, "limit": 0},
        "description": title,  # the canvas's label for a screen reader (and a browser test: the canvas has no text)
        "width": "container", "height": rows * row_px, "autosize": {"type": "fit-x", "contains": "padding"},
        "datasets": {"cells": cells[["row", "column", "value", "text", "dark"]]},
        "data": {"name": "cells"},
        "encoding": {"x": x, "y": y, "tooltip": tooltip},  # the cell and its number both show it
        "layer": [
            {"mark": {"type": "rect"},
             "encoding": {"color": {"field": "value", "type": "quantitative", "title": None, "scale": scale,
                                    "legend": {"gradientLength": min(rows * row_px, 240)}}}},
            {"mark": {"type": "text", "fontSize": cell_font_px},
             "encoding": {"text": {"field": "text"},
                          "color": {"condition": {"test": "datum.dark", "value": "white"}, "value": "#31333f"}}},
        ],
        "config": {"legend": {"labelFontSize": font_px}},
    }
    return spec, cells
