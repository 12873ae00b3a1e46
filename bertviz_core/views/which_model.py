"""The Which model? page's numbers and wording: which cells each model gets, the leaderboard, each model's strategy ×
layer grid, the chart of each model's score by layer with its interval band, and what each model costs.

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
from bertviz_core.figures.canvas_heatmaps import CANVAS_CONFIG, title_from_data, title_rows
from bertviz_core.figures.charts import score_grid_figure
from bertviz_core.measures.pooling import POOLINGS
from bertviz_core.measures.pooling_grid import Cell
from bertviz_core.model.models import ModelInfo
from bertviz_core.views.page_views import layer_numbers

MAX_MODELS = 4  # models ranked at once
DEFAULT_STRATEGIES = ("mean", "cls")  # the cells of the default view, at every layer
TASKS = {"labels": "Labelled texts (probe, silhouette)", "pairs": "Scored pairs (Spearman ρ)"}
LABEL_MEASURES = ("accuracy", "macro-F1", "silhouette")
COLOURS = ("#4f46e5", "#dc2626", "#16a34a", "#d97706")  # one per model, in the order shown
DASH_ARRAYS = ([1, 0], [6, 4], [2, 3], [8, 3, 2, 3])  # one per strategy: solid, dashed, dotted, dash-dot


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
    its 95 % interval, and whether it is the best or tied with it over every model's cells (a cell with a score:
    its note is always empty, so it is left out)."""
    best = table.dropna(subset=["score"]).drop_duplicates("model").drop(columns="note")
    return best.set_index("model").reindex([m for m in order if m in set(best["model"])]).reset_index()


def model_grid(table: pd.DataFrame, model: str) -> tuple[pd.DataFrame, list[tuple[int, int]], np.ndarray]:
    """One model's scores as a strategy × layer table (columns named by ``layer_label``), the (row, column) of its
    cells that are the best or tied with it over every model, and (strategies, layers) the ``note`` of each cell
    ("not defined: <why>" where its score is NaN, else "")."""
    rows = table[table["model"] == model].sort_values(["layer"], kind="stable")
    strategies, layers = list(dict.fromkeys(rows["strategy"])), sorted(set(rows["layer"]))
    grid = rows.pivot_table(index="strategy", columns="layer", values="score", sort=False, dropna=False)
    grid = grid.reindex(index=strategies, columns=layers)
    notes = np.full(grid.shape, "", dtype=object)
    for strategy, layer, note in rows[["strategy", "layer", "note"]].itertuples(index=False):
        notes[strategies.index(strategy), layers.index(layer)] = note
    best = [(strategies.index(s), layers.index(layer))
            for s, layer in rows.loc[rows["best"], ["strategy", "layer"]].itertuples(index=False)]
    grid.columns = [layer_label(int(c)) for c in grid.columns]
    return grid, best, notes


def shared_scale(table: pd.DataFrame) -> tuple[float, float] | None:
    """The colour scale every model's grid shares: the lowest and the highest defined score of every model's cells
    (None when no cell has one). A scale of each grid's own would colour an untrained twin's best cell as dark as
    the trained model's."""
    scores = table["score"].dropna()
    return (float(scores.min()), float(scores.max())) if len(scores) else None


def shared_scale_sentence(table: pd.DataFrame) -> str:
    """What the grids' one colour scale spans, for a caption above them ('' when no cell has a score)."""
    shared = shared_scale(table)
    return "" if shared is None else (f"Every model's grid is coloured on one scale: {shared[0]:.2f} (lightest) to "
                                      f"{shared[1]:.2f} (darkest), the lowest and highest score of every model's cells.")


def model_grid_figure(table: pd.DataFrame, model: str, measure: str) -> go.Figure:
    """One model's strategy × layer grid (``model_grid``) as a heatmap, the best cells boxed, on the colour scale
    that every model's grid shares (``shared_scale``; ``shared_scale_sentence`` says so above the grids: in each
    title it made the half-width grids' titles four lines long). A cell whose score is not defined says so, and
    why, in place of "nan"."""
    grid, best, notes = model_grid(table, model)
    return score_grid_figure(grid, f"{model}: {measure}", best, shared_scale(table), notes)


