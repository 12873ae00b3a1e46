"""Presentation mode names every token a chart shows (1280 x 720 at 150 %, ``present``'s sizes): each row of a
heatmap, each column by its number with a key beside the plot (the words, upright, would fill half the screen),
and each point of a column of labelled points. Plotly leaves out tick labels it finds crowded, so every tick is
set explicitly, and the figure is given the height its rows need, up to the screen's. Only rows too many for
one screen keep plotly's choice (the hover still names each cell).

Plain layout arithmetic on a plotly figure, after its title has wrapped (``ui.chart``); tests/test_presentation.py
reads the drawn labels against the figure's tokens.
"""
from __future__ import annotations

import html
import math
import re
from typing import Any

from ui.layout.present import CHART_PX, LINE_PX, MIN_FONT_PX, MULTILINE_PAD, TITLE_PX

TOKEN_LABEL = re.compile(r"^(?:B )?(\d+) · ")  # figures.token_labels: "3 · bank", "B 9 · bank"
ROW_PX = MIN_FONT_PX  # a named row's least height: its label's em
TITLE_LINE_PX = round(1.3 * TITLE_PX)  # plotly sets a title's lines 1.3 em apart
TITLE_PAD_PX = 8  # present.wrap_title's pad above a title
KEY_LINE_PX = math.ceil(1.3 * MIN_FONT_PX)  # a line of the key, an annotation's lines 1.3 em apart
KEY_CHAR_PX = 0.5 * MIN_FONT_PX  # a key character, taken wide (measured: Source Sans averages 0.4 em)
KEY_GAP_PX = 16  # between the key's columns
COLOUR_BAR_PX = 100  # a heatmap's colour bar right of the plot, with its tick labels
BOTTOM_PX = 13  # a heatmap's bottom margin in presentation mode
LEGEND_PX = 300  # a legend beside the plot: its symbol and a name of up to 26 characters


def _title_px(figure: Any) -> int:
    """The height the (wrapped) title takes from the figure's top, its pad included; 0 without a title."""
    title = figure.layout.title.text
    if not title:
        return 0
    lines = title.count("<br>") + 1
    return TITLE_PAD_PX + (MULTILINE_PAD if lines > 1 else 0) + TITLE_LINE_PX * lines


def _axis(figure: Any, trace: Any, letter: str) -> Any:
    """The layout axis ``letter`` ("x", "y") that ``trace`` is drawn on."""
    name = getattr(trace, f"{letter}axis") or letter
    return figure.layout[f"{letter}axis{name[1:]}"]


