"""Charts drawn on one canvas (Vega-Lite) rather than as plotly's SVG: a heatmap with a number in every cell, whose
redraw a change waits for."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import streamlit as st

from ui.layout import present
from ui.links import presenting


def canvas_heatmap(matrix: np.ndarray, x_labels: Sequence[str], y_labels: Sequence[str], title: str, key: str,
                   colorscale: str = "Blues", zrange: tuple[float, float] | None = None, zmid: float | None = None,
                   container: Any = None) -> None:
    """``canvas_heatmaps.heatmap_spec`` of ``matrix`` (rows, columns) drawn in a container keyed ``key`` (on
    ``container``: a column, or the page); in presentation mode its text is larger and its rows share one screen.
    Vega's menu (…) saves it as PNG or SVG."""
    from bertviz_core.figures.canvas_heatmaps import heatmap_spec

    shown = presenting()
    spec, _ = heatmap_spec(matrix, x_labels, y_labels, title, colorscale, zrange, zmid,
                           font_px=present.FONT_PX if shown else 12,
                           height_px=present.CHART_PX - 5 * present.LINE_PX if shown else None)  # title, axis
    with (container or st).container(key=key):
        st.vega_lite_chart(spec=spec, key=f"{key}_chart", width="stretch")
