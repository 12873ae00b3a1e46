"""Figure builders: numpy/pandas in, a plotly ``go.Figure`` (or, for grids of many scatters, a Vega-Lite
spec and its data) out. No computation beyond layout.

Plotly renders a little HTML in titles, labels, legends and hovers (<b>, <a href>) and reads
%{...} in hover templates. Every text a builder receives passes through ``plain`` (a newline
becomes a line break), and user text never enters a hover template, so it always shows as typed.
"""
from __future__ import annotations

import html
from collections.abc import Iterable, Sequence

import numpy as np
import pandas as pd
import plotly.graph_objects as go
from plotly.colors import qualitative

from bertviz_core.figures.axes import column_axis


def plain(text: str) -> str:
    """Text that plotly shows literally: markup escaped, newlines as line breaks."""
    return html.escape(str(text), quote=False).replace("\n", "<br>")


def plains(texts: Iterable[str]) -> list[str]:
    return [plain(t) for t in texts]


def hover_texts(texts: Iterable[str]) -> list[str]:
    """Texts as a hover shows them: at most 90 characters, a longer one cut with "…"."""
    return [t if len(t) <= 90 else t[:87] + "…" for t in texts]


def layer_label(layer: int | None) -> str:
    """Layer 0 is the embedding layer's output, layer k the output of transformer layer k; None is a
    layer-independent strategy's single vector."""
    return "one vector" if layer is None else "0 · embeddings" if layer == 0 else f"layer {layer}"


def layer_distributions_figure(quantiles: pd.DataFrame, title: str) -> go.Figure:
    """One box per layer from precomputed quantiles (see ``stats.layer_quantiles``).

    Box = quartiles, whiskers = 1st and 99th percentiles, dots = min and max.
    """
    names = [layer_label(int(layer)) for layer in quantiles["layer"]]
    fig = go.Figure(go.Box(
        x=names, q1=quantiles["q1"], median=quantiles["median"], q3=quantiles["q3"],
        lowerfence=quantiles["p1"], upperfence=quantiles["p99"], name="distribution",
        marker_color="#4f46e5", showlegend=False,
    ))
    for column, symbol in (("min", "triangle-down"), ("max", "triangle-up")):
        fig.add_trace(go.Scatter(x=names, y=quantiles[column], mode="markers", name=column,
                                 marker=dict(symbol=symbol, size=9, color="#dc2626")))
    fig.update_layout(title=plain(title), yaxis_title="value", height=380, margin=dict(l=10, r=10, t=40, b=10))
    return fig


def heatmap_figure(
    matrix: np.ndarray, x_labels: Sequence[str], y_labels: Sequence[str], title: str,
    colorscale: str = "Viridis", marked_columns: Sequence[int] = (), zmid: float | None = None,
    annotate: bool = False, best_cells: Sequence[tuple[int, int]] = (), selectable: bool = False,
    zrange: tuple[float, float] | None = None, undefined: np.ndarray | None = None,
) -> go.Figure:
    """A heatmap of (rows, columns); each of ``marked_columns`` is named in red under its column, its values left
    uncovered (``axes.column_axis``, which also thins the ticks of many columns), each of ``best_cells`` (row, column)
    a red box; ``selectable`` adds an invisible marker on every cell, so a
    click selects it (plotly selects points, not heatmap cells); ``zrange`` fixes the colour scale's ends (e.g. a
    measure's own range, so that two tables read alike); ``undefined`` (rows, columns) of text says, where not
    empty, why that cell (NaN) has no value ("not defined: <why>"): its hover shows it and the cell reads "—"
    (the tables' mark of a missing value), never "nan". Built as one dict: plotly's add_shape and update_layout calls cost more than the rest of
    a page's rerun."""
    heatmap = dict(type="heatmap", z=matrix, x=plains(x_labels), y=plains(y_labels), colorscale=colorscale,
                   zmid=zmid, hovertemplate="%{y} · %{x}<br>%{z:.3f}<extra></extra>")
    if zrange is not None:
        heatmap |= dict(zmin=zrange[0], zmax=zrange[1])
    text = np.vectorize(lambda v: f"{v:.2f}")(matrix) if annotate else None
    if undefined is not None:
        said = np.asarray(undefined, dtype=object) != ""
        hover = [[plain(why) if why else f"{v:.3f}" for why, v in zip(whys, values)]
                 for whys, values in zip(undefined, matrix)]
        heatmap |= dict(customdata=hover, hovertemplate="%{y} · %{x}<br>%{customdata}<extra></extra>")
        if text is not None:  # "not defined" overflowed a half-width grid's cell at 150 %: the hover says it
            text = np.where(said, "—", text)
    if text is not None:
        heatmap |= dict(text=text, texttemplate="%{text}")
    shapes = [dict(type="rect", x0=col - 0.5, x1=col + 0.5, y0=row - 0.5, y1=row + 0.5,
                    line=dict(color="red", width=3)) for row, col in best_cells]
    row_height = 44 if annotate else 22
    # every row named: plotly leaves out labels it finds crowded, and each row has row_height
    layout = dict(title=dict(text=plain(title)), height=max(300, row_height * len(y_labels) + 160),
                  margin=dict(l=10, r=10, t=60, b=10), yaxis=dict(autorange="reversed", type="category", dtick=1),
                  xaxis=column_axis(plains(x_labels), marked_columns), shapes=shapes)
    data = [heatmap]
    if selectable:
        rows, cols = np.meshgrid(plains(y_labels), plains(x_labels), indexing="ij")
        data.append(dict(type="scatter", x=cols.ravel(), y=rows.ravel(), mode="markers", showlegend=False,
                         marker=dict(size=18, opacity=0, color="black"), hoverinfo="none"))
        layout |= dict(clickmode="event+select", dragmode=False)
    return go.Figure(dict(data=data, layout=layout))


