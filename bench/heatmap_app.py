"""An annotated heatmap alone (Compare sentences' matrix: a number in every cell), drawn one of several ways: the
candidates bench/heatmap_drawing.py compares.

    BERTVIZ_HEATMAP=<candidate> BERTVIZ_HEATMAP_CELLS=<n> streamlit run bench/heatmap_app.py

A slider of layers and an n x n matrix of fixed random values that the layer picks, no model. The candidates:

- plotly: what the pages draw now (figures.heatmap_figure with a number in every cell, through ui.chart);
- plotly-plain: the same without the numbers (the hover still gives each value);
- vega-canvas: a Vega-Lite view of rectangles and texts, drawn on a canvas;
- vega-svg: the same view drawn as SVG.
"""
import os
import sys
from pathlib import Path

import numpy as np
import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bertviz_core import figures  # noqa: E402
from ui import chart  # noqa: E402


def vega(matrix: np.ndarray, names: list[str], renderer: str) -> dict:
    """Rectangles coloured by value with the value written in each, one view as wide as the page."""
    rows, cols = np.indices(matrix.shape)
    values = [{"row": names[r], "col": names[c], "value": float(v), "label": f"{v:.2f}"}
              for r, c, v in zip(rows.ravel(), cols.ravel(), matrix.ravel())]
    axis = {"type": "nominal", "sort": names, "title": None}
    return {
        "usermeta": {"embedOptions": {"renderer": renderer}},
        "data": {"values": values}, "title": "cosine, mean, layer 6",
        "width": "container", "height": 44 * len(names), "autosize": {"type": "fit-x", "contains": "padding"},
        "encoding": {"x": {"field": "col", **axis, "axis": {"orient": "top", "labelAngle": 0}},
                     "y": {"field": "row", **axis}},
        "layer": [
            {"mark": "rect", "encoding": {
                "color": {"field": "value", "type": "quantitative", "scale": {"scheme": "blues"}},
                "tooltip": [{"field": "row"}, {"field": "col"}, {"field": "value", "format": ".3f"}]}},
            {"mark": {"type": "text", "fontSize": 12}, "encoding": {
                "text": {"field": "label"},
                "color": {"condition": {"test": "datum.value > 0.5", "value": "white"}, "value": "black"}}},
        ],
    }


candidate = os.environ.get("BERTVIZ_HEATMAP", "plotly")
cells = int(os.environ.get("BERTVIZ_HEATMAP_CELLS", "10"))
layer = st.slider("Layer", 0, 6, 5, key="layer")
matrix = np.random.default_rng(layer).uniform(size=(cells, cells))
names = [str(i + 1) for i in range(cells)]
if candidate.startswith("plotly"):
    chart(figures.heatmap_figure(matrix, names, names, "cosine, mean, layer 6", colorscale="Blues",
                                 annotate=candidate == "plotly"), key="chart")
elif candidate.startswith("vega"):
    st.vega_lite_chart(spec=vega(matrix, names, candidate.split("-")[1]), key="chart", width="stretch")
else:
    raise SystemExit(f"unknown BERTVIZ_HEATMAP {candidate!r}")
