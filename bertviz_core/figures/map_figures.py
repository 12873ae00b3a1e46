"""One 2-D map of any number of points as a plotly figure, quick to draw at a million points.

Up to ``POINTS_DRAWN`` points every point is drawn, coloured by label, with its text on hover. Beyond, every point
would cost too much: 115 MiB of JSON and half a minute of the server's time at a million, 15 s to a first draw at
100,000. So the figure is a density image of every point (a 2-D histogram, ``DENSITY_BINS`` to a side, counts on a
log scale) under a random ``HOVER_SAMPLE`` of the points (seed 0), drawn and hoverable as above: every row is
counted in the image, the sample gives the colours and the texts. bench/map_drawing.py measures ways to draw a map.
"""
from __future__ import annotations

from collections.abc import Sequence

import numpy as np
import plotly.graph_objects as go

import bertviz_core.checks as checks
from bertviz_core.figures.grid_figures import Panel, pca_grid_figure

POINTS_DRAWN = 20_000  # points drawn one by one at most (a store of 20,000 rows shows each)
HOVER_SAMPLE = 10_000  # points drawn over the density image of a larger map
DENSITY_BINS = 400  # bins to a side of the density image: finer than a point at 480 px
SEED = 0


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


def map_figure(coords: np.ndarray, labels: Sequence[str] | None, texts: Sequence[str], title: str,
               panel_px: int = 480, axes: tuple[str, str] | None = None) -> go.Figure:
    """The map of (points, 2) ``coords``, coloured by ``labels`` (points,) or grey without, each point's text
    (``texts``, (points,)) on hover: every point, or above ``POINTS_DRAWN`` the density image of every point
    under the points ``drawn_points`` picks. ``axes``: the x and y axis titles (``axis_titles``)."""
    coords = checks.numbers(coords, "coords", "(points, 2)")
    if coords.shape[1:] != (2,):
        raise ValueError(f"coords must be (points, 2); they are {coords.shape}.")
    texts = checks.strings(texts, "texts")
    if len(texts) != len(coords) or (labels is not None and len(labels) != len(coords)):
        raise ValueError(f"There are {len(coords):,} points, {len(texts):,} texts and "
                         f"{'no' if labels is None else f'{len(labels):,}'} labels: give one of each a point.")
    picked = drawn_points(len(coords))
    sampled = len(picked) < len(coords)
    figure = pca_grid_figure([Panel(1, 1, title, coords[picked], "")], 1, 1,
                             None if labels is None else [labels[i] for i in picked], [texts[i] for i in picked],
                             panel_px=panel_px, webgl=sampled)  # over an image, WebGL draws 20,000 points sooner
    if axes is not None:
        figure.update_layout(xaxis_title_text=axes[0], yaxis_title_text=axes[1], margin=dict(l=50, b=45))
    if sampled:
        figure.data[0].marker.size = 3  # smaller points let the image of every point show between them
        figure.add_trace(_density(coords))
        figure.data = figure.data[-1:] + figure.data[:-1]  # under the points
    return figure


def _density(coords: np.ndarray) -> go.Heatmap:
    counts, x_edges, y_edges = np.histogram2d(coords[:, 0], coords[:, 1], bins=DENSITY_BINS)
    shade = np.where(counts > 0, np.log1p(counts), np.nan)  # empty bins stay transparent
    return go.Heatmap(x=(x_edges[:-1] + x_edges[1:]) / 2, y=(y_edges[:-1] + y_edges[1:]) / 2, z=shade.T,
                      colorscale=[[0, "#e2e8f0"], [1, "#1e293b"]], showscale=False, hoverinfo="skip", zsmooth=False)


def map_note(points: int) -> str:
    """What a map of ``points`` points draws, as a caption says it."""
    points = checks.whole_number(points, "points", 0)
    if points <= POINTS_DRAWN:
        return f"Every one of the {points:,} points is drawn."
    return (f"The grey image counts every one of the {points:,} points (darker: more points, on a log scale); the "
            f"coloured points over it are a random {HOVER_SAMPLE:,} of them (seed {SEED}), whose texts show on hover.")