def token_labels(tokens: Sequence[str], sequences: Sequence[int | None] | None = None) -> list[str]:
    """Unique axis labels for tokens ("3 · bank"; "B 9 · bank" for a token of a pair's second text, whose
    ``sequences`` entry is 1): plotly merges equal category labels, and a text repeats tokens."""
    return [f"{'B ' if sequences is not None and sequences[i] == 1 else ''}{i} · {t}" for i, t in enumerate(tokens)]


def attention_figure(weights: np.ndarray, labels: Sequence[str], title: str, boundary: int | None = None) -> go.Figure:
    """A (queries, keys) attention matrix as a square heatmap, query tokens down the side and key tokens
    across; ``boundary`` (the first token of a pair's second text) is drawn as a line both ways.
    Up to 64 tokens every one is named both ways; past them the tick labels are left out (hover names each cell)."""
    names = plains(labels)
    size = min(900, max(420, 22 * len(names) + 200))
    shapes = [] if boundary is None else [
        dict(type="line", x0=boundary - 0.5, x1=boundary - 0.5, y0=-0.5, y1=len(names) - 0.5,
             line=dict(color="#dc2626", width=2)),
        dict(type="line", y0=boundary - 0.5, y1=boundary - 0.5, x0=-0.5, x1=len(names) - 0.5,
             line=dict(color="#dc2626", width=2))]
    named = len(names) <= 64
    axis = dict(type="category", showticklabels=named, tickfont=dict(size=10)) | (dict(dtick=1) if named else {})
    heatmap = dict(type="heatmap", z=weights, x=names, y=names, colorscale="Blues", zmin=0,
                   hovertemplate="query %{y}<br>key %{x}<br>weight %{z:.3f}<extra></extra>")
    top = 150 if len(names) <= 64 else 70  # room for the rotated key labels between the title and the plot
    layout = dict(title=dict(text=plain(title)), height=size + top - 50, width=size + 120, shapes=shapes,
                  margin=dict(l=10, r=10, t=top, b=10), xaxis=axis | dict(title="key (attended to)", side="top"),
                  yaxis=axis | dict(title="query (attending)", autorange="reversed"))
    return go.Figure(dict(data=[heatmap], layout=layout))


