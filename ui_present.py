"""How a chart is laid out to be read: presentation mode's sizes (one 1280 x 720 screen at 150 % zoom, which
is 853 x 480 CSS px), and what holds in both modes (titles that wrap rather than run off the chart, tick
labels level or upright, never slanted into each other).

Plain layout arithmetic on a plotly figure; ui.chart calls it, and tests/test_presentation.py checks the
result in a browser: nothing taller than the screen, no text cut or lying on other text, none under 12 px.
A chart in a column wraps its title to the column's share of the page (``columns`` records it).
"""
from __future__ import annotations

import re
import textwrap
import weakref
from collections.abc import Sequence
from typing import Any

import streamlit as st

SCREEN_PX = 480  # the height of 1280 x 720 at 150 % zoom, in CSS px
CHART_PX = 390  # a chart's height in presentation mode: the screen less Streamlit's header bar (82 px)
GRID_PX = 330  # a grid of scatters' panels in presentation mode; its legend takes the rest of CHART_PX
FONT_PX = 16  # presentation mode's chart text
TITLE_PX = 20
MIN_FONT_PX = 14  # no chart text smaller in presentation mode, whatever a figure asked for
LINE_PX = FONT_PX + 8  # a line of presentation mode's chart text, with the room it needs above and below
TITLE_CHARS = {False: 56, True: 40}  # a title line's most characters (normal, presentation): past them it wraps
# The main column's width at 853 CSS px (normal: beside the open sidebar) and a title's font, in px; a
# title character is taken as 0.55 em (measured: 0.43 on average), so a line fits with room to spare.
PAGE_PX = {False: 520, True: 800}
TITLE_FONT_PX = {False: 17, True: TITLE_PX}
# Both modes: columns no narrower than a picker's choice needs (more than fit a row wrap onto the next), and
# every chosen tag of a multiselect shown.
COLUMNS_STYLE = ("<style>[data-testid=stHorizontalBlock] { flex-wrap: wrap; } "
                 "[data-testid=stColumn] { min-width: min(100%, 11rem); } "
                 # a multiselect shows every chosen tag, on as many lines as they take
                 "[data-testid=stMultiSelectTagsContainer], [data-testid=stMultiSelectTagsContainer] > span "
                 "{ flex-wrap: wrap; overflow: visible; } "
                 # the box grows with them (Streamlit caps it at one line, the rest spilt under what follows),
                 # and a tag longer than the box breaks onto two lines rather than end in "…"
                 "[data-testid=stMultiSelect] div:has(> [data-testid=stMultiSelectTagsContainer]) "
                 "{ max-height: none; } "
                 "[data-testid=stMultiSelectTagsContainer] [data-tag] { height: auto; min-height: 28px; } "
                 "[data-testid=stMultiSelectTagsContainer] [data-tag] > [title] { white-space: normal; height: auto; }"
                 "</style>")
STYLE = ("<style>html { font-size: 22px; } [data-testid='stMainBlockContainer'] { padding-top: 3.5rem; "
         "max-width: 100%; } "
         # tables longer than the screen scroll inside it
         f"[data-testid=stTable], [data-testid=stDataFrame] {{ max-height: {CHART_PX}px; overflow: auto; }} "
         "</style>")


_SHARES: weakref.WeakKeyDictionary[Any, float] = weakref.WeakKeyDictionary()


def columns(spec: int | Sequence[float], **options: Any) -> list[Any]:
    """``st.columns(spec, **options)``, each column remembering its share of the row, so that a chart drawn
    in it (``ui.chart(..., container=column)``) wraps its title to the column's width, not the page's."""
    made = st.columns(spec, **options)
    weights = [1.0] * spec if isinstance(spec, int) else [float(w) for w in spec]
    for column, weight in zip(made, weights):
        _SHARES[column] = weight / sum(weights)
    return made


def share_of(container: Any = None) -> float:
    """``container``'s share of the main column's width: a column's from ``columns``, else 1."""
    return _SHARES.get(container, 1.0) if container is not None else 1.0


def title_chars(present: bool, container: Any = None) -> int:
    """A title line's most characters in ``container`` (a column from ``columns``, else the page's width):
    what fits its share of the main column at 853 CSS px, and never more than TITLE_CHARS."""
    return min(TITLE_CHARS[present], int(PAGE_PX[present] * share_of(container) / (0.55 * TITLE_FONT_PX[present])))


MULTILINE_PAD = 12  # px
DEFAULT_HEIGHT = 450  # plotly's, for a figure that sets none


