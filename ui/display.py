"""Display helpers every page uses: messages, sliders, charts, tables, the teaching panel, downloads.

They lay out what the core computed; none computes a number. Charts and tables follow presentation mode
(``ui.links.presenting``).
"""
from __future__ import annotations

import io
import re
from collections.abc import Callable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, TypeVar

import numpy as np
import pandas as pd
import streamlit as st

from ui.layout import label_room
from ui.layout import html_table, present, token_names
from ui.layout.canvas import canvas_table_heatmap
from ui.links import MAX_LINK_VALUE, presenting, share_link

if TYPE_CHECKING:  # imported where used: scikit-learn and plotly would add most of a second to the first page
    from bertviz_core.measures.pooling_grid import SeparationScores


T = TypeVar("T")


_MARKDOWN = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$:])")
# GFM turns bare URLs, www. names and e-mail addresses into links, escaped or not. An invisible word
# joiner (U+2060) where the autolink rule looks breaks it; the text still reads the same. An @ gets one only
# before a dotted name, as an address's domain is: a stored column ("mean@6") is copied as it reads.
_AUTOLINK = re.compile(r"(?i)(?<=:)(?=//)|(?<=w)(?=ww\.)|(?=@[\w-]+\.[\w-])")


def literal(text: str) -> str:
    """Escape Markdown so user text inside a message shows as typed, never rendered: no formatting, no links."""
    return _MARKDOWN.sub(r"\\\1", _AUTOLINK.sub("\u2060", text))


def literal_but_bold(sentence: str, bold: str) -> str:
    """``literal`` of a core sentence whose first ``**bold**`` (user text the core set in bold) stays bold: every
    character of the sentence shown as typed, marks in the user's text included."""
    head, marked, tail = sentence.partition(f"**{bold}**")
    return f"{literal(head)}**{literal(bold)}**{literal(tail)}" if marked else literal(sentence)


def or_stop(compute: Callable[[], T], icon: str = "✋") -> T:
    """``compute()``; when it raises ValueError, the message as an error, and the page stops there."""
    try:
        return compute()
    except ValueError as err:
        st.error(literal(str(err)), icon=icon)
        st.stop()


def int_slider(label: str, low: int, high: int, value: int, key: str, container: Any = None, **options: Any) -> int:
    """An integer slider whose ends come from the model's facts (its layers, heads, tokens). Streamlit refuses a
    slider whose ends meet, so a range of one value (a one-layer model's layers) is stated as text, not drawn;
    the default is held inside the range. ``options`` go to ``st.slider``.

    A default at the low end is passed as None (Streamlit's own default, the same value): a slider that a
    callback sets (Attention's click on a head) would otherwise log Streamlit's warning about a widget given
    both a default and a Session State value."""
    where = container or st
    if high <= low:
        where.markdown(f"{literal(label)}: **{low}**, the only one this model has")
        return low
    default = min(max(value, low), high)
    return int(where.slider(label, low, high, None if default == low else default, key=key, **options))


def with_progress(label: str, run: Callable[[Callable[[int, int], None]], T]) -> T:
    """``run(progress)`` with a progress bar that ``progress(done, total)`` moves and ``progress.stage(step)`` names
    before a worker process's first batch (``offload``), removed when it returns (on a cached result the bar never
    shows). A ValueError stops the page with its message, as ``or_stop`` does, and takes the bar with it: a worker
    killed mid-job says so, rather than leaving a bar that no longer moves above Streamlit's exception box."""
    bar = st.empty()

    def progress(done: int, total: int) -> None:
        bar.progress(done / total, text=f"{label}: {done:,} of {total:,} texts")
    progress.stage = lambda step: bar.progress(0.0, text=f"{label}: {step}…")  # type: ignore[attr-defined]

    def cleared() -> T:
        try:
            return run(progress)
        finally:
            bar.empty()  # before or_stop's message: nothing the page draws once st.stop() is raised reaches it

    return or_stop(cleared)


def cut_warning(note: str | None) -> None:
    """Show what truncation cut (``lengths.cut_note``), when it cut something."""
    if note:
        st.warning(note, icon="✂️")


def score_grid_view(scores: SeparationScores, measure: str, key: str, container: Any = None) -> None:
    """A score grid as a heatmap with its top cells boxed, layer-independent strategies as a table, and the
    verdict: the core's sentence when judged on replicates (folds or a bootstrap), else the best cell with its lead,
    or a tie (with the reason when there is one)."""
    with container or st.container():
        if not scores.per_layer.empty:
            canvas_table_heatmap(scores.per_layer, f"{measure} per strategy × layer", key, colorscale="Greens",
                                 best_cells=scores.top_positions(), container=container)
        if not scores.single.empty:
            table(scores.single.rename(measure).to_frame().reset_index(names="layer-independent strategy"),
                  key=f"{key}_single")
        top = scores.verdict
        if top is None:
            st.info(f"No {measure} could be computed for these cells.")
            return
        # judged on folds or a bootstrap: the core's sentence, with the count, the interval and chance
        (st.success if top.clear else st.info)(top.sentence + ("" if top.clear else " " + (scores.tie_reason() or "")),
                                                icon="🏆" if top.clear else "🤝")


STATIC_ROWS = 128  # tables up to this many rows are static; longer ones scroll in a data grid


