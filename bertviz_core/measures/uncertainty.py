"""How sure a verdict is: every cell of a score table carries paired replicates (the same folds, or the same
bootstrap resamples, for every cell), and the best cell is named only when, against every other cell, the 95 %
interval of the paired difference lies above 0. Otherwise the verdict is "no clear best on N texts", with the
cells within the noise of the top. Each verdict says its count, its method, the best's interval and chance.

Folds: a t interval of the fold scores (or of the fold differences), its variance widened for the overlap of
the training folds (Nadeau & Bengio's corrected resampled t: 1/k + 1/(k-1) in place of 1/k). Bootstraps: the percentile interval of
``RESAMPLES`` resamples drawn with ``numpy.random.default_rng(SEED)``, so results are reproducible.
"""
from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from functools import lru_cache

import numpy as np
import pandas as pd
from scipy.stats import rankdata
from scipy.stats import t as student_t

RESAMPLES = 1000
SEED = 0
LEVEL = 0.95
SHOWN_CELLS = 6  # tied cells named in a sentence; the rest are counted
ROUNDING = 1e-6  # a paired difference whose interval lies below this is float rounding (float32 vectors), not a lead


@dataclass(frozen=True)
class Verdict:
    """The top of a score table, judged on paired replicates (``judge``): ``cells`` the best (one) or every cell
    not clearly below the top (a tie), ``value`` the top score, ``lead`` how far it is ahead of the best cell
    outside ``cells`` (NaN when none is), ``clear`` (the best is ahead of every other cell beyond the noise), ``n``
    (texts, pairs or occurrences), ``unit``, ``method`` ("5 folds", "1,000 bootstrap resamples of the pairs"),
    ``interval`` (the top cell's 95 % interval), ``chance`` and its wording, and ``sentence``: what a page shows
    (its count "a sample of 2,000 of 2,737 texts" when the ``n`` were drawn from more)."""

    cells: list[tuple[str, str]]
    value: float
    lead: float
    clear: bool
    n: int
    unit: str
    method: str
    interval: tuple[float, float]
    chance: float
    chance_wording: str
    sentence: str = ""

    @property
    def tie(self) -> bool:
        return len(self.cells) > 1

    @property
    def above_chance(self) -> bool:
        """Whether the top's interval lies above chance."""
        return bool(self.interval[0] > self.chance)


@dataclass(frozen=True)
class Resampling:
    """How a grid's replicates were made: ``kind`` "folds" or "bootstrap", over ``n`` ``unit`` (texts, pairs,
    labelled occurrences); ``method`` in words; ``chance`` the score of no information, and its wording;
    ``drawn_from`` the items the ``n`` are a sample of, when they are one (None: every item)."""

    kind: str
    n: int
    unit: str
    method: str
    chance: float
    chance_wording: str
    resamples: int = RESAMPLES
    seed: int = SEED
    limits: tuple[float, float] = (-np.inf, np.inf)  # the range a score can take; a t interval is cut to it
    drawn_from: int | None = None

    @property
    def count(self) -> str:
        """The items scored as a verdict says them: "160 texts", or "a sample of 2,000 of 2,737 texts"."""
        some = f"a sample of {self.n:,} of {self.drawn_from:,}" if self.drawn_from is not None else f"{self.n:,}"
        return f"{some} {self.unit}"

    def indices(self) -> np.ndarray:
        """(resamples, n) row indices drawn with replacement: the same for every cell, so cells are paired."""
        return bootstrap_indices(self.n, self.resamples, self.seed)


@dataclass(frozen=True)
class Scored:
    """A cell's point score and its (R,) replicates (fold scores or bootstrap statistics); a score that is not
    defined is NaN, with ``undefined`` saying why in words ("" for a score)."""

    value: float
    replicates: np.ndarray = field(default_factory=lambda: np.full(1, np.nan))
    undefined: str = ""


@lru_cache(maxsize=16)
def _indices(n: int, resamples: int, seed: int) -> np.ndarray:
    drawn = np.random.default_rng(seed).integers(0, n, size=(resamples, n))
    drawn.setflags(write=False)
    return drawn


def bootstrap_indices(n: int, resamples: int = RESAMPLES, seed: int = SEED) -> np.ndarray:
    """(resamples, n) indices into n items, drawn with replacement, seeded (read-only, cached)."""
    if n < 1 or resamples < 1:
        raise ValueError(f"A bootstrap needs at least one item and one resample; got {n} and {resamples}.")
    return _indices(int(n), int(resamples), int(seed))


