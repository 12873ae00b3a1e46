"""Grids of many scatters (the PCA grid of Sentence pooling, the maps of Task measures): ``Panel``s in, a plotly
figure (``pca_grid_figure``) or, for the page's many points, a Vega-Lite spec drawn on one canvas (``pca_grid_spec``)
out. No computation beyond layout; texts pass through ``figures.plain`` as in every figure.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative

from bertviz_core.figures import hover_texts, plain, plains
from bertviz_core.figures.canvas_heatmaps import CANVAS_CONFIG


SVG_POINTS = 40_000  # points in a whole PCA grid up to which it is drawn as SVG


@dataclass(frozen=True)
class Panel:
    """One PCA scatter: grid position (1-based), title, (n, 2) coordinates, and its row's name (shown
    once, beside the row's first panel)."""

    row: int
    col: int
    title: str
    coords: np.ndarray
    row_name: str = ""


def pca_grid_figure(panels: Sequence[Panel], rows: int, cols: int, labels: Sequence[str] | None,
                    texts: Sequence[str], panel_px: int = 250) -> go.Figure:
    """PCA scatters in a grid; points coloured by label (grey when there are none), hover shows the text.

    One trace per panel, coloured point by point, and the grid laid out directly (subplot axes
    x1..xN by domain): with 22 panels this builds in a third of the time of one trace per label per
    panel through ``make_subplots`` (50 vs 143 ms) and draws about 20 % faster.
    """
    plot_px = panel_px * rows + 10  # figure height less the top and bottom margins
    gap_x, gap_y = 0.04, 45 / plot_px  # 45 px between rows: room for a two-line panel title
    width, height = (1 - gap_x * (cols - 1)) / cols, (1 - gap_y * (rows - 1)) / rows
    hover = hover_texts(texts)
    groups = sorted(set(labels)) if labels is not None else []
    palette = qualitative.Plotly + qualitative.D3
    colour = {group: palette[g % len(palette)] for g, group in enumerate(groups)}
    colours = [colour[label] for label in labels] if labels is not None else "#64748b"
    custom = np.array(list(zip(plains(hover), plains(labels if labels is not None else ["text"] * len(texts)))))
    # SVG draws a few thousand points faster than WebGL; WebGL beyond that.
    kind = "scatter" if len(texts) * len(panels) <= SVG_POINTS else "scattergl"
    # The legend sits 40 px above the first row, clear of its two-line titles, whatever the height.
    data, layout = [], {"annotations": [], "height": plot_px + 80, "margin": dict(l=10, r=10, t=70, b=10),
                        "legend": dict(orientation="h", y=1 + 40 / plot_px, yanchor="bottom")}
    for panel in panels:
        n = (panel.row - 1) * cols + panel.col
        suffix = "" if n == 1 else str(n)
        left, top = (panel.col - 1) * (width + gap_x), 1 - (panel.row - 1) * (height + gap_y)
        layout[f"xaxis{suffix}"] = dict(domain=[max(0.0, left), min(1.0, left + width)], anchor=f"y{suffix}",
                                        showticklabels=False)
        layout[f"yaxis{suffix}"] = dict(domain=[max(0.0, top - height), min(1.0, top)], anchor=f"x{suffix}",
                                        showticklabels=False,
                                        title=dict(text=plain(panel.row_name) if panel.col == 1 else "",
                                                   font=dict(size=13)))
        layout["annotations"].append(dict(text=plain(panel.title), x=left + width / 2, y=top, xref="paper",
                                          yref="paper", xanchor="center", yanchor="bottom", showarrow=False,
                                          font=dict(size=11)))
        data.append(dict(type=kind, x=panel.coords[:, 0], y=panel.coords[:, 1], xaxis=f"x{suffix}",
                         yaxis=f"y{suffix}", mode="markers", marker=dict(size=5, color=colours, opacity=0.8),
                         customdata=custom, hovertemplate="%{customdata[0]}<extra>%{customdata[1]}</extra>",
                         showlegend=False))
    for group in groups:  # legend entries only: one empty trace per label
        data.append(dict(type=kind, x=[None], y=[None], mode="markers", name=plain(group),
                         marker=dict(size=8, color=colour[group])))
    return go.Figure(dict(data=data, layout=layout))


