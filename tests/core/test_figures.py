"""Figures built by the core (bertviz_core.figures): the grid of scatters keeps each panel's points in its tile."""
from __future__ import annotations

import numpy as np
import pandas as pd
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
    # drawn on a canvas, which exposes no mark item: Vega computes no ARIA description for each point
    assert spec["usermeta"]["embedOptions"]["renderer"] == "canvas" and spec["config"]["aria"] is False
    no_labels, _ = pca_grid_spec(panels, 2, None, [f"text {i}" for i in range(6)])
    assert no_labels["layer"][-1]["encoding"]["color"] == {"value": "#64748b"}
    assert no_labels["layer"][-1]["encoding"]["tooltip"] == [{"field": "text", "type": "nominal"}]  # no label to show


@pytest.mark.parametrize("columns", [3, 40, 41, 384, 768, 1024, 4096])
def test_a_heatmaps_columns_are_each_named_up_to_forty_then_at_a_round_step(columns: int) -> None:
    from bertviz_core.figures import heatmap_figure
    from bertviz_core.figures.axes import NAMED_COLUMNS, STEP_TICKS, TICK_STEPS

    names = [str(d) for d in range(columns)]
    axis = heatmap_figure(np.zeros((2, columns)), names, ["a", "b"], "t").layout.xaxis
    if columns <= NAMED_COLUMNS:
        assert axis.tickvals is None and axis.type == "category"  # every column: the figure's rows rule applies
        return
    step = int(axis.tickvals[1]) - int(axis.tickvals[0])
    assert step in TICK_STEPS and list(axis.tickvals) == names[::step] and axis.tickangle == 0
    assert len(axis.tickvals) <= STEP_TICKS < columns / TICK_STEPS[TICK_STEPS.index(step) - 1]


def test_a_marked_column_is_named_in_red_in_place_of_a_tick_too_near() -> None:
    from bertviz_core.figures import heatmap_figure

    names = [str(d) for d in range(384)]
    figure = heatmap_figure(np.zeros((3, 384)), names, ["a", "b", "c"], "t", marked_columns=[223, 5])
    axis = figure.layout.xaxis
    ticks = dict(zip(axis.tickvals, axis.ticktext))
    assert ticks["223"] == '<span style="color:red"><b>223</b></span>' and "red" in ticks["5"]
    # a tick every 50 dimensions, less those within 50 of a marked one (their labels would overlap)
    assert [t for t in ticks if t not in ("5", "223")] == ["100", "150", "300", "350"]
    # nothing over the column (its values are what a marked column is about), nothing above the plot (the rows' room)
    assert not figure.layout.shapes and not figure.layout.annotations and axis.ticks == "outside"


def test_many_word_columns_keep_plotlys_own_ticks() -> None:
    from bertviz_core.figures import heatmap_figure, token_labels

    words = token_labels([f"w{i}" for i in range(60)])
    assert heatmap_figure(np.zeros((2, 60)), words, ["a", "b"], "t").layout.xaxis.tickvals is None


def test_a_canvas_heatmaps_spec_does_not_change_with_its_values_or_title() -> None:
    """Streamlit redraws a drawn view in place when only its data changes, and builds it again otherwise: a layer
    change gives the same spec, its new values and title in the one dataset, and the colour scale's open end is the
    data's."""
    import json

    from bertviz_core.figures.canvas_heatmaps import heatmap_spec

    def drawn(matrix: np.ndarray, title: str | list[str], zrange: tuple = (0.0, None)) -> tuple[str, pd.DataFrame]:
        spec, _ = heatmap_spec(matrix, ["a", "b"], ["r0", "r1"], title, zrange=zrange, annotate=False,
                               x_title="key", y_title="query", value_title="weight")
        data = spec.pop("datasets")["cells"]
        return json.dumps(spec), data

    first, second = drawn(np.eye(2), "Layer 1, head 1"), drawn(np.eye(2) * 0.5, ["Layer 2, head 1", "mean"])
    assert first[0] == second[0] and "Layer" not in first[0]
    assert set(second[1]["title"]) == {"Layer 2, head 1\nmean"} and list(second[1]["value"]) == [0.5, 0, 0, 0.5]
    scale = json.loads(first[0])["layer"][0]["encoding"]["color"]["scale"]
    assert scale["domainMin"] == 0.0 and "domainMax" not in scale and "domain" not in scale
    assert json.loads(first[0])["description"] == "Heatmap of each cell's weight: query down the side, key across"
    narrow, wide = drawn(np.eye(2), "t", (-0.5, 0.5)), drawn(np.eye(2), "t", (-2.0, 2.0))  # ends fixed by the data
    assert narrow[0] == wide[0] and (wide[1]["low"].iloc[0], wide[1]["high"].iloc[0]) == (-2.0, 2.0)


