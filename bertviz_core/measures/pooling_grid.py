"""The Sentence pooling page's numbers: which (strategy, layer) cells a grid shows, each cell's PCA
and silhouette, the score table over every cell, and its best cell.

Layer-independent strategies (``Pooling.per_layer`` False) have one cell with ``layer=None``.
"""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pandas as pd

import bertviz_core.checks as checks
from bertviz_core.figures import layer_label
from bertviz_core.measures.pooling import POOLINGS, vectors_at
from bertviz_core.measures.projection import pca_2d
import bertviz_core.measures.uncertainty as uncertainty
from bertviz_core.measures.similarity import SILHOUETTE_SAMPLE, Verdict, silhouette_per_text, top_positions, unscorable
from bertviz_core.measures.uncertainty import Resampling, Scored

SILHOUETTE_CHANCE = "a silhouette of about 0, classes no further apart than the texts within them"


@dataclass(frozen=True)
class Cell:
    """One strategy at one layer; ``layer`` is None for a strategy that has no layer choice."""

    strategy: str
    layer: int | None


@dataclass(frozen=True)
class CellResult:
    """A cell's PCA coordinates (n, 2), their explained variance ratios (2,), its silhouette (NaN unscored), and
    each scored text's silhouette (their mean; None unscored), which the bootstrap resamples."""

    coords: np.ndarray
    variance: np.ndarray
    silhouette: float
    per_text: np.ndarray | None = None

    def scored(self, resampling: Resampling) -> Scored:
        """The silhouette with its replicates: the mean per-text silhouette over each of ``resampling``'s
        resamples of the texts (``silhouette_resampling``; the same resamples for every cell)."""
        if self.per_text is None:
            return Scored(float("nan"), undefined="the labels have one class, or no class of two texts: there is no "
                                                  "separation to score")
        return Scored(self.silhouette, uncertainty.mean_replicates(self.per_text, resampling.indices()))


def silhouette_resampling(texts: int) -> Resampling:
    """The bootstrap of a silhouette grid on a corpus of ``texts`` texts, over the texts it scores: every one, or
    the sample of ``SILHOUETTE_SAMPLE`` a larger corpus is scored on (its verdict then says "a sample of ...")."""
    texts = checks.whole_number(texts, "texts", 1)
    return uncertainty.bootstrap(min(texts, SILHOUETTE_SAMPLE), "texts", 0.0, SILHOUETTE_CHANCE,
                                 texts if texts > SILHOUETTE_SAMPLE else None)


def sample_note(texts: int, mapped: bool) -> str:
    """How a silhouette on a corpus of ``texts`` texts chose the texts it scores, as a caption says it; "" when it
    scores every one. ``mapped``: the page's maps beside it draw every text."""
    texts = checks.whole_number(texts, "texts", 1)
    if texts <= SILHOUETTE_SAMPLE:
        return ""
    return (f"The silhouette is scored on a sample of {SILHOUETTE_SAMPLE:,} of {texts:,} texts, drawn at random and "
            f"not stratified by label (seed 0: scikit-learn's silhouette_score(sample_size={SILHOUETTE_SAMPLE}, "
            "random_state=0) draws the same), the same texts for every cell"
            + (f"; the maps show all {texts:,}." if mapped else "."))


MAX_COLOURS = 20  # labels drawn in colours of their own; the rarer ones share "other"
OTHER = "other"


@dataclass(frozen=True)
class LabelCheck:
    """How a corpus' labels can be used: ``colour`` what to colour points by (None: grey; at most
    ``MAX_COLOURS`` groups), ``scored`` the labels separation is measured on (None: not measured), and
    ``messages``, each a (level "info" / "warning", text) to show."""

    colour: list[str] | None
    scored: list[str] | None
    messages: tuple[tuple[str, str], ...] = ()


def colour_groups(labels: Sequence[str]) -> tuple[list[str], int]:
    """Labels to colour by: the ``MAX_COLOURS - 1`` most frequent as they are, the rest as ``OTHER`` when
    there are more than ``MAX_COLOURS``; and how many labels were merged into ``OTHER``. Labels are strings or
    whole numbers (3 becomes "3")."""
    labels = checks.labels(labels)
    counts = pd.Series(list(labels)).value_counts(sort=True)
    if len(counts) <= MAX_COLOURS:
        return list(labels), 0
    kept = set(counts.index[:MAX_COLOURS - 1])
    return [label if label in kept else OTHER for label in labels], len(counts) - len(kept)


