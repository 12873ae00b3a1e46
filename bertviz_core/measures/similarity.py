"""Similarity between vectors: the metrics registry, matrices, per-layer pair curves, sense scores,
class separation, and the anisotropy corrections with their random-pair baseline."""
from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from itertools import combinations

import numpy as np
import pandas as pd
from sklearn.decomposition import PCA
from sklearn.metrics import roc_auc_score, silhouette_samples
from sklearn.metrics.pairwise import cosine_distances, cosine_similarity, euclidean_distances
from sklearn.utils import check_random_state

import bertviz_core.checks as checks
import bertviz_core.measures.uncertainty as uncertainty
from bertviz_core.measures.uncertainty import Verdict

@dataclass(frozen=True)
class Metric:
    """``between`` maps rows (n, d) and (m, d) to an (n, m) matrix; ``similar_high`` is False for distances;
    ``code_template`` is the same for the teaching panel, on numpy arrays named {a} and {b} (scikit-learn's
    pairwise functions imported)."""

    between: Callable[[np.ndarray, np.ndarray], np.ndarray]
    similar_high: bool
    note: str
    code_template: str

    def fn(self, vectors: np.ndarray) -> np.ndarray:
        """The (n, n) matrix between the rows of ``vectors``."""
        return self.between(vectors, vectors)

    def code_between(self, a: str, b: str) -> str:
        """Teaching code for the (len(a), len(b)) matrix between the arrays named ``a`` and ``b``."""
        return self.code_template.format(a=a, b=b)

    @property
    def code(self) -> str:
        """Teaching code for the (n, n) matrix of an array named ``vectors``."""
        return self.code_between("vectors", "vectors")


METRICS: dict[str, Metric] = {
    "cosine": Metric(cosine_similarity, True, "angle only: 1 same direction, 0 orthogonal",
                     "cosine_similarity({a}, {b})"),
    "dot product": Metric(lambda x, y: x @ y.T, True, "angle and length together", "{a} @ {b}.T"),
    "euclidean distance": Metric(euclidean_distances, False, "0 = identical; lower is more similar",
                                 "euclidean_distances({a}, {b})"),
}
METRIC_IMPORTS = "from sklearn.metrics.pairwise import cosine_similarity, euclidean_distances"


def similarity_matrix(vectors: np.ndarray, metric: str = "cosine") -> np.ndarray:
    """(n, n) matrix of ``metric`` between the rows of (n, dim) ``vectors``, in float64."""
    metric = checks.choice(metric, "metric", METRICS)
    return METRICS[metric].fn(np.asarray(checks.numbers(vectors, "vectors", "(n, dim)"), dtype=np.float64))


def pair_layer_curves(per_layer: np.ndarray, names: Sequence[str]) -> pd.DataFrame:
    """Cosine of every pair at every layer from (n, layers+1, hidden): long frame pair, i, j, layer, cosine."""
    per_layer = checks.numbers(per_layer, "per_layer", "(n, layers+1, hidden)")
    names = checks.strings(names, "names")
    checks.same_rows(per_layer, names, "vectors", "names")
    rows = []
    for layer in range(per_layer.shape[1]):
        sims = similarity_matrix(per_layer[:, layer])
        rows += [{"pair": f"{names[i]} ↔ {names[j]}", "i": i, "j": j, "layer": layer, "cosine": sims[i, j]}
                 for i, j in combinations(range(len(names)), 2)]
    return pd.DataFrame(rows, columns=["pair", "i", "j", "layer", "cosine"])


def sense_scores(vectors: np.ndarray, senses: Sequence[str]) -> dict[str, float]:
    """How well cosine separates same-sense from different-sense pairs, for (n, dim) vectors.

    gap = mean same-sense cosine - mean different-sense cosine; auc = ROC AUC of same-sense
    pairs over different-sense pairs (scikit-learn). Both NaN when a kind of pair is missing.
    """
    sims = similarity_matrix(vectors)
    senses = checks.labels(senses, "senses", count=len(sims))
    pairs = list(combinations(range(len(senses)), 2))
    same = np.array([senses[i] == senses[j] for i, j in pairs])
    values = np.array([sims[i, j] for i, j in pairs])
    if not same.any() or same.all():
        return {"gap": float("nan"), "auc": float("nan")}
    return {"gap": float(values[same].mean() - values[~same].mean()),
            "auc": float(roc_auc_score(same.astype(int), values))}


UNKNOWN_SENSE = "?"  # an occurrence nobody labelled: left out of every sense score


def same_sense_pairs(senses: Sequence[str]) -> dict[tuple[int, int], bool | None]:
    """For every pair (i < j) of occurrences: True for one sense, False for two, None when one is unknown."""
    senses = checks.labels(senses, "senses")
    return {(i, j): None if UNKNOWN_SENSE in (senses[i], senses[j]) else senses[i] == senses[j]
            for i, j in combinations(range(len(senses)), 2)}


