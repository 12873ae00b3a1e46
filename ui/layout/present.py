"""How a chart is laid out to be read: presentation mode's sizes (one 1280 x 720 screen at 150 % zoom, which
is 853 x 480 CSS px), and what holds in both modes (titles that wrap rather than run off the chart, tick
labels level or upright, never slanted into each other).

Plain layout arithmetic on a plotly figure; ui.chart calls it, and tests/test_presentation.py checks the
result in a browser: nothing taller than the screen, no text cut or lying on other text, none under 12 px.
A chart in a column wraps its title to the column's share of the page (``columns`` records it).
"""
from __future__ import annotations

import textwrap
import weakref
from collections.abc import Sequence
from typing import Any

import streamlit as st

from ui.layout.html_table import TABLE_CLASS
from ui.layout.label_room import DEFAULT_HEIGHT

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
# A canvas heatmap's title as text for a screen reader (and a browser test), hidden from the eye: the canvas draws it
CHART_TITLE_CLASS = "bv-chart-title"
CHART_TITLE_STYLE = (f"<style>.{CHART_TITLE_CLASS} {{ position: absolute; width: 1px; height: 1px; overflow: hidden; "
                     "clip-path: inset(50%); white-space: nowrap; }</style>")
STYLE = ("<style>html { font-size: 22px; } [data-testid='stMainBlockContainer'] { padding-top: 3.5rem; "
         "max-width: 100%; } "
         # tables longer than the screen scroll inside it
         f".{TABLE_CLASS}, [data-testid=stDataFrame] {{ max-height: {CHART_PX}px; overflow: auto; }} "
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


def title_lines(title: str, chars: int) -> list[str]:
    """``title`` broken at spaces into lines of at most ``chars`` characters (a word longer than that, cut)."""
    return textwrap.wrap(title, chars, break_on_hyphens=False) if len(title) > chars else [title]


def wrap_title(figure: Any, chars: int, line_px: int, max_height: int | None = None) -> None:
    """Break a title longer than ``chars`` characters into lines at spaces, with room above the plot for
    each line it gains. Every title is pinned to the figure's top, so it never slides onto a legend above
    the plot (plotly centres a title in the top margin, where such a legend grows). A title of several lines
    grows the figure by ``MULTILINE_PAD``, up to ``max_height`` (presentation mode's one screen)."""
    title = figure.layout.title.text
    if not title or "<br>" in title:
        return
    lines = title_lines(title, chars)
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


def present(figure: Any) -> None:
    """Presentation mode: larger text, nothing under MIN_FONT_PX (tick labels, annotations, heatmap cell
    values), the top margin grown with the text, and the figure no taller than CHART_PX."""
    layout = figure.layout
    scale = FONT_PX / 12  # plotly's default font is 12 px; the margins were set for it
    top = layout.margin.t if layout.margin.t is not None else 80
    plot_px = (layout.height or DEFAULT_HEIGHT) - top - (layout.margin.b if layout.margin.b is not None else 80)
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
    _legend_clear(figure, plot_px, scale)


def _legend_clear(figure: Any, plot_px: float, scale: float) -> None:
    """A row of legend names over the plot is placed in paper units, a share of the plot's height (e.g. 40 px of
    a 430 px plot): once the plot was ``plot_px`` tall, and it shrank to fit the
    screen while the titles between the legend and the plot grew ``scale`` times, that share put the legend on
    them. The legend is put back ``scale`` times as many pixels above the plot as it was."""
    layout = figure.layout
    legend = layout.legend
    if legend.orientation != "h" or legend.y is None or legend.y <= 1 or legend.yref == "container":
        return
    now_px = (layout.height or DEFAULT_HEIGHT) - layout.margin.t - (layout.margin.b if layout.margin.b is not None
                                                                    else 80)
    if now_px > 0:
        legend.y = 1 + (legend.y - 1) * plot_px * scale / now_px
