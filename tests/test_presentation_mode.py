"""Presentation mode and picture export without a browser (AppTest): on every page, presentation mode hides the
code and downloads and draws charts at ui.layout.present's height and font; a picture keeps the figure's size and title.
How it looks on a 1280 x 720 screen at 150 % is checked in a real browser (test_presentation.py)."""
from __future__ import annotations

import json

import pytest
from conftest import chart, open_code_panels, open_page

from bertviz_core.views.page_registry import PAGES
from ui.layout.present import CHART_PX, FONT_PX, MIN_FONT_PX


def test_picture_export_keeps_the_figure_size_and_title() -> None:
    at = open_page("pages/layer_values.py")
    element = next(e for e in at.get("plotly_chart") if str(e.proto.id).endswith("-lv_hist"))
    options = json.loads(element.proto.config)["toImageButtonOptions"]
    figure = chart(at, "lv_hist")
    assert options["height"] == figure["layout"]["height"] and options["format"] == "png" and options["scale"] == 2
    at.sidebar.radio(key="picture_format").set_value("svg").run()
    element = next(e for e in at.get("plotly_chart") if str(e.proto.id).endswith("-lv_hist"))
    assert json.loads(element.proto.config)["toImageButtonOptions"]["format"] == "svg"


@pytest.mark.parametrize("entry", PAGES[1:], ids=lambda e: e.url_path)
def test_presentation_mode_hides_code_and_downloads_and_fits_charts(entry) -> None:  # noqa: ANN001
    at = open_code_panels(open_page(entry.file))
    assert at.code  # shown in normal mode: presentation mode must hide it
    at.sidebar.toggle(key="present").set_value(True).run()
    assert not at.exception and not at.code and not at.get("download_button")
    for element in at.get("plotly_chart"):
        figure = json.loads(element.proto.spec)
        assert figure["layout"]["height"] <= CHART_PX, element.proto.id
        assert figure["layout"]["font"]["size"] >= FONT_PX
    for element in at.get("vega_lite_chart"):  # a grid of scatters, a canvas heatmap or chart: larger text
        spec = json.loads(element.proto.spec)
        assert spec["config"]["legend"]["labelFontSize"] >= FONT_PX
        grid = any(data.name == "points" for data in element.proto.datasets)  # its panels share GRID_PX
        assert grid or spec["height"] <= CHART_PX, element.proto.id  # a heatmap's rows, a chart, on one screen
        for mark in (layer["mark"] for layer in spec["layer"] if "fontSize" in layer["mark"]):
            if isinstance(mark["fontSize"], dict):  # a heatmap's numbers fit their column, and hide below the least
                assert mark["opacity"]["expr"].endswith(f">= {MIN_FONT_PX} ? 1 : 0"), mark
            else:
                assert mark["fontSize"] >= MIN_FONT_PX, mark


def test_a_legend_over_a_map_stays_clear_of_its_title_when_presentation_mode_shrinks_it() -> None:
    """#51's review: a map's legend sits over its title in paper units (a share of the plot's height). Presentation
    mode shrank the plot to one screen while the title grew, and the legend came down onto it (Sentence pooling's
    chosen cell): it keeps its pixels above the plot, grown as the text, inside the top margin."""
    import numpy as np

    from bertviz_core.figures.map_figures import map_figure
    from ui.layout.present import LINE_PX, MIN_FONT_PX, present

    coords = np.random.default_rng(0).normal(size=(40, 2))
    figure = map_figure(coords, ["business", "food"] * 20, [f"text {i}" for i in range(40)],
                        "layer 6\nvar 9% · sil 0.07", panel_px=420, axes=("PC 1", "PC 2"))
    layout = figure.layout

    def above_px() -> float:  # the legend's bottom above the plot's top
        return (layout.legend.y - 1) * (layout.height - layout.margin.t - layout.margin.b)

    before = above_px()
    present(figure)
    assert layout.height <= CHART_PX
    assert above_px() >= before * FONT_PX / 12 - 1e-6 and above_px() > 2 * 1.3 * MIN_FONT_PX  # two title lines
    assert above_px() + LINE_PX <= layout.margin.t  # its row of names still inside the top margin
