"""Which of model B's layers is most like each of model A's, and how sure that is.

A CKA table's top cell is often only a hair ahead of its neighbours (an untrained model's layers are ≥ 0.98 alike),
so it is named only when it leads beyond the noise: ``uncertainty.judge`` names a best only when the 95 % interval
of its paired lead over every other cell lies above 0. The replicates are CKA recomputed on ``RESAMPLES``
half-samples of the texts, drawn without replacement (``cka.cka_replicates``; at the word level whole texts are
drawn, as a text's words are not independent). A bootstrap's repeated texts would bias CKA upwards (a copy of a
text is a perfect match to itself); half of n without replacement spreads as the whole sample's estimate does (the
delete-d jackknife with d = n/2, Shao & Wu 1989), and the replicates are shifted to centre on the value over all
rows, as linear CKA runs higher on fewer texts. Past ``ROWS`` rows only the first texts are resampled, whose spread
is wider than all rows' would be: the verdict then errs towards "no clear best". Long texts at the word level (a few
texts holding every word compared) keep at least ``MIN_TEXTS`` texts, each with its first words, within ``ROWS``
rows; the words of one text alone cannot be resampled, and no layer is then named. Chance is the same cell's mean
over every random pairing of B's rows with A's (``cka.cka_tables``), what layers unrelated text by text score.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

import bertviz_core.checks as checks
from bertviz_core.measures.cka import cka_replicates, cka_tables
from bertviz_core.views.model_comparison import ESTIMATORS, FEW_ROWS, LEVELS, LayerComparison, same_model
from bertviz_core.measures.uncertainty import Resampling, Verdict, judge

RESAMPLES = 400  # fewer than uncertainty's 1,000: each half-sample recomputes every layer pair's CKA
ROWS = 500  # rows resampled: the first texts up to this many rows (whole texts), as the cost grows with rows²
MIN_TEXTS = 8  # texts resampled at least, where there are as many (70 distinct half-samples), each cut to fit ROWS
SEED = 0


@dataclass(frozen=True)
class MatchEvidence:
    """CKA of ``rows`` rows of the first ``texts`` texts (whole, or each text's first ``per_text`` rows when whole
    texts would hold fewer than ``MIN_TEXTS`` within ``ROWS``) recomputed on ``RESAMPLES`` half-samples of those
    texts, centred on CKA over all ``of_rows`` rows (``of_texts`` texts): ``replicates`` {estimator: (R,
    layers_a+1, layers_b+1)}, NaN (R = 1) when one text holds every row; ``chance`` {estimator: (layers_a+1,
    layers_b+1)}, the mean CKA over every random pairing of B's rows with A's."""

    replicates: dict[str, np.ndarray]
    chance: dict[str, np.ndarray]
    rows: int
    texts: int
    of_rows: int
    of_texts: int
    level: str
    per_text: int | None = None


def match_evidence(a: np.ndarray, b: np.ndarray, level: str = "sentences",
                   text_of: np.ndarray | None = None) -> MatchEvidence:
    """The half-sample evidence for ``a`` (n, layers_a+1, d1) against ``b`` (n, layers_b+1, d2), row i of both the
    same text (sentences) or word; ``text_of`` (n,) the text each word came from, in order (words level). NaN
    where a layer holds one vector for every text, as in ``cka_matrix``."""
    checks.choice(level, "level", LEVELS)
    a = checks.numbers(a, "a", "(n, layers, hidden)", min_rows=2)
    b = checks.numbers(b, "b", "(n, layers, hidden)", min_rows=2)
    checks.same_rows(a, b, "rows of a", "b")
    groups = (np.arange(len(a)) if text_of is None
              else checks.numbers(text_of, "text_of", "(n,)", finite=True).astype(np.int64))
    checks.same_rows(a, groups, "rows of a", "text_of")
    if len(groups) and (np.diff(groups) < 0).any():
        raise ValueError("text_of must give each row's text in order (0, 0, 1, 1, 1, 2, …).")
    texts, starts = np.unique(groups, return_index=True)  # each text's first row
    ends = np.searchsorted(groups, texts, side="right")  # the row after each text's last
    # whole texts up to ROWS rows; at least MIN_TEXTS texts (or all there are), each then cut to its first rows
    kept = max(min(len(texts), MIN_TEXTS), int(np.searchsorted(ends, ROWS, side="right")))
    per_text = None if ends[kept - 1] <= ROWS else -(-ROWS // kept)
    place = np.arange(len(groups)) - starts[np.searchsorted(texts, groups)]  # (n,) each row's place in its text
    chosen = np.flatnonzero((groups <= texts[kept - 1]) & (place < (per_text or len(groups))))  # (rows,)
    tables = cka_tables(a, b)  # {debiased: (CKA over all rows, chance)}
    if kept < 2:  # one text holds every row: no half of it can be drawn
        replicates = {debiased: np.full((1, *tables[debiased][0].shape), np.nan) for debiased in tables}
    else:
        rng = np.random.default_rng(SEED)
        halves = np.argsort(rng.random((RESAMPLES, kept)), axis=1) < kept // 2  # (R, texts): in the half or not
        weights = halves[:, np.searchsorted(texts[:kept], groups[chosen])].astype(np.float64)  # rows with their text
        replicates = {debiased: found - _mean(found) + tables[debiased][0]
                      for debiased, found in cka_replicates(a[chosen], b[chosen], weights).items()}
    return MatchEvidence({name: replicates[debiased] for name, debiased in ESTIMATORS.items()},
                         {name: tables[debiased][1] for name, debiased in ESTIMATORS.items()}, len(chosen), kept,
                         len(a), len(texts), level, per_text)


def _mean(replicates: np.ndarray) -> np.ndarray:
    """(layers_a, layers_b) mean over the (R, layers_a, layers_b) replicates, NaN ignored (NaN where all are)."""
    finite = np.isfinite(replicates)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(finite, replicates, 0.0).sum(axis=0) / finite.sum(axis=0)


def _method(evidence: MatchEvidence) -> str:
    if evidence.texts < 2:
        return "no half-samples: every word compared is in one text"
    if evidence.level == "sentences":
        some = f"the first {evidence.texts:,} of {evidence.of_texts:,}" if evidence.texts < evidence.of_texts else \
            f"the {evidence.texts:,}"
        return f"{RESAMPLES} half-samples of {some} texts"
    if evidence.per_text is not None:
        return (f"{RESAMPLES} half-samples of the first {evidence.texts:,} texts, each with its first "
                f"{evidence.per_text:,} words ({evidence.rows:,} of {evidence.of_rows:,} words)")
    some = f"the first {evidence.texts:,} texts ({evidence.rows:,} of {evidence.of_rows:,} words)" \
        if evidence.texts < evidence.of_texts else f"the {evidence.texts:,} texts"
    return f"{RESAMPLES} half-samples of {some}, each text drawn with all its words"


def _judged(comparison: LayerComparison, evidence: MatchEvidence, cells: list[tuple[int, int]],
            sign: float = 1.0) -> Verdict | None:
    """The verdict on the highest (``sign`` -1: lowest) CKA among ``cells`` (row, column positions)."""
    table, name = comparison.cka, comparison.estimator
    keys = [(f"{table.index[i]}|{table.columns[j]}", "cell") for i, j in cells]
    scores = pd.DataFrame({"cell": [sign * table.iat[i, j] for i, j in cells]}, index=[k for k, _ in keys])
    replicates = {key: sign * evidence.replicates[name][:, i, j] for key, (i, j) in zip(keys, cells)}
    if scores["cell"].isna().all():
        return None
    top = cells[int(np.nanargmax(scores["cell"].to_numpy()))]
    resampling = Resampling("half-samples", evidence.texts, "texts", _method(evidence),
                            sign * float(evidence.chance[name][top]), "", resamples=RESAMPLES, seed=SEED)
    return judge(scores, replicates, resampling, name)


def _cell(key: tuple[str, str]) -> tuple[str, str]:
    a_layer, b_layer = key[0].split("|")
    return a_layer, b_layer


def _checked_pair(comparison: LayerComparison, evidence: MatchEvidence) -> None:
    checks.instance(comparison, LayerComparison, "comparison", "compare_layers")
    checks.instance(evidence, MatchEvidence, "evidence", "match_evidence")
    if evidence.replicates[comparison.estimator].shape[1:] != comparison.cka.shape or \
            evidence.level != comparison.level:
        raise ValueError("evidence is for other vectors than comparison: give match_evidence of the same a and b.")


def best_matches(comparison: LayerComparison, evidence: MatchEvidence) -> pd.DataFrame:
    """For each of A's layers: B's layer with the highest CKA when it leads every other beyond the noise, else "no
    clear best"; the top's CKA, its 95 % interval, the B layers within the noise of it, chance (B's rows
    paired with A's at random) and the RSA of the top pair. NaN rows where A's layer holds one vector for every text."""
    _checked_pair(comparison, evidence)
    table, rows = comparison.cka, []
    for i, name in enumerate(table.index):
        verdict = _judged(comparison, evidence, [(i, j) for j in range(table.shape[1])])
        if verdict is None:
            rows.append({"A layer": name, "most alike B layer": None, "CKA": np.nan, "95% interval from": np.nan,
                         "95% interval to": np.nan, "within the noise": None, "chance (random pairing)": np.nan,
                         "RSA": np.nan})
            continue
        b_layers = [_cell(key)[1] for key in verdict.cells]
        rows.append({"A layer": name, "most alike B layer": b_layers[0] if verdict.clear else "no clear best",
                     "CKA": verdict.value, "95% interval from": verdict.interval[0],
                     "95% interval to": verdict.interval[1], "within the noise": ", ".join(b_layers),
                     "chance (random pairing)": verdict.chance, "RSA": comparison.rsa.loc[name, b_layers[0]]})
    return pd.DataFrame(rows)


def _layers_named(verdict: Verdict, side: int) -> str:
    return ", ".join(_cell(key)[side].split()[1] for key in verdict.cells)


def _interval(verdict: Verdict, sign: float = 1.0) -> str:
    low, high = sorted(sign * v for v in verdict.interval)
    return f"95% interval {low:.2f} to {high:.2f}" if np.isfinite(low) else "too few texts for an interval"


def layer_story(comparison: LayerComparison, evidence: MatchEvidence) -> list[str]:
    """The table in sentences: which of B's layers is most like A's last layer, and along the diagonal (when both
    models have as many layers) where the two are most and least alike, each named only beyond the noise, with
    its interval, count and chance; on few rows, how far to trust the values."""
    _checked_pair(comparison, evidence)
    m, name = comparison.cka, comparison.estimator
    story = [] if evidence.texts > 1 else [
        "Every word compared is in one text, and the noise is measured by drawing whole texts (a text's words are not "
        "independent of one another): with one there is nothing to draw, so no layer is named as most alike. Give "
        "two texts or more."]
    if same_model(comparison):
        story.append(f"The same model on both sides: every layer has {name} 1 with itself (the diagonal), as it "
                     "must. Off the diagonal, the table shows how alike the model's own layers are.")
    else:
        last = _judged(comparison, evidence, [(m.shape[0] - 1, j) for j in range(m.shape[1])])
        if last is not None:
            b = _layers_named(last, 1)
            where = f"{name} {last.value:.2f}, {_interval(last)}, {last.method}"
            story.append(f"A's last layer is most like B's layer {b} ({where}); every other B layer is below it "
                         "beyond the noise." if last.clear else
                         f"A's last layer has no clear most alike layer in B: layers {b} are within the noise of the "
                         f"top ({where}).")
            story[-1] += (f" Chance, each text paired with another text's vector at random, scores {last.chance:.2f} "
                          "there on average" + ("." if last.above_chance else ", and the top is not clearly "
                                                "above that."))
        if m.shape[0] == m.shape[1]:
            diagonal = [(i, i) for i in range(m.shape[0]) if not np.isnan(m.iat[i, i])]
            if len(diagonal) > 1:
                most, least = _judged(comparison, evidence, diagonal), _judged(comparison, evidence, diagonal, -1.0)
                story.append("Layer for layer, the two are " + " and ".join(
                    (f"{word} alike at layer {_layers_named(v, 0)} ({sign * v.value:.2f}, {_interval(v, sign)})"
                     if v.clear else f"not clearly {word} alike at any one layer (layers {_layers_named(v, 0)} are "
                     "within the noise)") for word, v, sign in (("most", most, 1.0), ("least", least, -1.0))) + ".")
    if m.isna().any().any():
        story.append("Blank cells: a layer that gives the same vector for every text (e.g. [CLS] at the embedding "
                     "layer) holds no relations between texts, so CKA and RSA are undefined there.")
    if comparison.rows < FEW_ROWS:
        unit = "texts" if comparison.level == "sentences" else "words"
        story.append(f"Only {comparison.rows} {unit}: with fewer than {FEW_ROWS}, linear CKA drifts upwards (two "
                     "unrelated representations score well above 0) and debiased CKA is noisy (it can fall far "
                     "below 0). Read the pattern, not the values, or give more texts.")
    return story