def test_which_models_score_chart_does_not_change_with_its_score_or_title() -> None:
    """A change of score on Which model? gives the same spec: the title and the score axis's name travel with the
    data, so Streamlit redraws the drawn chart in place."""
    import json

    from bertviz_core.views.which_model import layers_spec

    def drawn(measure: str, title: str | list[str], scores: list[float]) -> tuple[str, pd.DataFrame]:
        table = pd.DataFrame({"model": ["a", "a", "b", "b"], "strategy": ["mean"] * 4, "layer": [0, 1, 0, 1],
                              "score": scores, "low": np.subtract(scores, 0.1), "high": np.add(scores, 0.1)})
        spec = layers_spec(table, ["a", "b"], measure, title)
        return json.dumps(spec | {"datasets": None}), spec["datasets"]["scores"]

    first = drawn("probe accuracy", "probe accuracy by layer", [0.5, 0.6, 0.7, 0.8])
    second = drawn("silhouette (cosine)", ["silhouette (cosine) by layer,", "each model"], [0.1, 0.2, 0.3, 0.4])
    assert first[0] == second[0] and "accuracy" not in first[0] and "silhouette" not in first[0]
    assert set(second[1]["title"]) == {"silhouette (cosine) by layer,\neach model"}
    assert set(second[1]["measure"]) == {"silhouette (cosine)"} and list(second[1]["score"]) == [0.1, 0.2, 0.3, 0.4]


def test_a_canvas_heatmap_holds_every_cell_in_order_with_its_number_and_contrast() -> None:
    from bertviz_core.figures.canvas_heatmaps import MISSING, heatmap_spec

    matrix = np.array([[1.0, 0.25, np.nan], [0.5, 0.0, 0.875]])
    spec, cells = heatmap_spec(matrix, ["a", "b", "c"], ["r0", "r1"], "cosine, mean", colorscale="Blues_r",
                               zrange=(0.0, 1.0))
    assert list(cells["row"]) == ["r0"] * 3 + ["r1"] * 3 and list(cells["column"]) == ["a", "b", "c"] * 2
    np.testing.assert_array_equal(cells["value"].to_numpy(), matrix.ravel())
    assert list(cells["text"]) == ["1.00", "0.25", MISSING, "0.50", "0.00", "0.88"]
    # Blues reversed: the low values are the dark cells, whose numbers are white; a missing cell is never dark
    assert list(cells["dark"]) == [False, True, False, False, True, False]
    scale = spec["layer"][0]["encoding"]["color"]["scale"]
    assert scale == {"scheme": "blues", "reverse": True, "nice": False,  # its fixed ends travel with the cells
                     "domainMin": {"expr": "length(data('cells')) ? data('cells')[0].low : 0"},
                     "domainMax": {"expr": "length(data('cells')) ? data('cells')[0].high : 1"}}
    assert set(spec["datasets"]["cells"]["low"]) == {0.0} and set(spec["datasets"]["cells"]["high"]) == {1.0}
    assert spec["encoding"]["y"]["sort"] == ["r0", "r1"] and spec["description"] == "Heatmap of each cell's value"
    assert set(spec["datasets"]["cells"]["title"]) == {"cosine, mean"}  # the title is drawn from the data
    assert len(spec["layer"]) == 2  # the cells and their numbers; no best boxed
    assert spec["config"]["aria"] is False  # a canvas exposes no cell: no ARIA description computed for each
    diverging, _ = heatmap_spec(matrix, ["a", "b", "c"], ["r0", "r1"], "t", colorscale="RdBu", zmid=0.0)
    assert diverging["layer"][0]["encoding"]["color"]["scale"]["domainMid"] == 0.0
    boxed, cells = heatmap_spec(matrix, ["a", "b", "c"], ["r0", "r1"], "t", best_cells=[(1, 2), (0, 1)])
    assert list(cells.loc[cells["best"], ["row", "column"]].itertuples(index=False, name=None)) == [
        ("r0", "b"), ("r1", "c")]
    box = boxed["layer"][-1]
    assert box["mark"]["stroke"] == "red" and box["transform"] == [{"filter": "datum.best"}]


def test_a_canvas_heatmap_squeezed_onto_one_screen_still_names_every_row() -> None:
    from bertviz_core.figures.canvas_heatmaps import heatmap_spec

    labels = [f"row {i}" for i in range(60)]
    few, _ = heatmap_spec(np.zeros((10, 3)), ["a", "b", "c"], labels[:10], "t", height_px=300, min_font_px=14)
    many, _ = heatmap_spec(np.zeros((60, 3)), ["a", "b", "c"], labels, "t", height_px=300, min_font_px=14)
    assert few["height"] == 10 * 30 and many["height"] == 60 * 14  # past one screen rather than a row unnamed
    for spec in (few, many):  # every row's label at the text size, none left out
        axis = spec["encoding"]["y"]["axis"]
        assert axis["labelOverlap"] is False and axis["labelFontSize"] == 12


