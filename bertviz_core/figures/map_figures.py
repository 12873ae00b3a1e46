"""One 2-D map of any number of points as a Vega-Lite view drawn on a canvas, quick to draw at a million points.

Up to ``POINTS_DRAWN`` points every point is drawn, coloured by label, with its text on hover. Beyond, every point
would cost too much: 115 MiB of JSON and half a minute of the server's time at a million, 15 s to a first draw at
100,000. So the map is a density image of every point (a 2-D histogram, ``DENSITY_BINS`` to a side, counts on a
log scale, sent as one PNG) under a random ``HOVER_SAMPLE`` of the points (seed 0), drawn and hoverable as above:
every row is counted in the image, the sample gives the colours and the texts. ``map_drawing`` builds what is drawn
(the costly part, which a page may cache); ``map_spec`` lays it out for a title, a text size and a height, per run.
One canvas rather than plotly's SVG: side by side in a bare app (160 points, a picker switching maps), a change
redrew in 62–65 ms against plotly's 84–89. bench/map_drawing.py measures ways to draw a large map.
"""
from __future__ import annotations

import base64
import io
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pandas as pd
from PIL import Image

import bertviz_core.checks as checks
from bertviz_core.figures.canvas_heatmaps import CANVAS_CONFIG
from bertviz_core.figures.charts import hover_texts
from bertviz_core.figures.grid_figures import label_colours

POINTS_DRAWN = 20_000  # points drawn one by one at most (a store of 20,000 rows shows each)
HOVER_SAMPLE = 10_000  # points drawn over the density image of a larger map
DENSITY_BINS = 400  # bins to a side of the density image: finer than a point at 480 px
SEED = 0
MAP_PX = 540  # a map's whole height (title, axes and plot) outside presentation mode
LIGHT, DARK = (226, 232, 240), (30, 41, 59)  # the density image's fewest and most points a bin
LEGEND_ENTRIES = 30  # labels named in the legend at most; past them it says how many more (the colours repeat)


@dataclass(frozen=True)
class Density:
    """The density image of every point: ``image``, a PNG data URI (DENSITY_BINS² pixels, an empty bin transparent),
    and the data extent it covers, ``x`` and ``y`` (low, high)."""

    image: str
    x: tuple[float, float]
    y: tuple[float, float]


@dataclass(frozen=True)
class MapDrawing:
    """What a map draws: ``points``, a row per point drawn (x, y as float32; label, when there are labels; text, as
    a hover shows it), its labels' ``groups`` (sorted; None without labels) and the ``density`` image of every point
    (None up to ``POINTS_DRAWN``)."""

    points: pd.DataFrame
    groups: list[str] | None
    density: Density | None


def drawn_points(points: int) -> np.ndarray:
    """The indices (sorted) of the points of a ``points``-point map that are drawn one by one: every one up to
    ``POINTS_DRAWN``, else a random ``HOVER_SAMPLE`` of them (seed 0)."""
    points = checks.whole_number(points, "points", 0)
    if points <= POINTS_DRAWN:
        return np.arange(points)
    return np.sort(np.random.default_rng(SEED).choice(points, HOVER_SAMPLE, replace=False))


def axis_titles(projection: str, variance: Sequence[float] | None = None) -> tuple[str, str]:
    """A map's two axis titles: for PCA "PC 1 (43 % of variance)" from the (2,) explained ``variance`` ratios,
    "PC 1" without them; for another projection its name and the axis ("UMAP 1"), whose units mean nothing."""
    if projection != "PCA":
        return f"{projection} 1", f"{projection} 2"
    if variance is None:
        return "PC 1", "PC 2"
    first, second = checks.numbers(variance, "variance", "(2,)", min_rows=2)[:2]
    return f"PC 1 ({first * 100:.0f} % of variance)", f"PC 2 ({second * 100:.0f} % of variance)"


def map_drawing(coords: np.ndarray, labels: Sequence[str] | None, texts: Sequence[str]) -> MapDrawing:
    """What the map of (points, 2) ``coords`` draws, coloured by ``labels`` (points,) or grey without, each point's
    text (``texts``, (points,)) on hover: every point, or above ``POINTS_DRAWN`` the density image of every point
    under the points ``drawn_points`` picks."""
    coords = checks.numbers(coords, "coords", "(points, 2)")
    if coords.shape[1:] != (2,):
        raise ValueError(f"coords must be (points, 2); they are {coords.shape}.")
    texts = checks.strings(texts, "texts")
    if len(texts) != len(coords) or (labels is not None and len(labels) != len(coords)):
        raise ValueError(f"There are {len(coords):,} points, {len(texts):,} texts and "
                         f"{'no' if labels is None else f'{len(labels):,}'} labels: give one of each a point.")
    picked = drawn_points(len(coords))
    points = pd.DataFrame({"x": coords[picked, 0].astype(np.float32), "y": coords[picked, 1].astype(np.float32)})
    groups = None if labels is None else sorted(set(map(str, labels)))
    if groups is not None:
        points["label"] = pd.Categorical([str(labels[i]) for i in picked], categories=groups)
    # as categories: each distinct text travels once in the Arrow table the browser gets
    points["text"] = pd.Categorical(hover_texts(texts[i] for i in picked))
    return MapDrawing(points, groups, _density(coords) if len(picked) < len(coords) else None)


