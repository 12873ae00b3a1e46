"""The Which model? page's numbers and wording: which cells each model gets, the leaderboard, each model's strategy ×
layer grid, the chart of each model's score by layer with its interval band, and the cost beside the quality.

The ranking itself is ``bertviz_core.model_choice``'s; this module only lays it out, so a page decides nothing.
"""
from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np
import pandas as pd
import plotly.graph_objects as go

from bertviz_core.figures import layer_label
from bertviz_core.figures.charts import plain
from bertviz_core.measures.pooling_grid import Cell
from bertviz_core.model.models import ModelInfo
from bertviz_core.views.page_views import layer_numbers

MAX_MODELS = 4  # models ranked at once
DEFAULT_STRATEGIES = ("mean", "cls")  # the cells of the default view, at every layer
TASKS = {"labels": "Labelled texts (probe, silhouette)", "pairs": "Scored pairs (Spearman ρ)"}
LABEL_MEASURES = ("accuracy", "macro-F1", "silhouette")
COLOURS = ("#4f46e5", "#dc2626", "#16a34a", "#d97706")  # one per model, in the order shown
DASHES = ("solid", "dash", "dot", "dashdot")  # one per strategy


def check_models(names: Sequence[str], identities: Sequence[str]) -> None:
    """``ValueError`` saying what to change unless ``names`` are two to ``MAX_MODELS`` models of different
    ``identities`` (``ModelInfo.identity``: the same files under two names are one model)."""
    if len(names) < 2:
        raise ValueError("Choose at least two models to compare: with one there is nothing to rank it against. "
                         "The bundled model's untrained twin shows what pre-training built.")
    if len(names) > MAX_MODELS:
        raise ValueError(f"Choose at most {MAX_MODELS} models; {len(names)} are chosen.")
    seen: dict[str, str] = {}
    for name, identity in zip(names, identities):
        if identity in seen:
            raise ValueError(f"{seen[identity]} and {name} are the same model (the same files): it can only tie with "
                             "itself. Choose another model.")
        seen[identity] = name


def layer_choices(infos: Iterable[ModelInfo]) -> list[int]:
    """The layers offered: every layer of the deepest model (a shallower one is scored at those it has)."""
    return layer_numbers(max(info.num_layers for info in infos))


def model_cells(strategies: Sequence[str], layers: Sequence[int], num_layers: int) -> list[Cell]:
    """The cells of a model of ``num_layers`` layers: each of ``strategies`` at each of ``layers`` it has."""
    return [Cell(strategy, layer) for strategy in strategies for layer in layers if layer <= num_layers]


def pairs_corpus(pairs: pd.DataFrame) -> tuple[list[str], list[int], list[int], list[float]]:
    """Checked scored pairs (``task_measures.check_pairs``) as one corpus: its distinct sentences, and for each pair
    the row of its first and of its second sentence in them, and its gold score: ``rank_models``' ``pairs``."""
    texts = list(dict.fromkeys([*pairs["sentence1"], *pairs["sentence2"]]))
    row = {text: i for i, text in enumerate(texts)}
    return (texts, [row[t] for t in pairs["sentence1"]], [row[t] for t in pairs["sentence2"]],
            [float(s) for s in pairs["score"]])


def leaderboard(table: pd.DataFrame, order: Sequence[str]) -> pd.DataFrame:
    """Each model's best cell from ``Ranking.table`` (sorted by score), in ``order``: model, strategy, layer, score,
    its 95 % interval, and whether it is the best or tied with it over every model's cells."""
    best = table.dropna(subset=["score"]).drop_duplicates("model")
    return best.set_index("model").reindex([m for m in order if m in set(best["model"])]).reset_index()