def bootstrap(n: int, unit: str, chance: float, chance_wording: str, drawn_from: int | None = None) -> Resampling:
    """A bootstrap over ``n`` ``unit`` (a sample of ``drawn_from`` when given) with ``RESAMPLES`` resamples."""
    return Resampling("bootstrap", n, unit, f"{RESAMPLES:,} bootstrap resamples of the {unit}", chance, chance_wording,
                      drawn_from=drawn_from)


def folds(n: int, count: int, unit: str, chance: float, chance_wording: str) -> Resampling:
    """Cross-validation over ``n`` ``unit`` in ``count`` folds (the same folds for every cell). Fold scores are
    shares (accuracy, macro-F1), so the top's interval is cut to 0..1: a t interval of scores near 1 reaches past."""
    return Resampling("folds", n, unit, f"{count} folds", chance, chance_wording, limits=(0.0, 1.0))


def interval(replicates: np.ndarray, kind: str) -> tuple[float, float]:
    """The 95 % interval of replicates: a corrected t interval of their mean for folds, the percentile interval for a
    bootstrap; NaN replicates are ignored, (NaN, NaN) when fewer than two remain."""
    values = np.asarray(replicates, dtype=np.float64)
    values = values[~np.isnan(values)]
    if len(values) < 2:
        return float("nan"), float("nan")
    if kind == "folds":  # k folds train on (k-1)/k of the texts each, so they overlap: Nadeau & Bengio's correction
        k = len(values)
        half = student_t.ppf(0.5 + LEVEL / 2, k - 1) * values.std(ddof=1) * np.sqrt(1 / k + 1 / (k - 1))
        return float(values.mean() - half), float(values.mean() + half)
    low, high = np.percentile(values, [50 * (1 - LEVEL), 50 * (1 + LEVEL)])
    return float(low), float(high)


def cell_name(cell: tuple[str, str]) -> str:
    """How a (row, column) cell of a strategy × layer grid is named in a sentence."""
    row, col = cell
    return f"{row} (one vector)" if col == "one vector" else f"{row} at {col}"


def _names(cells: list[tuple[str, str]], name: Callable[[tuple[str, str]], str]) -> str:
    shown = ", ".join(map(name, cells[:SHOWN_CELLS]))
    return shown + (f" and {len(cells) - SHOWN_CELLS} more" if len(cells) > SHOWN_CELLS else "")


def judge(scores: pd.DataFrame, replicates: Mapping[tuple[str, str], np.ndarray], resampling: Resampling,
          measure: str, name: Callable[[tuple[str, str]], str] = cell_name) -> Verdict | None:
    """The verdict on ``scores`` (rows x columns, NaN ignored) from each cell's paired ``replicates``, keyed by
    (str(row), str(column)). The top is the highest score; it is the clear best when, for every other cell, the
    95 % interval of (top - other) over the paired replicates lies above 0 (above ``ROUNDING``: cells that must
    score the same, e.g. a strategy and a per-text multiple of it, differ by float rounding); otherwise the tied
    cells are the top and every cell not clearly below it. None when there is no score."""
    values = scores.to_numpy(dtype=float)
    if values.size == 0 or np.isnan(values).all():
        return None
    positions = np.argwhere(~np.isnan(values))
    keys = [(str(scores.index[r]), str(scores.columns[c])) for r, c in positions]
    points = {key: float(values[r, c]) for key, (r, c) in zip(keys, positions)}
    top = max(keys, key=lambda key: points[key])  # the first of equal tops, in reading order
    reps = {key: np.asarray(replicates.get(key, np.full(1, np.nan)), dtype=np.float64) for key in keys}
    tied = [top] + sorted((key for key in keys if key != top and
                           not interval(reps[top] - reps[key], resampling.kind)[0] > ROUNDING),
                          key=lambda k: -points[k])
    rest = [points[key] for key in keys if key not in tied]
    lead = points[top] - max(rest) if rest else float("nan")
    low, high = np.clip(interval(reps[top], resampling.kind), *resampling.limits).tolist()
    chance = resampling.chance
    verdict = Verdict(tied, points[top], float(lead), len(tied) == 1, resampling.n, resampling.unit,
                      resampling.method, (low, high), chance, resampling.chance_wording)
    count = resampling.count
    where = f"{points[top]:.3f} (95% interval {low:.3f} to {high:.3f}, {resampling.method})"
    if verdict.clear:
        behind = f"; the next cell is {lead:.3f} behind" if rest else ""
        sentence = (f"Best {measure} on {count}: **{name(top)}**, {where}; every other cell is below it beyond the "
                    f"noise{behind}.")
    else:
        sentence = (f"No clear best on {count} ({measure}): {len(tied)} cells are within the noise of the top "
                    f"({_names(tied, name)}). The top, {name(top)}, scores {where}; more {resampling.unit} would be "
                    "needed to tell them apart.")
    sentence += f" Chance: {resampling.chance_wording}."
    if not low > chance:
        sentence += " Even the top is not clearly above chance."
    return Verdict(**{**verdict.__dict__, "sentence": sentence})


