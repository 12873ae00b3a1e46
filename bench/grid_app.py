"""The Sentence pooling grid alone, drawn one of several ways: the candidates bench/grid_drawing.py compares.

    BERTVIZ_GRID=<candidate> streamlit run bench/grid_app.py

A multiselect of layers and a grid of the page's size on the bundled model (each per-layer strategy x the
chosen layers, one panel per layer-independent strategy, 160 points each in 4 topics) from fixed random
points, no model. The candidates:

- plotly-svg: the page's drawing before (grid_figures.pca_grid_figure), a plotly subplot with own axes per panel;
- plotly-webgl: the same layout with WebGL points (scattergl);
- plotly-tiled: one plotly plot area holding every panel, each scaled into its tile, one trace per topic;
- plotly-tiled-webgl: the same with WebGL points;
- vega-canvas: a Vega-Lite facet chart (st.vega_lite_chart), drawn on a canvas;
- image: one PNG drawn on the server with Pillow (no hover: the page would add the chosen cell interactive);
- product: what the page draws now (ui.scatter_grid: one Vega-Lite view on a canvas, every panel in its tile).
"""
import os
import sys
from pathlib import Path

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from PIL import Image, ImageDraw, ImageFont
import streamlit as st

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bertviz_core import describe  # noqa: E402
from bertviz_core.figures import layer_label  # noqa: E402
from bertviz_core.figures.grid_figures import Panel, pca_grid_figure, unit_square  # noqa: E402
from bertviz_core.measures.pooling import supported_strategies  # noqa: E402
from bertviz_core.measures.pooling_grid import grid_cells  # noqa: E402
from ui import scatter_grid  # noqa: E402

PALETTE = ["#636efa", "#ef553b", "#00cc96", "#ab63fa"]


def subplots(panels: list[Panel], rows: int, cols: int, labels: list[str], texts: list[str],
             kind: str) -> go.Figure:
    """grid_figures.pca_grid_figure (a plotly subplot per panel), its points drawn as ``kind``."""
    figure = pca_grid_figure(panels, rows, cols, labels, texts)
    return go.Figure(dict(data=[trace.to_plotly_json() | {"type": kind} for trace in figure.data],
                          layout=figure.layout))


def tiled(panels: list[Panel], rows: int, cols: int, labels: list[str], texts: list[str], kind: str) -> go.Figure:
    """Every panel in one plot area: each scaled into a unit tile, tiles 0.1 apart across and 0.3 down (room for
    a title); one trace per topic."""
    step_x, step_y = 1.1, 1.3
    xs, ys, annotations, shapes = [], [], [], []
    for panel in panels:
        unit = unit_square(panel.coords)
        x0, y0 = (panel.col - 1) * step_x, -(panel.row - 1) * step_y
        xs.append(x0 + 0.05 + 0.9 * unit[:, 0])
        ys.append(y0 + 0.05 + 0.9 * unit[:, 1])
        shapes.append(dict(type="rect", x0=x0, x1=x0 + 1, y0=y0, y1=y0 + 1, line=dict(color="#cbd5e1", width=1)))
        annotations.append(dict(text=panel.title.replace("\n", "<br>"), x=x0 + 0.5, y=y0 + 1, yanchor="bottom",
                                showarrow=False))
    x, y = np.concatenate(xs), np.concatenate(ys)
    topic = np.tile(np.array(labels), len(panels))
    hover = np.tile(np.array(texts), len(panels))
    data = [dict(type=kind, x=x[topic == name], y=y[topic == name], mode="markers", name=name,
                 text=hover[topic == name], hovertemplate="%{text}<extra></extra>",
                 marker=dict(size=5, color=PALETTE[g])) for g, name in enumerate(sorted(set(labels)))]
    axis = dict(visible=False, fixedrange=False)
    layout = dict(height=250 * rows + 90, margin=dict(l=10, r=10, t=70, b=10), shapes=shapes,
                  annotations=annotations, xaxis=axis, yaxis=axis, legend=dict(orientation="h", y=1.02))
    return go.Figure(dict(data=data, layout=layout))


