"""Streamlit's own floor: one slider and one plotly chart, no model. bench/ compares every page with it.

With BERTVIZ_FLOOR=grid it is instead the sentence pooling page's figure alone: a multiselect of layers
and a PCA grid of the same size as the page's on the bundled model (each per-layer strategy x the chosen
layers, one panel per layer-independent strategy, 160 points each) drawn by the same builder from fixed
random points. It shows what that figure costs by itself.
"""
import os
import sys
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import streamlit as st

if os.environ.get("BERTVIZ_FLOOR") == "grid":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from bertviz_core import describe
    from bertviz_core.figures import Panel, layer_label, pca_grid_figure
    from bertviz_core.pooling_grid import grid_cells
    from bertviz_core.pooling import supported_strategies

    info = describe()
    top = info.num_layers
    layers = st.multiselect("Layers", list(range(top + 1)), sorted({0, top // 2, top - 1, top}),
                            format_func=layer_label, key="layers")
    rng = np.random.default_rng(0)
    rows = grid_cells(supported_strategies(info.has_pooler), layers, top)
    panels = [Panel(r, c, f"{cell.strategy} · {layer_label(cell.layer)}\nPCA var 20%", rng.normal(size=(160, 2)))
              for r, row in enumerate(rows, start=1) for c, cell in enumerate(row, start=1)]
    labels = [f"topic {i % 4}" for i in range(160)]
    st.plotly_chart(pca_grid_figure(panels, len(rows), len(layers), labels, [f"text {i}" for i in range(160)]),
                    key="chart")
else:
    layer = st.slider("Layer", 0, 6, 5, key="layer")
    values = np.random.default_rng(layer).normal(size=384)
    st.plotly_chart(go.Figure(go.Bar(y=values)), key="chart")
