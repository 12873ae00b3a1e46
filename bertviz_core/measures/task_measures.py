"""Which layer and which pooling for a task, measured: a linear classification probe on labelled texts,
and the Spearman correlation of cosines with gold scores on sentence pairs (as STS benchmarks score
sentence embeddings).

The probe's protocol is fixed and stated where it is shown (``PROBE_PROTOCOL``): scikit-learn's
``LogisticRegression(max_iter=1000)`` on standardised vectors (the scaler fitted inside each training
fold, so no test text informs it), scored by ``StratifiedKFold(5, shuffle=True, random_state=0)``.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import spearmanr
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler
from threadpoolctl import threadpool_limits

import bertviz_core.checks as checks
import bertviz_core.measures.uncertainty as uncertainty
from bertviz_core.measures.pooling_grid import Cell, SeparationScores, cell_vectors, scores_over
from bertviz_core.measures.projection import identical
from bertviz_core.measures.similarity import CORRECTIONS, fit_correction
from bertviz_core.measures.uncertainty import Resampling, Scored, Verdict

DEFAULT_STRATEGIES = ("mean", "cls", "max")  # the cells the Task measures page shows first, at every layer
PROBE_FOLDS = 5
MIN_PAIRS = 5  # a rank correlation of fewer pairs says little
SPEARMAN_CHANCE = "a Spearman ρ of 0, no relation between the cosines' order and the gold scores"
NO_ORDER = ("every pair's cosine is the same here (as when every text has one vector: [CLS] before any layer), so "
            "there is no order to correlate with the gold scores")
# Whitening keeps this share of axes per distinct sentence it is fitted on. Whitening n sentences on all n - 1
# axes turns them into a regular simplex, where every cosine is the same; on the built-in pairs that sends
# Spearman's rho from 0.88 to 0.14 (mean pooling, last layer), while a quarter keeps what whitening is for.
WHITEN_AXES_SHARE = 0.25
PROBE_PROTOCOL = ("LogisticRegression(max_iter=1000) on standardised vectors (StandardScaler fitted on each training "
                  "fold), StratifiedKFold(5, shuffle=True, random_state=0); accuracy and macro-F1 averaged over the folds")
PROBE_CODE = ("from sklearn.linear_model import LogisticRegression\n"
              "from sklearn.model_selection import StratifiedKFold, cross_validate\n"
              "from sklearn.pipeline import make_pipeline\n"
              "from sklearn.preprocessing import StandardScaler\n")


@dataclass(frozen=True)
class ProbePlan:
    """How labels can be probed: ``keep`` (n,) marks the texts used (classes of one text are left out: a
    class must be both trained on and tested), ``folds`` the number of folds (5, or the smallest class
    size when that is below 5), and ``notes`` saying what was changed."""

    keep: np.ndarray
    folds: int
    notes: tuple[str, ...]


def probe_plan(labels: Sequence[str]) -> ProbePlan:
    """The plan for ``labels`` (strings or whole numbers, 3 read as "3"); ``ValueError`` when fewer than two
    classes have two texts each."""
    labels = checks.labels(labels)
    counts = Counter(labels)
    single = sorted(label for label, n in counts.items() if n < 2)
    kept = {label: n for label, n in counts.items() if n >= 2}
    if len(kept) < 2:
        raise ValueError("A probe needs at least two classes with two texts or more each"
                         + (": every class here has a single text." if len(single) == len(counts) else
                            f"; this corpus has {len(kept)}.") + " Add texts, or choose another label column.")
    notes = []
    if single:
        notes.append(f"{len(single)} class(es) with a single text are left out of the probe "
                     f"({', '.join(single[:5])}{', …' if len(single) > 5 else ''}).")
    folds = min(PROBE_FOLDS, min(kept.values()))
    if folds < PROBE_FOLDS:
        notes.append(f"The smallest class has {folds} texts, so the probe uses {folds} folds instead of "
                     f"{PROBE_FOLDS} (each fold must hold one text of every class).")
    keep = np.array([label in kept for label in labels])
    return ProbePlan(keep, folds, tuple(notes))


@dataclass(frozen=True)
class ProbeScore:
    """Cross-validated accuracy and macro-F1 of the stated probe, means over ``folds`` folds, and each fold's
    (the same ``StratifiedKFold`` for every cell of a corpus, so two cells' fold scores are paired)."""

    accuracy: float
    macro_f1: float
    folds: int
    fold_accuracy: tuple[float, ...] = ()
    fold_f1: tuple[float, ...] = ()

    def scored(self, measure: str = "accuracy") -> Scored:
        """The mean with its fold scores as replicates; ``measure`` "accuracy" or "macro-F1"."""
        folds = self.fold_accuracy if measure == "accuracy" else self.fold_f1
        return Scored(self.accuracy if measure == "accuracy" else self.macro_f1,
                      np.asarray(folds, dtype=np.float64) if folds else np.full(1, np.nan))


def probe(vectors: np.ndarray, labels: Sequence[str], plan: ProbePlan | None = None) -> ProbeScore:
    """The probe on (n, dim) ``vectors`` with their ``labels`` (see ``PROBE_PROTOCOL``); ``plan``, when given, is
    ``probe_plan(labels)``."""
    vectors = checks.numbers(vectors, "vectors", "(n, dim)")
    labels = checks.labels(labels, count=len(vectors))
    plan = probe_plan(labels) if plan is None else checks.instance(plan, ProbePlan, "plan", "probe_plan(labels)")
    if len(plan.keep) != len(labels):
        raise ValueError(f"The plan is for {len(plan.keep)} labels, not these {len(labels)}: make it with "
                         "probe_plan(labels).")
    x, y = np.asarray(vectors, dtype=np.float64)[plan.keep], np.asarray(labels, dtype=object)[plan.keep]
    # One BLAS thread: a probe's matrices are small, and two threads a fit spin against each other on a busy 2-core
    # machine (a cell of 2,000 texts took 14 s instead of 1.7 s). The numbers are the same to the last bit.
    with threadpool_limits(1, user_api="blas"):
        scores = cross_validate(make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000)), x, y,
                                cv=StratifiedKFold(plan.folds, shuffle=True, random_state=0),
                                scoring=("accuracy", "f1_macro"))
    return ProbeScore(float(scores["test_accuracy"].mean()), float(scores["test_f1_macro"].mean()), plan.folds,
                      tuple(map(float, scores["test_accuracy"])), tuple(map(float, scores["test_f1_macro"])))