def score_grid(per_layer_by_rule: dict[str, np.ndarray], strategies: dict[str, Callable], senses: Sequence[str],
               score: str = "auc") -> pd.DataFrame | None:
    """``score`` for every subword rule (rows) x word-vector strategy (columns), over the labelled occurrences.

    ``per_layer_by_rule`` maps a rule name to its (n, layers+1, hidden) occurrence vectors; occurrences
    whose sense is ``UNKNOWN_SENSE`` are left out. None when fewer than two senses are labelled; a cell is NaN
    when no sense has two labelled occurrences (no same-sense pair, see ``sense_scores``).
    """
    score, senses = checks.choice(score, "score", ("auc", "gap")), checks.labels(senses, "senses")
    checks.instance(per_layer_by_rule, dict, "per_layer_by_rule", "{rule: occurrence vectors}")
    for rule, vectors in per_layer_by_rule.items():
        checks.same_rows(checks.numbers(vectors, f"the {rule} vectors", "(n, layers+1, hidden)", min_rows=0), senses,
                         f"{rule} vectors", "senses")
    known = np.array([s != UNKNOWN_SENSE for s in senses], dtype=bool)
    labelled = [s for s in senses if s != UNKNOWN_SENSE]
    if len(set(labelled)) < 2:
        return None
    return pd.DataFrame(
        {name: [sense_scores(fn(v[known]), labelled)[score] for v in per_layer_by_rule.values()]
         for name, fn in strategies.items()},
        index=list(per_layer_by_rule),
    )



def sense_verdict(per_layer_by_rule: dict[str, np.ndarray], strategies: dict[str, Callable], senses: Sequence[str],
                  score: str = "auc") -> Verdict | None:
    """Which cells of ``score_grid`` (same arguments) are on top, judged on ``uncertainty.RESAMPLES`` bootstrap
    resamples of the labelled occurrences (the same resamples for every cell, so cells are paired; a pair counts
    as often as both its occurrences are drawn). None when ``score_grid`` is None or every cell is NaN."""
    grid = score_grid(per_layer_by_rule, strategies, senses, score)
    if grid is None:
        return None
    labelled = [s for s in senses if s != UNKNOWN_SENSE]
    known = np.array([s != UNKNOWN_SENSE for s in senses], dtype=bool)
    first, second = np.triu_indices(len(labelled), k=1)
    same = np.asarray(labelled, dtype=object)[first] == np.asarray(labelled, dtype=object)[second]
    chance, wording = SENSE_CHANCE[score]
    resampling = uncertainty.bootstrap(len(labelled), "labelled occurrences", chance, wording)
    replicates = {}
    for rule, vectors in per_layer_by_rule.items():
        for name, fn in strategies.items():
            sims = similarity_matrix(fn(np.asarray(vectors)[known]))[first, second]
            replicates[(str(rule), str(name))] = uncertainty.pair_replicates(sims, same, first, second,
                                                                             resampling.indices(), score)
    measure = f"{score} ({len(first):,} pairs)"
    return uncertainty.judge(grid, replicates, resampling, measure,
                             lambda cell: f"{cell[1]}, pieces merged by {cell[0]}")

SILHOUETTE_SAMPLE = 2000  # texts; larger corpora are scored on a fixed random sample


def unscorable(labels: Sequence[str]) -> str | None:
    """Why the labels cannot be scored for separation ("one class", "no shared class"), or None when they can."""
    labels = checks.labels(labels)
    classes = len(set(labels))
    return "one class" if classes < 2 else "no shared class" if classes >= len(labels) else None


def separation(vectors: np.ndarray, labels: Sequence[str]) -> float:
    """Silhouette of the labels on the full-dimensional (n, dim) vectors, cosine metric (scikit-learn).

    From -1 to 1; higher means the classes form tighter, better separated groups. NaN when
    ``unscorable(labels)``: fewer than two classes, or every text its own class.
    """
    per_text = silhouette_per_text(vectors, labels)
    return float("nan") if per_text is None else float(per_text.mean())


def silhouette_per_text(vectors: np.ndarray, labels: Sequence[str]) -> np.ndarray | None:
    """Each text's silhouette (scikit-learn's ``silhouette_samples`` on one precomputed cosine-distance matrix),
    over a fixed random sample of ``SILHOUETTE_SAMPLE`` texts (``silhouette_score``'s, random_state=0) when there
    are more; their mean is ``separation``. None when ``unscorable(labels)``."""
    vectors = checks.numbers(vectors, "vectors", "(n, dim)")
    labels = checks.labels(labels, count=len(vectors))
    if unscorable(labels):
        return None
    labels = np.asarray(labels)
    vectors = np.asarray(vectors, dtype=np.float64)
    if len(labels) > SILHOUETTE_SAMPLE:
        pick = check_random_state(0).permutation(len(labels))[:SILHOUETTE_SAMPLE]
        vectors, labels = vectors[pick], labels[pick]
        if unscorable(list(labels)):
            return None
    return silhouette_samples(cosine_distances(vectors), labels, metric="precomputed")


SENSE_CHANCE = {"auc": (0.5, "an AUC of 0.5, cosine no better than a coin at telling same-sense pairs"),
                "gap": (0.0, "a gap of 0, same-sense pairs no closer than different-sense ones")}