def vega(panels: list[Panel], labels: list[str], texts: list[str]) -> dict:
    """A Vega-Lite facet chart, one facet per panel, independent scales, canvas renderer."""
    frame = pd.concat([pd.DataFrame({"panel": panel.title.replace("\n", " · "), "order": i, "x": panel.coords[:, 0],
                                     "y": panel.coords[:, 1], "topic": labels, "text": texts})
                       for i, panel in enumerate(panels)])
    spec = {
        "usermeta": {"embedOptions": {"renderer": "canvas"}},
        "data": {"values": frame.to_dict("records")},
        "facet": {"field": "panel", "type": "nominal", "sort": {"field": "order"}, "title": None},
        "columns": 4,
        "resolve": {"scale": {"x": "independent", "y": "independent"}},
        "spec": {"width": 220, "height": 200, "mark": {"type": "circle", "size": 25},
                 "encoding": {"x": {"field": "x", "type": "quantitative", "axis": None},
                              "y": {"field": "y", "type": "quantitative", "axis": None},
                              "color": {"field": "topic", "type": "nominal"},
                              "tooltip": {"field": "text", "type": "nominal"}}},
    }
    return spec


def image(panels: list[Panel], rows: int, cols: int, labels: list[str]) -> Image.Image:
    """Every panel drawn into one picture at twice the CSS size (sharp on a high-density screen)."""
    tile, title, pad = 500, 90, 20
    picture = Image.new("RGB", (cols * tile, rows * (tile + title)), "white")
    draw, font = ImageDraw.Draw(picture), ImageFont.load_default(size=26)
    colours = [PALETTE[int(label[-1])] for label in labels]
    for panel in panels:
        left, top = (panel.col - 1) * tile, (panel.row - 1) * (tile + title)
        draw.multiline_text((left + tile // 2, top + title // 2), panel.title, fill="black", font=font, anchor="mm",
                            align="center")
        box = (left + pad, top + title, left + tile - pad, top + title + tile - 2 * pad)
        draw.rectangle(box, outline="#cbd5e1", width=2)
        unit = unit_square(panel.coords)
        xs = box[0] + 10 + unit[:, 0] * (box[2] - box[0] - 20)
        ys = box[3] - 10 - unit[:, 1] * (box[3] - box[1] - 20)
        for x, y, colour in zip(xs, ys, colours):
            draw.ellipse((x - 5, y - 5, x + 5, y + 5), fill=colour)
    return picture


candidate = os.environ.get("BERTVIZ_GRID", "product")
info = describe()
top = info.num_layers
layers = st.multiselect("Layers", list(range(top + 1)), sorted({0, top // 2, top - 1, top}), format_func=layer_label,
                        key="layers")
rng = np.random.default_rng(0)
rows = grid_cells(supported_strategies(info.has_pooler), layers, top)
panels = [Panel(r, c, f"{cell.strategy} · {layer_label(cell.layer)}\nPCA var 20%", rng.normal(size=(160, 2)))
          for r, row in enumerate(rows, start=1) for c, cell in enumerate(row, start=1)]
labels = [f"topic {i % 4}" for i in range(160)]
texts = [f"text {i}" for i in range(160)]
if candidate == "product":
    scatter_grid(panels, len(layers), labels, texts, "chart", "Download (CSV)", "grid.csv")
elif candidate.startswith("plotly-tiled"):
    kind = "scattergl" if candidate.endswith("webgl") else "scatter"
    st.plotly_chart(tiled(panels, len(rows), len(layers), labels, texts, kind), key="chart")
elif candidate.startswith("plotly"):
    kind = "scattergl" if candidate.endswith("webgl") else "scatter"
    st.plotly_chart(subplots(panels, len(rows), len(layers), labels, texts, kind), key="chart")
elif candidate == "vega-canvas":
    st.vega_lite_chart(vega(panels, labels, texts), key="chart")
elif candidate == "image":
    st.image(image(panels, len(rows), len(layers), labels), width="stretch")
else:
    raise SystemExit(f"unknown BERTVIZ_GRID {candidate!r}")
