"""Which model for my data: models × pooling × layer ranked on one corpus, each cell with its 95 % interval, and
a best named only beyond the noise.

Every model is scored on the same texts with the same replicates, so cells of different models are paired:
the probe uses the same ``StratifiedKFold`` folds for every model (``task_measures.PROBE_PROTOCOL``), the
silhouette and Spearman's ρ the same seeded bootstrap resamples (``uncertainty``). ``uncertainty.judge``
decides over every cell of every model at once; a model listed twice under two names has the same replicates
as itself, so it ties and no best is clear.

    from bertviz_core.model_choice import rank_models
    ranking = rank_models({"MiniLM": {("mean", 3): x1, ("cls", 6): x2}, "twin": {...}}, labels=labels)
    ranking.table, ranking.verdict.sentence
"""
from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np
import pandas as pd
from joblib import Parallel, delayed

import bertviz_core.checks as checks
import bertviz_core.measures.uncertainty as uncertainty
from bertviz_core.figures import layer_label
from bertviz_core.measures.pooling_grid import silhouette_resampling, score_cell
from bertviz_core.measures.similarity import unscorable
from bertviz_core.measures.task_measures import (ProbePlan, ProbeScore, correlation_scored, probe, probe_chance,
                                                 probe_plan, spearman_resampling)
from bertviz_core.measures.uncertainty import Resampling, Scored, Verdict

MEASURES = ("accuracy", "macro-F1", "silhouette", "spearman")
COLUMNS = ["model", "strategy", "layer", "score", "low", "high", "best", "note"]
# Fewer rows than this over all cells (cells x texts) are probed in this process: starting the worker processes
# costs seconds of CPU (each imports scikit-learn), while a cell of 160 texts takes about 0.15 s.
PARALLEL_ROWS = 20_000

Key = tuple[str, int]  # (strategy, layer)


@dataclass(frozen=True)
class Ranking:
    """``table``: one row per model × strategy × layer (``COLUMNS``: the score, its 95 % interval ``low`` to
    ``high``, ``best`` for the top cell and every cell tied with it, and ``note``: "not defined: <why>" for a cell
    whose score is not defined (NaN, never best), else ""), sorted by score, highest first, undefined cells last;
    ``verdict``: ``uncertainty.judge``'s over every cell (None when no cell has a score); ``notes``: what the probe
    changed (classes left out, fewer folds)."""

    table: pd.DataFrame
    verdict: Verdict | None
    notes: tuple[str, ...] = ()


def rank_models(vectors: Mapping[str, Mapping[Key, np.ndarray]], labels: Sequence[str] | None = None,
                pairs: tuple[Sequence[int], Sequence[int], Sequence[float]] | None = None, measure: str = "accuracy",
                correction: str = "none", jobs: int | None = None) -> Ranking:
    """Rank every (strategy, layer) cell of every model. ``vectors`` maps a model's name to
    ``{(strategy, layer): (n, dim) array}``, the same n texts in the same order for every model. ``measure``:
    "accuracy" or "macro-F1" (the stated probe), "silhouette" (cosine), all with ``labels`` (n,); or "spearman" of
    each pair's cosine with its gold score, ``pairs=(first_rows, second_rows, gold)``: (pairs,) row indexes into the
    n texts and (pairs,) scores, after ``correction`` ("none", "mean-centering", "whitening") fitted on the pairs' distinct
    texts. The probe runs ``jobs`` cells at once (default: one per core). ``ValueError`` saying what to change for
    vectors of different texts, a measure without its labels or pairs, or labels that cannot be probed."""
    measure = checks.choice(measure, "measure", MEASURES)
    cells = _checked_vectors(vectors)
    task = scoring(measure, len(next(iter(cells.values()))), labels, pairs, correction)
    if task.plan is not None:
        probed = probe_cells(list(cells.values()), task.labels, task.plan, jobs)
        scored = {key: result.scored(measure) for key, result in zip(cells, probed)}
    else:
        scored = {key: task.score(x) for key, x in cells.items()}
    return ranked(task, scored)