def probe_chance(labels: Sequence[str], plan: ProbePlan, measure: str = "accuracy") -> tuple[float, str]:
    """What a probe that always answers the most frequent kept class scores (``measure`` "accuracy" or
    "macro-F1"), and that in words."""
    kept = [label for label, keep in zip(checks.labels(labels), plan.keep) if keep]
    counts = Counter(kept)
    share = max(counts.values()) / len(kept)
    if measure == "accuracy":
        return share, f"{share:.3f}, the majority-class rate (always answering the most frequent class)"
    f1 = 2 * share / (1 + share) / len(counts)  # F1 of the majority class; 0 for every other class
    return f1, f"{f1:.3f}, the macro-F1 of always answering the most frequent class"


def probe_grid(cells: Sequence[Cell], probed: Mapping[Cell, ProbeScore], labels: Sequence[str], plan: ProbePlan,
               measure: str = "accuracy") -> SeparationScores:
    """The probe's ``measure`` ("accuracy" or "macro-F1") of every cell, its verdict judged on the folds: the
    best is clear only when a t interval of its fold-by-fold lead over every other cell lies above 0."""
    measure = checks.choice(measure, "measure", ("accuracy", "macro-F1"))
    chance, wording = probe_chance(labels, plan, measure)
    resampling = uncertainty.folds(int(plan.keep.sum()), plan.folds, "texts", chance, wording)
    return scores_over(cells, lambda cell: probed[cell].scored(measure), resampling,
                       f"probe {measure}")


def probe_code(vectors_code: str, folds: int) -> str:
    """Teaching code that scores the probe on ``vectors_code`` (an (n, dim) array) and ``labels``."""
    return (PROBE_CODE + f"probe = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))\n"
            f"scores = cross_validate(probe, {vectors_code}, labels, scoring=('accuracy', 'f1_macro'),\n"
            f"                        cv=StratifiedKFold({folds}, shuffle=True, random_state=0))\n"
            "accuracy, macro_f1 = scores['test_accuracy'].mean(), scores['test_f1_macro'].mean()\n")


# ---- similarity correlation on scored pairs ---------------------------------------------------------