def wrap_title(figure: Any, chars: int, line_px: int, max_height: int | None = None) -> None:
    """Break a title longer than ``chars`` characters into lines at spaces, with room above the plot for
    each line it gains. Every title is pinned to the figure's top, so it never slides onto a legend above
    the plot (plotly centres a title in the top margin, where such a legend grows). A title of several lines
    grows the figure by ``MULTILINE_PAD``, up to ``max_height`` (presentation mode's one screen)."""
    title = figure.layout.title.text
    if not title or "<br>" in title:
        return
    lines = textwrap.wrap(title, chars, break_on_hyphens=False) if len(title) > chars else [title]
    top = figure.layout.margin.t if figure.layout.margin.t is not None else 80
    # plotly anchors a title of several lines a line's leading higher than one of one line: without the extra
    # padding its first line starts above the chart and is cut. The figure grows by that padding, so the plot
    # keeps its room.
    extra = 0 if len(lines) == 1 else MULTILINE_PAD
    figure.update_layout(title=dict(text="<br>".join(lines), y=1, yref="container", yanchor="top",
                                    pad=dict(t=8 + extra)),
                         margin=dict(t=top + line_px * (len(lines) - 1) + extra))
    if extra:
        grown = (figure.layout.height or DEFAULT_HEIGHT) + extra
        figure.update_layout(height=grown if max_height is None else min(grown, max_height))


def level_ticks(figure: Any) -> None:
    """Crowded tick labels turn upright (90°) rather than to 30°, where long ones run into each other."""
    figure.update_xaxes(autotickangles=[0, 90])


def _at_least(font: Any, size: int) -> None:
    """Raise a font object's explicit size to ``size`` (a size left unset follows the layout's font)."""
    if font.size is not None and font.size < size:
        font.size = size


TOKEN_LABEL = re.compile(r"^(?:B )?(\d+) · ")  # figures.token_labels: "3 · bank", "B 9 · bank"
CROWDED = 12  # more token columns than this and presentation mode names them by number alone


def number_token_columns(figure: Any) -> None:
    """Token columns ("3 · bank", as ``figures.token_labels`` names them) named by their number alone when
    there are more than CROWDED: the rows, or the hover, give the words. Full labels, upright, would fill
    half the screen; slanted, they run into each other."""
    for trace in figure.data:
        labels = [str(x) for x in (trace.x if trace.x is not None else [])]
        numbers = [TOKEN_LABEL.match(label) for label in labels]
        if trace.type == "heatmap" and len(labels) > CROWDED and all(numbers):
            axis = figure.layout["xaxis" + (trace.xaxis or "x")[1:]]
            axis.update(tickmode="array", tickvals=labels, ticktext=[m.group(1) for m in numbers], tickangle=0)
            if axis.side == "top":  # the room kept above the plot for upright words is not needed
                figure.update_layout(margin=dict(t=80))


def present(figure: Any) -> None:
    """Presentation mode: larger text, nothing under MIN_FONT_PX (tick labels, annotations, heatmap cell
    values), the top margin grown with the text, and the figure no taller than CHART_PX."""
    layout = figure.layout
    number_token_columns(figure)
    scale = FONT_PX / 12  # plotly's default font is 12 px; the margins were set for it
    top = layout.margin.t if layout.margin.t is not None else 80
    figure.update_layout(font=dict(size=FONT_PX), title_font=dict(size=TITLE_PX), margin=dict(t=round(top * scale)))
    for axis in [*figure.select_xaxes(), *figure.select_yaxes()]:
        _at_least(axis.tickfont, MIN_FONT_PX)
        _at_least(axis.title.font, MIN_FONT_PX)
    for note in layout.annotations:
        _at_least(note.font, MIN_FONT_PX)
    # heatmap values are sized to their cells unless told: small cells gave 7 px text
    # few colour-bar ticks: a short heatmap's bar has room for three labels of this size
    figure.update_traces(textfont=dict(size=MIN_FONT_PX), colorbar=dict(nticks=3), selector=dict(type="heatmap"))
    if layout.height is None or layout.height > CHART_PX:
        figure.update_layout(height=CHART_PX)