@dataclass(frozen=True)
class Scoring:
    """How every cell of one corpus of ``n`` texts is scored and judged (``scoring``): the ``measure``, its
    ``name`` in the verdict, the ``resampling`` every cell shares, the probe's ``notes``; with labels, ``labels``
    (n,) and, for the probe, its ``plan``; for Spearman, ``pairs`` ((pairs,) first rows, (pairs,) second rows,
    (pairs,) gold, the distinct rows the ``correction`` is fitted on)."""

    measure: str
    name: str
    resampling: Resampling
    notes: tuple[str, ...] = ()
    labels: list[str] | None = None
    plan: ProbePlan | None = None
    pairs: tuple[np.ndarray, np.ndarray, np.ndarray, list[int]] | None = None
    correction: str = "none"

    def score(self, x: np.ndarray) -> Scored:
        """One cell's score with its replicates, from its (n, dim) vectors."""
        if self.plan is not None:
            return probe(x, self.labels, self.plan).scored(self.measure)
        if self.pairs is not None:
            first, second, gold, reference = self.pairs
            return correlation_scored(x[first], x[second], gold, self.resampling, self.correction, reference)
        return score_cell(x, self.labels).scored(self.resampling)


def scoring(measure: str, n: int, labels: Sequence[str] | None = None,
            pairs: tuple[Sequence[int], Sequence[int], Sequence[float]] | None = None,
            correction: str = "none") -> Scoring:
    """The ``Scoring`` of ``measure`` on ``n`` texts with ``labels`` or ``pairs`` (as ``rank_models`` takes them),
    checked: ``ValueError`` saying what to change."""
    measure = checks.choice(measure, "measure", MEASURES)
    if measure == "spearman":
        if pairs is None:
            raise ValueError("Spearman's ρ needs pairs=(first_rows, second_rows, gold): which texts form each pair, "
                             "and its gold score.")
        return _spearman(pairs, n, correction)
    if labels is None:
        raise ValueError(f"The {measure} needs labels, one per text ({n:,}).")
    labels = checks.labels(labels, count=n)
    if measure == "silhouette":
        if unscorable(labels):
            raise ValueError("No class has two texts, or every text has the same label: there is no separation to "
                             "score. Choose another label column.")
        # a larger corpus is scored on a fixed sample, the same for every cell
        return Scoring(measure, "silhouette (cosine)", silhouette_resampling(n), labels=labels)
    plan = probe_plan(labels)
    chance, wording = probe_chance(labels, plan, measure)
    resampling = uncertainty.folds(int(plan.keep.sum()), plan.folds, "texts", chance, wording)
    return Scoring(measure, f"probe {measure}", resampling, plan.notes, labels, plan)


def _checked_vectors(vectors: Mapping[str, Mapping[Key, np.ndarray]]) -> dict[tuple[str, str, int], np.ndarray]:
    """{(model, strategy, layer): (n, dim) float array}, checked: at least one model with one cell, n the same
    throughout."""
    if not isinstance(vectors, Mapping) or not vectors:
        raise ValueError("vectors must map each model's name to {(strategy, layer): (n, dim) array}; it is "
                         f"{checks.shown(vectors)}.")
    cells: dict[tuple[str, str, int], np.ndarray] = {}
    for model, grid in vectors.items():
        if not isinstance(grid, Mapping) or not grid:
            raise ValueError(f"vectors[{model!r}] must map (strategy, layer) to an (n, dim) array; it is "
                             f"{checks.shown(grid)}.")
        for key, x in grid.items():
            if not (isinstance(key, tuple) and len(key) == 2 and isinstance(key[0], str)):
                raise ValueError(f"vectors[{model!r}] has the key {key!r}; keys are (strategy, layer), e.g. "
                                 "('mean', 6).")
            layer = checks.whole_number(key[1], f"the layer of vectors[{model!r}][{key!r}]", 0)
            cells[(str(model), key[0], layer)] = checks.numbers(x, f"vectors[{model!r}][{key!r}]", "(n, dim)")
    counts = {key: len(x) for key, x in cells.items()}
    if len(set(counts.values())) > 1:
        shown = ", ".join(f"{m} {s} {layer}: {c:,}" for (m, s, layer), c in list(counts.items())[:4])
        raise ValueError(f"Every model must be given the same texts; the cells have different numbers of rows "
                         f"({shown}).")
    return cells