def check_pairs(frame: pd.DataFrame) -> pd.DataFrame:
    """Sentence pairs with a gold score: columns sentence1, sentence2 (text) and score (float), empty rows
    dropped; ``ValueError`` saying what to change otherwise."""
    checks.frame(frame, "The pairs")
    missing = [c for c in ("sentence1", "sentence2", "score") if c not in frame.columns]
    if missing:
        raise ValueError(f"The pairs file needs the columns sentence1, sentence2 and score; it has "
                         f"{', '.join(map(str, frame.columns))}.")
    pairs = frame[["sentence1", "sentence2", "score"]].copy()
    pairs[["sentence1", "sentence2"]] = pairs[["sentence1", "sentence2"]].astype(str).apply(lambda c: c.str.strip())
    pairs = pairs[(pairs["sentence1"] != "") & (pairs["sentence2"] != "")]
    scores = pd.to_numeric(pairs["score"], errors="coerce")
    bad = ~np.isfinite(scores.to_numpy(dtype=float))
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(f"The score of pair {row + 1} is “{pairs['score'].iloc[row]}”, not a number. Every pair "
                         "needs a numeric gold score (e.g. 0 to 5).")
    if len(pairs) < MIN_PAIRS:
        raise ValueError(f"The file has {len(pairs)} pair(s); a rank correlation needs at least {MIN_PAIRS}.")
    if scores.nunique() < 2:
        raise ValueError(f"Every pair has the same score ({scores.iloc[0]:g}), so there is no order to correlate "
                         "with. The scores must differ.")
    return pairs.assign(score=scores.astype(float)).reset_index(drop=True)


def pair_cosines(first: np.ndarray, second: np.ndarray) -> np.ndarray:
    """Cosine of each pair: row i of ``first`` with row i of ``second``, both (n, dim); (n,)."""
    a, b = (np.asarray(checks.numbers(v, name, "(n, dim)", min_rows=0), dtype=np.float64)
            for v, name in ((first, "first"), (second, "second")))
    if a.shape != b.shape:
        raise ValueError(f"first and second must be the pairs' two sides, of the same shape; they are {a.shape} and "
                         f"{b.shape}.")
    norms = np.maximum(np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1), 1e-12)
    return (a * b).sum(1) / norms


def whitening_axes(sentences: int) -> int:
    """How many axes whitening keeps when fitted on ``sentences`` sentences (at least 1) and applied to them."""
    return max(1, int(checks.whole_number(sentences, "sentences", 1) * WHITEN_AXES_SHARE))


def distinct_rows(sentences: Sequence[str]) -> list[int]:
    """The index of each distinct sentence's first occurrence in ``sentences``."""
    first_seen: dict[str, int] = {}
    for i, sentence in enumerate(checks.strings(sentences, "sentences")):
        first_seen.setdefault(sentence, i)
    return list(first_seen.values())


def correlation(first: np.ndarray, second: np.ndarray, gold: Sequence[float], correction: str = "none",
                reference_rows: Sequence[int] | None = None) -> float:
    """Spearman's rank correlation between the pairs' cosines and their gold scores. A ``correction``
    (mean-centering, whitening) is fitted on the pairs' own sentences, then applied to both sides, as the
    whitening papers do: the rows ``reference_rows`` of the stacked (first, second) vectors, by default all
    (pass ``distinct_rows`` of the stacked sentences: a repeated sentence adds a direction of no variance,
    which whitening would blow up). Whitening keeps ``WHITEN_AXES_SHARE`` as many axes as reference rows.
    NaN when the cosines are all equal (no order to correlate). ``ValueError`` for fewer than ``MIN_PAIRS`` pairs,
    a gold score per pair that is not a finite number, or gold scores that are all the same."""
    gold = _checked_gold(first, second, gold)
    cosines = corrected_cosines(first, second, correction, reference_rows)
    return float(spearmanr(cosines, gold).statistic) if cosines is not None else float("nan")


def _checked_gold(first: np.ndarray, second: np.ndarray, gold: Sequence[float]) -> np.ndarray:
    pair_cosines(first, second)  # checks the two sides
    gold = checks.numbers(gold, "gold", "(pairs,)")
    checks.same_rows(first, gold, "pairs", "gold (the scores)")
    if len(gold) < MIN_PAIRS:
        raise ValueError(f"There are {len(gold)} pair(s); a rank correlation needs at least {MIN_PAIRS}.")
    if np.ptp(gold) == 0:
        raise ValueError(f"Every pair has the same gold score ({gold[0]:g}), so there is no order to correlate with.")
    return np.asarray(gold, dtype=np.float64)