def check_labels(labels: Sequence[str] | None) -> LabelCheck:
    """Whether ``labels`` colour the points and can be scored (see ``similarity.unscorable``)."""
    if labels is None:
        return LabelCheck(None, None, (("info", "No labels: points are not coloured and separation scores are "
                                                "skipped."),))
    labels = checks.labels(labels)
    problem = unscorable(labels)
    if problem == "one class":
        return LabelCheck(None, None, (("warning", "Every text has the same label, so there is no separation to "
                                                   "score. Points are shown uncoloured."),))
    colour, merged = colour_groups(labels)
    messages = ((("info", f"{len(set(labels)):,} labels: the {MAX_COLOURS - 1} most frequent have colours of "
                          f"their own; the other {merged:,} are drawn as “{OTHER}”. Scores use every label."),)
                if merged else ())
    if problem == "no shared class":
        return LabelCheck(colour, None, messages + (("warning", "Every text has a label of its own, so no class "
                                                                "has two texts to compare: separation is not "
                                                                "scored. Points are coloured by label."),))
    return LabelCheck(colour, labels, messages)


def grid_cells(strategies: Sequence[str], layers: Sequence[int], num_layers: int) -> list[list[Cell]]:
    """The grid's rows: one per chosen strategy, per-layer strategies first (registry order), each with
    a cell per chosen layer in ascending order; a layer-independent strategy has a single cell. ``ValueError``
    for an unknown strategy, or a layer that is no whole number from 0 to ``num_layers``."""
    num_layers = checks.whole_number(num_layers, "num_layers", 1)
    strategies = [checks.choice(s, "pooling strategy", POOLINGS)
                  for s in checks.strings(strategies, "strategies", "pooling strategy names")]
    layers = checks.indices(layers, "layers", num_layers + 1, allow_empty=True)
    chosen = [name for name in POOLINGS if name in strategies]
    ordered = [s for s in chosen if POOLINGS[s].per_layer] + [s for s in chosen if not POOLINGS[s].per_layer]
    return [[Cell(s, POOLINGS[s].layer_of(layer)) for layer in (sorted(set(layers)) if POOLINGS[s].per_layer
                                                                 else [num_layers])] for s in ordered]


def cell_vectors(pooled: dict[str, np.ndarray], cell: Cell) -> np.ndarray:
    """The (texts, hidden) vectors of ``cell`` from ``Encoder.embed``'s output (see ``pooling.vectors_at``)."""
    checks.instance(cell, Cell, "cell", "grid_cells")
    return vectors_at(pooled, cell.strategy, cell.layer)


def score_cell(vectors: np.ndarray, labels: Sequence[str] | None) -> CellResult:
    """PCA to 2-D and the silhouette of ``labels`` on the full (n, dim) vectors (NaN without labels)."""
    vectors = checks.numbers(vectors, "vectors", "(n, dim)")
    labels = None if labels is None else checks.labels(labels, count=len(vectors))
    coords, variance = pca_2d(vectors)
    per_text = None if labels is None else silhouette_per_text(vectors, labels)
    return CellResult(coords, variance, float("nan") if per_text is None else float(per_text.mean()), per_text)


def cell_key(cell: Cell) -> tuple[str, str]:
    """(row, column) of ``cell`` in a score table (``SeparationScores.table``) and in its verdict's cells."""
    return cell.strategy, layer_label(cell.layer) if cell.layer is not None else "one vector"


def cell_title(cell: Cell, result: CellResult, scored: bool) -> str:
    """A panel title in two short lines (the grid names the strategy beside its row): the layer, then the
    explained variance and silhouette."""
    spread = f"var {result.variance.sum():.0%}" if result.variance.sum() > 0 else "all identical"
    return f"{layer_label(cell.layer)}\n{spread}" + (f" · sil {result.silhouette:.2f}" if scored else "")


