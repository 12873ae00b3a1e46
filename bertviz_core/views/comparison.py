"""The Compare sentences page's numbers: the matrix before and after a correction, the random-pair
baseline it is judged against, the ranking against one query, and a pair input beside its parts.

The correction is fitted on one half of a reference corpus (``FIT_ROWS``) and the baseline drawn
from the other (``BASELINE_ROWS``): whitening makes the very texts it was fitted on orthogonal,
which would say nothing about unseen pairs.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd

import bertviz_core.checks as checks
from bertviz_core.model.encoding import Encoding
from bertviz_core.measures.similarity import (
    CORRECTIONS,
    METRICS,
    baseline_band,
    fit_correction,
    random_pair_baseline,
    share_below,
    similarity_matrix,
)

MIN_REFERENCE = 4  # texts: two to fit a correction on, two to draw a random pair from
STORE_BASELINE_ROWS = 300  # stored texts drawn at random for a store's own random-pair baseline, every pair of them
FIT_ROWS = slice(0, None, 2)  # the reference texts a correction is fitted on
BASELINE_ROWS = slice(1, None, 2)  # the reference texts random pairs are drawn from


def rows_code(rows: slice) -> str:
    """A slice as Python source, e.g. ``[::2]``, for the teaching code."""
    if not isinstance(rows, slice):
        raise ValueError(f"rows must be a slice, e.g. slice(0, None, 2); it is {checks.shown(rows)}.")
    parts = ["" if v is None else str(v) for v in (rows.start or None, rows.stop, rows.step)]
    return f"[{parts[0]}:{parts[1]}:{parts[2]}]".replace("::1]", ":]")


@dataclass(frozen=True)
class Comparison:
    """``raw`` and ``corrected`` (n, n) matrices of one metric (equal when the correction is "none"),
    the random-pair ``baseline`` (m,) under the same correction, and its ``band`` (p5, median, p95)."""

    metric: str
    raw: np.ndarray
    corrected: np.ndarray
    baseline: np.ndarray
    band: tuple[float, float, float]


def compare(sentences: np.ndarray, reference: np.ndarray, metric: str, correction: str,
            axes: int | None = None) -> Comparison:
    """Compare (n, d) sentence vectors under ``metric``, raw and after ``correction`` fitted on the
    reference's ``FIT_ROWS``; the baseline comes from its ``BASELINE_ROWS`` (``reference`` is (m, d), m at least
    ``MIN_REFERENCE``; ``axes`` None or a whole number of at least 1)."""
    sentences = checks.numbers(sentences, "sentences", "(n, dim)")
    reference = checks.numbers(reference, "reference", "(m, dim)")
    if len(reference) < MIN_REFERENCE:
        raise ValueError(f"The reference corpus has {len(reference)} text(s); at least {MIN_REFERENCE} are needed: a "
                         "correction is fitted on half of them and random pairs are drawn from the other half.")
    if reference.shape[1] != sentences.shape[1]:
        raise ValueError(f"The sentences have {sentences.shape[1]} dimensions and the reference {reference.shape[1]}: "
                         "embed both with the same model, strategy and layer.")
    checks.choice(metric, "metric", METRICS)
    checks.choice(correction, "correction", CORRECTIONS)
    fix = fit_correction(correction, reference[FIT_ROWS], axes)
    baseline = random_pair_baseline(fix(reference[BASELINE_ROWS]), metric)
    return Comparison(metric, similarity_matrix(sentences, metric), similarity_matrix(fix(sentences), metric),
                      baseline, baseline_band(baseline))


def ranking(comparison: Comparison, query: int, texts: Sequence[str]) -> pd.DataFrame:
    """The other texts against ``query`` on the corrected matrix, most similar first.

    Columns: rank, index (into ``texts``), sentence, the metric's value, and the share of random pairs
    that score below it (higher: stands out more from unrelated pairs).
    """
    checks.instance(comparison, Comparison, "comparison", "compare")
    texts = checks.strings(texts, "texts")
    checks.same_rows(comparison.corrected, texts, "compared sentences", "texts")
    query = checks.whole_number(query, "query", 0, len(texts) - 1)
    others = np.array([i for i in range(len(texts)) if i != query], dtype=int)
    scores = comparison.corrected[query, others]
    order = np.argsort(-scores if METRICS[comparison.metric].similar_high else scores, kind="stable")
    ranked = scores[order]
    return pd.DataFrame({"rank": range(1, len(others) + 1), "index": others[order],
                         "sentence": [texts[i] for i in others[order]], comparison.metric: ranked,
                         "above this share of random pairs": share_below(comparison.baseline, ranked)})


def store_baseline(vectors: np.ndarray, metric: str, rows: int = STORE_BASELINE_ROWS, seed: int = 0) -> np.ndarray:
    """What two unrelated texts of a precomputed store score: ``random_pair_baseline`` of ``rows`` of its column's
    ``vectors`` (stored rows, hidden), drawn at random with ``seed`` (every pair of them, m(m-1)/2 values). Only
    those rows are read, so a memory-mapped column of a million rows costs what one of ``rows`` does."""
    if not hasattr(vectors, "shape") or len(vectors.shape) != 2:
        raise ValueError(f"vectors must be a store's column, (rows, hidden); it is {checks.shown(vectors)}.")
    rows, seed = checks.whole_number(rows, "rows", 2), checks.whole_number(seed, "seed", 0)
    pick = np.sort(np.random.default_rng(seed).permutation(len(vectors))[:rows])  # in order: the disk reads forward
    return random_pair_baseline(np.asarray(vectors[pick]), metric, rows, seed)


def store_baseline_note(baseline: np.ndarray, vectors: str, metric: str) -> str:
    """What a store's random-pair ``baseline`` (``store_baseline``) is, for a caption: how many pairs of which
    ``vectors`` (e.g. "“mean” vectors, layer 6"), and its band (5th percentile, median, 95th)."""
    low, mid, high = baseline_band(baseline)
    drawn = round((1 + np.sqrt(1 + 8 * len(baseline))) / 2)  # m texts give m(m-1)/2 pairs
    return (f"“Above this share of the store's random pairs”: the share of {len(baseline):,} pairs of the store's "
            f"own texts (every pair of {drawn:,} stored texts drawn at random, their {vectors}, by {metric}) "
            f"that score lower. The store's random pairs: 5th percentile {low:.3f}, median {mid:.3f}, 95th "
            f"{high:.3f}.")


def pair_versus_alone(pair: Encoding, alone: Sequence[Encoding]) -> pd.DataFrame:
    """Cosines between the last-layer [CLS] (and pooler output, when the model has one) of a pair input
    [CLS] A [SEP] B [SEP] and of A and B encoded apart: a square frame indexed by the vectors' names."""
    checks.instance(pair, Encoding, "pair", "Encoder.encode([a], [b])[0]")
    alone = checks.items(alone, "alone", "two Encodings, of sentence 1 and of sentence 2")
    if len(alone) != 2 or not all(isinstance(one, Encoding) for one in alone):
        raise ValueError("alone must be the two sentences encoded apart, Encoder.encode([a, b]).")
    rows = {"[CLS] of the pair, last layer": pair.hidden_states[-1, 0],
            "[CLS] of sentence 1 alone": alone[0].hidden_states[-1, 0],
            "[CLS] of sentence 2 alone": alone[1].hidden_states[-1, 0]}
    if pair.pooler is not None:
        rows |= {"pooler output of the pair": pair.pooler, "pooler of sentence 1 alone": alone[0].pooler,
                 "pooler of sentence 2 alone": alone[1].pooler}
    return pd.DataFrame(similarity_matrix(np.stack(list(rows.values()))), index=list(rows), columns=list(rows))
