"""Presentation mode and picture export without a browser (AppTest): on every page, presentation mode hides the
code and downloads and draws charts at ui.layout.present's height and font; a picture keeps the figure's size and title.
How it looks on a 1280 x 720 screen at 150 % is checked in a real browser (test_presentation.py)."""
from __future__ import annotations

import json

import pytest
from conftest import canvas_chart, chart, open_code_panels, open_page

from bertviz_core.views.page_registry import PAGES
from ui.layout.present import CHART_PX, FONT_PX, MIN_FONT_PX


def test_picture_export_keeps_the_figure_size_and_title() -> None:
    at = open_page("pages/layer_values.py")
    element = next(e for e in at.get("plotly_chart") if str(e.proto.id).endswith("-lv_layers"))
    options = json.loads(element.proto.config)["toImageButtonOptions"]
    figure = chart(at, "lv_layers")
    assert options["height"] == figure["layout"]["height"] and options["format"] == "png" and options["scale"] == 2
    at.sidebar.radio(key="picture_format").set_value("svg").run()
    element = next(e for e in at.get("plotly_chart") if str(e.proto.id).endswith("-lv_layers"))
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
        for mark in (view["mark"] for view in spec.get("layer", [spec]) if "fontSize" in view["mark"]):
            if isinstance(mark["fontSize"], dict):  # a heatmap's numbers fit their column, and hide below the least
                assert mark["opacity"]["expr"].endswith(f">= {MIN_FONT_PX} ? 1 : 0"), mark
            else:
                assert mark["fontSize"] >= MIN_FONT_PX, mark


def test_a_legend_over_a_plot_stays_clear_of_its_title_when_presentation_mode_shrinks_it() -> None:
    """#51's review: a plotly legend over the plot sits in paper units (a share of the plot's height). Presentation
    mode shrank the plot to one screen while the title grew, and the legend came down onto it (the map was plotly
    then): it keeps its pixels above the plot, grown as the text, inside the top margin."""
    import plotly.graph_objects as go

    from ui.layout.present import LINE_PX, present

    figure = go.Figure(go.Scatter(x=[0, 1], y=[0, 1], name="business"), layout=dict(
        title="layer 6<br>var 9% · sil 0.07", height=510, margin=dict(t=70, b=10),  # 40 px over a 430 px plot
        legend=dict(orientation="h", y=1 + 40 / 430, yanchor="bottom"), showlegend=True))
    layout = figure.layout

    def above_px() -> float:  # the legend's bottom above the plot's top
        return (layout.legend.y - 1) * (layout.height - layout.margin.t - layout.margin.b)

    before = above_px()
    present(figure)
    assert layout.height <= CHART_PX
    assert above_px() >= before * FONT_PX / 12 - 1e-6 and above_px() > 2 * 1.3 * MIN_FONT_PX  # two title lines
    assert above_px() + LINE_PX <= layout.margin.t  # its row of names still inside the top margin


def test_a_map_in_presentation_mode_fits_one_screen_its_legend_beside_the_plot() -> None:
    """#51's review: a map's legend sat over its title in paper units (a share of the plot's height), and came down
    onto it when presentation mode shrank the plot (Sentence pooling's chosen cell). On a canvas Vega lays the
    title, the legend beside the plot and the plot out apart: the whole map is one screen tall, in larger text."""
    at = open_page("pages/sentence_pooling.py")
    at.sidebar.toggle(key="present").set_value(True).run()
    spec, points = canvas_chart(at, "sp_cell_map")
    assert spec["height"] == CHART_PX and spec["autosize"] == {"type": "fit", "contains": "padding"}
    assert spec["config"]["legend"]["orient"] == "right" and spec["config"]["legend"]["labelFontSize"] == FONT_PX
    assert spec["title"]["fontSize"] > FONT_PX and spec["config"]["axis"]["titleFontSize"] == FONT_PX
    assert len(points) == 160 and set(points["label"]) == {"business", "food", "science", "sports"}
