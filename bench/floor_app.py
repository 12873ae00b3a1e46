"""Streamlit's own floor: one slider and one plotly chart, no model. bench/ compares every page with it.

With BERTVIZ_FLOOR=grid it is instead the sentence pooling page's figure alone: a multiselect of layers
and a PCA grid of the same size (5 strategies x the chosen layers + 2 single panels, 160 points each)
drawn by the same builder from fixed random points. It shows what that figure costs by itself.
"""
import os
import sys
from pathlib import Path

import numpy as np
import plotly.graph_objects as go
import streamlit as st

if os.environ.get("BERTVIZ_FLOOR") == "grid":
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from bertviz_core.figures import Panel, layer_label, pca_grid_figure

    layers = st.multiselect("Layers", list(range(7)), [0, 3, 5, 6], format_func=layer_label, key="layers")
    rng = np.random.default_rng(0)
    rows = [(r, c, layer) for r in range(1, 6) for c, layer in enumerate(layers, start=1)] + [(6, 1, 6), (7, 1, 6)]
    panels = [Panel(r, c, f"strategy {r} · {layer_label(layer)}\nPCA var 20%", rng.normal(size=(160, 2)))
              for r, c, layer in rows]
    labels = [f"topic {i % 4}" for i in range(160)]
    st.plotly_chart(pca_grid_figure(panels, 7, len(layers), labels, [f"text {i}" for i in range(160)]), key="chart")
else:
    layer = st.slider("Layer", 0, 6, 5, key="layer")
    values = np.random.default_rng(layer).normal(size=384)
    st.plotly_chart(go.Figure(go.Bar(y=values)), key="chart")