def thin_point_labels(figure: Any) -> None:
    """Points labelled down a column (a scatter's text, one row a point, e.g. the tokens of ``pair_figures``)
    keep every k-th label when more rows than fit the plot's height would lie on each other; the hover still
    names every point. Called once the title has wrapped (its margin is final); a legend takes two lines."""
    margin = figure.layout.margin
    legend = 2 * LINE_PX if any(trace.showlegend is not False for trace in figure.data) else 0
    room = (figure.layout.height or CHART_PX) - (margin.t or 80) - (margin.b or 80) - legend
    fits = max(int(room // LINE_PX), 1)
    for trace in figure.data:
        labels = list(trace.text) if trace.type == "scatter" and trace.text is not None and trace.y is not None \
            and "text" in (trace.mode or "") else []
        if len(labels) > fits:
            every = -(-len(labels) // fits)
            trace.text = [label if i % every == 0 else "" for i, label in enumerate(labels)]


CHAR_EM = 0.6  # a label's character, in em, taken wide (Source Sans averages about 0.5)
FIT_EM = 0.45  # the same as plotly measures it when it tells whether level x labels fit
TICK_PAD_PX = {"x": 12, "y": 28}  # a tick, the gap to its label and a little room (measured: automargin's own)
LEVEL_LABEL_EM, LEVEL_LABEL_PAD_PX = 2.0, 24  # one line of level x labels (or a legend) under the plot
TITLE_STANDOFF_PX = {"x": 24, "y": 32}  # Streamlit's theme keeps axis titles this far from the axis
COLOUR_BAR_PX = 30 + 10 + 30  # plotly's colour bar, its gap to the plot and a little room
LEGEND_MARK_PX = 72  # a vertical legend's symbol and padding beside its longest name
MAIN_PX = 960  # the main column's width on a desktop screen


def _tick_chars(figure: Any, letter: str, name: str) -> list[int]:
    """The character counts of the tick labels axis ``name`` ("x", "y2") can show: its ticktext, its traces'
    values where they are words, else the numbers they span as plotly writes them; [] for no labels."""
    axis = figure.layout[f"{letter}axis{name[1:]}"]
    if axis.showticklabels is False or axis.visible is False:
        return []
    if axis.ticktext is not None:
        return [len(str(text)) for text in axis.ticktext]
    values = [value for trace in figure.data if (getattr(trace, f"{letter}axis", None) or letter) == name
              and getattr(trace, letter, None) is not None for value in getattr(trace, letter)]
    if any(isinstance(value, str) for value in values):
        return [len(value) for value in map(str, values)]
    numbers = [abs(float(v)) for v in values if v is not None and float(v) == float(v)] or [100.0]
    largest, negative = max(numbers), any(float(v) < 0 for v in values if v is not None)
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
    if "y2" in [trace.yaxis for trace in figure.data]:
        right += _label_px(figure, "y", "y2", font_px) + TICK_PAD_PX["y"] + _title_px(layout.yaxis2, "y")
    bars = [trace.colorbar if trace.type == "heatmap" else trace.marker.colorbar for trace in figure.data
            if (trace.type == "heatmap" and trace.showscale is not False)
            or (getattr(trace, "marker", None) is not None and getattr(trace.marker, "showscale", None))]
    if bars:
        title = max(len(str(bar.title.text or "")) for bar in bars)
        right += COLOUR_BAR_PX + max(5, title) * CHAR_EM * font_px
    names = [len(trace.name or "") for trace in figure.data if trace.showlegend is not False and trace.name]
    if len(names) > 1 and layout.showlegend is not False and layout.legend.orientation != "h":
        right += max(names) * CHAR_EM * (layout.legend.font.size or font_px) + LEGEND_MARK_PX
    return right


def reserve_label_room(figure: Any, share: float = 1.0) -> None:
    """Margins as wide as the tick labels, axis titles, colour bars and legends plotly will draw need, so that
    automargin (Streamlit's theme turns it on) finds the room already there and draws the chart once: making
    room itself costs a second drawing, about 70 ms a chart in bench-latency's browser. An estimate on the wide
    side; where it falls short, automargin still makes room. x labels are taken as upright (level_ticks) when
    they would not fit level on the plot's width in a column of ``share`` of MAIN_PX. Figures of several subplots
    keep their margins, as does the top (the title's, set by wrap_title)."""
    layout = figure.layout
    if len(list(figure.select_xaxes())) != 1 or len(list(figure.select_yaxes())) > 2:
        return
    font_px, x, margin = layout.font.size or 12, layout.xaxis, layout.margin
    left = _label_px(figure, "y", "y", font_px) + TICK_PAD_PX["y"] + _title_px(layout.yaxis, "y")
    labels, right = _tick_chars(figure, "x", "x"), _right_px(figure, font_px)
    x_px = x.tickfont.size or font_px
    plot_px = MAIN_PX * share - left - right
    upright = (sum(labels) + len(labels)) * FIT_EM * x_px > plot_px and x.tickangle in (None, 90, -90)
    bottom = 0.0
    if x.side != "top" and labels:
        bottom = (_label_px(figure, "x", "x", font_px) + TICK_PAD_PX["x"] if upright
                  else LEVEL_LABEL_EM * x_px + LEVEL_LABEL_PAD_PX) + _title_px(x, "x")
    if layout.legend.orientation == "h" and (layout.legend.y is not None and layout.legend.y < 0):
        bottom += LEVEL_LABEL_EM * font_px + LEVEL_LABEL_PAD_PX
    figure.update_layout(margin=dict(l=max(margin.l or 0, round(left)), b=max(margin.b or 0, round(bottom)),
                                     r=max(margin.r or 0, round(right))))