def map_spec(drawing: MapDrawing, title: str | list[str], font_px: int = 12, height_px: int | None = None,
             axes: tuple[str, str] | None = None) -> dict[str, Any]:
    """The Vega-Lite spec of ``drawing`` (for ``st.vega_lite_chart``, its points as the named dataset "map"): one
    view on a canvas, scroll to zoom and drag to pan, a point's text and label on hover, the density image (if any)
    under the points. ``title``: one line (a newline breaks it), or its lines; text in ``font_px``; ``height_px``
    the whole chart's, its title and axes within it, ``MAP_PX`` by default; ``axes``: the x and y axis titles
    (``axis_titles``). Canvas text and Vega's tooltips show markup as typed, so texts need no ``plain``."""
    lines = title.split("\n") if isinstance(title, str) else title
    sampled = drawing.density is not None
    # no tick labels: a projection's units say little; the axis titles say what each axis is
    axis = {"labels": False, "ticks": False, "domain": False, "titleFontWeight": "normal"}
    x = {"type": "quantitative", "scale": {"zero": False}, "axis": axis, "title": axes[0] if axes else None}
    y = {"type": "quantitative", "scale": {"zero": False}, "axis": axis, "title": axes[1] if axes else None}
    groups = drawing.groups
    colour = label_colours(groups)
    hover = [{"field": "text", "type": "nominal"}] + ([{"field": "label", "type": "nominal"}]
                                                      if groups is not None else [])
    points = {"data": {"name": "map"},
              # the wheel zooms and a drag pans both axes; Streamlit ignores the selection (on_select="ignore")
              "params": [{"name": "zoom", "select": "interval", "bind": "scales"}],
              # smaller points let the image of every point show between them
              "mark": {"type": "circle", "size": 8 if sampled else 22, "opacity": 0.8, "clip": True},
              "encoding": {"x": {**x, "field": "x"}, "y": {**y, "field": "y"}, "color": colour, "tooltip": hover}}
    layers = [points]
    if sampled:
        density = drawing.density
        image = {"image": density.image, "x": density.x[0], "x2": density.x[1], "y": density.y[1], "y2": density.y[0]}
        # under the points; hover is for the points only (Streamlit's theme would give every mark a tooltip)
        layers.insert(0, {"data": {"values": [image]},
                          "mark": {"type": "image", "aspect": False, "smooth": False, "clip": True, "tooltip": False},
                          "encoding": {"x": {**x, "field": "x"}, "x2": {"field": "x2"}, "y": {**y, "field": "y"},
                                       "y2": {"field": "y2"}, "url": {"field": "image", "type": "nominal"}}})
    return {
        "usermeta": {"embedOptions": {"renderer": "canvas"}},
        "description": " ".join(lines),
        "title": {"text": lines if len(lines) > 1 else lines[0], "anchor": "start", "fontSize": font_px + 2,
                  "fontWeight": "normal"},
        "width": "container", "height": height_px or MAP_PX, "autosize": {"type": "fit", "contains": "padding"},
        "datasets": {"map": drawing.points},
        "layer": layers,
        "config": {**CANVAS_CONFIG, "axis": {"labelFontSize": font_px, "titleFontSize": font_px},
                   # beside the plot: Vega keeps the title, legend and plot apart, whatever the height
                   "legend": {"orient": "right", "labelFontSize": font_px, "symbolLimit": LEGEND_ENTRIES}},
    }


def _density(coords: np.ndarray) -> Density:
    """The density image of (points, 2) ``coords``: a bin's shade from ``LIGHT`` (one point) to ``DARK`` (the most)
    on a log scale, an empty bin transparent; a palette PNG, one byte a bin."""
    counts, x_edges, y_edges = np.histogram2d(coords[:, 0], coords[:, 1], bins=DENSITY_BINS)
    top = np.log1p(counts.max())
    shade = (np.log1p(np.maximum(counts, 1)) - np.log1p(1)) / max(top - np.log1p(1), 1e-12)
    levels = np.where(counts > 0, 1 + np.rint(254 * shade), 0).astype(np.uint8)  # 0: transparent
    image = Image.fromarray(np.ascontiguousarray(levels.T[::-1]))  # rows from the highest y down, as an image runs
    ramp = np.linspace(LIGHT, DARK, 255).round().astype(np.uint8)
    image.putpalette([0, 0, 0, *ramp.ravel().tolist()])  # a palette image now: level k, the ramp's k-th shade
    buffer = io.BytesIO()
    image.save(buffer, format="PNG", transparency=0)
    return Density("data:image/png;base64," + base64.b64encode(buffer.getvalue()).decode("ascii"),
                   (float(x_edges[0]), float(x_edges[-1])), (float(y_edges[0]), float(y_edges[-1])))


def map_note(points: int) -> str:
    """What a map of ``points`` points draws, as a caption says it."""
    points = checks.whole_number(points, "points", 0)
    if points <= POINTS_DRAWN:
        return f"Every one of the {points:,} points is drawn."
    return (f"The grey image counts every one of the {points:,} points (darker: more points, on a log scale); the "
            f"coloured points over it are a random {HOVER_SAMPLE:,} of them (seed {SEED}), whose texts show on hover.")
