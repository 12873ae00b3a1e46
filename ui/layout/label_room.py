"""Margins as wide as the labels plotly draws around a chart need (normal mode; ``ui.chart`` calls it), so that
plotly's automargin, which Streamlit's theme turns on, finds the room already there and draws each chart once:
making room itself costs a second drawing, about 70 ms a chart in bench-latency's browser (docs/performance.md,
"Interaction latency"). Plain arithmetic on a plotly figure's labels, checked by tests/test_label_room.py.
"""
from __future__ import annotations

import html
import math
import re
from numbers import Real
from typing import Any

CHAR_EM = 0.6  # a label's character, in em, taken wide (Source Sans averages about 0.5)
FIT_EM = 0.45  # the same as plotly measures it when it tells whether level x labels fit
TICK_PAD_PX = {"x": 12, "y": 28}  # a tick, the gap to its label and a little room (measured: automargin's own)
LEVEL_LABEL_EM, LEVEL_LABEL_PAD_PX = 2.0, 24  # one line of level x labels (or a legend) under the plot
TITLE_STANDOFF_PX = {"x": 24, "y": 32}  # Streamlit's theme keeps axis titles this far from the axis
COLOUR_BAR_PX = 30 + 10 + 30  # plotly's colour bar, its gap to the plot and a little room
LEGEND_MARK_PX = 72  # a vertical legend's symbol and padding beside its longest name
MAIN_PX = 960  # the main column's width on a desktop screen
DEFAULT_HEIGHT = 450  # plotly's, for a figure that sets none
PLOTLY_MARGIN = dict(l=80, b=80, r=80, t=100)  # plotly's, for a side a figure leaves unset
OTHER_VALUE_CHARS = 10  # a tick value that is neither a word nor a number (a date): taken as this wide
TAG = re.compile(r"<[^>]*>")


def _shown_chars(text: Any) -> int:
    """The characters of ``text`` as plotly shows it: ``figures.plain`` escapes "<s>" to "&lt;s&gt;" and breaks
    lines with "<br>", so the longest line, unescaped and without tags."""
    lines = re.split(r"<br\s*/?>", str(text))
    return max(len(html.unescape(TAG.sub("", line))) for line in lines)


def _legend_shown(figure: Any) -> bool:
    """Whether plotly draws a legend: as the layout says, else when more than one trace would show in it
    (heatmaps stay out unless they ask)."""
    if figure.layout.showlegend is not None:
        return bool(figure.layout.showlegend)
    return sum(trace.showlegend is True or (trace.showlegend is None and trace.type not in ("heatmap", "contour"))
               for trace in figure.data) > 1


def _tick_chars(figure: Any, letter: str, name: str) -> list[int]:
    """The character counts of the tick labels axis ``name`` ("x", "y2") can show: its ticktext, its traces'
    values where they are words, else the numbers they span as plotly writes them; [] for no labels."""
    axis = figure.layout[f"{letter}axis{name[1:]}"]
    if axis.showticklabels is False or axis.visible is False:
        return []
    if axis.ticktext is not None:
        return [_shown_chars(text) for text in axis.ticktext]
    values = [value for trace in figure.data if (getattr(trace, f"{letter}axis", None) or letter) == name
              and getattr(trace, letter, None) is not None for value in getattr(trace, letter)]
    if any(isinstance(value, str) for value in values):  # categories: each once, however many traces share it
        return [_shown_chars(value) for value in dict.fromkeys(map(str, values))]
    real = [float(v) for v in values if isinstance(v, Real) and math.isfinite(v)]
    if len(real) < sum(v is not None for v in values):  # dates and other values plotly writes its own way
        return [OTHER_VALUE_CHARS]
    largest, negative = max(map(abs, real), default=100.0), any(v < 0 for v in real)
    if 0 < largest < 1:  # "0." and the decimals of about five ticks' step: 0.0012 is drawn as 0.0002 … 0.0012
        return [negative + 2 + min(6, max(1, math.ceil(-math.log10(largest / 5))))]
    return [negative + len(str(int(largest))) + (0 if largest >= 1000 else 3)]


def _label_px(figure: Any, letter: str, name: str, font_px: float) -> float:
    """The widest tick label of axis ``name``, in px."""
    axis = figure.layout[f"{letter}axis{name[1:]}"]
    return max(_tick_chars(figure, letter, name), default=0) * CHAR_EM * (axis.tickfont.size or font_px)


def _title_px(axis: Any, letter: str) -> float:
    """The room axis ``axis``'s title takes beside its tick labels: none without a title."""
    return TITLE_STANDOFF_PX[letter] + 1.3 * (axis.title.font.size or 14) if axis.title.text else 0


