"""A map of any size (map_figures): every point up to POINTS_DRAWN; beyond, a density image that counts every point
under a seeded sample drawn with its texts."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import plotly_array

from bertviz_core.figures import map_figures


def test_a_small_map_draws_every_point_with_its_text() -> None:
    coords = np.random.default_rng(1).normal(size=(300, 2))
    texts = [f"text {i}" for i in range(300)]
    figure = map_figures.map_figure(coords, ["a", "b", "c"] * 100, texts, "title").to_plotly_json()
    points = figure["data"][0]
    assert points["type"] == "scatter" and not any(trace["type"] == "heatmap" for trace in figure["data"])
    np.testing.assert_array_equal(plotly_array(points["x"]), coords[:, 0])
    assert [row[0] for row in points["customdata"]] == texts
    assert "Every one of the 300 points" in map_figures.map_note(300)


def test_a_large_map_counts_every_point_under_a_seeded_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(map_figures, "POINTS_DRAWN", 500)
    monkeypatch.setattr(map_figures, "HOVER_SAMPLE", 50)
    coords = np.random.default_rng(2).normal(size=(2_000, 2))
    texts = [f"text {i}" for i in range(2_000)]
    picked = map_figures.drawn_points(2_000)
    assert len(picked) == 50 and (np.diff(picked) > 0).all()
    assert (map_figures.drawn_points(2_000) == picked).all()  # seeded: the same points each time
    figure = map_figures.map_figure(coords, None, texts, "title").to_plotly_json()
    density, points = figure["data"][0], figure["data"][1]
    assert density["type"] == "heatmap" and density["hoverinfo"] == "skip"
    shade = plotly_array(density["z"])
    assert np.expm1(np.nan_to_num(shade)).round().sum() == 2_000  # every point counted once
    np.testing.assert_array_equal(plotly_array(points["y"]), coords[picked, 1])
    assert [row[0] for row in points["customdata"]] == [texts[i] for i in picked]
    assert "every one of the 2,000 points" in map_figures.map_note(2_000) and "random 50" in map_figures.map_note(2_000)


def test_a_map_names_its_axes() -> None:
    """#51 item 12: a PCA map's axes say the share of variance of each when it is known, "PC 1" when not; another
    projection's axes are its name and number."""
    assert map_figures.axis_titles("PCA", [0.4312, 0.1]) == ("PC 1 (43 % of variance)", "PC 2 (10 % of variance)")
    assert map_figures.axis_titles("PCA") == ("PC 1", "PC 2")
    assert map_figures.axis_titles("UMAP") == ("UMAP 1", "UMAP 2")
    coords = np.random.default_rng(3).normal(size=(30, 2))
    layout = map_figures.map_figure(coords, None, [f"t{i}" for i in range(30)], "title",
                                    axes=("PC 1", "PC 2")).to_plotly_json()["layout"]
    assert (layout["xaxis"]["title"]["text"], layout["yaxis"]["title"]["text"]) == ("PC 1", "PC 2")
    with pytest.raises(ValueError, match="variance"):
        map_figures.axis_titles("PCA", [0.4])
