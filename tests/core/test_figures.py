"""Figures built by the core (bertviz_core.figures): the grid of scatters keeps each panel's points in its tile."""
from __future__ import annotations

import numpy as np
import pytest

from conftest import F32

from bertviz_core.figures.grid_figures import GRID_ROW_PX, Panel, pca_grid_spec


def test_the_scatter_grid_keeps_each_panels_points_in_its_own_tile() -> None:
    rng = np.random.default_rng(0)
    panels = [Panel(2, 1, "one vector\nvar 9%", rng.normal(size=(6, 2)), "pooler"),  # given out of order
              Panel(1, 1, "layer 1\nvar 20%", rng.normal(size=(6, 2)) * 50, "mean"),
              Panel(1, 2, "layer 2\nall identical", np.ones((6, 2)), "mean")]
    texts = [f"text {i}" for i in range(5)] + ["a long sentence " * 10]
    spec, points = pca_grid_spec(panels, 2, list("ababab"), texts)
    tiles = spec["datasets"]["tiles"]
    assert list(tiles["title"]) == ["mean · layer 1\nvar 20%", "mean · layer 2\nall identical",
                                    "pooler · one vector\nvar 9%"]
    for i, panel in enumerate(sorted(panels, key=lambda p: (p.row, p.col))):
        mine = points[points["panel"] == i]
        np.testing.assert_array_equal(mine[["x", "y"]].to_numpy(), panel.coords)  # the CSV's numbers, as given
        tile = tiles.iloc[i]
        assert ((mine["gx"] > tile["x"]) & (mine["gx"] < tile["x2"])).all()
        assert ((mine["gy"] > tile["y"]) & (mine["gy"] < tile["y2"])).all()
        if i == 1:  # identical points sit in the middle of their tile
            assert mine["gx"].nunique() == 1 and mine["gx"].iloc[0] == pytest.approx((tile["x"] + tile["x2"]) / 2, **F32)
        else:  # scaled to fill the tile, whatever the spread: the extreme points near its edges
            assert np.ptp(mine["gx"]) > 0.9 * (tile["x2"] - tile["x"])
    assert spec["height"] == 2 * GRID_ROW_PX
    assert list(spec["datasets"]["points"].columns) == ["gx", "gy", "label", "text"]
    assert list(points["text"]) == texts * 3  # the CSV keeps every text whole; the hover cuts a long one short
    assert list(spec["datasets"]["points"]["text"][:6]) == texts[:5] + [texts[5][:87] + "…"]
    no_labels, _ = pca_grid_spec(panels, 2, None, [f"text {i}" for i in range(6)])
    assert no_labels["layer"][-1]["encoding"]["color"] == {"value": "#64748b"}
    assert no_labels["layer"][-1]["encoding"]["tooltip"] == [{"field": "text", "type": "nominal"}]  # no label to show