@dataclass(frozen=True)
class SeparationScores:
    """A score of every cell (a silhouette, unless made with another score): ``per_layer`` (per-layer
    strategies x layer columns) and ``single`` (layer-independent strategies). With a ``resampling`` and each
    cell's ``replicates`` (keyed by (strategy, column label)), the verdict is judged on them
    (``uncertainty.judge``, its sentence naming ``measure``); without, there is none: a best needs evidence beyond
    the noise."""

    per_layer: pd.DataFrame
    single: pd.Series
    replicates: dict[tuple[str, str], np.ndarray] | None = None
    resampling: Resampling | None = None
    measure: str = "silhouette (cosine)"

    @cached_property
    def verdict(self) -> Verdict | None:
        """Which cells are on top, over both parts; None without scores or without replicates to judge them on."""
        if self.resampling is None or self.replicates is None:
            return None
        return uncertainty.judge(self.table(), self.replicates, self.resampling, self.measure)

    def table(self) -> pd.DataFrame:
        """Both parts in one frame: a row per strategy, a column per layer plus "one vector"."""
        return pd.concat([self.per_layer, self.single.rename("one vector").to_frame()], axis=1)

    def top_positions(self) -> list[tuple[int, int]]:
        """(row, column) in ``per_layer`` of every per-layer cell on top, to box in the heatmap."""
        return top_positions(self.verdict, self.per_layer)

    def top_position(self, cells: Sequence[Cell]) -> int:
        """The position among ``cells`` of the verdict's top cell (the best, or the highest of a tie), which a
        picker opens on; the last cell when there is no verdict or the top is not among them."""
        top = self.verdict.cells[0] if self.verdict is not None else None
        keys = [cell_key(cell) for cell in cells]
        return keys.index(top) if top in keys else len(keys) - 1

    def tie_reason(self) -> str | None:
        """Why tied cells must tie (one strategy is a per-text multiple of another, the same direction, at the
        same layer), and why a cell scoring above a tied one is outside the tie (``uncertainty.outside_tie``)."""
        top = self.verdict
        tied = set(top.cells) if top and top.tie else set()
        pairs = sorted({(s, POOLINGS[s].rescales) for s, layer in tied if (POOLINGS[s].rescales, layer) in tied})
        reasons = [f"{s} is {base} multiplied by a number per text, and a cosine silhouette ignores a vector's "
                   f"length, so the two always score the same." for s, base in pairs]
        return " ".join(reasons + [uncertainty.outside_tie(self.table(), top)]).strip() or None


def separation_scores(silhouette_of: Callable[[Cell], float | CellResult], strategies: Sequence[str],
                      num_layers: int) -> SeparationScores:
    """Every strategy at every layer, ``silhouette_of`` each cell, and which are on top, NaN ignored. When
    ``silhouette_of`` gives each cell's ``CellResult`` (``score_cell``), the verdict is judged on a bootstrap of
    the texts (``silhouette_resampling``); when it gives a number, there is no verdict."""
    silhouette_of = checks.callback(silhouette_of, "silhouette_of", optional=False)
    cells = [cell for row in grid_cells(strategies, range(num_layers + 1), num_layers) for cell in row]
    return silhouette_grid(cells, silhouette_of)


def silhouette_grid(cells: Sequence[Cell], result_of: Callable[[Cell], float | CellResult]) -> SeparationScores:
    """``separation_scores`` over the given ``cells``."""
    results = {cell: result_of(cell) for cell in cells}
    texts = next((len(r.coords) for r in results.values() if isinstance(r, CellResult) and r.per_text is not None),
                 None)  # the corpus' texts: a larger one is scored on a sample
    if texts is None:  # numbers, or nothing scored: no replicates to judge on
        return scores_over(cells, lambda cell: getattr(results[cell], "silhouette", results[cell]))
    resampling = silhouette_resampling(texts)
    return scores_over(cells, lambda cell: results[cell].scored(resampling), resampling,
                       "silhouette (cosine)")


def scores_over(cells: Sequence[Cell], score_of: Callable[[Cell], float | Scored],
                resampling: Resampling | None = None, measure: str = "score") -> SeparationScores:
    """``score_of`` each of ``cells``, laid out as a ``SeparationScores`` (rows in the cells' order, layers
    ascending). When ``score_of`` gives ``Scored`` cells and ``resampling`` says how their replicates were made,
    the verdict is judged on the replicates (its sentence naming ``measure``); otherwise there is none."""
    per_layer = [cell for cell in cells if cell.layer is not None]
    layers = sorted({cell.layer for cell in per_layer})
    grid = pd.DataFrame(index=list(dict.fromkeys(cell.strategy for cell in per_layer)),
                        columns=[layer_label(layer) for layer in layers], dtype=float)
    replicates: dict[tuple[str, str], np.ndarray] = {}
    single: dict[str, float] = {}
    for cell in cells:
        got = score_of(cell)
        value = got.value if isinstance(got, Scored) else float(got)
        column = cell_key(cell)[1]
        if isinstance(got, Scored):
            replicates[cell_key(cell)] = got.replicates
        if cell.layer is None:
            single[cell.strategy] = value
        else:
            grid.loc[cell.strategy, column] = value
    judged = resampling is not None and len(replicates) == len(cells)
    return SeparationScores(grid, pd.Series(single, dtype=float), replicates if judged else None,
                            resampling if judged else None, measure)
