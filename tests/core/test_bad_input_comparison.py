"""Bad input to comparing two models, table-driven: CKA and RSA, word alignment across tokenizers, the untrained
twin and the Compare models page's views. What a case may say, and the inputs ``c`` holds: tests/core/bad_input.py."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from bad_input import CORPUS, NAN, OK, Case, check, nan_rows

from bertviz_core.measures import cka
from bertviz_core.views import layer_matches as lm
from bertviz_core.views import model_comparison as mc
from bertviz_core.model import twin
from bertviz_core.words import word_alignment as wa


def constant_layer(c: SimpleNamespace) -> np.ndarray:
    """c.per_layer (20, 3, 8) with layer 0 the same vector for every text."""
    found = c.per_layer.copy()
    found[:, 0] = found[0, 0]
    return found


def layers(c: SimpleNamespace) -> mc.LayerComparison:
    return mc.compare_layers(c.per_layer, c.per_layer[:, :2, ::-1])


def evidence(c: SimpleNamespace) -> lm.MatchEvidence:
    return lm.match_evidence(c.per_layer, c.per_layer[:, :2, ::-1])


def halves(rows: int) -> np.ndarray:
    """(3, rows) weights: three resamples, each drawing rows 0, 2, 4, … once and row 1 twice."""
    weights = np.zeros((3, rows))
    weights[:, ::2], weights[:, 1] = 1, 2
    return weights


CASES: dict[str, Case] = {
    # CKA and RSA
    "cka.cka_matrix: None": Case(lambda c: cka.cka_matrix(None, c.per_layer)),
    "cka.cka_matrix: 2-D": Case(lambda c: cka.cka_matrix(c.x, c.per_layer)),
    "cka.cka_matrix: other texts": Case(lambda c: cka.cka_matrix(c.per_layer[:5], c.per_layer)),
    "cka.cka_matrix: NaN": Case(lambda c: cka.cka_matrix(nan_rows(20, 24).reshape(20, 3, 8), c.per_layer)),
    "cka.cka_matrix: one text": Case(lambda c: cka.cka_matrix(c.per_layer[:1], c.per_layer[:1])),
    "cka.cka_matrix: debiased on 3 texts": Case(lambda c: cka.cka_matrix(c.per_layer[:3], c.per_layer[:3], True)),
    "cka.cka_matrix: debiased 'yes'": Case(lambda c: cka.cka_matrix(c.per_layer, c.per_layer, "yes")),
    "cka.cka_matrix: no layers": Case(lambda c: cka.cka_matrix(np.zeros((5, 0, 8)), np.zeros((5, 1, 8)))),
    "cka.cka_matrix: a constant layer": Case(lambda c: cka.cka_matrix(constant_layer(c), c.per_layer), NAN),
    "cka.cka_matrix: debiased": Case(lambda c: cka.cka_matrix(c.per_layer, c.per_layer[:, :, :5], True), OK),
    "cka.linear_cka: constant": Case(lambda c: cka.linear_cka(constant_layer(c)[:, 0], c.x)),
    "cka.linear_cka: 3-D": Case(lambda c: cka.linear_cka(c.per_layer, c.per_layer)),
    "cka.linear_cka: a string": Case(lambda c: cka.linear_cka("x", c.x)),
    "cka.rsa_matrix: 2 texts": Case(lambda c: cka.rsa_matrix(c.per_layer[:2], c.per_layer[:2])),
    "cka.rsa_matrix: other texts": Case(lambda c: cka.rsa_matrix(c.per_layer, c.per_layer[:4])),
    "cka.rsa_matrix: a zero vector": Case(lambda c: cka.rsa_matrix(np.where(np.arange(20)[:, None, None] == 0, 0.0,
                                                                              c.per_layer), c.per_layer), NAN),
    # word alignment
    "word_alignment.align: texts None": Case(lambda c: wa.align(None, [], [])),
    "word_alignment.align: fewer inputs": Case(lambda c: wa.align(CORPUS, c.b.inputs(CORPUS), c.b.inputs(CORPUS[:2]))),
    "word_alignment.align: max_units 0": Case(lambda c: wa.align(CORPUS, c.b.inputs(CORPUS), c.t.inputs(CORPUS), 0)),
    "word_alignment.align: max_units 1": Case(lambda c: wa.align(CORPUS, c.b.inputs(CORPUS), c.t.inputs(CORPUS), 1), OK),
    "word_alignment.text_units: text None": Case(lambda c: wa.text_units(None, *c.b.inputs(["a"] * 2))),
    "word_alignment.text_units: an input None": Case(lambda c: wa.text_units("a b", c.b.inputs(["a b"])[0], None)),
    "word_alignment.aligned_words: a string as an encoder": Case(lambda c: wa.aligned_words(c.b, "bert", CORPUS)),
    "word_alignment.aligned_words: a string as texts": Case(lambda c: wa.aligned_words(c.b, c.t, "the bank")),
    "word_alignment.aligned_words: progress 3": Case(lambda c: wa.aligned_words(c.b, c.t, CORPUS, 3)),
    "word_alignment.aligned_words: max_units -1": Case(lambda c: wa.aligned_words(c.b, c.t, CORPUS, None, -1)),
    # the untrained twin
    "twin.untrained_twin: a folder without a model": Case(lambda c: twin.untrained_twin(c.tmp, cache=c.tmp / "twins")),
    "cka.cka_tables: one text": Case(lambda c: cka.cka_tables(c.per_layer[:1], c.per_layer[:1])),
    "cka.cka_tables: other texts": Case(lambda c: cka.cka_tables(c.per_layer[:5], c.per_layer)),
    "cka.cka_tables: 3 texts, too few for the debiased estimator": Case(
        lambda c: cka.cka_tables(c.per_layer[:3], c.per_layer[:3]), NAN),
    "cka.cka_tables: both estimators": Case(lambda c: cka.cka_tables(c.per_layer, c.per_layer[:, :, :5]), OK),
    "cka.cka_replicates: weights None": Case(lambda c: cka.cka_replicates(c.per_layer, c.per_layer, None)),
    "cka.cka_replicates: weights of other rows": Case(lambda c: cka.cka_replicates(c.per_layer, c.per_layer,
                                                                                  halves(5))),
    "cka.cka_replicates: negative weights": Case(lambda c: cka.cka_replicates(c.per_layer, c.per_layer,
                                                                             -halves(20))),
    "cka.cka_replicates: a resample of nothing": Case(lambda c: cka.cka_replicates(c.per_layer, c.per_layer,
                                                                                  np.zeros((2, 20)))),
    "cka.cka_replicates: other texts": Case(lambda c: cka.cka_replicates(c.per_layer[:5], c.per_layer, halves(5))),
    "cka.cka_replicates: NaN": Case(lambda c: cka.cka_replicates(nan_rows(20, 24).reshape(20, 3, 8), c.per_layer,
                                                                 halves(20))),
    "cka.cka_replicates: a constant layer": Case(lambda c: cka.cka_replicates(constant_layer(c), c.per_layer,
                                                                              halves(20)), NAN),
    "twin.untrained_twin: seed -1": Case(lambda c: twin.untrained_twin(c.tmp, -1, cache=c.tmp / "twins")),
    # the page's views
    "model_comparison.compare_layers: estimator unknown": Case(lambda c: mc.compare_layers(c.per_layer, c.per_layer, "CKA")),
    "model_comparison.compare_layers: level unknown": Case(
        lambda c: mc.compare_layers(c.per_layer, c.per_layer, level="tokens")),
    "model_comparison.compare_layers: 2 texts": Case(lambda c: mc.compare_layers(c.per_layer[:2], c.per_layer[:2])),
    "model_comparison.compare_layers: left_out -1": Case(
        lambda c: mc.compare_layers(c.per_layer, c.per_layer, left_out=-1)),
    "model_comparison.compare_layers: None": Case(lambda c: mc.compare_layers(None, c.per_layer)),
    "model_comparison.compare_layers: rsa of other layers": Case(
        lambda c: mc.compare_layers(c.per_layer, c.per_layer, rsa=mc.rsa_table(c.per_layer[:, :2], c.per_layer))),
    "model_comparison.rsa_table: 2 texts": Case(lambda c: mc.rsa_table(c.per_layer[:2], c.per_layer[:2])),
    "model_comparison.rsa_table: level unknown": Case(lambda c: mc.rsa_table(c.per_layer, c.per_layer, "tokens")),
    "layer_matches.match_evidence: None": Case(lambda c: lm.match_evidence(None, c.per_layer)),
    "layer_matches.match_evidence: other texts": Case(lambda c: lm.match_evidence(c.per_layer[:5], c.per_layer)),
    "layer_matches.match_evidence: level unknown": Case(lambda c: lm.match_evidence(c.per_layer, c.per_layer,
                                                                                    "tokens")),
    "layer_matches.match_evidence: text_of out of order": Case(
        lambda c: lm.match_evidence(c.per_layer, c.per_layer, "words", np.arange(20)[::-1])),
    "layer_matches.match_evidence: text_of of other rows": Case(
        lambda c: lm.match_evidence(c.per_layer, c.per_layer, "words", np.arange(5))),
    "layer_matches.match_evidence: a constant layer": Case(lambda c: lm.match_evidence(constant_layer(c), c.per_layer),
                                                           NAN),
    "layer_matches.best_matches: None": Case(lambda c: lm.best_matches(None, evidence(c))),
    "layer_matches.best_matches: no evidence": Case(lambda c: lm.best_matches(layers(c), None)),
    "layer_matches.best_matches: evidence of other vectors": Case(
        lambda c: lm.best_matches(layers(c), lm.match_evidence(c.per_layer, c.per_layer))),
    "layer_matches.best_matches: a table": Case(lambda c: lm.best_matches(layers(c), evidence(c)), OK),
    "layer_matches.layer_story: None": Case(lambda c: lm.layer_story(None, evidence(c))),
    "layer_matches.layer_story: a table": Case(lambda c: lm.layer_story(layers(c), evidence(c)), OK),
    "model_comparison.colour_range: None": Case(lambda c: mc.colour_range(None)),
    "model_comparison.colour_range: a table": Case(lambda c: mc.colour_range(layers(c)), OK),
    "model_comparison.same_model: None": Case(lambda c: mc.same_model(None)),
    "model_comparison.comparison_title: None": Case(lambda c: mc.comparison_title(None, "mean", 3, 3)),
    "model_comparison.word_pieces: text None": Case(lambda c: mc.word_pieces(None, *c.b.inputs(["a"] * 2))),
    "model_comparison.word_pieces: an input None": Case(lambda c: mc.word_pieces("a b", None, None)),
    "model_comparison.tokenization_summary: texts None": Case(lambda c: mc.tokenization_summary(None, [], "[UNK]")),
    "model_comparison.tokenization_summary: fewer inputs": Case(
        lambda c: mc.tokenization_summary(CORPUS, c.b.inputs(CORPUS[:1]), "[UNK]")),
    "model_comparison.nearest_side_by_side: query 99": Case(
        lambda c: mc.nearest_side_by_side(c.x[:4], c.y[:4], CORPUS, 99)),
    "model_comparison.nearest_side_by_side: fewer texts": Case(
        lambda c: mc.nearest_side_by_side(c.x, c.y, CORPUS, 0)),
    "model_comparison.nearest_side_by_side: k 0": Case(lambda c: mc.nearest_side_by_side(c.x[:4], c.y[:4], CORPUS, 0, 0)),
    "model_comparison.similarity_pair: fewer texts": Case(lambda c: mc.similarity_pair(c.x, c.y, CORPUS)),
    "model_comparison.similarity_pair: None": Case(lambda c: mc.similarity_pair(None, c.y[:4], CORPUS)),
    "model_comparison.text_choices: None": Case(lambda c: mc.text_choices(None)),
}


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_raises_a_clear_value_error_or_gives_a_result_without_nan(name: str,
                                                                             bad_input: SimpleNamespace) -> None:
    check(name, CASES[name], bad_input)
