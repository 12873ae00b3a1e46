"""Bad input to the core's grids, table-driven: pooling, the pooling grid, projections, task measures,
uncertainty and word vectors. What a case may say, and the inputs ``c`` holds: tests/core/bad_input.py."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pandas as pd
import pytest
from bad_input import CORPUS, NAN, OK, Case, NaN, check, nan_rows

from bertviz_core import model_choice as mc
from bertviz_core.figures import map_figures as mf
from bertviz_core.measures import pooling as pl
from bertviz_core.measures import pooling_grid as pg
from bertviz_core.measures import projection as prj
from bertviz_core.measures import task_measures as tm
from bertviz_core.measures import uncertainty as unc
from bertviz_core.words import word_vectors as wv


# Keys are "module.function: what is bad" ("Encoder.method: ..." for the Encoder's methods); ``c`` holds the
# encoders and the inputs the core made from them (bad_input.inputs).
CASES: dict[str, Case] = {
    # pooling
    "pooling.check_strategies: a string": Case(lambda c: pl.check_strategies("mean", True)),
    "pooling.check_strategies: [None]": Case(lambda c: pl.check_strategies([None], True)),
    "pooling.check_strategies: a list inside": Case(lambda c: pl.check_strategies([["mean"]], True)),
    "pooling.check_strategies: none": Case(lambda c: pl.check_strategies([], True)),
    "pooling.check_strategies: pooler without weights": Case(lambda c: pl.check_strategies(["pooler"], False)),
    "pooling.vectors_at: unknown strategy": Case(lambda c: pl.vectors_at(c.pooled, "median", 1)),
    "pooling.vectors_at: layer 7 of 0-6": Case(lambda c: pl.vectors_at(c.pooled, "mean", 7)),
    "pooling.vectors_at: not embed's output": Case(lambda c: pl.vectors_at([c.x], "mean", 1)),
    "pooling.vectors_at: no layer for the pooler": Case(lambda c: pl.vectors_at(c.pooled, "pooler", None), OK),
    # pooling grid
    "pooling_grid.sample_note: no texts": Case(lambda c: pg.sample_note(0, True)),
    "pooling_grid.sample_note: a string": Case(lambda c: pg.sample_note("2,100", True)),
    "pooling_grid.sample_note: over the sample": Case(lambda c: pg.sample_note(2_100, False), OK),
    "pooling_grid.cell_key: a one-vector cell": Case(lambda c: pg.cell_key(pg.Cell("pooler", None)), OK),
    "pooling_grid.colour_groups: None": Case(lambda c: pg.colour_groups(None)),
    "pooling_grid.colour_groups: a string": Case(lambda c: pg.colour_groups("abc")),
    "pooling_grid.check_labels: a string": Case(lambda c: pg.check_labels("abc")),
    "pooling_grid.check_labels: [None, ...]": Case(lambda c: pg.check_labels([None, "a", "a"])),
    "pooling_grid.check_labels: NaN label": Case(lambda c: pg.check_labels([NaN, "a", "a"])),
    "pooling_grid.check_labels: whole numbers": Case(lambda c: pg.check_labels([1, 1, 2, 2]), OK),
    "pooling_grid.grid_cells: unknown strategy": Case(lambda c: pg.grid_cells(["median"], [1], 6)),
    "pooling_grid.grid_cells: strategies a string": Case(lambda c: pg.grid_cells("mean", [1], 6)),
    "pooling_grid.grid_cells: layer 99": Case(lambda c: pg.grid_cells(["mean"], [99], 6)),
    "pooling_grid.grid_cells: layer 1.5": Case(lambda c: pg.grid_cells(["mean"], [1.5], 6)),
    "pooling_grid.grid_cells: layer -1": Case(lambda c: pg.grid_cells(["mean"], [-1], 6)),
    "pooling_grid.grid_cells: num_layers -1": Case(lambda c: pg.grid_cells(["mean"], [0], -1)),
    "pooling_grid.grid_cells: num_layers None": Case(lambda c: pg.grid_cells(["mean"], [0], None)),
    "pooling_grid.grid_cells: nothing chosen": Case(lambda c: pg.grid_cells([], [], 6), OK),
    "pooling_grid.cell_vectors: unknown strategy": Case(lambda c: pg.cell_vectors(c.pooled, pg.Cell("median", 1))),
    "pooling_grid.cell_vectors: a strategy not embedded": Case(lambda c: pg.cell_vectors(c.pooled_mean, pg.Cell("max", 1))),
    "pooling_grid.cell_vectors: layer 99": Case(lambda c: pg.cell_vectors(c.pooled, pg.Cell("mean", 99))),
    "pooling_grid.cell_vectors: no layer for a per-layer strategy": Case(
        lambda c: pg.cell_vectors(c.pooled, pg.Cell("mean", None))),
    "pooling_grid.cell_vectors: cell None": Case(lambda c: pg.cell_vectors(c.pooled, None)),
    "pooling_grid.score_cell: NaN vectors": Case(lambda c: pg.score_cell(nan_rows(20), c.labels)),
    "pooling_grid.score_cell: labels of another length": Case(lambda c: pg.score_cell(c.x, c.labels[:5])),
    "pooling_grid.score_cell: None": Case(lambda c: pg.score_cell(None, c.labels)),
    "pooling_grid.score_cell: no labels": Case(lambda c: pg.score_cell(c.x, None), NAN),
    "pooling_grid.separation_scores: num_layers -1": Case(lambda c: pg.separation_scores(lambda cell: 0.5, ["mean"], -1)),
    "pooling_grid.separation_scores: unknown strategy": Case(
        lambda c: pg.separation_scores(lambda cell: 0.5, ["median"], 6)),
    "pooling_grid.separation_scores: score not callable": Case(lambda c: pg.separation_scores(0.5, ["mean"], 6)),
    # projection
    "projection.pca_2d: None": Case(lambda c: prj.pca_2d(None)),
    "projection.pca_2d: NaN": Case(lambda c: prj.pca_2d(nan_rows(10))),
    "projection.pca_2d: one vector, 1-D": Case(lambda c: prj.pca_2d(np.ones(8))),
    "projection.pca_2d: no rows": Case(lambda c: prj.pca_2d(np.zeros((0, 8)))),
    "projection.pca_2d: one row": Case(lambda c: prj.pca_2d(c.x[:1]), OK),
    "projection.trust: rows differ": Case(lambda c: prj.trust(c.x, c.x[:5, :2])),
    "projection.trust: two rows": Case(lambda c: prj.trust(c.x[:2], c.x[:2, :2]), NAN),
    "projection.project: unknown": Case(lambda c: prj.project("MDS", c.x)),
    "projection.project: name a list": Case(lambda c: prj.project(["PCA"], c.x)),
    "map_figures.axis_titles: one variance ratio": Case(lambda c: mf.axis_titles("PCA", [0.4])),
    "map_figures.axis_titles: NaN variance": Case(lambda c: mf.axis_titles("PCA", [NaN, 0.1])),
    "map_figures.axis_titles: UMAP": Case(lambda c: mf.axis_titles("UMAP"), OK),
    "projection.project: UMAP of 3 rows": Case(lambda c: prj.project("UMAP", c.x[:3])),
    "projection.project: UMAP of 2 rows": Case(lambda c: prj.project("UMAP", c.x[:2])),
    "projection.project: t-SNE of 3 rows": Case(lambda c: prj.project("t-SNE", c.x[:3]), OK),
    "projection.project: t-SNE of 2 rows": Case(lambda c: prj.project("t-SNE", c.x[:2])),
    "projection.project: PCA of 1 row": Case(lambda c: prj.project("PCA", c.x[:1])),
    "projection.project: NaN": Case(lambda c: prj.project("PCA", nan_rows(10))),
    "projection.project: None": Case(lambda c: prj.project("PCA", None)),
    "projection.project: identical vectors": Case(lambda c: prj.project("PCA", np.ones((10, 4))), NAN),
    "projection.identical: None": Case(lambda c: prj.identical(None)),
    "pooling_grid.silhouette_resampling: 0 texts": Case(lambda c: pg.silhouette_resampling(0)),
    "pooling_grid.silhouette_resampling: 2.5 texts": Case(lambda c: pg.silhouette_resampling(2.5)),
    "uncertainty.outside_tie: no verdict": Case(lambda c: unc.outside_tie(pd.DataFrame({"layer 1": [0.5]}), None), OK),
    "uncertainty.bootstrap_indices: no item": Case(lambda c: unc.bootstrap_indices(0)),
    "task_measures.probe_chance: None labels": Case(lambda c: tm.probe_chance(None, tm.probe_plan(c.labels))),
    "task_measures.probe_grid: unknown measure": Case(
        lambda c: tm.probe_grid([], {}, c.labels, tm.probe_plan(c.labels), "f1")),
    "task_measures.corrected_cosines: unknown correction": Case(lambda c: tm.corrected_cosines(c.x, c.x, "zca")),
    "task_measures.correlation_grid: gold of another length": Case(
        lambda c: tm.correlation_grid([pg.Cell("mean", 1)], {"mean": c.per_layer}, {"mean": c.per_layer}, [1.0, 2.0])),
    "task_measures.spearman_resampling: 2.5 pairs": Case(lambda c: tm.spearman_resampling(2.5)),
    "task_measures.correlation_scored: gold of another length": Case(
        lambda c: tm.correlation_scored(c.x, c.y, [1.0, 2.0], tm.spearman_resampling(20))),
    "task_measures.correlation_scored: unknown correction": Case(
        lambda c: tm.correlation_scored(c.x, c.y, np.arange(20.0), tm.spearman_resampling(20), "zca")),
    # which model for my data
    "model_choice.rank_models: None": Case(lambda c: mc.rank_models(None, c.labels)),
    "model_choice.rank_models: no cells": Case(lambda c: mc.rank_models({"a": {}}, c.labels)),
    "model_choice.rank_models: a layer of -1": Case(lambda c: mc.rank_models({"a": {("mean", -1): c.x}}, c.labels)),
    "model_choice.rank_models: NaN vectors": Case(lambda c: mc.rank_models({"a": {("mean", 1): nan_rows(20)}}, c.labels)),
    "model_choice.rank_models: texts of another length": Case(
        lambda c: mc.rank_models({"a": {("mean", 1): c.x}, "b": {("mean", 1): c.x[:10]}}, c.labels)),
    "model_choice.rank_models: no labels": Case(lambda c: mc.rank_models({"a": {("mean", 1): c.x}})),
    "model_choice.rank_models: pairs None": Case(lambda c: mc.rank_models({"a": {("mean", 1): c.x}}, measure="spearman")),
    "model_choice.rank_models: pairs a string": Case(
        lambda c: mc.rank_models({"a": {("mean", 1): c.x}}, pairs="abc", measure="spearman")),
    "model_choice.rank_models: a row out of range": Case(
        lambda c: mc.rank_models({"a": {("mean", 1): c.x}}, pairs=([0] * 5, [20] * 5, range(5)), measure="spearman")),
    "model_choice.probe_cells: None": Case(lambda c: mc.probe_cells(None, c.labels, tm.probe_plan(c.labels))),
    "model_choice.probe_cells: 10 vectors, 20 labels": Case(
        lambda c: mc.probe_cells([c.x, c.x[:10]], c.labels, tm.probe_plan(c.labels))),
    "model_choice.probe_cells: plan None": Case(lambda c: mc.probe_cells([c.x], c.labels, None)),
    "model_choice.probe_cells: jobs 0": Case(lambda c: mc.probe_cells([c.x], c.labels, tm.probe_plan(c.labels), 0)),
    # task measures
    "task_measures.probe_plan: None": Case(lambda c: tm.probe_plan(None)),
    "task_measures.probe_plan: a string": Case(lambda c: tm.probe_plan("aabb")),
    "task_measures.probe_plan: whole numbers, one class alone": Case(lambda c: tm.probe_plan([1, 1, 2, 2, 3]), OK),
    "task_measures.probe_plan: [None, ...]": Case(lambda c: tm.probe_plan([None, None, "a", "a"])),
    "task_measures.probe: 10 vectors, 40 labels": Case(lambda c: tm.probe(c.x[:10], c.labels * 2)),
    "task_measures.probe: whole-number labels": Case(lambda c: tm.probe(c.x, [i % 2 for i in range(20)]), OK),
    "task_measures.probe: NaN vectors": Case(lambda c: tm.probe(nan_rows(20), c.labels)),
    "task_measures.probe: None": Case(lambda c: tm.probe(None, c.labels)),
    "task_measures.probe: 1-D vectors": Case(lambda c: tm.probe(np.ones(20), c.labels)),
    "task_measures.probe: a plan for other labels": Case(lambda c: tm.probe(c.x, c.labels, tm.probe_plan(["a", "a", "b", "b"]))),
    "task_measures.check_pairs: None": Case(lambda c: tm.check_pairs(None)),
    "task_measures.check_pairs: a dict": Case(lambda c: tm.check_pairs({"sentence1": ["a"], "sentence2": ["b"],
                                                                         "score": [1]})),
    "task_measures.check_pairs: a NaN score": Case(lambda c: tm.check_pairs(c.pairs.assign(score=[NaN] + [1.0] * 5))),
    "task_measures.check_pairs: an infinite score": Case(lambda c: tm.check_pairs(c.pairs.assign(score=[np.inf] + [1.0] * 5))),
    "task_measures.pair_cosines: rows differ": Case(lambda c: tm.pair_cosines(c.x, c.x[:5])),
    "task_measures.pair_cosines: NaN": Case(lambda c: tm.pair_cosines(nan_rows(4), nan_rows(4))),
    "task_measures.pair_cosines: None": Case(lambda c: tm.pair_cosines(None, c.x)),
    "task_measures.whitening_axes: 0": Case(lambda c: tm.whitening_axes(0)),
    "task_measures.whitening_axes: None": Case(lambda c: tm.whitening_axes(None)),
    "task_measures.whitening_axes: 2.5": Case(lambda c: tm.whitening_axes(2.5)),
    "task_measures.distinct_rows: None": Case(lambda c: tm.distinct_rows(None)),
    "task_measures.distinct_rows: a string": Case(lambda c: tm.distinct_rows("abc")),
    "task_measures.correlation: NaN gold": Case(lambda c: tm.correlation(c.x[:10], c.y[:10], [NaN] + list(range(9)))),
    "task_measures.correlation: one pair": Case(lambda c: tm.correlation(c.x[:1], c.y[:1], [3.0])),
    "task_measures.correlation: gold of another length": Case(lambda c: tm.correlation(c.x[:10], c.y[:10], range(8))),
    "task_measures.correlation: one gold score": Case(lambda c: tm.correlation(c.x[:10], c.y[:10], [2.0] * 10)),
    "task_measures.correlation: NaN vectors": Case(lambda c: tm.correlation(nan_rows(10), c.y[:10], range(10))),
    "task_measures.correlation: sides of other lengths": Case(lambda c: tm.correlation(c.x[:10], c.y[:9], range(10))),
    "task_measures.correlation: unknown correction": Case(lambda c: tm.correlation(c.x[:10], c.y[:10], range(10), "pca")),
    "task_measures.correlation: reference row 99": Case(
        lambda c: tm.correlation(c.x[:10], c.y[:10], range(10), "mean-centering", [0, 99])),
    "task_measures.correlation: gold None": Case(lambda c: tm.correlation(c.x[:10], c.y[:10], None)),
    "task_measures.correlation: identical vectors": Case(
        lambda c: tm.correlation(np.ones((10, 4)), np.ones((10, 4)), range(10)), NAN),
    # word vectors
    "word_vectors.check_word: None": Case(lambda c: wv.check_word(None)),
    "word_vectors.check_word: two words": Case(lambda c: wv.check_word("river bank")),
    "word_vectors.check_word: punctuation": Case(lambda c: wv.check_word("...")),
    "word_vectors.find_spans: text None": Case(lambda c: wv.find_spans(None, "bank")),
    "word_vectors.find_spans: word None": Case(lambda c: wv.find_spans("the bank", None)),
    "word_vectors.find_spans: empty word": Case(lambda c: wv.find_spans("the bank", "")),
    "word_vectors.word_owners: None": Case(lambda c: wv.word_owners(None)),
    "word_vectors.snippet: text None": Case(lambda c: wv.snippet(None, 0, 1)),
    "word_vectors.snippet: start after end": Case(lambda c: wv.snippet("the bank", 5, 2)),
    "word_vectors.snippet: start past the text": Case(lambda c: wv.snippet("the bank", 50, 60)),
    "word_vectors.occurrences: None": Case(lambda c: wv.occurrences(None, "bank")),
    "word_vectors.occurrences: unknown rule": Case(lambda c: wv.occurrences(c.encodings, "bank", "median")),
    "word_vectors.occurrences: rule a list": Case(lambda c: wv.occurrences(c.encodings, "bank", ["mean"])),
    "word_vectors.occurrences: word None": Case(lambda c: wv.occurrences(c.encodings, None)),
    "word_vectors.suggest_words: None texts": Case(lambda c: wv.suggest_words(None, "bank")),
    "word_vectors.suggest_words: a string as texts": Case(lambda c: wv.suggest_words("the bank", "bank")),
    "word_vectors.suggest_words: word None": Case(lambda c: wv.suggest_words(CORPUS, None)),
    "word_vectors.suggest_words: limit 0": Case(lambda c: wv.suggest_words(CORPUS, "bnak", 0)),
    "word_vectors.suggest_words: limit 2.5": Case(lambda c: wv.suggest_words(CORPUS, "bnak", 2.5)),
    "word_vectors.word_strategies: -1": Case(lambda c: wv.word_strategies(-1)),
    "word_vectors.word_strategies: 0": Case(lambda c: wv.word_strategies(0)),
    "word_vectors.word_strategies: None": Case(lambda c: wv.word_strategies(None)),
    "word_vectors.word_strategies: 1.5": Case(lambda c: wv.word_strategies(1.5)),
    "word_vectors.word_strategies: True": Case(lambda c: wv.word_strategies(True)),
    "word_vectors.stack: None": Case(lambda c: wv.stack(None)),
    # map figures
    "map_figures.drawn_points: -1": Case(lambda c: mf.drawn_points(-1)),
    "map_figures.drawn_points: None": Case(lambda c: mf.drawn_points(None)),
    "map_figures.map_drawing: (points, 3)": Case(lambda c: mf.map_drawing(np.zeros((3, 3)), None, ["a"] * 3)),
    "map_figures.map_drawing: NaN": Case(lambda c: mf.map_drawing(np.array([[0.0, 0.0], [NaN, 1.0], [1.0, 1.0]]), None, ["a"] * 3)),
    "map_figures.map_drawing: fewer texts": Case(lambda c: mf.map_drawing(np.zeros((3, 2)), None, ["a"])),
    "map_figures.map_drawing: fewer labels": Case(lambda c: mf.map_drawing(np.zeros((3, 2)), ["x"], ["a"] * 3)),
    "map_figures.map_drawing: texts None": Case(lambda c: mf.map_drawing(np.zeros((3, 2)), None, None)),
    "map_figures.map_note: -5": Case(lambda c: mf.map_note(-5)),
    "map_figures.map_note: 2.5": Case(lambda c: mf.map_note(2.5)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_raises_a_clear_value_error_or_gives_a_result_without_nan(name: str,
                                                                             bad_input: SimpleNamespace) -> None:
    check(name, CASES[name], bad_input)