def probe_cells(cells: Sequence[np.ndarray], labels: Sequence[str], plan: ProbePlan,
                jobs: int | None = None) -> list[ProbeScore]:
    """``task_measures.probe`` of each (n, dim) array in ``cells`` with the same ``labels`` and ``plan`` (so the
    same folds), ``jobs`` cells at once in worker processes (default: one per core, at most one per cell, and none
    below ``PARALLEL_ROWS`` rows in all); the scores are ``probe``'s exactly."""
    cells = [checks.numbers(x, f"cells[{i}]", "(n, dim)")
             for i, x in enumerate(checks.items(cells, "cells", "(n, dim) arrays"))]
    labels = checks.labels(labels)
    for x in cells:  # checked here rather than in a worker process, whose error would come back wrapped
        checks.labels(labels, count=len(x))
    checks.instance(plan, ProbePlan, "plan", "probe_plan(labels)")
    if jobs is None:
        jobs = min(len(cells), os.cpu_count() or 1) if len(cells) * len(labels) >= PARALLEL_ROWS else 1
    jobs = checks.whole_number(jobs, "jobs", 1)
    if jobs <= 1:
        return [probe(x, labels, plan) for x in cells]
    return Parallel(n_jobs=jobs)(delayed(probe)(x, labels, plan) for x in cells)


def _spearman(pairs: tuple[Sequence[int], Sequence[int], Sequence[float]], n: int, correction: str) -> Scoring:
    """Spearman's ρ of the pairs' cosines after ``correction``, on the bootstrap of the pairs every cell shares."""
    if not (isinstance(pairs, tuple | list) and len(pairs) == 3):
        raise ValueError("pairs must be (first_rows, second_rows, gold).")
    first = np.asarray(checks.indices(pairs[0], "first_rows", n), dtype=np.int64)
    second = np.asarray(checks.indices(pairs[1], "second_rows", n), dtype=np.int64)
    gold = np.asarray(checks.numbers(pairs[2], "gold", "(pairs,)"), dtype=np.float64)
    if not len(first) == len(second) == len(gold):
        raise ValueError(f"first_rows, second_rows and gold must be as long as each other; they hold {len(first)}, "
                         f"{len(second)} and {len(gold)}.")
    # The correction is fitted on each distinct text of the pairs once (as Task measures does): a text in two
    # pairs would add a direction of no variance, which whitening blows up.
    reference = sorted(np.unique(np.concatenate([first, second]), return_index=True)[1].tolist())
    name = "Spearman ρ" + ("" if correction == "none" else f" after {correction}")
    return Scoring("spearman", name, spearman_resampling(len(gold)), pairs=(first, second, gold, reference),
                   correction=correction)


def cell_name(cell: tuple[str, str]) -> str:
    """How a verdict names a cell of ``ranked``'s grid, (model, "strategy at layer"): "model: strategy at layer"."""
    return f"{cell[0]}: {cell[1]}"


def ranked(task: Scoring, scored: Mapping[tuple[str, str, int], Scored]) -> Ranking:
    """The table and verdict over every scored cell, {(model, strategy, layer): its ``task.score``}: ``judge`` sees a
    frame of models × "strategy at layer", and leaves out a cell whose score is not defined (NaN), so it is never
    best."""
    resampling = task.resampling
    columns = {key: f"{key[1]} at {layer_label(key[2])}" for key in scored}
    grid = pd.DataFrame(index=list(dict.fromkeys(model for model, _, _ in scored)),
                        columns=list(dict.fromkeys(columns.values())), dtype=float)
    replicates = {}
    for key, got in scored.items():
        grid.loc[key[0], columns[key]] = got.value
        replicates[(key[0], columns[key])] = got.replicates
    verdict = uncertainty.judge(grid, replicates, resampling, task.name, name=cell_name)
    best = set(verdict.cells) if verdict else set()
    rows = []
    for key, got in scored.items():
        low, high = np.clip(uncertainty.interval(got.replicates, resampling.kind), *resampling.limits).tolist()
        note = f"not defined: {got.undefined}" if np.isnan(got.value) else ""
        rows.append((*key, got.value, low, high, (key[0], columns[key]) in best, note))
    table = pd.DataFrame(rows, columns=COLUMNS)
    table = table.sort_values("score", ascending=False, kind="stable", na_position="last").reset_index(drop=True)
    return Ranking(table, verdict, task.notes)
