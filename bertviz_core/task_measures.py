"""Which layer and which pooling for a task, measured: a linear classification probe on labelled texts,
and the Spearman correlation of cosines with gold scores on sentence pairs (as STS benchmarks score
sentence embeddings).

The probe's protocol is fixed and stated where it is shown (``PROBE_PROTOCOL``): scikit-learn's
``LogisticRegression(max_iter=1000)`` on standardised vectors (the scaler fitted inside each training
fold, so no test text informs it), scored by ``StratifiedKFold(5, shuffle=True, random_state=0)``.
"""
from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from scipy.stats import spearmanr
from sklearn.linear_model import LogisticRegression
from sklearn.model_selection import StratifiedKFold, cross_validate
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import bertviz_core.checks as checks
from bertviz_core.projection import identical
from bertviz_core.similarity import CORRECTIONS, Verdict, fit_correction

DEFAULT_STRATEGIES = ("mean", "cls", "max")  # the cells the Task measures page shows first, at every layer
PROBE_FOLDS = 5
PROBE_MARGIN = 0.01  # probe accuracies closer than this to the top count as a tie (1 point)
CORRELATION_MARGIN = 0.01  # Spearman correlations closer than this to the top count as a tie
MIN_PAIRS = 5  # a rank correlation of fewer pairs says little
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
    """Cross-validated accuracy and macro-F1 of the stated probe, means over ``folds`` folds."""

    accuracy: float
    macro_f1: float
    folds: int


def probe(vectors: np.ndarray, labels: Sequence[str], plan: ProbePlan | None = None) -> ProbeScore:
    """The probe on (n, dim) ``vectors`` with their ``labels`` (see ``PROBE_PROTOCOL``); ``plan``, when given, is
    ``probe_plan(labels)``."""
    vectors = checks.numbers(vectors, "vectors", "(n, dim)")
    labels = checks.labels(labels, count=len(vectors))
    plan = probe_plan(labels) if plan is None else checks.instance(plan, ProbePlan, "plan", "probe_plan(labels)")
    if len(plan.keep) != len(labels):
        raise ValueError(f"The plan is for {len(plan.keep)} labels, not these {len(labels)}: make it with "
                         "probe_plan(labels).")
    x = np.asarray(vectors, dtype=np.float64)[plan.keep]
    y = np.asarray(labels, dtype=object)[plan.keep]
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=1000))
    scores = cross_validate(model, x, y, cv=StratifiedKFold(plan.folds, shuffle=True, random_state=0),
                            scoring=("accuracy", "f1_macro"))
    return ProbeScore(float(scores["test_accuracy"].mean()), float(scores["test_f1_macro"].mean()), plan.folds)


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
    pair_cosines(first, second)  # checks the two sides
    gold = checks.numbers(gold, "gold", "(pairs,)")
    checks.same_rows(first, gold, "pairs", "gold (the scores)")
    if len(gold) < MIN_PAIRS:
        raise ValueError(f"There are {len(gold)} pair(s); a rank correlation needs at least {MIN_PAIRS}.")
    if np.ptp(gold) == 0:
        raise ValueError(f"Every pair has the same gold score ({gold[0]:g}), so there is no order to correlate with.")
    correction = checks.choice(correction, "correction", CORRECTIONS)
    both = np.vstack([first, second])
    if identical(both):  # e.g. [CLS] at the embedding layer: every cosine is 1, there is no order
        return float("nan")
    if correction != "none":
        reference = both if reference_rows is None else both[checks.indices(reference_rows, "reference_rows", len(both))]
        fitted = fit_correction(correction, reference, whitening_axes(len(reference)))
        first, second = fitted(first), fitted(second)
    cosines = pair_cosines(first, second)
    return float(spearmanr(cosines, gold).statistic) if np.ptp(cosines) > 0 else float("nan")


def _named(cells: Sequence[tuple[str, str]]) -> str:
    return ", ".join(f"{row} (one vector)" if col == "one vector" else f"{row} at {col}" for row, col in cells)


def agreement(first: Verdict | None, second: Verdict | None, first_name: str, second_name: str) -> str:
    """Whether two measures' verdicts share a top cell (ties count all their cells), in a sentence."""
    if first is None or second is None:
        return ""
    shared = [cell for cell in first.cells if cell in second.cells]
    if shared:
        if not first.tie and not second.tie:
            return f"**They agree**: {_named(shared)} is on top by both {first_name} and {second_name}."
        standing = " and ".join(f"{'among the tied best' if verdict.tie else 'the best'} by {name}"
                                for verdict, name in ((first, first_name), (second, second_name)))
        return f"**They agree**: {_named(shared)} {'are' if len(shared) > 1 else 'is'} {standing}."
    return (f"**They disagree**: {first_name} puts {_named(first.cells)} on top, {second_name} "
            f"{_named(second.cells)}. The probe measures what a linear classifier can read from the vectors; the "
            "silhouette, how far apart the classes lie by cosine without any training. For a classifier, trust the "
            "probe.")
