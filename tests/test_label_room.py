"""ui.layout.label_room.reserve_label_room: margins wide enough for what plotly draws around the plot, so that automargin
draws each chart once (docs/performance.md, "Interaction latency"); never narrower than the figure asked."""
from __future__ import annotations

import datetime

import plotly.graph_objects as go
from plotly.subplots import make_subplots

from ui.layout.label_room import CHAR_EM, COLOUR_BAR_PX, LEVEL_LABEL_EM, LEVEL_LABEL_PAD_PX, TICK_PAD_PX, reserve_label_room

TOKENS = ["[CLS]", "the", "extraordinarily", "bank", "[SEP]"]


def heatmap(x: list[str], y: list[str], margin: dict | None = None) -> go.Figure:
    figure = go.Figure(go.Heatmap(z=[[0.5] * len(x)] * len(y), x=x, y=y, colorbar=dict(title="cosine")))
    figure.update_layout(margin=margin or dict(l=10, r=10, t=60, b=10))
    return figure


def test_the_margins_hold_the_longest_label_and_the_colour_bar() -> None:
    figure = heatmap(["a", "b"], TOKENS)
    reserve_label_room(figure)
    margin = figure.layout.margin
    assert margin.l >= round(len("extraordinarily") * CHAR_EM * 12 + TICK_PAD_PX["y"])
    assert margin.r >= round(COLOUR_BAR_PX + len("cosine") * CHAR_EM * 12)
    assert margin.b == round(LEVEL_LABEL_EM * 12 + LEVEL_LABEL_PAD_PX) and margin.t == 60  # level labels; top kept


def test_many_x_labels_are_taken_as_upright_and_a_narrow_column_turns_fewer_upright() -> None:
    crowded = heatmap([f"{i} · {token}" for i in range(40) for token in ["bank"]], ["a"])
    reserve_label_room(crowded)
    assert crowded.layout.margin.b >= round(len("39 · bank") * CHAR_EM * 12 + TICK_PAD_PX["x"])
    shared = go.Figure([go.Box(x=["layer 1", "layer 2"] * 50, y=list(range(100))) for _ in range(3)])
    shared.update_layout(margin=dict(l=10, r=10, t=60, b=10))
    reserve_label_room(shared)  # 2 categories, however many values and traces: level
    assert shared.layout.margin.b == round(LEVEL_LABEL_EM * 12 + LEVEL_LABEL_PAD_PX)
    labels = [f"{i} · river" for i in range(9)]
    wide, narrow = heatmap(labels, ["a"]), heatmap(labels, ["a"])
    reserve_label_room(wide)
    reserve_label_room(narrow, share=1 / 3)
    assert wide.layout.margin.b < narrow.layout.margin.b


def test_a_figure_keeps_margins_wider_than_its_labels_need_and_stacked_subplots_keep_theirs() -> None:
    generous = dict(l=300, r=250, t=60, b=200)
    figure = heatmap(["a"], ["b"], generous)
    reserve_label_room(figure)
    assert figure.layout.margin.to_plotly_json() == generous
    stacked = make_subplots(rows=2, cols=1).add_trace(go.Bar(x=TOKENS, y=[1] * 5), row=1, col=1)
    stacked.update_layout(margin=dict(l=10, r=10, t=60, b=10))
    reserve_label_room(stacked)
    assert stacked.layout.margin.to_plotly_json() == dict(l=10, r=10, t=60, b=10)


def test_subplots_side_by_side_get_the_room_of_every_x_axis_and_of_the_first_y_axis() -> None:
    side = make_subplots(rows=1, cols=2).add_trace(go.Bar(x=["a", "b"], y=[1, 2]), row=1, col=1)
    side.add_trace(go.Bar(x=[f"{i} · extraordinarily" for i in range(12)], y=[1] * 12), row=1, col=2)
    side.update_yaxes(title="rank", row=1, col=2)  # the second y axis lies between the plots, not in a margin
    side.update_layout(margin=dict(l=10, r=10, t=60, b=10))
    reserve_label_room(side)
    margin = side.layout.margin
    assert margin.b >= round(len("11 · extraordinarily") * CHAR_EM * 12 + TICK_PAD_PX["x"])  # x2's, upright
    assert margin.l >= TICK_PAD_PX["y"] and margin.r == 10  # upright labels do not reach past the right edge