def model_grid(table: pd.DataFrame, model: str) -> tuple[pd.DataFrame, list[tuple[int, int]]]:
    """One model's scores as a strategy × layer table (columns named by ``layer_label``), and the (row, column) of
    its cells that are the best or tied with it over every model."""
    rows = table[table["model"] == model].sort_values(["layer"], kind="stable")
    grid = rows.pivot_table(index="strategy", columns="layer", values="score", sort=False, dropna=False)
    grid = grid.reindex(index=list(dict.fromkeys(rows["strategy"])), columns=sorted(set(rows["layer"])))
    best = [(list(grid.index).index(s), list(grid.columns).index(layer))
            for s, layer in rows.loc[rows["best"], ["strategy", "layer"]].itertuples(index=False)]
    grid.columns = [layer_label(int(c)) for c in grid.columns]
    return grid, best


def layers_figure(table: pd.DataFrame, order: Sequence[str], measure: str, count: str) -> go.Figure:
    """Each model's score by layer, a line per model and strategy (colour: model, dash: strategy), its 95 %
    interval shaded around it; models in ``order``."""
    data = []
    strategies = list(dict.fromkeys(table["strategy"]))
    for i, model in enumerate(order):
        colour = COLOURS[i % len(COLOURS)]
        for strategy, rows in table[table["model"] == model].groupby("strategy", sort=False):
            rows = rows.sort_values("layer")
            x = [layer_label(int(layer)) for layer in rows["layer"]]
            name = f"{plain(model)} · {strategy}"
            data.append(dict(type="scatter", x=x + x[::-1], y=[*rows["high"], *rows["low"][::-1]], mode="lines",
                             fill="toself", fillcolor=colour, opacity=0.15, line=dict(width=0), hoverinfo="skip",
                             legendgroup=name, showlegend=False))
            data.append(dict(type="scatter", x=x, y=list(rows["score"]), mode="lines+markers", name=name,
                             legendgroup=name, line=dict(color=colour, dash=DASHES[strategies.index(strategy) % 4]),
                             customdata=np.column_stack([rows["low"], rows["high"]]),
                             hovertemplate=f"{name}<br>%{{x}}: %{{y:.3f}} (95% interval %{{customdata[0]:.3f}} to "
                                           "%{customdata[1]:.3f})<extra></extra>"))
    layout = dict(title=dict(text=plain(f"{measure} by layer, each model, {count}; shaded: 95 % interval")),
                  yaxis=dict(title=plain(measure)), xaxis=dict(type="category"), height=440,
                  margin=dict(l=10, r=10, t=60, b=10),
                  # at the figure's foot, below the tick labels: placed in plot units (y < 0) it met the rotated
                  # labels of a narrow plot, and above the plot it met a title of two lines
                  legend=dict(orientation="h", yref="container", y=0, yanchor="bottom", x=0, xanchor="left"))
    return go.Figure(dict(data=data, layout=layout))


def parameter_count(model: Any) -> int:
    """The number of weights of a torch model (``Encoder.model``)."""
    return int(sum(p.numel() for p in model.parameters()))


def disk_bytes(info: ModelInfo) -> int | None:
    """The bytes of the model's files on disk (its folder's), None when it has no local folder (a hub id)."""
    folder = Path(info.source)
    if not folder.is_dir():
        return None
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def cost_table(order: Sequence[str], infos: dict[str, ModelInfo], parameters: dict[str, int],
               disk: dict[str, int | None], encoded: dict[str, tuple[int, float] | None]) -> pd.DataFrame:
    """The cost of each model beside its quality, a row each in ``order``: parameters, hidden size, usable length
    (tokens), size on disk (MB), and ``encoded``'s (texts, seconds) as texts per second on this server, with the
    device (None: encoded before this page asked, so not measured here)."""
    rows = []
    for model in order:
        info, timing = infos[model], encoded.get(model)
        size = disk.get(model)
        rows.append({"model": model, "parameters": f"{parameters[model] / 1e6:.1f} M", "hidden size": info.hidden_size,
                     "layers": info.num_layers, "usable length (tokens)": info.max_length,
                     "size on disk": "—" if size is None else f"{size / 1e6:.0f} MB",
                     "texts / s (measured here)": "not measured here yet" if timing is None else
                     f"{timing[0] / max(timing[1], 1e-9):,.0f} ({timing[0]:,} texts in {timing[1]:.1f} s)",
                     "device": info.device})
    return pd.DataFrame(rows)