def _right_px(figure: Any, font_px: float) -> float:
    """The room right of the plot: a second y axis, colour bars and a vertical legend."""
    layout, right = figure.layout, 0.0
    for axis in figure.select_yaxes(selector=dict(side="right")):
        right += _label_px(figure, "y", "y" + axis.plotly_name[5:], font_px) + TICK_PAD_PX["y"] + _title_px(axis, "y")
    bars = [trace.colorbar if trace.type == "heatmap" else trace.marker.colorbar for trace in figure.data
            if (trace.type == "heatmap" and trace.showscale is not False)
            or (getattr(trace, "marker", None) is not None and getattr(trace.marker, "showscale", None))]
    if bars:
        title = max(_shown_chars(bar.title.text or "") for bar in bars)
        right += COLOUR_BAR_PX + max(5, title) * CHAR_EM * font_px
    names = [_shown_chars(trace.name) for trace in figure.data if trace.showlegend is not False and trace.name]
    if names and _legend_shown(figure) and layout.legend.orientation != "h":
        right += max(names) * CHAR_EM * (layout.legend.font.size or font_px) + LEGEND_MARK_PX
    return right


def _x_room(figure: Any, name: str, plot_px: float, font_px: float) -> tuple[float, float]:
    """The room x axis ``name`` ("x", "x2") needs under the plot and right of it, in px: its labels upright
    (level_ticks) when they would not fit level on its share of ``plot_px``; a level label centred at the plot's
    right edge has half of it in the right margin."""
    axis = figure.layout[f"xaxis{name[1:]}"]
    labels, x_px = _tick_chars(figure, "x", name), axis.tickfont.size or font_px
    if axis.side == "top" or not labels:
        return 0.0, 0.0
    start, end = axis.domain or (0.0, 1.0)
    if (sum(labels) + len(labels)) * FIT_EM * x_px > plot_px * (end - start) and axis.tickangle in (None, 90, -90):
        return _label_px(figure, "x", name, font_px) + TICK_PAD_PX["x"] + _title_px(axis, "x"), 0.0
    # words sit in the middle of their cells; a number's tick can lie on the edge itself
    cell = plot_px * (end - start) / len(labels) if len(labels) > 1 else 0.0
    beyond = max(0.0, _label_px(figure, "x", name, font_px) - cell) / 2 if end == 1 else 0.0
    return LEVEL_LABEL_EM * x_px + LEVEL_LABEL_PAD_PX + _title_px(axis, "x"), beyond


def reserve_label_room(figure: Any, share: float = 1.0) -> None:
    """Margins as wide as the tick labels, axis titles, colour bars and legends plotly will draw need, so that
    automargin (Streamlit's theme turns it on) finds the room already there and draws the chart once: making
    room itself costs a second drawing, about 70 ms a chart in bench-latency's browser. An estimate on the wide
    side; where it falls short, automargin still makes room. The plot is taken in a column of ``share`` of
    MAIN_PX. Subplots side by side get the room of their outer axes (the first y on the left, every x below);
    stacked subplots keep their margins. The top is the title's (wrap_title), or a legend's over the plot."""
    layout = figure.layout
    if any(axis.domain not in (None, (0, 1)) for axis in figure.select_yaxes()):
        return
    font_px, margin = layout.font.size or 12, layout.margin
    asked = {side: margin[side] if margin[side] is not None else px for side, px in PLOTLY_MARGIN.items()}
    y_labels = _label_px(figure, "y", "y", font_px)
    y_title = _title_px(layout.yaxis, "y") if layout.yaxis.visible is not False else 0.0
    left = y_labels + (TICK_PAD_PX["y"] if y_labels else 0) + y_title
    right = _right_px(figure, font_px)
    plot_px = MAIN_PX * share - left - right
    traced = {getattr(trace, "xaxis", None) or "x" for trace in figure.data}
    names = sorted({"x"} | {name for name in traced if f"xaxis{name[1:]}" in layout})  # an axis never laid out: none
    bottom, beyond = map(max, zip(*(_x_room(figure, name, plot_px, font_px) for name in names)))
    right = max(right, beyond)
    legend, row = layout.legend, LEVEL_LABEL_EM * font_px + LEVEL_LABEL_PAD_PX
    top = 0.0
    level_legend = _legend_shown(figure) and legend.orientation == "h" and legend.y is not None
    if level_legend and legend.y < 0:
        bottom += row
    elif level_legend and legend.y > 1:  # a row of names over the plot
        top = (legend.y - 1) * ((layout.height or DEFAULT_HEIGHT) - asked["t"] - bottom) + row
    needed = dict(l=left, b=bottom, r=right, t=top)
    figure.update_layout(margin={side: max(asked[side], round(px)) for side, px in needed.items()})