def unit_square(coords: np.ndarray) -> np.ndarray:
    """(n, 2) coordinates scaled axis by axis into [0, 1]; an axis without spread (all points alike) at 0.5."""
    lo, hi = coords.min(axis=0), coords.max(axis=0)
    return np.where(hi > lo, (coords - lo) / np.where(hi > lo, hi - lo, 1), 0.5)


GRID_ROW_PX = 230  # a grid row's height, a two-line title and a panel, up to four panels a row;
GRID_ROW_MIN_PX = 140  # lower with more, so that narrower panels are not drawn tall
GRID_GAP = 0.04  # between panels, in panel widths


def pca_grid_spec(panels: Sequence[Panel], cols: int, labels: Sequence[str] | None,
                  texts: Sequence[str], font_px: int = 12, height_px: int | None = None) -> tuple[dict, pd.DataFrame]:
    """PCA scatters in a grid of ``cols`` columns as one Vega-Lite view drawn on a canvas: its spec (with its
    data as named datasets, for ``st.vega_lite_chart``), and its points (a row per point and panel: panel,
    title, x and y as given, label, the whole text, and the point's place in the grid, gx and gy).

    Each panel is scaled into its own tile (as plotly scales each subplot's axes) under its title,
    "row name · title", in ``font_px`` text; points coloured by label (grey without labels), hover shows the
    text and label. With ``height_px`` the rows share at most that height (the legend above them excluded),
    each at least a two-line title and a panel of 60 px. Canvas text and Vega's tooltips show markup as typed, so texts need no ``plain``.
    One view rather than a facet per panel because only a single view stretches to the page's width.
    Side by side in headless Chromium (bench/grid_drawing.py), redrawing 22 panels this way takes about
    a quarter of the time plotly's subplots take, SVG or WebGL: one canvas instead of thousands of SVG
    nodes and 44 axes.
    """
    ordered = sorted(panels, key=lambda p: (p.row, p.col))
    rows = max(panel.row for panel in ordered)
    hover = hover_texts(texts)
    named = labels is not None
    row_px = GRID_ROW_PX if cols <= 4 else max(GRID_ROW_MIN_PX, GRID_ROW_PX * 4 // cols)
    line_px = font_px + 3
    if height_px is not None:
        row_px = max(2 * line_px + 70, min(row_px, height_px // rows))
    title_share = (2 * line_px + 10) / row_px  # a two-line title above each panel
    inner = 1 - GRID_GAP  # a tile's width, and its panel's height in row units
    titles = [f"{panel.row_name} · {panel.title}" if panel.row_name else panel.title for panel in ordered]
    left = np.array([panel.col - 1 + GRID_GAP / 2 for panel in ordered])
    top = np.array([panel.row - 1 + title_share for panel in ordered])
    tiles = pd.DataFrame({"x": left, "x2": left + inner, "y": top, "y2": [p.row - GRID_GAP for p in ordered],
                          "cx": left + inner / 2, "ty": [p.row - 1 for p in ordered], "title": titles})
    # every panel's points at once, a panel's n rows after another's (built per panel, pandas took ~12 ms a change)
    n, panel_of = len(texts), np.repeat(np.arange(len(ordered)), len(texts))
    coords = np.concatenate([panel.coords for panel in ordered]).reshape(-1, 2)
    unit = np.concatenate([unit_square(panel.coords) for panel in ordered]).reshape(-1, 2)
    gx = left[panel_of] + inner * (0.04 + 0.92 * unit[:, 0])
    gy = top[panel_of] + (1 - title_share - GRID_GAP) * (0.96 - 0.92 * unit[:, 1])
    label = _tiled(list(labels) if named else [""] * n, len(ordered))
    data = pd.DataFrame({"panel": panel_of, "title": _repeated(titles, n), "x": coords[:, 0], "y": coords[:, 1],
                         "label": label, "text": _tiled(list(texts), len(ordered)), "gx": gx, "gy": gy})
    colour = label_colours(sorted(set(labels)) if named else None)
    # The scales' domains come from the tiles, not the spec: a change of layers then changes only the data,
    # which Streamlit hands to the drawn view instead of building a new one.
    x = {"type": "quantitative", "axis": None, "scale": {"zero": True, "nice": False}}
    y = {"type": "quantitative", "axis": None, "scale": {"zero": True, "nice": False, "reverse": True}}
    spec = {
        "usermeta": {"embedOptions": {"renderer": "canvas"}},
        # the width fits the page; the height is the panels' alone, the legend just above them (offset 8, no padding)
        "width": "container", "height": rows * row_px, "autosize": {"type": "fit-x", "contains": "padding"},
        # the browser gets only what it draws
        "datasets": {"points": pd.DataFrame({"gx": gx.astype(np.float32), "gy": gy.astype(np.float32), "label": label,
                                             "text": _tiled(hover, len(ordered))}),  # hover texts, cut short
                     "tiles": tiles},
        "layer": [
            # hover is for the points only (Streamlit's theme would give every mark a tooltip)
            {"data": {"name": "tiles"}, "mark": {"type": "rect", "fill": None, "stroke": "#cbd5e1", "tooltip": False},
             "encoding": {"x": {**x, "field": "x"}, "x2": {"field": "x2"}, "y": {**y, "field": "y"},
                          "y2": {"field": "y2"}}},
            {"data": {"name": "tiles"}, "mark": {"type": "text", "fontSize": font_px, "color": "#31333f", "tooltip": False,
                                                 "baseline": "top", "dy": 4, "lineBreak": "\n", "lineHeight": line_px,
                                                 # a title longer than its tile ends in "…"
                                                 "limit": {"expr": "scale('x', datum.x2) - scale('x', datum.x)"}},
             "encoding": {"x": {**x, "field": "cx"}, "y": {**y, "field": "ty"}, "text": {"field": "title"}}},
            {"data": {"name": "points"}, "mark": {"type": "circle", "size": 22, "opacity": 0.8},
             "encoding": {"x": {**x, "field": "gx"}, "y": {**y, "field": "gy"}, "color": colour,
                          "tooltip": [{"field": "text", "type": "nominal"}]
                          + ([{"field": "label", "type": "nominal"}] if named else [])}},
        ],
        "config": {**CANVAS_CONFIG,
                   "legend": {"orient": "top", "labelFontSize": font_px + 1, "offset": 8, "padding": 0}},
    }
    return spec, data


def _tiled(values: list[str], times: int) -> pd.Categorical:
    """``values`` over and over, ``times`` times, as categories: each distinct text travels once in the Arrow
    table, however many panels repeat it."""
    once = pd.Categorical(values)
    return pd.Categorical.from_codes(np.tile(once.codes, times), dtype=once.dtype)


def _repeated(values: list[str], times: int) -> pd.Categorical:
    """Each of ``values`` ``times`` times in a row, as categories."""
    once = pd.Categorical(values)
    return pd.Categorical.from_codes(np.repeat(once.codes, times), dtype=once.dtype)


def label_colours(groups: list[str] | None) -> dict:
    """A canvas view's colour encoding of the field "label": each of ``groups`` (sorted) a colour of the plotly
    charts' palette, in order; grey for every point without labels (``groups`` None)."""
    if groups is None:
        return {"value": "#64748b"}
    palette = qualitative.Plotly + qualitative.D3
    return {"field": "label", "type": "nominal", "title": None,
            "scale": {"domain": groups, "range": [palette[g % len(palette)] for g in range(len(groups))]}}