def layers_title(measure: str, count: str) -> str:
    """The title of ``layers_spec``'s chart."""
    return f"{measure} by layer, each model, {count}; shaded: 95 % interval"


def layers_spec(table: pd.DataFrame, order: Sequence[str], measure: str, title: str | list[str],
                font_px: int = 12, height_px: int | None = None) -> dict[str, Any]:
    """Each model's score by layer as a Vega-Lite chart on a canvas (for ``st.vega_lite_chart``, its data as the
    named dataset "scores": model, strategy, layer, line, score, low, high, measure and title): a line per model and
    strategy (colour: model, in ``order``; dash: strategy, in the pooling registry's order), its 95 % interval shaded
    around it, hover to 3 decimals; the models' legend two to a row. ``title``: one line, or the lines it is wrapped
    to; text in ``font_px``; ``height_px`` the whole chart's, its title, axes and legends within it, 480 by default.
    The title and the score axis's name (``measure``) travel with the data and the view's label says what kind of
    chart it is, so a change of score is handed to the drawn view, which redraws without being built again."""
    registry = list(POOLINGS)  # each strategy's dash in the registry's order, not the ranking's, which moves
    strategies = sorted(set(table["strategy"]), key=lambda name: (registry.index(name) if name in registry
                                                                  else len(registry), name))
    layers = sorted(set(int(layer) for layer in table["layer"]))
    scores = pd.DataFrame({"model": table["model"].astype(str), "strategy": table["strategy"].astype(str),
                           "layer": [layer_label(int(layer)) for layer in table["layer"]],
                           "score": table["score"].astype(float), "low": table["low"].astype(float),
                           "high": table["high"].astype(float)})
    scores["line"] = scores["model"] + " · " + scores["strategy"]
    scores["measure"], scores["title"] = pd.Categorical([measure] * len(scores)), title_rows(title, len(scores))
    legend = {"orient": "bottom", "title": None, "labelLimit": 0, "symbolOpacity": 1, "offset": 4}
    colour = {"field": "model", "type": "nominal", "legend": legend | {"columns": 2},  # up to 4 long names
              "scale": {"domain": list(order), "range": [COLOURS[i % len(COLOURS)] for i in range(len(order))]}}
    dashes = [DASH_ARRAYS[i % len(DASH_ARRAYS)] for i, _ in enumerate(strategies)]
    dash = {"field": "strategy", "type": "nominal", "scale": {"domain": strategies, "range": dashes},
            "legend": legend | {"symbolStrokeColor": "#31333f", "symbolSize": 400, "orient": "right"}}
    slanted = len(layers) > 7  # more columns than level labels fit
    y = {"type": "quantitative", "scale": {"zero": False},
         "axis": {"title": {"signal": "length(data('scores')) ? data('scores')[0].measure : ''"}}}
    hover = [{"field": "model", "title": "model"}, {"field": "strategy", "title": "strategy"},
             {"field": "layer", "title": "layer"}, {"field": "measure", "title": "measure"},
             {"field": "score", "type": "quantitative", "format": ".3f", "title": "score"},
             {"field": "low", "type": "quantitative", "format": ".3f", "title": "95 % interval from"},
             {"field": "high", "type": "quantitative", "format": ".3f", "title": "95 % interval to"}]
    return {
        "usermeta": {"embedOptions": {"renderer": "canvas"}},
        "description": "Line chart of each model's score by layer, a dash for each pooling strategy, the 95 % "
                       "interval shaded",
        "title": {"text": title_from_data("scores"), "anchor": "start", "fontSize": font_px + 2,
                  "fontWeight": "normal"},
        "width": "container", "height": height_px or 480, "autosize": {"type": "fit", "contains": "padding"},
        "datasets": {"scores": scores}, "data": {"name": "scores"},
        "encoding": {"x": {"field": "layer", "type": "ordinal", "sort": [layer_label(layer) for layer in layers],
                           "title": None, "axis": {"labelLimit": 0, "labelAngle": -40 if slanted else 0,
                                                   "labelOverlap": False}},  # every layer named
                     "color": colour, "detail": {"field": "line"}},
        "layer": [
            {"mark": {"type": "area", "opacity": 0.15, "tooltip": False},
             "encoding": {"y": {**y, "field": "low"}, "y2": {"field": "high"}}},
            {"mark": {"type": "line", "strokeWidth": 2, "tooltip": False},  # a line's own legend shows its dash
             "encoding": {"y": {**y, "field": "score"}, "strokeDash": dash}},
            {"mark": {"type": "circle", "size": 40, "opacity": 1}, "encoding": {"y": {**y, "field": "score"},
                                                                              "tooltip": hover}},
        ],
        "config": {**CANVAS_CONFIG, "legend": {"labelFontSize": font_px},
                   "axis": {"labelFontSize": font_px, "titleFontSize": font_px}},
    }


