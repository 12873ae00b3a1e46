"""Bars in one Vega-Lite view drawn on a canvas: a ranking as horizontal bars (``ranking_spec``: Masked words' guesses
and Compare sentences' ranking against one query) and a histogram of precomputed bins (``histogram_spec``: Layer
values' token at a layer), whose redraw a change waits for (a plotly bar chart and its restyling took 20-30 ms of a
change more). No computation beyond layout; canvas text and Vega's tooltips show markup as
typed, so names need no ``plain``.
"""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
import pandas as pd

from bertviz_core.figures.canvas_heatmaps import CANVAS_CONFIG, title_from_data, title_rows

BAR_PX = 30  # a bar's row outside presentation mode
BAR = "#4f46e5"
BAND, BAND_LINE = "#f59e0b", "#b45309"  # the random pairs' 5th-95th percentile, and their median


def ranking_spec(names: Sequence[str], scores: Sequence[float], band: tuple[float, float, float] | None,
                 title: str | list[str], font_px: int = 12, height_px: int | None = None,
                 score_format: str = ".3f") -> dict[str, Any]:
    """Horizontal bars in the given order, top to bottom (pass them most similar first), each named by ``names``
    (n,) and as long as ``scores`` (n,), a bar's name and score on hover (``score_format``, a d3 format: ".3g" keeps
    a small probability's digits); ``band`` (p5, median, p95)
    of random pairs shaded behind, its median dashed. ``title``: one line, or its lines; text in ``font_px``;
    ``height_px`` the whole chart's (title and axes within it), else ``BAR_PX`` a bar; never so low that a bar's
    row is under ``font_px`` (every bar keeps its name: a long ranking runs past one screen). Its data is the named
    dataset "bars": rank, name, score. Names may repeat: each bar keeps its own row (its rank), named by its name."""
    values = np.asarray(scores, dtype=float)
    if values.ndim != 1 or len(values) != len(names):
        raise ValueError(f"A ranking needs one score a name: {len(names)} names and scores of shape {values.shape}.")
    if band is not None and len(band) != 3:
        raise ValueError(f"The band is three numbers (5th percentile, median, 95th percentile); got {len(band)}.")
    bars = pd.DataFrame({"rank": np.arange(len(values)), "name": list(map(str, names)), "score": values})
    line_px = font_px + 4
    lines = title if isinstance(title, list) else [title]
    y = {"field": "rank", "type": "ordinal", "title": None,
         # a rank is named by its bar's name (two bars of one name stay two rows)
         "axis": {"labelExpr": "names[datum.value]", "labelLimit": 260, "labelFontSize": font_px, "ticks": False}}
    x = {"field": "score", "type": "quantitative", "title": None, "axis": {"labelFontSize": font_px, "format": "~g"}}
    fixed = (len(lines) + 2) * line_px  # the title and the axis under the bars
    height = max(height_px if height_px is not None else BAR_PX * len(values) + fixed,
                 line_px * len(values) + fixed)  # a bar's row never under the text: every bar keeps its name
    layers: list[dict] = []
    if band is not None:
        low, middle, high = map(float, band)
        shade = {"data": {"values": [{"low": low, "middle": middle, "high": high}]}}
        at = {"type": "quantitative", "title": None}  # the bars' axis, untitled as theirs
        layers += [
            shade | {"mark": {"type": "rect", "color": BAND, "opacity": 0.2, "tooltip": False},
                     "encoding": {"x": {**at, "field": "low"}, "x2": {"field": "high"}}},
            shade | {"mark": {"type": "rule", "color": BAND_LINE, "strokeDash": [4, 3], "tooltip": False},
                     "encoding": {"x": {**at, "field": "middle"}}},
            shade | {"mark": {"type": "text", "baseline": "bottom", "dy": -4, "fontSize": font_px, "color": BAND_LINE,
                              "tooltip": False, "text": "random pairs: 5th–95th percentile"},
                     "encoding": {"x": {**at, "field": "middle"}, "y": {"value": 0}}}]
    layers.append({"data": {"name": "bars"}, "mark": {"type": "bar", "color": BAR},
                   "encoding": {"y": y, "x": x,
                                "tooltip": [{"field": "name", "type": "nominal", "title": "name"},
                                            {"field": "score", "type": "quantitative", "format": score_format}]}})
    return {
        "usermeta": {"embedOptions": {"renderer": "canvas"}},
        "description": " ".join(lines),
        "title": {"text": title, "anchor": "start", "fontSize": font_px + 2, "fontWeight": "normal",
                  "offset": line_px if band is not None else 4},  # room for the band's note above the bars
        "params": [{"name": "names", "value": list(bars["name"])}],
        "width": "container", "height": height,
        "autosize": {"type": "fit", "contains": "padding"},
        "datasets": {"bars": bars},
        "layer": layers,
        "config": CANVAS_CONFIG,
    }


def histogram_spec(counts: np.ndarray, edges: np.ndarray, title: str | list[str], font_px: int = 12,
                   height_px: int | None = None) -> dict[str, Any]:
    """Bars for precomputed bins, counts (bins,) and edges (bins+1,), each as wide as its bin, from 0 up to its
    count; a bar's value range (3 decimals) and count on hover; the axes "value" and "count". ``title``: one line,
    or its lines; text in ``font_px``; ``height_px`` the whole chart's (title and axes within it), 320 by default.
    Its data is the named dataset "bins": low, high, count and the title, which is drawn from it; nothing else in
    the spec depends on the bins or the title, so that a new layer or token redraws the drawn view in place."""
    counts, edges = np.asarray(counts), np.asarray(edges, dtype=float)
    if counts.ndim != 1 or edges.shape != (len(counts) + 1,):
        raise ValueError(f"A histogram needs one more edge than bins: counts of shape {counts.shape} and edges of "
                         f"shape {edges.shape}.")
    bins = pd.DataFrame({"low": edges[:-1], "high": edges[1:], "count": counts.astype(np.int64),
                         "title": title_rows(title, len(counts))})
    axis = {"labelFontSize": font_px, "titleFontSize": font_px}
    return {
        "usermeta": {"embedOptions": {"renderer": "canvas"}},
        "description": "Histogram: how many of a vector's values fall in each bin",
        "title": {"text": title_from_data("bins"), "anchor": "start", "fontSize": font_px + 2, "fontWeight": "normal"},
        "width": "container", "height": height_px or 320, "autosize": {"type": "fit", "contains": "padding"},
        "datasets": {"bins": bins}, "data": {"name": "bins"},
        "mark": {"type": "rect", "color": BAR},  # each bar spans its bin's edges and rises from 0 to its count
        "encoding": {
            "x": {"field": "low", "type": "quantitative", "title": "value", "scale": {"zero": False, "nice": False},
                  "axis": axis},
            "x2": {"field": "high"},
            "y": {"field": "count", "type": "quantitative", "title": "count", "axis": axis}, "y2": {"datum": 0},
            "tooltip": [{"field": "low", "type": "quantitative", "format": ".3f", "title": "values from"},
                        {"field": "high", "type": "quantitative", "format": ".3f", "title": "to"},
                        {"field": "count", "type": "quantitative", "title": "count"}]},
        "config": {**CANVAS_CONFIG, "legend": {"labelFontSize": font_px}},
    }