def table(frame: pd.DataFrame, key: str, height: int = 600, row_css: pd.Series | None = None) -> None:
    """A table without its index, numbers to 3 decimals, text shown as typed, in a container keyed ``key`` (tests find it by
    that key); ``row_css`` (CSS per row, aligned with the frame's index) styles whole rows. Up to
    ``STATIC_ROWS`` rows it is one HTML element (``html_table``), which redraws at once when a setting changes (a
    scrolling data grid takes ~0.25 s more); longer ones scroll in a grid of ``height`` px."""
    with st.container(key=key):
        if len(frame) <= STATIC_ROWS:
            st.html(html_table.table_html(frame, row_css))
            return
        styler = frame.style.format(precision=3, na_rep=html_table.MISSING)
        if row_css is not None:
            # every cell of a row at once (a function per row took ~2 ms a table)
            styler = styler.apply(lambda cells: pd.DataFrame({column: row_css.reindex(cells.index).to_numpy()
                                                              for column in cells.columns}, index=cells.index), axis=None)
        st.dataframe(styler, hide_index=True, width="stretch", height=height)


def chart(figure: Any, key: str, container: Any = None, **options: Any) -> Any:
    """Draw a plotly figure. Its camera button saves the picture (PNG or SVG, as chosen in the sidebar) at
    the figure's own size with its title, so nothing is clipped. Long titles wrap and crowded tick labels
    stand upright; in presentation mode text is larger and the chart fits one screen (``ui.layout.present``). In a
    column from ``present.columns`` the title wraps to that column. ``options`` go to ``st.plotly_chart``."""
    layout = figure.layout
    shown = presenting()
    if shown:
        present.present(figure)
    present.wrap_title(figure, present.title_chars(shown, container), present.TITLE_PX + 4 if shown else 20,
                          present.CHART_PX if shown else None)
    present.level_ticks(figure)
    if shown:
        token_names.name_every_token(figure)
    else:  # presentation mode's plots are tight on a small screen: a margin to spare would crowd them
        label_room.reserve_label_room(figure, present.share_of(container))
    height, width = layout.height or label_room.DEFAULT_HEIGHT, layout.width or 1100
    picture = st.session_state.get("picture_format", "png")
    config = {"toImageButtonOptions": {"format": picture, "filename": key, "height": height, "width": width,
                                       "scale": 2 if picture == "png" else 1}, "displaylogo": False}
    return (container or st).plotly_chart(figure, key=key, config=config, **options)


def scatter_grid(panels: list[Any], cols: int, labels: list[str] | None, texts: list[str], key: str,
                 csv_label: str, csv_name: str) -> None:
    """A grid of scatters (``grid_figures.Panel``s, ``cols`` to a row) drawn on one canvas, and its points as a
    CSV (panel, text, label, x, y). The chart's toolbar saves it as PNG; in presentation mode text is larger."""
    import bertviz_core.figures.grid_figures as grid_figures

    spec, data = grid_figures.pca_grid_spec(panels, cols, labels, texts, font_px=17 if presenting() else 12,
                                            height_px=present.GRID_PX if presenting() else None)
    with st.container(key=key):  # the chart itself carries no key on the page
        st.vega_lite_chart(spec=spec, key=f"{key}_chart", width="stretch")
    panel_names = data["title"].cat.rename_categories(lambda title: title.replace("\n", " · "))  # one line a name
    download_csv(data.assign(panel=panel_names)[["panel", "text", "label", "x", "y"]], csv_label, csv_name, f"{key}_csv")


def teaching_panel(what: str, code: str, key: str) -> None:
    """'What you are looking at' (two lines), the plain transformers code, and a link to this view;
    in presentation mode only the two lines. ``key`` names the panel (session state ``code_<key>``: open or not).

    The code is drawn only while the panel is open: the first code block a browser tab draws loads the syntax
    highlighter, which registers its hundreds of languages (about half a second of the browser's main thread a
    page load here), and a closed panel has nothing to show."""
    st.info(what, icon="🔎")
    if presenting():
        return
    panel = st.expander("Reproduce these numbers in a notebook, or share this view", key=f"code_{key}",
                        on_change="rerun")
    if not panel.open:
        return
    with panel:
        st.code(code, language="python")
        link, too_long = share_link()
        st.caption("Link that reopens this view with the same settings:")
        st.code(link, language=None)
        if too_long:
            st.caption(f"Left out of the link, being longer than {MAX_LINK_VALUE:,} characters: "
                       f"{', '.join(too_long)}. Whoever opens it sees the default text there; paste yours in.")


def download_npy(array: np.ndarray, label: str, file_name: str, key: str) -> None:
    """A NumPy .npy download button for an array, written only when clicked; none in presentation mode."""
    if presenting():
        return
    # The button keeps its data for the session's life: a copy of just these rows, not a view that would keep
    # the whole shared array (counted in the store's budget) alive once the store has let it go.
    data = np.array(array, copy=True)

    def npy() -> bytes:
        buffer = io.BytesIO()
        np.save(buffer, data)
        return buffer.getvalue()

    st.download_button(label, npy, file_name=file_name, key=key, on_click="ignore")


def download_csv(frame: pd.DataFrame, label: str, file_name: str, key: str) -> None:
    """A CSV download button for the numbers behind a table or chart, written only when clicked; none in
    presentation mode."""
    if presenting():
        return
    st.download_button(label, lambda: frame.to_csv(index=False).encode("utf-8"), file_name=file_name,
                       mime="text/csv", key=key, on_click="ignore")


def progress_over(items: Sequence[T], first: str, text: Callable[[int, int], str]) -> Iterator[T]:
    """Each of ``items`` in turn, with a progress bar (its text ``first``, then ``text(done, total)`` after
    each item) that is removed once the last is done."""
    bar = st.progress(0.0, text=first)
    for done, item in enumerate(items, start=1):
        yield item
        bar.progress(done / len(items), text=text(done, len(items)))
    bar.empty()