def parameter_count(model: Any) -> int:
    """The number of weights of a torch model (``Encoder.model``)."""
    return int(sum(p.numel() for p in model.parameters()))


def disk_bytes(info: ModelInfo) -> int | None:
    """The bytes of the model's files on disk (its folder's), None when it has no local folder (a hub id)."""
    folder = Path(info.source)
    if not folder.is_dir():
        return None
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file())


def encoding_speed(timing: tuple[int, float] | None, device: str) -> str:
    """The texts per second this server measured while the page encoded and pooled the corpus, from ``timing``
    (texts, seconds), on ``device``; None: the vectors were already in the shared store (another page or the warm-up
    encoded them), so nothing was timed, and the sentence says so."""
    if timing is None:
        return ("not measured: these texts were encoded before this page asked (by another page or the warm-up), "
                "so no encoding was timed here")
    texts, seconds = timing
    return (f"{_per_second(texts, seconds)} ({texts:,} texts encoded and pooled in {seconds:.1f} s, measured here on "
            f"{device})")


def stored_speed(store: str, manifest: dict) -> str:
    """What a store (named ``store`` as the server offers it; ``manifest`` its manifest) says of its model's speed:
    the texts per second its precompute encoded, pooled and wrote, on the device it records (``speed``, written by
    the local engine); without that record, why no speed is shown, since no model encoded its texts here."""
    speed = manifest.get("speed")
    if speed is None:
        return (f"not measured: the vectors were read from the store {store}, whose precompute recorded no speed "
                "(it ran on Ray, resumed with every text already done, or predates the record); no model encoded "
                "these texts here")
    texts, seconds = speed["texts"], speed["seconds"]
    return (f"{_per_second(texts, seconds)} (the store {store}: {texts:,} texts encoded, pooled and written in "
            f"{seconds:.1f} s; measured when the store was built, on {speed['device']})")


def _per_second(texts: int, seconds: float) -> str:
    return f"{texts / max(seconds, 1e-9):,.0f}"  # a run too short for the clock is not a division by zero


def cost_table(order: Sequence[str], infos: dict[str, ModelInfo], parameters: dict[str, int],
               disk: dict[str, int | None], speeds: dict[str, str]) -> pd.DataFrame:
    """The cost of each model beside its quality, a row each in ``order``: parameters, hidden size, usable length
    (tokens), size on disk (MB), its speed as ``speeds`` words it (``encoding_speed`` or ``stored_speed``), and the
    device the model is loaded on in this server."""
    rows = []
    for model in order:
        info, size = infos[model], disk.get(model)
        rows.append({"model": model, "parameters": f"{parameters[model] / 1e6:.1f} M", "hidden size": info.hidden_size,
                     "layers": info.num_layers, "usable length (tokens)": info.max_length,
                     "size on disk": "—" if size is None else f"{size / 1e6:.0f} MB",
                     "texts / s": speeds[model], "device (this server)": info.device})
    return pd.DataFrame(rows)