def corrected_cosines(first: np.ndarray, second: np.ndarray, correction: str = "none",
                      reference_rows: Sequence[int] | None = None) -> np.ndarray | None:
    """The pairs' cosines after ``correction`` (fitted as ``correlation`` says); None when they are all equal."""
    correction = checks.choice(correction, "correction", CORRECTIONS)
    both = np.vstack([first, second])
    if identical(both):  # e.g. [CLS] at the embedding layer: every cosine is 1, there is no order
        return None
    if correction != "none":
        reference = both if reference_rows is None else both[checks.indices(reference_rows, "reference_rows", len(both))]
        fitted = fit_correction(correction, reference, whitening_axes(len(reference)))
        first, second = fitted(first), fitted(second)
    cosines = pair_cosines(first, second)
    return cosines if np.ptp(cosines) > 0 else None


def correlation_grid(cells: Sequence[Cell], first: dict[str, np.ndarray], second: dict[str, np.ndarray],
                     gold: Sequence[float], correction: str = "none",
                     reference_rows: Sequence[int] | None = None) -> SeparationScores:
    """``correlation`` of every cell (``first`` and ``second`` the two sides' pooled vectors), its verdict judged
    on ``uncertainty.RESAMPLES`` bootstrap resamples of the pairs, the same for every cell (a correction is
    fitted once, on all the pairs' sentences, not again per resample)."""
    gold = np.asarray(checks.numbers(gold, "gold", "(pairs,)"), dtype=np.float64)
    resampling = spearman_resampling(len(gold))
    return scores_over(cells, lambda cell: correlation_scored(cell_vectors(first, cell), cell_vectors(second, cell),
                                                              gold, resampling, correction, reference_rows),
                       resampling, "Spearman ρ" + ("" if correction == "none" else f" after {correction}"))


def spearman_resampling(pairs: int) -> Resampling:
    """The bootstrap of ``pairs`` scored pairs that every Spearman cell is judged on (the same resamples)."""
    return uncertainty.bootstrap(max(checks.whole_number(pairs, "pairs", 0), 1), "pairs", 0.0, SPEARMAN_CHANCE)


def correlation_scored(first: np.ndarray, second: np.ndarray, gold: np.ndarray, resampling: Resampling,
                       correction: str = "none", reference_rows: Sequence[int] | None = None) -> Scored:
    """``correlation`` of the pairs' (pairs, dim) sides with its replicates over ``resampling``'s resamples of the
    pairs; NaN with ``NO_ORDER`` when the cosines are all equal (scipy's ``spearmanr`` is NaN there too)."""
    _checked_gold(first, second, gold)
    cosines = corrected_cosines(first, second, correction, reference_rows)
    if cosines is None:
        return Scored(float("nan"), undefined=NO_ORDER)
    return Scored(float(spearmanr(cosines, gold).statistic),
                  uncertainty.spearman_replicates(cosines, gold, resampling.indices()))


def _named(cells: Sequence[tuple[str, str]]) -> str:
    return ", ".join(map(uncertainty.cell_name, cells))


def agreement(first: Verdict | None, second: Verdict | None, first_name: str, second_name: str) -> str:
    """Whether two measures' verdicts share a top cell (ties count all their cells), in a sentence that says when
    either names no clear best, or a top is not clearly above chance."""
    if first is None or second is None:
        return ""
    shared = [cell for cell in first.cells if cell in second.cells]
    caveat = ""
    unclear = [f"{name} names no clear best on {verdict.n:,} {verdict.unit}"
               for verdict, name in ((first, first_name), (second, second_name)) if not verdict.clear]
    if unclear:
        caveat += f" But {' and '.join(unclear)}, so this says little."
    weak = [name for verdict, name in ((first, first_name), (second, second_name)) if not verdict.above_chance]
    if weak:
        caveat += f" The top by {' and '.join(weak)} is not clearly above chance."
    if shared:
        if not first.tie and not second.tie:
            return f"**They agree**: {_named(shared)} is on top by both {first_name} and {second_name}." + caveat
        standing = " and ".join(f"{'among the tied best' if verdict.tie else 'the best'} by {name}"
                                for verdict, name in ((first, first_name), (second, second_name)))
        return f"**They agree**: {_named(shared)} {'are' if len(shared) > 1 else 'is'} {standing}." + caveat
    return (f"**They disagree**: {first_name} puts {_named(first.cells)} on top, {second_name} "
            f"{_named(second.cells)}. The probe measures what a linear classifier can read from the vectors; the "
            "silhouette, how far apart the classes lie by cosine without any training. For a classifier, trust the "
            "probe." + caveat)
