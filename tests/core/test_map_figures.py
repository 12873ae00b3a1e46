"""A map of any size (map_figures), a Vega-Lite view on a canvas: every point up to POINTS_DRAWN, coloured by label
with its text on hover; beyond, a density image that counts every point under a seeded sample drawn with its texts."""
from __future__ import annotations

import base64
import io

import numpy as np
import pytest
from PIL import Image
from plotly.colors import qualitative

from bertviz_core.figures import hover_texts, map_figures


def test_a_small_map_draws_every_point_coloured_with_its_text() -> None:
    coords = np.random.default_rng(1).normal(size=(300, 2))
    texts = [f"text {i}" for i in range(299)] + ["a long text " * 20]
    drawing = map_figures.map_drawing(coords, ["b", "a", "c"] * 100, texts)
    spec = map_figures.map_spec(drawing, "title")
    (points,) = spec["layer"]  # no density image under them
    drawn = spec["datasets"]["map"]
    np.testing.assert_allclose(drawn["x"], coords[:, 0], rtol=1e-6)  # every point, in order
    np.testing.assert_allclose(drawn["y"], coords[:, 1], rtol=1e-6)
    assert list(drawn["label"]) == ["b", "a", "c"] * 100 and list(drawn["text"]) == hover_texts(texts)
    assert drawn["text"].iloc[-1].endswith("…")  # a long text cut as every hover cuts it
    colour = points["encoding"]["color"]
    assert colour["field"] == "label" and colour["scale"]["domain"] == ["a", "b", "c"]
    assert colour["scale"]["range"] == qualitative.Plotly[:3]  # the grids' colours, label by label
    assert [field["field"] for field in points["encoding"]["tooltip"]] == ["text", "label"]
    assert points["params"] == [{"name": "zoom", "select": "interval", "bind": "scales"}]  # scroll zooms, drag pans
    assert spec["usermeta"]["embedOptions"]["renderer"] == "canvas" and spec["config"]["aria"] is False
    assert "Every one of the 300 points" in map_figures.map_note(300)


def test_a_map_without_labels_is_grey() -> None:
    drawing = map_figures.map_drawing(np.zeros((3, 2)), None, ["a", "b", "c"])
    (points,) = map_figures.map_spec(drawing, "title")["layer"]
    assert points["encoding"]["color"] == {"value": "#64748b"} and "label" not in drawing.points
    assert [field["field"] for field in points["encoding"]["tooltip"]] == ["text"]


def test_a_large_map_counts_every_point_under_a_seeded_sample(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(map_figures, "POINTS_DRAWN", 500)
    monkeypatch.setattr(map_figures, "HOVER_SAMPLE", 50)
    monkeypatch.setattr(map_figures, "DENSITY_BINS", 30)  # few bins, so that bins hold from one point to many
    coords = np.random.default_rng(2).normal(size=(2_000, 2))
    texts = [f"text {i}" for i in range(2_000)]
    picked = map_figures.drawn_points(2_000)
    assert len(picked) == 50 and (np.diff(picked) > 0).all()
    assert (map_figures.drawn_points(2_000) == picked).all()  # seeded: the same points each time
    drawing = map_figures.map_drawing(coords, None, texts)
    spec = map_figures.map_spec(drawing, "title")
    density, points = spec["layer"]  # the image under the points
    np.testing.assert_allclose(spec["datasets"]["map"]["y"], coords[picked, 1], rtol=1e-6)
    assert list(spec["datasets"]["map"]["text"]) == [texts[i] for i in picked]
    assert density["mark"]["type"] == "image" and density["mark"]["tooltip"] is False
    (placed,) = density["data"]["values"]
    # placed over every point: x from the least to the most, y from the most (its top) to the least
    assert (placed["x"], placed["x2"]) == pytest.approx((coords[:, 0].min(), coords[:, 0].max()))
    assert (placed["y"], placed["y2"]) == pytest.approx((coords[:, 1].max(), coords[:, 1].min()))
    image = Image.open(io.BytesIO(base64.b64decode(placed["image"].split(",", 1)[1])))
    assert image.size == (30, 30) and image.info["transparency"] == 0
    levels = np.asarray(image)[::-1].T  # back to (x bin, y bin): the image's rows run from the highest y down
    counts = np.histogram2d(coords[:, 0], coords[:, 1], bins=30)[0]
    assert ((levels > 0) == (counts > 0)).all()  # an empty bin, and only one, is transparent
    # the shades on a log scale from one point to the most: read back, every point is counted once
    top = np.log1p(counts.max())
    read = np.expm1(np.log1p(1) + (levels.astype(float) - 1) / 254 * (top - np.log1p(1)))
    assert read[levels > 0].round().sum() == 2_000
    palette = np.array(image.getpalette()[:3 * 256]).reshape(-1, 3)
    assert tuple(palette[1]) == map_figures.LIGHT and tuple(palette[levels.max()]) == map_figures.DARK
    assert "every one of the 2,000 points" in map_figures.map_note(2_000) and "random 50" in map_figures.map_note(2_000)


def test_a_map_names_its_axes_and_takes_its_title_size_and_height() -> None:
    """#51 item 12: a PCA map's axes say the share of variance of each when it is known, "PC 1" when not; another
    projection's axes are its name and number. A title's newline breaks it; presentation mode's text and height."""
    assert map_figures.axis_titles("PCA", [0.4312, 0.1]) == ("PC 1 (43 % of variance)", "PC 2 (10 % of variance)")
    assert map_figures.axis_titles("PCA") == ("PC 1", "PC 2")
    assert map_figures.axis_titles("UMAP") == ("UMAP 1", "UMAP 2")
    drawing = map_figures.map_drawing(np.random.default_rng(3).normal(size=(30, 2)), None,
                                      [f"t{i}" for i in range(30)])
    spec = map_figures.map_spec(drawing, "layer 6\nvar 9%", axes=("PC 1", "PC 2"))
    (points,) = spec["layer"]
    assert (points["encoding"]["x"]["title"], points["encoding"]["y"]["title"]) == ("PC 1", "PC 2")
    assert spec["title"]["text"] == ["layer 6", "var 9%"] and spec["description"] == "layer 6 var 9%"
    assert spec["height"] == map_figures.MAP_PX and spec["width"] == "container"
    shown = map_figures.map_spec(drawing, ["a long title", "on two lines"], font_px=16, height_px=390)
    assert shown["height"] == 390 and shown["title"]["fontSize"] == 18 and shown["title"]["text"][1] == "on two lines"
    assert shown["config"]["axis"]["titleFontSize"] == shown["config"]["legend"]["labelFontSize"] == 16
    (untitled,) = map_figures.map_spec(drawing, "t")["layer"]
    assert untitled["encoding"]["x"]["title"] is None  # no axes given: no titles
    with pytest.raises(ValueError, match="variance"):
        map_figures.axis_titles("PCA", [0.4])