def _key(figure: Any, labels: list[str], heading: str, room_px: float) -> None:
    """``labels`` in columns of lines right of the plot's colour bar, under ``heading``, each column at most
    ``room_px`` tall; the right margin grown to hold them."""
    font = dict(size=MIN_FONT_PX)
    figure.add_annotation(text=f"<b>{heading}</b>", xref="paper", yref="paper", x=1, y=1, xanchor="left",
                          yanchor="top", xshift=COLOUR_BAR_PX, showarrow=False, font=font)
    per_column = max(int(room_px // KEY_LINE_PX) - 1, 1)  # the heading takes the first line
    shift = COLOUR_BAR_PX
    for start in range(0, len(labels), per_column):
        chunk = labels[start:start + per_column]
        figure.add_annotation(text="<br>".join(chunk), xref="paper", yref="paper", x=1, y=1, xanchor="left",
                              yanchor="top", xshift=shift, yshift=-KEY_LINE_PX, align="left", showarrow=False,
                              font=font)
        shift += round(max(len(html.unescape(label)) for label in chunk) * KEY_CHAR_PX) + KEY_GAP_PX
    figure.update_layout(margin=dict(r=max(shift, COLOUR_BAR_PX + round(len(heading) * KEY_CHAR_PX))))


def _number_columns(figure: Any, trace: Any, columns: list[str], rows: list[str]) -> None:
    """Token columns named by their number above the plot, and a key beside it under the axis title giving each
    number's token; where the rows are the same tokens (an attention matrix) they name them already, and the
    axis title moves to the left end of the row of numbers."""
    axis = _axis(figure, trace, "x")
    numbers = [TOKEN_LABEL.match(label).group(1) for label in columns]
    heading = axis.title.text or "columns"
    axis.update(tickmode="array", tickvals=columns, ticktext=numbers, side="top", tickfont=dict(size=MIN_FONT_PX),
                title_text=None)
    top = _title_px(figure) + LINE_PX + 4
    figure.update_layout(margin=dict(t=top, b=BOTTOM_PX))
    if columns != rows:
        _key(figure, columns, heading, (figure.layout.height or CHART_PX) - top)
    else:  # the row of numbers named at its left end, where the rows' labels leave room
        figure.add_annotation(text=heading, xref="paper", yref="paper", x=0, y=1, xanchor="right", yanchor="bottom",
                              xshift=-8, yshift=4, showarrow=False, font=dict(size=MIN_FONT_PX))
        figure.update_layout(margin=dict(l=max(figure.layout.margin.l or 0,
                                               round(len(heading) * KEY_CHAR_PX) + KEY_GAP_PX)))


def _tight_top(figure: Any, trace: Any) -> int:
    """The least top margin: the (wrapped) title, and a line for what lies between it and the plot (tick labels
    on top, the labels of marked columns above the plot)."""
    above = _axis(figure, trace, "x").side == "top" or any(
        note.yref == "paper" and note.y is not None and note.y > 1 for note in figure.layout.annotations)
    return _title_px(figure) + (LINE_PX if above else 0) + 4


def _name_rows(figure: Any, trace: Any, rows: list[str]) -> None:
    """Every row named, the figure grown (up to the screen) to give each ROW_PX, the title brought down to the
    plot when the rows need its margin (Layer values' 22 tokens); rows too many for the screen even then are left
    to plotly, which names as many as fit."""
    margin, axis = figure.layout.margin, _axis(figure, trace, "y")
    below = (margin.b if margin.b is not None else 80) + (0 if _axis(figure, trace, "x").side == "top" else LINE_PX)
    top = margin.t if margin.t is not None else 80
    if top + below + len(rows) * ROW_PX > CHART_PX:
        top = min(top, _tight_top(figure, trace))
    needed = top + below + len(rows) * ROW_PX
    if needed > CHART_PX:
        axis.update(tickmode="auto", dtick=None)  # a figure's every row (figures.heatmap_figure) lies on the next
        return
    figure.update_layout(height=max(figure.layout.height or 0, needed), margin=dict(t=top))
    axis.update(tickmode="array", tickvals=rows, ticktext=rows, tickfont=dict(size=MIN_FONT_PX))


def _fit_point_labels(figure: Any) -> None:
    """Points labelled down a column (a scatter's text, one row a point, e.g. the tokens of ``pair_figures``):
    every label at MIN_FONT_PX, ROW_PX apart; the title tight above the plot and the legend moved beside it
    when the rows need the room. Rows too many for the screen keep every k-th label (the hover names each)."""
    columns = [trace for trace in figure.data if trace.type == "scatter" and trace.text is not None
               and trace.y is not None and "text" in (trace.mode or "")]
    if not columns:
        return
    rows = max(len(trace.text) for trace in columns)
    figure.update_traces(textfont=dict(size=MIN_FONT_PX), selector=dict(mode="markers+text"))
    margin, height = figure.layout.margin, figure.layout.height or CHART_PX
    legend = 2 * LINE_PX if any(trace.showlegend is not False for trace in figure.data) else 0
    top = (margin.t if margin.t is not None else 80)
    if top + (margin.b or 0) + legend + rows * ROW_PX > height:
        top = _title_px(figure) + LINE_PX + 4  # room for a row of x tick labels above the plot
        legend = 0
        figure.update_layout(margin=dict(t=top, b=BOTTOM_PX, r=LEGEND_PX),
                             legend=dict(orientation="v", x=1, xanchor="left", y=0, yanchor="bottom"))
        figure.update_traces(marker_colorbar=dict(len=0.5, y=1, yanchor="top"), selector=dict(mode="markers+text"))
    fits = max(int((height - top - BOTTOM_PX - legend) // ROW_PX), 1)
    for trace in columns:
        labels = list(trace.text)
        if len(labels) > fits:
            every = -(-len(labels) // fits)
            trace.text = [label if i % every == 0 else "" for i, label in enumerate(labels)]



def name_every_token(figure: Any) -> None:
    """Presentation mode, once the title has wrapped: each heatmap of tokens names its every row, and its
    token columns by number with a key; a column of labelled points names every point that fits."""
    for trace in figure.data:
        if trace.type != "heatmap" or trace.x is None or trace.y is None:
            continue
        if not all(isinstance(label, str) for label in [*trace.x, *trace.y]):
            continue  # a numeric axis (a density image's bins) has ticks, not names
        columns, rows = list(trace.x), list(trace.y)
        if all(TOKEN_LABEL.match(label) for label in columns):
            _number_columns(figure, trace, columns, rows)
        _name_rows(figure, trace, rows)
    _fit_point_labels(figure)