def test_a_canvas_heatmap_titles_its_axes_and_hovers_in_the_format_asked() -> None:
    from bertviz_core.figures.canvas_heatmaps import heatmap_spec

    matrix = np.array([[0.0123456, -0.0000412], [0.5, -0.25]])
    plain, cells = heatmap_spec(matrix, ["a", "b"], ["r0", "r1"], "t")  # by default: 3 decimals, no axis titles
    assert list(cells["hover"]) == ["0.012", "-0.000", "0.500", "-0.250"]
    assert [plain["encoding"][axis]["axis"]["title"] for axis in "xy"] == [None, None]
    assert [field.get("title") for field in plain["encoding"]["tooltip"]] == [None, None, "value"]
    shares, cells = heatmap_spec(matrix, ["a", "b"], ["r0", "r1"], "t", x_title="second text", y_title="first text",
                                 hover_format="+.3g", value_title="share")
    assert list(cells["hover"]) == ["+0.0123", "-4.12e-05", "+0.5", "-0.25"]  # a tiny share keeps its digits
    assert [shares["encoding"][axis]["axis"]["title"] for axis in "xy"] == ["second text", "first text"]
    across = shares["encoding"]["x"]["axis"]  # level at the axis's right end: no line of its own under the labels
    assert (across["titleAnchor"], across["titleAlign"], across["titleAngle"]) == ("end", "left", 0)
    assert [field.get("title") for field in shares["encoding"]["tooltip"]] == ["first text", "second text", "share"]


def test_a_canvas_heatmap_rules_a_pairs_boundary_before_a_row_and_a_column() -> None:
    from bertviz_core.figures.canvas_heatmaps import heatmap_spec

    labels = ["0 · [CLS]", "1 · a", "2 · [SEP]", "B 3 · b", "B 4 · [SEP]"]
    plain, _ = heatmap_spec(np.eye(5), labels, labels, "t", annotate=False)  # by default: no rule
    assert [layer["mark"]["type"] for layer in plain["layer"]] == ["rect"]
    pair, _ = heatmap_spec(np.eye(5), labels, labels, "t", annotate=False, boundary=3)
    across, down = pair["layer"][1:]  # a red rule at the start of "B 3 · b"'s column and of its row, the plot across
    assert across["data"]["values"] == [{"column": "B 3 · b"}] and down["data"]["values"] == [{"row": "B 3 · b"}]
    assert across["encoding"]["x"]["bandPosition"] == 0 and down["encoding"]["y"]["bandPosition"] == 0
    assert across["encoding"]["y2"] == {"value": "height"} and down["encoding"]["x2"] == {"value": "width"}
    assert across["mark"]["color"] == down["mark"]["color"] == "#dc2626" and across["encoding"]["tooltip"] is None
    assert across["encoding"]["x"]["sort"] == labels and down["encoding"]["y"]["sort"] == labels  # the cells' scales
    for outside in (0, 5):  # a rule before the first token, or past the last, divides nothing
        with pytest.raises(ValueError, match=f"boundary before row and column {outside} lies outside"):
            heatmap_spec(np.eye(5), labels, labels, "t", boundary=outside)


def test_a_canvas_heatmaps_columns_numbered_when_its_rows_name_the_same_tokens() -> None:
    from bertviz_core.figures.canvas_heatmaps import heatmap_spec

    labels = [f"{i} · token{i}" for i in range(12)]
    named, _ = heatmap_spec(np.eye(12), labels, labels, "t", x_title="key")
    numbered, cells = heatmap_spec(np.eye(12), labels, labels, "t", x_title="key", numbered_columns=True)
    assert "labelExpr" not in named["encoding"]["x"]["axis"]
    across = numbered["encoding"]["x"]["axis"]  # each label its column's place in the sort: 0, 1, ... 11
    assert across["labelExpr"] == "indexof(domain('x'), datum.value)" and numbered["encoding"]["x"]["sort"] == labels
    assert across["titleY"] == 4 < named["encoding"]["x"]["axis"]["titleY"]  # beside the level numbers, on their line
    assert "< 20" in across["labelAngle"]["expr"]  # slanted only where a column is narrower than "11"
    assert list(cells["column"][:2]) == labels[:2]  # hover still names each column's token


@pytest.mark.parametrize(("labels", "colorscale", "best", "said"), [
    ((["a", "b"], ["r0", "r1"]), "Blues", (), "needs 2 row and 3 column labels"),
    ((["a", "b", "c"], ["r0", "r1"]), "Jet", (), "Unknown colour scale 'Jet'"),
    ((["a", "b", "c"], ["r0", "r1"]), "Blues", ((0, 3),), "lies outside the heatmap's 2 × 3 cells"),
])
def test_a_canvas_heatmap_refuses_labels_that_do_not_fit_unknown_scales_and_cells_outside(
        labels: tuple[list[str], list[str]], colorscale: str, best: tuple[tuple[int, int], ...], said: str) -> None:
    from bertviz_core.figures.canvas_heatmaps import heatmap_spec

    with pytest.raises(ValueError, match=said):
        heatmap_spec(np.zeros((2, 3)), *labels, "t", colorscale=colorscale, best_cells=best)