def top_positions(top: Verdict | None, scores: pd.DataFrame) -> list[tuple[int, int]]:
    """(row, column) positions in ``scores`` of the verdict's cells that it holds, to box in a heatmap."""
    return [(scores.index.get_loc(row), scores.columns.get_loc(col)) for row, col in (top.cells if top else [])
            if row in scores.index and col in scores.columns]


# ---- anisotropy: post-processing fitted on a reference corpus ---------------------------------

def _fit_nothing(corpus: np.ndarray, axes: int | None) -> Callable[[np.ndarray], np.ndarray]:
    return lambda x: np.asarray(x, dtype=np.float64)


def _fit_centering(corpus: np.ndarray, axes: int | None) -> Callable[[np.ndarray], np.ndarray]:
    mean = np.asarray(corpus, dtype=np.float64).mean(axis=0)
    return lambda x: np.asarray(x, dtype=np.float64) - mean


def _fit_whitening(corpus: np.ndarray, axes: int | None) -> Callable[[np.ndarray], np.ndarray]:
    corpus = np.asarray(corpus, dtype=np.float64)
    rank = min(corpus.shape[0] - 1, corpus.shape[1])  # a covariance of n vectors has rank at most n-1
    pca = PCA(n_components=min(axes or rank, rank), whiten=True, svd_solver="full").fit(corpus)
    return lambda x: pca.transform(np.asarray(x, dtype=np.float64))


@dataclass(frozen=True)
class Correction:
    """A correction for anisotropy: ``fit(corpus (n, d), axes)`` returns a transform (m, d) -> (m, d or axes);
    ``code(reference, names, axes)`` is the plain numpy / scikit-learn code that fits it on the array named
    ``reference`` and applies it to each array in ``names``, with ``axes`` (a Python expression) kept when it
    keeps axes; "" for a correction that changes nothing."""

    fit: Callable[[np.ndarray, int | None], Callable[[np.ndarray], np.ndarray]]
    code: Callable[[str, tuple[str, ...], str], str]


def _whitening_code(reference: str, names: tuple[str, ...], axes: str) -> str:
    return ("from sklearn.decomposition import PCA\n"
            f"whiten = PCA(n_components={axes}, whiten=True, svd_solver='full').fit({reference})\n"
            + "".join(f"{name} = whiten.transform({name})\n" for name in names))


CORRECTIONS: dict[str, Correction] = {
    "none": Correction(_fit_nothing, lambda reference, names, axes: ""),
    # subtract the corpus mean vector
    "mean-centering": Correction(_fit_centering, lambda reference, names, axes: "".join(
        f"{name} = {name} - {reference}.mean(0)\n" for name in names)),
    # (x - mean) rotated onto the top principal axes, each scaled to unit variance
    "whitening": Correction(_fit_whitening, _whitening_code),
}


def fit_correction(name: str, corpus: np.ndarray, axes: int | None = None) -> Callable[[np.ndarray], np.ndarray]:
    """Fit a correction on (n, d) reference vectors; ``axes`` keeps that many top axes when whitening (None: all,
    else a whole number of at least 1)."""
    name = checks.choice(name, "correction", CORRECTIONS)
    corpus = checks.numbers(corpus, "The reference corpus", "(n, dim)", min_rows=0)
    axes = None if axes is None else checks.whole_number(axes, "axes", 1)
    if name != "none" and len(corpus) < 2:
        raise ValueError("A correction needs a reference corpus of at least two texts.")
    return CORRECTIONS[name].fit(corpus, axes)


def random_pair_baseline(vectors: np.ndarray, metric: str = "cosine", rows: int = 300, seed: int = 0) -> np.ndarray:
    """``metric`` between every pair of up to ``rows`` randomly chosen rows of (n, d) vectors.

    What unrelated texts of the corpus score: a flat array of m(m-1)/2 values. ``ValueError`` for fewer than
    two rows (no pair).
    """
    vectors = checks.numbers(vectors, "vectors", "(n, dim)", min_rows=2)
    rows, seed = checks.whole_number(rows, "rows", 2), checks.whole_number(seed, "seed", 0)
    pick = np.random.default_rng(seed).permutation(len(vectors))[:rows]
    matrix = similarity_matrix(np.asarray(vectors)[pick], metric)
    return matrix[np.triu_indices(len(pick), k=1)]


def baseline_band(baseline: np.ndarray) -> tuple[float, float, float]:
    """5th percentile, median and 95th percentile of a random-pair baseline."""
    low, mid, high = np.percentile(checks.numbers(baseline, "The baseline", "(pairs,)"), [5, 50, 95])
    return float(low), float(mid), float(high)


def share_below(baseline: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """For each score, the share of baseline values below it: (m,) in [0, 1]."""
    baseline = checks.numbers(baseline, "The baseline", "(pairs,)")
    return np.searchsorted(np.sort(baseline), checks.numbers(scores, "scores", "(m,)", min_rows=0)) / len(baseline)