def outside_tie(scores: pd.DataFrame, verdict: Verdict | None,
                name: Callable[[tuple[str, str]], str] = cell_name) -> str:
    """Why a cell of ``scores`` (as ``judge`` took them) that scores at least as high as a cell of the verdict's tie
    is outside it, as one sentence naming the highest such cell; "" when there is none or no tie."""
    if verdict is None or not verdict.tie:
        return ""
    points = {(str(row), str(column)): float(value) for row, values in scores.iterrows()
              for column, value in values.items() if not np.isnan(value)}
    lowest = min(verdict.cells, key=points.__getitem__)
    higher = [key for key in points if key not in verdict.cells and points[key] >= points[lowest]]
    if not higher:
        return ""
    above = max(higher, key=points.__getitem__)
    return (f"{name(above)} ({points[above]:.2f}) is outside the tie though {name(lowest)} ({points[lowest]:.2f}) is "
            "in it: a cell ties with the top when the 95 % interval of its paired difference from the top, over the "
            "same resamples, reaches 0, not when the two cells' own intervals overlap, and a cell that rises and falls "
            "with the top trails it by a steadier margin.")


# ---- replicates of the statistics, vectorised over the resamples ---------------------------------------

def mean_replicates(per_item: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """(R,) means of ``per_item`` (n,) over each resample's (n,) indices."""
    return np.asarray(per_item, dtype=np.float64)[indices].mean(axis=1)


def spearman_replicates(x: np.ndarray, gold: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """(R,) Spearman correlations of ``x`` with ``gold`` (both (n,)) over each resample of the pairs; NaN
    where a resample has no order in one of them."""
    rx = rankdata(np.asarray(x, dtype=np.float64)[indices], axis=1)
    rg = rankdata(np.asarray(gold, dtype=np.float64)[indices], axis=1)
    rx -= rx.mean(axis=1, keepdims=True)
    rg -= rg.mean(axis=1, keepdims=True)
    denominator = np.sqrt((rx * rx).sum(axis=1) * (rg * rg).sum(axis=1))
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(denominator > 0, (rx * rg).sum(axis=1) / np.where(denominator > 0, denominator, 1), np.nan)


def pair_replicates(values: np.ndarray, same: np.ndarray, first: np.ndarray, second: np.ndarray,
                    indices: np.ndarray, score: str) -> np.ndarray:
    """(R,) sense scores over resamples of the occurrences: pair p of occurrences (first[p], second[p]) with cosine
    values[p] counts (times drawn of the one) x (times drawn of the other) in a resample. ``score`` "auc" (ROC AUC
    of same-sense over different-sense pairs, ties half) or "gap" (mean same - mean different cosine)."""
    resamples, n = indices.shape
    counts = np.bincount((indices + n * np.arange(resamples)[:, None]).ravel(), minlength=resamples * n)
    counts = counts.reshape(resamples, n).astype(np.float64)
    weights = counts[:, first] * counts[:, second]  # (R, pairs)
    values, same = np.asarray(values, dtype=np.float64), np.asarray(same, dtype=bool)
    w_same, w_diff = weights[:, same], weights[:, ~same]
    total_same, total_diff = w_same.sum(axis=1), w_diff.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        if score == "gap":
            return w_same @ values[same] / total_same - w_diff @ values[~same] / total_diff
        unique, group = np.unique(values, return_inverse=True)
        rows = np.arange(resamples)[:, None] * len(unique)
        diff_per_value = np.bincount((rows + group[~same]).ravel(), weights=w_diff.ravel(),
                                     minlength=resamples * len(unique)).reshape(resamples, len(unique))
        below = np.cumsum(diff_per_value, axis=1) - diff_per_value / 2  # strictly below, and ties as half
        wins = (w_same * np.take_along_axis(below, np.broadcast_to(group[same], w_same.shape), axis=1)).sum(axis=1)
        return wins / (total_same * total_diff)