def thumbnail_grid_figure(thumbnails: np.ndarray, title: str) -> go.Figure:
    """Every head as a small multiple: (layers, heads, m, m) tiled into one heatmap trace, layers down,
    heads across, each tile scaled to its own maximum so weak heads show their pattern too."""
    layers, heads, m = thumbnails.shape[0], thumbnails.shape[1], thumbnails.shape[-1]
    gap = max(1, m // 8)
    tiled = np.full((layers * (m + gap) - gap, heads * (m + gap) - gap), np.nan)
    peak = thumbnails.max(axis=(2, 3), keepdims=True)
    scaled = thumbnails / np.where(peak > 0, peak, 1.0)
    for layer in range(layers):
        for head in range(heads):
            top, left = layer * (m + gap), head * (m + gap)
            tiled[top:top + m, left:left + m] = scaled[layer, head]
    centres = lambda count: [i * (m + gap) + (m - 1) / 2 for i in range(count)]  # noqa: E731
    tile_px = max(28, min(70, 900 // max(layers, heads)))
    layout = dict(title=dict(text=plain(title)), height=layers * tile_px + 140, width=heads * tile_px + 130,
                  margin=dict(l=10, r=10, t=90, b=10), plot_bgcolor="white",
                  xaxis=dict(tickvals=centres(heads), ticktext=[str(h) for h in range(1, heads + 1)], title="head",
                             side="top", showgrid=False, zeroline=False, constrain="domain"),
                  yaxis=dict(tickvals=centres(layers), ticktext=[str(l) for l in range(1, layers + 1)], title="layer",
                             autorange="reversed", showgrid=False, zeroline=False, scaleanchor="x"))
    heatmap = dict(type="heatmap", z=tiled, colorscale="Blues", zmin=0, zmax=1, showscale=False, hoverinfo="skip")
    return go.Figure(dict(data=[heatmap], layout=layout))


def table_cells(table: pd.DataFrame) -> tuple[np.ndarray, list[str], list[str]]:
    """A numeric table as a heatmap takes it: its values (rows, columns), its columns' names (across) and its
    index's (down the side)."""
    return table.to_numpy(dtype=float), [str(c) for c in table.columns], [str(i) for i in table.index]


def table_heatmap(table: pd.DataFrame, title: str, **options) -> go.Figure:
    """``heatmap_figure`` of a numeric table, its index down the side and its columns across."""
    return heatmap_figure(*table_cells(table), title, **options)


def score_grid_figure(scores: pd.DataFrame, title: str, best_cells: Sequence[tuple[int, int]],
                      zrange: tuple[float, float] | None = None, undefined: np.ndarray | None = None) -> go.Figure:
    """A table of scores (rows x columns, e.g. strategy x layer) as an annotated green heatmap, the
    ``best_cells`` (row, column) boxed in red: one best, or every cell of a tie; ``zrange`` and ``undefined`` as
    ``heatmap_figure`` takes them (a colour scale shared with other grids; why a cell has no score)."""
    return table_heatmap(scores, title, colorscale="Greens", annotate=True, best_cells=best_cells, zrange=zrange,
                         undefined=undefined)


PAIR_KINDS = {True: ("same sense", "#16a34a", "solid"), False: ("different senses", "#dc2626", "dash"),
              None: ("a sense not labelled", "#94a3b8", "dot")}


def pair_curves_figure(curves: pd.DataFrame, same_sense: dict[str, bool | None], title: str) -> go.Figure:
    """One line per pair across layers (long frame: pair, layer, cosine), coloured by kind of pair; the
    legend has one entry per kind, however many pairs (hover names each pair)."""
    data, shown = [], set()
    for pair, rows in curves.groupby("pair", sort=False):
        kind = same_sense.get(pair)
        name, colour, dash = PAIR_KINDS[kind]
        data.append(dict(type="scatter", x=[layer_label(int(x)) for x in rows["layer"]], y=rows["cosine"],
                         mode="lines+markers", name=name, legendgroup=name, showlegend=kind not in shown,
                         line=dict(color=colour, dash=dash, width=1.5), marker=dict(size=5), opacity=0.75,
                         customdata=[plain(pair)] * len(rows),
                         hovertemplate="pair %{customdata}<br>%{x}: %{y:.3f}<extra></extra>"))
        shown.add(kind)
    layout = dict(title=dict(text=plain(title)), yaxis=dict(title="cosine similarity"), height=420,
                  margin=dict(l=10, r=10, t=60, b=10), legend=dict(orientation="h", y=1.02, yanchor="bottom", x=1,
                                                                   xanchor="right"))
    return go.Figure(dict(data=data, layout=layout))


def guess_grid_figure(tokens: np.ndarray, probs: np.ndarray, title: str, marked_layer: int | None = None,
                      measure: str = "probability", rank_name: str = "guess") -> go.Figure:
    """The logit lens as a grid: a row per layer (0 = embeddings), the ``k`` best guesses across, each cell
    the guessed token coloured by its probability. ``tokens``, ``probs``: (layers+1, k); ``marked_layer``
    gets a red outline. The nearest input embeddings use it too: ``measure`` "cosine", ``rank_name`` "nearest"."""
    layers, k = probs.shape
    names = [layer_label(layer) for layer in range(layers)]
    words = np.vectorize(plain, otypes=[object])(tokens)
    heatmap = dict(type="heatmap", z=probs, x=[f"#{rank}" for rank in range(1, k + 1)], y=names, text=words,
                   texttemplate="%{text}", customdata=words, colorscale="Blues", zmin=0,
                   colorbar=dict(title=measure, tickformat=".2~r"),
                   hovertemplate=f"%{{y}} · {rank_name} %{{x}}: %{{customdata}}<br>{measure} %{{z:.4f}}"
                                 "<extra></extra>")
    shapes = [] if marked_layer is None else [dict(type="rect", xref="paper", x0=0, x1=1, y0=marked_layer - 0.5,
                                                   y1=marked_layer + 0.5, line=dict(color="red", width=3))]
    layout = dict(title=dict(text=plain(title)), height=max(300, 30 * layers + 140), shapes=shapes,
                  margin=dict(l=10, r=10, t=60, b=10), yaxis=dict(autorange="reversed", type="category"),
                  xaxis=dict(type="category", side="top"))
    return go.Figure(dict(data=[heatmap], layout=layout))


def rank_curves_figure(tracked: pd.DataFrame, title: str) -> go.Figure:
    """Rank (left, log scale, 1 at the top) and probability (right) of each tracked token by layer; a long
    frame with layer, token, role, rank, probability."""
    data = []
    for i, ((role, token), rows) in enumerate(tracked.groupby(["role", "token"], sort=False)):
        name, colour = plain(f"{role}: {token}"), qualitative.Plotly[i % 10]
        x = [layer_label(int(layer)) for layer in rows["layer"]]
        common = dict(type="scatter", x=x, mode="lines+markers", name=name, legendgroup=name,
                      line=dict(color=colour))
        data += [common | dict(y=rows["rank"], hovertemplate="%{x}: rank %{y}<extra></extra>"),
                 common | dict(y=rows["probability"], xaxis="x2", yaxis="y2", showlegend=False,
                               hovertemplate="%{x}: probability %{y:.4f}<extra></extra>")]
    # the gap between the plots holds the probability axis: its labels (0.00006 for an untrained head) and title
    layout = dict(title=dict(text=plain(title)), height=400, margin=dict(l=10, r=10, t=80, b=10),
                  xaxis=dict(domain=[0, 0.42]), xaxis2=dict(domain=[0.58, 1], anchor="y2"),
                  yaxis=dict(title="rank (1 = top guess)", type="log", autorange="reversed"),
                  yaxis2=dict(title="probability", anchor="x2", rangemode="tozero", tickformat=".2~r"),
                  legend=dict(orientation="h", y=1.02, yanchor="bottom", x=1, xanchor="right"))
    return go.Figure(dict(data=data, layout=layout))


def layer_share_figure(summary: pd.DataFrame, title: str) -> go.Figure:
    """The share of a token's neighbours that are the same word, by layer (``similar_contexts.layer_summary``), and
    dashed, the most it can be where the corpus holds fewer of the word's tokens than there are neighbours."""
    x = [layer_label(int(layer)) for layer in summary["layer"]]
    line = dict(type="scatter", x=x, y=summary["same word"], mode="lines+markers", line=dict(color="#4f46e5"),
                name="same word", hovertemplate="%{x}: %{y:.0%}<extra></extra>")
    ceiling = summary["most possible"] / summary["neighbours"]
    most = dict(type="scatter", x=x, y=ceiling, mode="lines", line=dict(color="#b45309", dash="dash"),
                name="the most possible", hovertemplate="%{x}: at most %{y:.0%}<extra></extra>")
    layout = dict(title=dict(text=plain(title)), height=360, margin=dict(l=10, r=10, t=60, b=10),
                  yaxis=dict(title="same word", tickformat=".0%", range=[-0.02, 1.02]),
                  showlegend=bool((ceiling < 1).any()), legend=dict(orientation="h", y=-0.2, x=0))
    return go.Figure(dict(data=[line, most] if (ceiling < 1).any() else [line], layout=layout))


def measures_figure(measures: pd.DataFrame, columns: Sequence[str], title: str, y_title: str) -> go.Figure:
    """One line per column of ``measures`` (a frame with a ``layer`` column) across layers."""
    x = [layer_label(int(layer)) for layer in measures["layer"]]
    data = [dict(type="scatter", x=x, y=measures[column], mode="lines+markers", name=plain(column),
                 line=dict(color=qualitative.Plotly[i % 10]), hovertemplate="%{x}: %{y:.3f}<extra></extra>")
            for i, column in enumerate(columns)]
    layout = dict(title=dict(text=plain(title)), height=420, margin=dict(l=10, r=10, t=90, b=10),
                  yaxis=dict(title=plain(y_title)), legend=dict(orientation="h", y=1.02, yanchor="bottom", x=0))
    return go.Figure(dict(data=data, layout=layout))