def test_level_numbers_at_the_right_edge_get_half_a_label_of_room() -> None:
    for largest, label in [(12345.5, "12345"), (0.0012, "0.0012")]:  # small ones drawn with their decimals
        figure = go.Figure(go.Bar(x=[largest / 4, largest], y=["a", "b"], orientation="h"))
        figure.update_layout(margin=dict(l=10, r=10, t=60, b=10))
        reserve_label_room(figure)
        assert figure.layout.margin.r >= round(len(label) * CHAR_EM * 12 / 2)


def test_a_second_axis_and_a_side_legend_widen_the_right_margin() -> None:
    figure = go.Figure([go.Scatter(x=[0, 1], y=[1, 2], name="rank"),
                        go.Scatter(x=[0, 1], y=[0.1, 0.2], name="probability of the answer", yaxis="y2")])
    figure.update_layout(yaxis2=dict(overlaying="y", side="right", title="probability"),
                         margin=dict(l=10, r=10, t=60, b=10))
    reserve_label_room(figure)
    assert figure.layout.margin.r >= round(len("probability of the answer") * CHAR_EM * 12)


def test_a_legend_over_the_plot_gets_a_row_above_it() -> None:
    figure = go.Figure([go.Scatter(x=[0, 1], y=[1, 2], name=name) for name in ["business", "sports"]])
    figure.update_layout(height=340, margin=dict(l=10, r=10, t=70, b=10),
                         legend=dict(orientation="h", y=1 + 40 / 260, yanchor="bottom"))
    reserve_label_room(figure)
    margin = figure.layout.margin  # the legend sits 40/260 of the plot's height over it, the plot what is left
    assert margin.t >= 40 / 260 * (340 - 70 - margin.b) + LEVEL_LABEL_EM * 12 + LEVEL_LABEL_PAD_PX - 1


def test_no_room_for_a_legend_plotly_does_not_draw_and_a_right_y_axis_is_counted() -> None:
    one = go.Figure(go.Scatter(x=["a", "b"], y=[1, 2], name="business"))  # one trace: no legend drawn
    one.update_layout(margin=dict(l=10, r=10, t=20, b=10), legend=dict(orientation="h", y=1.2, yanchor="bottom"))
    reserve_label_room(one)
    assert one.layout.margin.t == 20
    right = go.Figure([go.Scatter(x=[0, 1], y=[1, 2]), go.Scatter(x=[0, 1], y=[1000, 2000], yaxis="y2")])
    right.update_layout(showlegend=False, margin=dict(l=10, r=10, t=60, b=10))
    right.update_layout(yaxis2=dict(overlaying="y", side="right"))
    reserve_label_room(right)
    assert right.layout.margin.r >= round(len("2000") * CHAR_EM * 12 + TICK_PAD_PX["y"])


def test_labels_are_measured_as_shown_and_dates_are_taken_in_their_stride() -> None:
    escaped, plain = heatmap(["a"], ["&lt;s&gt;", "bank"]), heatmap(["a"], ["[CLS]", "bank"])
    reserve_label_room(escaped)
    reserve_label_room(plain)
    assert escaped.layout.margin.l < plain.layout.margin.l  # "<s>" is 3 characters on screen, not 9
    dated = go.Figure(go.Scatter(x=[datetime.date(2026, 11, 27), None], y=[1, float("inf")]))
    dated.update_layout(margin=dict(l=10, r=10, t=60, b=10))
    reserve_label_room(dated)  # raises nothing; the y axis gets a number's room
    assert dated.layout.margin.b == round(LEVEL_LABEL_EM * 12 + LEVEL_LABEL_PAD_PX)
