"""Bad input to every public function of bertviz_core, table-driven (issue #27, item 5).

Each case calls one function with one bad argument — None, a wrong type (a float, a bool, a string where a list
is wanted), a number out of range (negative, huge, NaN), an unknown registry name, an empty input, lengths that
do not match, NaN in an array, too few rows — and says what must happen:

* ``ERR``: a ``ValueError`` raised by bertviz_core itself (not leaked from numpy or scikit-learn), whose message
  is a sentence a person understands;
* ``OK``: a result, with no NaN anywhere in it;
* ``NAN``: a result holding NaN, which the function's docstring explains.

Any other exception, a result where an error was expected, or an undocumented NaN fails the case. A last test
checks that every public function is in the table or in ``EXEMPT``, with the reason it needs no case.
"""
from __future__ import annotations

import dataclasses
import importlib
import pkgutil
import inspect
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pandas as pd
import pytest
import torch
from conftest import DEVICE, save_tiny_bert

import bertviz_core
from bertviz_core import Encoder, load_encoder
from bertviz_core import attention as att
from bertviz_core import checks as ck
from bertviz_core import comparison as cmp
from bertviz_core import embedding_lens as el
from bertviz_core import encoding as enc
from bertviz_core import identity as idn
from bertviz_core import lengths as ln
from bertviz_core import masked as mk
from bertviz_core import models as mdl
from bertviz_core import neighbours as nb
from bertviz_core import page_registry as pr
from bertviz_core import pooling as pl
from bertviz_core import pooling_grid as pg
from bertviz_core import projection as prj
from bertviz_core import similarity as sim
from bertviz_core import stats as st
from bertviz_core import store as sto
from bertviz_core import task_measures as tm
from bertviz_core import token_index as ti
from bertviz_core import tokens as tk
from bertviz_core import uncertainty as unc
from bertviz_core import vocab as vc
from bertviz_core import word_vectors as wv

ERR, OK, NAN = "error", "result", "documented NaN"
NaN = float("nan")
MASKED = "The man went to the [MASK] to buy milk."
CORPUS = ["The bank raised its rates.", "We sat on the river bank.", "The bank vault was open.",
          "A heron flew over the river."]
# Every module of the core (packages aside: recipes write code, corpora hold texts), found, not listed, so a
# new module's public functions need cases here.
MODULES = tuple(m.name for m in pkgutil.iter_modules(bertviz_core.__path__) if not m.ispkg and m.name != "__main__")


@dataclass(frozen=True)
class Case:
    call: Callable[[SimpleNamespace], Any]
    outcome: str = ERR


def nan_rows(rows: int, dim: int = 8) -> np.ndarray:
    x = np.random.default_rng(1).normal(size=(rows, dim))
    x[1, 2] = np.nan
    return x


# ---- the table ----------------------------------------------------------------------------------------------
# Keys are "module.function: what is bad" ("Encoder.method: ..." for the Encoder's methods); ``c`` holds the
# encoders and the inputs the core made from them (see the ``c`` fixture below).
CASES: dict[str, Case] = {
    # Encoder: texts
    "Encoder.tokenize: None": Case(lambda c: c.b.tokenize(None)),
    "Encoder.tokenize: a number": Case(lambda c: c.b.tokenize(5)),
    "Encoder.tokenize: a number as the pair": Case(lambda c: c.b.tokenize("a", 5)),
    "Encoder.tokenize: a lone surrogate": Case(lambda c: c.b.tokenize("a \ud800 b")),
    "Encoder.tokenize: pad_to 8.5": Case(lambda c: c.b.tokenize("a b", pad_to=8.5)),
    "Encoder.tokenize: pad_to True": Case(lambda c: c.b.tokenize("a b", pad_to=True)),
    "Encoder.tokenize: pad_to -1": Case(lambda c: c.b.tokenize("a b", pad_to=-1)),
    "Encoder.tokenize: pad_to 10**9": Case(lambda c: c.b.tokenize("a b", pad_to=10**9)),
    "Encoder.tokenize: pad_to NaN": Case(lambda c: c.b.tokenize("a b", pad_to=NaN)),
    "Encoder.tokenize: empty text": Case(lambda c: c.b.tokenize(""), OK),
    "Encoder.lengths: None": Case(lambda c: c.b.lengths(None)),
    "Encoder.lengths: a string": Case(lambda c: c.b.lengths("a text")),
    "Encoder.lengths: a number": Case(lambda c: c.b.lengths(5)),
    "Encoder.lengths: [None]": Case(lambda c: c.b.lengths([None])),
    "Encoder.lengths: no texts": Case(lambda c: c.b.lengths([]), OK),
    "Encoder.encode: None": Case(lambda c: c.b.encode(None)),
    "Encoder.encode: a string": Case(lambda c: c.b.encode("a text")),
    "Encoder.encode: [None]": Case(lambda c: c.b.encode([None])),
    "Encoder.encode: a number": Case(lambda c: c.b.encode(3)),
    "Encoder.encode: fewer pairs than texts": Case(lambda c: c.b.encode(["a", "b"], ["c"])),
    "Encoder.encode: a string as the pairs": Case(lambda c: c.b.encode(["a"], "b")),
    "Encoder.encode: [None] as the pairs": Case(lambda c: c.b.encode(["a"], [None])),
    "Encoder.encode: no texts": Case(lambda c: c.b.encode([]), OK),
    "Encoder.encode_each: None": Case(lambda c: list(c.b.encode_each(None))),
    "Encoder.encode_each: progress not callable": Case(lambda c: list(c.b.encode_each(["a"], progress=5))),
    "token_index.token_index: None": Case(lambda c: ti.token_index(c.t, None)),
    "token_index.token_index: a string": Case(lambda c: ti.token_index(c.t, "a text")),
    "token_index.token_index: no texts": Case(lambda c: ti.token_index(c.t, [])),
    "token_index.token_index: only blank texts": Case(lambda c: ti.token_index(c.t, ["", "  "])),
    "token_index.token_index: progress not callable": Case(lambda c: ti.token_index(c.t, ["a"], progress="x")),
    "Encoder.embed: None": Case(lambda c: c.b.embed(None)),
    "Encoder.embed: a string": Case(lambda c: c.b.embed("a text")),
    "Encoder.embed: strategies a string": Case(lambda c: c.b.embed(["a"], "mean")),
    "Encoder.embed: unknown strategy": Case(lambda c: c.b.embed(["a"], ["median"])),
    "Encoder.embed: [None] strategies": Case(lambda c: c.b.embed(["a"], [None])),
    "Encoder.embed: a list inside strategies": Case(lambda c: c.b.embed(["a"], [["mean"]])),
    "Encoder.embed: no strategies": Case(lambda c: c.b.embed(["a"], [])),
    "Encoder.embed: pooler without pooler weights": Case(lambda c: c.nopool.embed(["a"], ["pooler"])),
    "Encoder.embed: progress not callable": Case(lambda c: c.b.embed(["a"], progress=1)),
    "Encoder.embed: no texts": Case(lambda c: c.b.embed([]), OK),
    "Encoder.attentions: None": Case(lambda c: c.t.attentions(None)),
    "Encoder.attentions: a string": Case(lambda c: c.t.attentions("a text")),
    "Encoder.attentions: fewer pairs than texts": Case(lambda c: c.t.attentions(["a", "b"], ["c"])),
    "Encoder.attentions: no texts": Case(lambda c: c.t.attentions([]), OK),
    "Encoder.inputs: None": Case(lambda c: c.b.inputs(None)),
    "Encoder.inputs: [5]": Case(lambda c: c.b.inputs([5])),
    "masked.fill_mask: encoder None": Case(lambda c: mk.fill_mask(None, MASKED)),
    "masked.fill_mask: top_k 0": Case(lambda c: mk.fill_mask(c.m, MASKED, 0)),
    "masked.masks: encoder a string": Case(lambda c: mk.masks("bert", MASKED)),
    "token_index.token_index: encoder None": Case(lambda c: ti.token_index(None, ["a"])),
    "vocab.token_names: count -1": Case(lambda c: vc.token_names(c.b.tokenizer, -1)),
    "vocab.token_names: count None": Case(lambda c: vc.token_names(c.b.tokenizer, None)),
    "vocab.token_names: past the vocabulary": Case(lambda c: vc.token_names(c.b.tokenizer, 30600), OK),
    "masked.masks: None": Case(lambda c: mk.masks(c.b, None)),
    "masked.masks: a number": Case(lambda c: mk.masks(c.b, 5)),
    "masked.masks: a list": Case(lambda c: mk.masks(c.b, [MASKED])),
    "masked.masks: no mask": Case(lambda c: mk.masks(c.b, "No mask here.")),
    "masked.logit_lens: None": Case(lambda c: mk.logit_lens(c.m, None)),
    "masked.logit_lens: top_k None": Case(lambda c: mk.logit_lens(c.m, MASKED, None)),
    "masked.logit_lens: top_k 2.5": Case(lambda c: mk.logit_lens(c.m, MASKED, 2.5)),
    "masked.logit_lens: top_k True": Case(lambda c: mk.logit_lens(c.m, MASKED, True)),
    "masked.logit_lens: top_k 0": Case(lambda c: mk.logit_lens(c.m, MASKED, 0)),
    "masked.logit_lens: top_k NaN": Case(lambda c: mk.logit_lens(c.m, MASKED, NaN)),
    "masked.logit_lens: hidden id 10**9": Case(lambda c: mk.logit_lens(c.m, MASKED, 5, [10**9])),
    "masked.logit_lens: hidden id NaN": Case(lambda c: mk.logit_lens(c.m, MASKED, 5, [NaN])),
    "masked.logit_lens: hidden id -5": Case(lambda c: mk.logit_lens(c.m, MASKED, 5, [-5])),
    "masked.logit_lens: hidden id 2.5": Case(lambda c: mk.logit_lens(c.m, MASKED, 5, [2.5])),
    "masked.logit_lens: hidden id True": Case(lambda c: mk.logit_lens(c.m, MASKED, 5, [True])),
    "masked.logit_lens: more hidden ids than masks": Case(lambda c: mk.logit_lens(c.m, MASKED, 5, [2000, 2001])),
    "masked.logit_lens: hidden ids a string": Case(lambda c: mk.logit_lens(c.m, MASKED, 5, "2000")),
    "masked.logit_lens: hidden ids None": Case(lambda c: mk.logit_lens(c.m, MASKED, 5, None), OK),
    "masked.logit_lens: hidden id unknown (None)": Case(lambda c: mk.logit_lens(c.m, MASKED, 5, [None]), OK),
    "masked.check_hidden_ids: more ids than masks": Case(lambda c: mk.check_hidden_ids([1, 2], 1, 100)),
    "masked.check_hidden_ids: id past the vocabulary": Case(lambda c: mk.check_hidden_ids([100], 1, 100)),
    "masked.check_hidden_ids: fewer ids than masks": Case(lambda c: mk.check_hidden_ids([5], 2, 100), OK),
    "masked.logit_lens: a model without a head": Case(lambda c: mk.logit_lens(c.b, MASKED)),
    "embedding_lens.nearest_input_embeddings: text None": Case(lambda c: el.nearest_input_embeddings(c.b, None)),
    "embedding_lens.nearest_input_embeddings: no mask": Case(lambda c: el.nearest_input_embeddings(c.b, "No mask.")),
    "embedding_lens.nearest_input_embeddings: top_k 2.5": Case(lambda c: el.nearest_input_embeddings(c.b, MASKED, 2.5)),
    "embedding_lens.nearest_input_embeddings: top_k 0": Case(lambda c: el.nearest_input_embeddings(c.b, MASKED, 0)),
    "embedding_lens.nearest_input_embeddings: the bundled model": Case(
        lambda c: el.nearest_input_embeddings(c.b, MASKED), OK),
    "embedding_lens.nearest_to_states: states None": Case(lambda c: el.nearest_to_states(c.b, None, [1])),
    "embedding_lens.nearest_to_states: two axes": Case(lambda c: el.nearest_to_states(c.b, np.zeros((7, 384)), [1])),
    "embedding_lens.nearest_to_states: another width": Case(
        lambda c: el.nearest_to_states(c.b, np.ones((7, 5, 32)), [1])),
    "embedding_lens.nearest_to_states: NaN": Case(lambda c: el.nearest_to_states(c.b, np.full((7, 5, 384), NaN), [1])),
    "embedding_lens.nearest_to_states: position past the tokens": Case(
        lambda c: el.nearest_to_states(c.b, np.ones((7, 5, 384)), [5])),
    "embedding_lens.nearest_to_states: position 1.5": Case(
        lambda c: el.nearest_to_states(c.b, np.ones((7, 5, 384)), [1.5])),
    "embedding_lens.nearest_to_states: top_k 0": Case(
        lambda c: el.nearest_to_states(c.b, np.ones((7, 5, 384)), [1], 0)),
    "embedding_lens.nearest_to_states: float64 states": Case(
        lambda c: el.nearest_to_states(c.b, np.ones((7, 5, 384)), [1, 2]), OK),
    "Encoder.fill_mask: None": Case(lambda c: c.m.fill_mask(None)),
    "Encoder.fill_mask: top_k 2.5": Case(lambda c: c.m.fill_mask(MASKED, 2.5)),
    "Encoder.fill_mask: top_k True": Case(lambda c: c.m.fill_mask(MASKED, True)),
    "Encoder.fill_mask: top_k -1": Case(lambda c: c.m.fill_mask(MASKED, -1)),
    "Encoder.fill_mask: top_k 10**9": Case(lambda c: c.m.fill_mask(MASKED, 10**9)),
    "Encoder.fill_mask: top_k a string": Case(lambda c: c.m.fill_mask(MASKED, "5")),
    "Encoder.fill_mask: no mask": Case(lambda c: c.m.fill_mask("No mask here.")),
    "Encoder.word_vectors: None texts": Case(lambda c: c.b.word_vectors(None, "bank")),
    "Encoder.word_vectors: a string as texts": Case(lambda c: c.b.word_vectors("the bank", "bank")),
    "Encoder.word_vectors: None word": Case(lambda c: c.b.word_vectors(CORPUS, None)),
    "Encoder.word_vectors: unknown subword rule": Case(lambda c: c.b.word_vectors(CORPUS, "bank", "median")),
    "Encoder.word_vectors: subword rule a list": Case(lambda c: c.b.word_vectors(CORPUS, "bank", ["mean"])),
    "Encoder.word_vectors: a word not present": Case(lambda c: c.b.word_vectors(CORPUS, "zebra"), OK),
    "encoder.load_encoder: a number": Case(lambda c: load_encoder(123, device="cpu")),
    "encoder.load_encoder: a list": Case(lambda c: load_encoder(["bert-base-uncased"], device="cpu")),
    "encoder.load_encoder: unknown device": Case(lambda c: load_encoder(device="gpu")),
    "encoder.load_encoder: device None": Case(lambda c: load_encoder(device=None)),
    "encoder.load_encoder: a folder that is no model": Case(lambda c: load_encoder(str(c.tmp), device="cpu")),
    "models.describe: a number": Case(lambda c: bertviz_core.describe(123)),
    "models.describe: unknown device with a hub id": Case(lambda c: bertviz_core.describe("bert-base-uncased", "gpu")),
    "models.describe: unknown device": Case(lambda c: bertviz_core.describe(None, "gpu")),
    "models.resolve_source: a number": Case(lambda c: mdl.resolve_source(5)),
    "models.resolve_device: None": Case(lambda c: mdl.resolve_device(None)),
    "models.resolve_device: a list": Case(lambda c: mdl.resolve_device(["cpu"])),
    # the shared checks themselves
    "checks.encoder: a dict": Case(lambda c: ck.encoder({"info": 1})),
    "Encoder.encode_inputs: items None": Case(lambda c: list(c.b.encode_inputs(None, ["a"]))),
    "checks.whole_number: 1.5": Case(lambda c: ck.whole_number(1.5, "layer", 0, 6)),
    "checks.whole_number: no allowed value": Case(lambda c: ck.whole_number(0, "token", 0, -1)),
    "checks.real_number: NaN": Case(lambda c: ck.real_number(NaN, "margin", 0)),
    "checks.choice: a list": Case(lambda c: ck.choice(["cosine"], "metric", sim.METRICS)),
    "checks.items: a string": Case(lambda c: ck.items("abc", "texts", "texts")),
    "checks.strings: [1]": Case(lambda c: ck.strings([1], "texts")),
    "checks.texts: a lone surrogate": Case(lambda c: ck.texts(["\ud800"])),
    "checks.text: bytes": Case(lambda c: ck.text(b"bank")),
    "checks.labels: a float": Case(lambda c: ck.labels(["a", 1.5])),
    "checks.indices: True": Case(lambda c: ck.indices([True], "layers", 6)),
    "checks.numbers: strings": Case(lambda c: ck.numbers(["a", "b"], "vectors", "(n,)")),
    "checks.numbers: a dict": Case(lambda c: ck.numbers({"a": 1}, "vectors", "(n,)")),
    "checks.numbers: infinity": Case(lambda c: ck.numbers([1.0, np.inf], "vectors", "(n,)")),
    "checks.vector: other width": Case(lambda c: ck.vector(np.ones(3), "query", 4)),
    "checks.same_rows: other lengths": Case(lambda c: ck.same_rows(np.ones(3), [1], "vectors", "labels")),
    "checks.frame: a dict": Case(lambda c: ck.frame({"a": [1]}, "pairs")),
    "checks.instance: None": Case(lambda c: ck.instance(None, nb.TokenIndex, "index", "Encoder.token_index")),
    "checks.callback: a number": Case(lambda c: ck.callback(3)),
    "checks.shown: a long text": Case(lambda c: ck.shown("x" * 500), OK),
    "checks.is_whole: None": Case(lambda c: ck.is_whole(None), OK),
    # encoding
    "encoding.check_unicode: None": Case(lambda c: enc.check_unicode(None)),
    "encoding.check_unicode: a number": Case(lambda c: enc.check_unicode(5)),
    # attention
    "attention.is_punctuation: None": Case(lambda c: att.is_punctuation(None)),
    "attention.is_punctuation: a number": Case(lambda c: att.is_punctuation(5)),
    "attention.is_punctuation: empty": Case(lambda c: att.is_punctuation(""), OK),
    "attention.token_roles: None": Case(lambda c: att.token_roles(None, "[CLS]", "[SEP]")),
    "attention.token_roles: a string": Case(lambda c: att.token_roles("abc", "[CLS]", "[SEP]")),
    "attention.token_roles: [None]": Case(lambda c: att.token_roles([None], "[CLS]", "[SEP]")),
    "attention.token_roles: cls_token None": Case(lambda c: att.token_roles(["a"], None, "[SEP]")),
    "attention.head_statistics: None": Case(lambda c: att.head_statistics(None, c.roles)),
    "attention.head_statistics: 3-D weights": Case(lambda c: att.head_statistics(c.weights[0], c.roles)),
    "attention.head_statistics: NaN weights": Case(lambda c: att.head_statistics(c.nan_weights, c.roles)),
    "attention.head_statistics: roles of another text": Case(lambda c: att.head_statistics(c.weights, c.long_roles)),
    "attention.head_statistics: roles None": Case(lambda c: att.head_statistics(c.weights, None)),
    "attention.statistic_grid: unknown statistic": Case(lambda c: att.statistic_grid(c.statistics, "median")),
    "attention.statistic_grid: None": Case(lambda c: att.statistic_grid(None, "self")),
    "attention.mean_weights: no heads": Case(lambda c: att.mean_weights(c.weights, [0], [])),
    "attention.mean_weights: no layers": Case(lambda c: att.mean_weights(c.weights, [], [0])),
    "attention.mean_weights: layer 99": Case(lambda c: att.mean_weights(c.weights, [99])),
    "attention.mean_weights: layer -1": Case(lambda c: att.mean_weights(c.weights, [-1])),
    "attention.mean_weights: layer 1.5": Case(lambda c: att.mean_weights(c.weights, [1.5])),
    "attention.mean_weights: layers a string": Case(lambda c: att.mean_weights(c.weights, "0")),
    "attention.mean_weights: head True": Case(lambda c: att.mean_weights(c.weights, [0], [True])),
    "attention.mean_weights: None weights": Case(lambda c: att.mean_weights(None)),
    "attention.mean_weights: all (None)": Case(lambda c: att.mean_weights(c.weights, None, None), OK),
    "attention.from_tokens: no tokens": Case(lambda c: att.from_tokens(c.weights, [])),
    "attention.from_tokens: token 99": Case(lambda c: att.from_tokens(c.weights, [99])),
    "attention.from_tokens: token -1": Case(lambda c: att.from_tokens(c.weights, [-1])),
    "attention.from_tokens: tokens None": Case(lambda c: att.from_tokens(c.weights, None)),
    "attention.token_view: token 99": Case(lambda c: att.token_view(c.weights, c.rolled, 99)),
    "attention.token_view: token -1": Case(lambda c: att.token_view(c.weights, c.rolled, -1)),
    "attention.token_view: token 1.5": Case(lambda c: att.token_view(c.weights, c.rolled, 1.5)),
    "attention.token_view: token None": Case(lambda c: att.token_view(c.weights, c.rolled, None)),
    "attention.token_view: rollout of another text": Case(lambda c: att.token_view(c.weights, c.long_rolled, 1)),
    "attention.rollout: None": Case(lambda c: att.rollout(None)),
    "attention.rollout: 3-D weights": Case(lambda c: att.rollout(c.weights[0])),
    "attention.rollout: NaN weights": Case(lambda c: att.rollout(c.nan_weights)),
    "attention.rollout: no tokens": Case(lambda c: att.rollout(np.zeros((2, 2, 0, 0), dtype=np.float32))),
    "attention.thumbnails: 0 tokens": Case(lambda c: att.thumbnails(c.long_weights, 0)),
    "attention.thumbnails: -1 tokens": Case(lambda c: att.thumbnails(c.long_weights, -1)),
    "attention.thumbnails: 2.5 tokens": Case(lambda c: att.thumbnails(c.long_weights, 2.5)),
    "attention.thumbnails: True": Case(lambda c: att.thumbnails(c.long_weights, True)),
    "attention.thumbnails: None weights": Case(lambda c: att.thumbnails(None, 4)),
    "attention.check_weights: pairs of tokens not square": Case(lambda c: att.check_weights(np.ones((2, 2, 3, 4)))),
    "attention.summarize: None": Case(lambda c: att.summarize(None, c.roles)),
    "attention.summarize: NaN weights": Case(lambda c: att.summarize(c.nan_weights, c.roles)),
    "attention.summarize: roles of another text": Case(lambda c: att.summarize(c.weights, c.long_roles)),
    "attention.summarize: one token": Case(lambda c: att.summarize(c.one_weights, c.one_roles), NAN),
    # comparison
    "comparison.rows_code: None": Case(lambda c: cmp.rows_code(None)),
    "comparison.rows_code: a number": Case(lambda c: cmp.rows_code(2)),
    "comparison.compare: None": Case(lambda c: cmp.compare(None, c.ref, "cosine", "none")),
    "comparison.compare: unknown metric": Case(lambda c: cmp.compare(c.x[:4], c.ref, "manhattan", "none")),
    "comparison.compare: unknown correction": Case(lambda c: cmp.compare(c.x[:4], c.ref, "cosine", "pca")),
    "comparison.compare: a reference of 1 row": Case(lambda c: cmp.compare(c.x[:4], c.ref[:1], "cosine", "none")),
    "comparison.compare: a reference of 3 rows": Case(lambda c: cmp.compare(c.x[:4], c.ref[:3], "cosine", "none")),
    "comparison.compare: other dimensions": Case(lambda c: cmp.compare(c.x[:4, :5], c.ref, "cosine", "none")),
    "comparison.compare: NaN sentences": Case(lambda c: cmp.compare(nan_rows(4), c.ref, "cosine", "none")),
    "comparison.compare: NaN reference": Case(lambda c: cmp.compare(c.x[:4], nan_rows(12), "dot product", "none")),
    "comparison.compare: axes 0": Case(lambda c: cmp.compare(c.x[:4], c.ref, "cosine", "whitening", 0)),
    "comparison.compare: axes -1": Case(lambda c: cmp.compare(c.x[:4], c.ref, "cosine", "whitening", -1)),
    "comparison.compare: axes 2.5": Case(lambda c: cmp.compare(c.x[:4], c.ref, "cosine", "whitening", 2.5)),
    "comparison.ranking: query 99": Case(lambda c: cmp.ranking(c.comparison, 99, c.texts4)),
    "comparison.ranking: query -1": Case(lambda c: cmp.ranking(c.comparison, -1, c.texts4)),
    "comparison.ranking: query 1.5": Case(lambda c: cmp.ranking(c.comparison, 1.5, c.texts4)),
    "comparison.ranking: texts of another length": Case(lambda c: cmp.ranking(c.comparison, 0, c.texts4[:2])),
    "comparison.ranking: comparison None": Case(lambda c: cmp.ranking(None, 0, c.texts4)),
    "comparison.pair_versus_alone: one text alone": Case(lambda c: cmp.pair_versus_alone(c.pair, c.alone[:1])),
    "comparison.pair_versus_alone: None": Case(lambda c: cmp.pair_versus_alone(None, c.alone)),
    # neighbours
    "token_index.check_index: a frame": Case(lambda c: ti.check_index(c.index.tokens)),
    "neighbours.own_sentences: None sentence": Case(lambda c: nb.own_sentences(CORPUS, None)),
    "neighbours.own_sentences: None texts": Case(lambda c: nb.own_sentences(None, "a")),
    "neighbours.own_sentences: a string as texts": Case(lambda c: nb.own_sentences("a text", "a")),
    "neighbours.scores_against: unknown metric": Case(lambda c: nb.scores_against(c.x, c.x[0], "manhattan")),
    "neighbours.scores_against: metric a list": Case(lambda c: nb.scores_against(c.x, c.x[0], ["cosine"])),
    "neighbours.scores_against: NaN query": Case(lambda c: nb.scores_against(c.x, nan_rows(2)[1], "dot product")),
    "neighbours.scores_against: other dimensions": Case(lambda c: nb.scores_against(c.x, c.x[0, :3], "cosine")),
    "neighbours.scores_against: None query": Case(lambda c: nb.scores_against(c.x, None, "cosine")),
    "neighbours.check_k: True": Case(lambda c: nb.check_k(True, 10, "neighbour")),
    "neighbours.check_k: 2.5": Case(lambda c: nb.check_k(2.5, 10, "neighbour")),
    "neighbours.check_k: 0": Case(lambda c: nb.check_k(0, 10, "neighbour")),
    "neighbours.check_k: NaN": Case(lambda c: nb.check_k(NaN, 10, "neighbour")),
    "neighbours.check_k: None": Case(lambda c: nb.check_k(None, 10, "neighbour")),
    "neighbours.check_k: 10**9": Case(lambda c: nb.check_k(10**9, 10, "neighbour"), OK),
    "neighbours.nearest_tokens: layer 1.5": Case(lambda c: nb.nearest_tokens(c.index, c.query, 1.5, 3)),
    "neighbours.nearest_tokens: layer True": Case(lambda c: nb.nearest_tokens(c.index, c.query, True, 3)),
    "neighbours.nearest_tokens: layer -1": Case(lambda c: nb.nearest_tokens(c.index, c.query, -1, 3)),
    "neighbours.nearest_tokens: layer 99": Case(lambda c: nb.nearest_tokens(c.index, c.query, 99, 3)),
    "neighbours.nearest_tokens: layer None": Case(lambda c: nb.nearest_tokens(c.index, c.query, None, 3)),
    "neighbours.nearest_tokens: vector None": Case(lambda c: nb.nearest_tokens(c.index, None, 1, 3)),
    "neighbours.nearest_tokens: NaN vector": Case(lambda c: nb.nearest_tokens(c.index, c.nan_query, 1, 3)),
    "neighbours.nearest_tokens: vector of another width": Case(lambda c: nb.nearest_tokens(c.index, c.query[:5], 1, 3)),
    "neighbours.nearest_tokens: unknown metric": Case(lambda c: nb.nearest_tokens(c.index, c.query, 1, 3, "l1")),
    "neighbours.nearest_tokens: k 0": Case(lambda c: nb.nearest_tokens(c.index, c.query, 1, 0)),
    "neighbours.nearest_tokens: k 2.5": Case(lambda c: nb.nearest_tokens(c.index, c.query, 1, 2.5)),
    "neighbours.nearest_tokens: exclude None": Case(lambda c: nb.nearest_tokens(c.index, c.query, 1, 3, exclude=None)),
    "neighbours.nearest_tokens: exclude sentence 99": Case(lambda c: nb.nearest_tokens(c.index, c.query, 1, 3,
                                                                                       exclude=[99])),
    "neighbours.nearest_tokens: every sentence excluded": Case(
        lambda c: nb.nearest_tokens(c.index, c.query, 1, 3, exclude=range(len(CORPUS))), OK),
    "neighbours.nearest_tokens: index None": Case(lambda c: nb.nearest_tokens(None, c.query, 1, 3)),
    "neighbours.in_context: texts of another corpus": Case(lambda c: nb.in_context(c.found, ("a",))),
    "neighbours.layer_summary: one vector, not one per layer": Case(
        lambda c: nb.layer_summary(c.index, c.query, "bank", 3)),
    "neighbours.layer_summary: word None": Case(lambda c: nb.layer_summary(c.index, c.query_layers, None, 3)),
    "neighbours.layer_summary: k 0": Case(lambda c: nb.layer_summary(c.index, c.query_layers, "bank", 0)),
    "neighbours.nearest_sentences: unknown strategy": Case(
        lambda c: nb.nearest_sentences(c.pooled, c.pooled_query, "median", 1, 2)),
    "neighbours.nearest_sentences: a strategy not embedded": Case(
        lambda c: nb.nearest_sentences(c.pooled_mean, c.pooled_query, "max", 1, 2)),
    "neighbours.nearest_sentences: layer 99": Case(lambda c: nb.nearest_sentences(c.pooled, c.pooled_query, "mean", 99, 2)),
    "neighbours.nearest_sentences: layer 1.5": Case(
        lambda c: nb.nearest_sentences(c.pooled, c.pooled_query, "mean", 1.5, 2)),
    "neighbours.nearest_sentences: layer -1": Case(lambda c: nb.nearest_sentences(c.pooled, c.pooled_query, "mean", -1, 2)),
    "neighbours.nearest_sentences: no layer for a per-layer strategy": Case(
        lambda c: nb.nearest_sentences(c.pooled, c.pooled_query, "mean", None, 2)),
    "neighbours.nearest_sentences: no layer for the pooler": Case(
        lambda c: nb.nearest_sentences(c.pooled, c.pooled_query, "pooler", None, 2), OK),
    "neighbours.nearest_sentences: k 0": Case(lambda c: nb.nearest_sentences(c.pooled, c.pooled_query, "mean", 1, 0)),
    "neighbours.nearest_sentences: a query of two texts": Case(
        lambda c: nb.nearest_sentences(c.pooled, c.pooled, "mean", 1, 2)),
    "neighbours.nearest_sentences: NaN query": Case(
        lambda c: nb.nearest_sentences(c.pooled, c.nan_pooled_query, "mean", 1, 2, "dot product")),
    "neighbours.nearest_sentences: pooled None": Case(lambda c: nb.nearest_sentences(None, c.pooled_query, "mean", 1, 2)),
    "neighbours.mean_cosine_across_sentences: lengths differ": Case(
        lambda c: nb.mean_cosine_across_sentences(np.ones((3, 4)), np.zeros(2, dtype=int), np.arange(3))),
    "neighbours.mean_cosine_across_sentences: one sentence": Case(
        lambda c: nb.mean_cosine_across_sentences(np.ones((3, 4)), np.zeros(3, dtype=int), np.zeros(3, dtype=int)), NAN),
    "neighbours.self_similarity: None": Case(lambda c: nb.self_similarity(c.index, None)),
    "neighbours.self_similarity: a number": Case(lambda c: nb.self_similarity(c.index, 5)),
    "neighbours.self_similarity: a word not there": Case(lambda c: nb.self_similarity(c.index, "zebra")),
    "neighbours.self_similarity: index None": Case(lambda c: nb.self_similarity(None, "bank")),
    "neighbours.corpus_self_similarity: min_contexts 0": Case(lambda c: nb.corpus_self_similarity(c.index, 0)),
    "neighbours.corpus_self_similarity: min_contexts 1.5": Case(lambda c: nb.corpus_self_similarity(c.index, 1.5)),
    "neighbours.corpus_self_similarity: min_contexts None": Case(lambda c: nb.corpus_self_similarity(c.index, None)),
    "neighbours.corpus_self_similarity: no word that often": Case(lambda c: nb.corpus_self_similarity(c.index, 10**9),
                                                                  NAN),
    "neighbours.intra_sentence_similarity: one token per sentence": Case(
        lambda c: nb.intra_sentence_similarity(c.one_token_index), NAN),
    "neighbours.intra_sentence_similarity: None": Case(lambda c: nb.intra_sentence_similarity(None)),
    "neighbours.anisotropy_baseline: 0 pairs": Case(lambda c: nb.anisotropy_baseline(c.index, 0)),
    "neighbours.anisotropy_baseline: -1 pairs": Case(lambda c: nb.anisotropy_baseline(c.index, -1)),
    "neighbours.anisotropy_baseline: 2.5 pairs": Case(lambda c: nb.anisotropy_baseline(c.index, 2.5)),
    "neighbours.anisotropy_baseline: one sentence": Case(lambda c: nb.anisotropy_baseline(c.one_sentence_index)),
    "neighbours.adjusted: lengths differ": Case(lambda c: nb.adjusted(np.ones(3), np.ones(4))),
    "neighbours.adjusted: None": Case(lambda c: nb.adjusted(None, np.ones(4))),
    "neighbours.contextuality: min_contexts -1": Case(lambda c: nb.contextuality(c.index, -1)),
    "neighbours.contextuality: index None": Case(lambda c: nb.contextuality(None)),
    "neighbours.contextuality: one token per sentence": Case(lambda c: nb.contextuality(c.one_token_index), NAN),
    "neighbours.word_contextuality: word None": Case(lambda c: nb.word_contextuality(c.index, None, c.context)),
    "neighbours.word_contextuality: corpus None": Case(lambda c: nb.word_contextuality(c.index, "bank", None)),
    # page registry
    "lengths.cut_note: dropped None": Case(lambda c: ln.cut_note(512, None)),
    "lengths.cut_note: a negative count": Case(lambda c: ln.cut_note(512, [-1])),
    "lengths.cut_note: a fractional count": Case(lambda c: ln.cut_note(512, [1.5])),
    "lengths.cut_note: max_length 0": Case(lambda c: ln.cut_note(0, [1])),
    "lengths.cut_note: nothing cut": Case(lambda c: ln.cut_note(512, [0, 0]), OK),
    "lengths.budget_note: lengths None": Case(lambda c: ln.budget_note(None, 10, "Page")),
    "lengths.budget_note: budget NaN": Case(lambda c: ln.budget_note(ln.Lengths.of([[3, 0]]), NaN, "Page")),
    "lengths.budget_note: budget 0": Case(lambda c: ln.budget_note(ln.Lengths.of([[3, 0]]), 0, "Page")),
    "lengths.budget_note: Lengths.of one column": Case(lambda c: ln.Lengths.of([[3], [4]])),
    "lengths.budget_note: Lengths.of a negative count": Case(lambda c: ln.Lengths.of([[3, -1]])),
    "lengths.budget_note: Lengths.of NaN": Case(lambda c: ln.Lengths.of([[NaN, 0]])),
    "lengths.token_budget: a string": Case(lambda c: ln.token_budget("many")),
    "lengths.token_budget: None": Case(lambda c: ln.token_budget(None)),
    "identity.model_identity: location None": Case(lambda c: idn.model_identity(None, None, {})),
    "identity.model_identity: versions a list": Case(lambda c: idn.model_identity("bert-base-uncased", "abc", ["1"])),
    "identity.model_identity: a hub id without revision": Case(lambda c: idn.model_identity("bert", None, {}), OK),
    "identity.content_digest: None": Case(lambda c: idn.content_digest(None)),
    "identity.content_digest: no such file": Case(lambda c: idn.content_digest("/no/such/file.csv")),
    "store.map_arrays: None": Case(lambda c: sto.map_arrays(None, np.asarray)),
    "store.map_arrays: a list of strings": Case(lambda c: sto.map_arrays(["a"], np.asarray)),
    "store.arrays: a number": Case(lambda c: sto.arrays(5)),
    "store.nbytes: a dict of strings": Case(lambda c: sto.nbytes({"a": "b"})),
    "store.to_disk: None": Case(lambda c: sto.to_disk(None, "/tmp")),
    "store.to_disk: an empty array": Case(lambda c: sto.to_disk(np.zeros((0, 3)), "/tmp"), OK),
    "store.digest: None": Case(lambda c: sto.digest(None)),
    "store.digest: one string": Case(lambda c: sto.digest("a text")),
    "store.digest: no texts": Case(lambda c: sto.digest([]), OK),
    "page_registry.page: None": Case(lambda c: pr.page(None)),
    "page_registry.page: unknown": Case(lambda c: pr.page("nope")),
    "page_registry.page: a number": Case(lambda c: pr.page(3)),
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
    "projection.project: UMAP of 3 rows": Case(lambda c: prj.project("UMAP", c.x[:3])),
    "projection.project: UMAP of 2 rows": Case(lambda c: prj.project("UMAP", c.x[:2])),
    "projection.project: t-SNE of 3 rows": Case(lambda c: prj.project("t-SNE", c.x[:3]), OK),
    "projection.project: t-SNE of 2 rows": Case(lambda c: prj.project("t-SNE", c.x[:2])),
    "projection.project: PCA of 1 row": Case(lambda c: prj.project("PCA", c.x[:1])),
    "projection.project: NaN": Case(lambda c: prj.project("PCA", nan_rows(10))),
    "projection.project: None": Case(lambda c: prj.project("PCA", None)),
    "projection.project: identical vectors": Case(lambda c: prj.project("PCA", np.ones((10, 4))), NAN),
    "projection.identical: None": Case(lambda c: prj.identical(None)),
    # similarity
    "similarity.similarity_matrix: None": Case(lambda c: sim.similarity_matrix(None)),
    "similarity.similarity_matrix: NaN": Case(lambda c: sim.similarity_matrix(nan_rows(4))),
    "similarity.similarity_matrix: NaN, dot product": Case(lambda c: sim.similarity_matrix(nan_rows(4), "dot product")),
    "similarity.similarity_matrix: 1-D": Case(lambda c: sim.similarity_matrix(np.ones(8))),
    "similarity.similarity_matrix: unknown metric": Case(lambda c: sim.similarity_matrix(c.x, "manhattan")),
    "similarity.similarity_matrix: metric a list": Case(lambda c: sim.similarity_matrix(c.x, ["cosine"])),
    "similarity.pair_layer_curves: names of another length": Case(lambda c: sim.pair_layer_curves(c.per_layer, ["a"])),
    "similarity.pair_layer_curves: 2-D": Case(lambda c: sim.pair_layer_curves(c.x, ["a"] * 20)),
    "similarity.sense_scores: senses of another length": Case(lambda c: sim.sense_scores(c.x, c.labels[:4])),
    "similarity.sense_scores: NaN vectors": Case(lambda c: sim.sense_scores(nan_rows(20), c.labels)),
    "similarity.sense_scores: one sense": Case(lambda c: sim.sense_scores(c.x, ["a"] * 20), NAN),
    "similarity.same_sense_pairs: None": Case(lambda c: sim.same_sense_pairs(None)),
    "similarity.same_sense_pairs: a string": Case(lambda c: sim.same_sense_pairs("abc")),
    "similarity.score_grid: unknown score": Case(lambda c: sim.score_grid(c.by_rule, c.strategies, c.labels, "f1")),
    "similarity.score_grid: senses of another length": Case(
        lambda c: sim.score_grid(c.by_rule, c.strategies, c.labels[:6])),
    "similarity.score_grid: no sense twice": Case(
        lambda c: sim.score_grid({"mean": c.per_layer[:2]}, c.strategies, ["a", "b"]), NAN),
    "similarity.unscorable: None": Case(lambda c: sim.unscorable(None)),
    "similarity.separation: NaN vectors": Case(lambda c: sim.separation(nan_rows(20), c.labels)),
    "similarity.separation: labels of another length": Case(lambda c: sim.separation(c.x, c.labels[:5])),
    "similarity.separation: one class": Case(lambda c: sim.separation(c.x, ["a"] * 20), NAN),
    "similarity.verdict: None": Case(lambda c: sim.verdict(None, 0.01)),
    "similarity.verdict: negative margin": Case(lambda c: sim.verdict(c.scores, -1)),
    "similarity.verdict: NaN margin": Case(lambda c: sim.verdict(c.scores, NaN)),
    "similarity.verdict: a single score": Case(lambda c: sim.verdict(c.scores.iloc[:1, :1], 0.01), NAN),
    "similarity.fit_correction: unknown": Case(lambda c: sim.fit_correction("pca", c.ref)),
    "similarity.fit_correction: None": Case(lambda c: sim.fit_correction("mean-centering", None)),
    "similarity.fit_correction: NaN": Case(lambda c: sim.fit_correction("mean-centering", nan_rows(12))),
    "similarity.fit_correction: 1-D": Case(lambda c: sim.fit_correction("whitening", np.ones(8))),
    "similarity.fit_correction: one row": Case(lambda c: sim.fit_correction("whitening", c.ref[:1])),
    "similarity.fit_correction: axes 0": Case(lambda c: sim.fit_correction("whitening", c.ref, 0)),
    "similarity.fit_correction: axes -1": Case(lambda c: sim.fit_correction("whitening", c.ref, -1)),
    "similarity.fit_correction: axes 2.5": Case(lambda c: sim.fit_correction("whitening", c.ref, 2.5)),
    "similarity.random_pair_baseline: one row": Case(lambda c: sim.random_pair_baseline(c.x[:1])),
    "similarity.random_pair_baseline: rows 1": Case(lambda c: sim.random_pair_baseline(c.x, rows=1)),
    "similarity.random_pair_baseline: rows 2.5": Case(lambda c: sim.random_pair_baseline(c.x, rows=2.5)),
    "similarity.random_pair_baseline: NaN": Case(lambda c: sim.random_pair_baseline(nan_rows(10), "dot product")),
    "similarity.random_pair_baseline: unknown metric": Case(lambda c: sim.random_pair_baseline(c.x, "l1")),
    "similarity.baseline_band: empty": Case(lambda c: sim.baseline_band(np.zeros(0))),
    "similarity.baseline_band: NaN": Case(lambda c: sim.baseline_band(np.array([0.1, NaN]))),
    "similarity.baseline_band: None": Case(lambda c: sim.baseline_band(None)),
    "similarity.share_below: empty baseline": Case(lambda c: sim.share_below(np.zeros(0), np.ones(3))),
    "similarity.share_below: NaN scores": Case(lambda c: sim.share_below(np.ones(5), np.array([0.5, NaN]))),
    # stats
    "stats.vector_stats: None": Case(lambda c: st.vector_stats(None)),
    "stats.vector_stats: empty": Case(lambda c: st.vector_stats(np.zeros(0))),
    "stats.vector_stats: NaN": Case(lambda c: st.vector_stats(np.array([1.0, NaN]))),
    "stats.vector_stats: 2-D": Case(lambda c: st.vector_stats(c.x)),
    "stats.histogram: bins 0": Case(lambda c: st.histogram(c.x, 0)),
    "stats.histogram: bins -1": Case(lambda c: st.histogram(c.x, -1)),
    "stats.histogram: bins 2.5": Case(lambda c: st.histogram(c.x, 2.5)),
    "stats.histogram: bins True": Case(lambda c: st.histogram(c.x, True)),
    "stats.histogram: NaN": Case(lambda c: st.histogram(nan_rows(4))),
    "stats.histogram: empty": Case(lambda c: st.histogram(np.zeros(0))),
    "stats.layer_stats: token 99": Case(lambda c: st.layer_stats(c.hidden, 99)),
    "stats.layer_stats: token -1": Case(lambda c: st.layer_stats(c.hidden, -1)),
    "stats.layer_stats: token 1.5": Case(lambda c: st.layer_stats(c.hidden, 1.5)),
    "stats.layer_stats: token True": Case(lambda c: st.layer_stats(c.hidden, True)),
    "stats.layer_stats: 2-D states": Case(lambda c: st.layer_stats(c.hidden[0])),
    "stats.layer_stats: None": Case(lambda c: st.layer_stats(None)),
    "stats.layer_stats: NaN states": Case(lambda c: st.layer_stats(c.nan_hidden)),
    "stats.layer_stats: one token": Case(lambda c: st.layer_stats(c.hidden, 0), OK),
    "stats.layer_quantiles: token 99": Case(lambda c: st.layer_quantiles(c.hidden, 99)),
    "stats.layer_quantiles: token -1": Case(lambda c: st.layer_quantiles(c.hidden, -1)),
    "stats.layer_quantiles: NaN states": Case(lambda c: st.layer_quantiles(c.nan_hidden)),
    "stats.check_states: no tokens": Case(lambda c: st.check_states(np.zeros((7, 0, 8)))),
    "stats.check_states: token 7 of 5": Case(lambda c: st.check_states(c.hidden, 7)),
    "stats.token_norms: None": Case(lambda c: st.token_norms(None)),
    "stats.token_norms: 2-D": Case(lambda c: st.token_norms(c.hidden[0])),
    "stats.outlier_mask: z -1": Case(lambda c: st.outlier_mask(c.hidden, st.OutlierRule(z=-1))),
    "stats.outlier_mask: share 2": Case(lambda c: st.outlier_mask(c.hidden, st.OutlierRule(share=2))),
    "stats.outlier_mask: z NaN": Case(lambda c: st.outlier_mask(c.hidden, st.OutlierRule(z=NaN))),
    "stats.outlier_mask: rule None": Case(lambda c: st.outlier_mask(c.hidden, None)),
    "stats.outlier_mask: NaN states": Case(lambda c: st.outlier_mask(c.nan_hidden)),
    "stats.outliers_at: layer 99": Case(lambda c: st.outliers_at(c.hidden, st.OutlierRule(), 99)),
    "stats.outliers_at: layer 1.5": Case(lambda c: st.outliers_at(c.hidden, st.OutlierRule(), 1.5)),
    "stats.outliers_at: layer -1": Case(lambda c: st.outliers_at(c.hidden, st.OutlierRule(), -1)),
    "stats.outlier_dimensions: None": Case(lambda c: st.outlier_dimensions(None)),
    "stats.outlier_dimensions: NaN states": Case(lambda c: st.outlier_dimensions(c.nan_hidden)),
    "similarity.silhouette_per_text: NaN vectors": Case(lambda c: sim.silhouette_per_text(nan_rows(20), c.labels)),
    "similarity.silhouette_per_text: labels of another length": Case(
        lambda c: sim.silhouette_per_text(c.x, c.labels[:5])),
    "similarity.sense_verdict: unknown score": Case(lambda c: sim.sense_verdict(c.by_rule, c.strategies, c.labels, "f1")),
    "similarity.sense_verdict: senses of another length": Case(
        lambda c: sim.sense_verdict(c.by_rule, c.strategies, c.labels[:6])),
    "pooling_grid.silhouette_resampling: 0 texts": Case(lambda c: pg.silhouette_resampling(0)),
    "pooling_grid.silhouette_resampling: 2.5 texts": Case(lambda c: pg.silhouette_resampling(2.5)),
    "uncertainty.bootstrap_indices: no item": Case(lambda c: unc.bootstrap_indices(0)),
    "task_measures.probe_chance: None labels": Case(lambda c: tm.probe_chance(None, tm.probe_plan(c.labels))),
    "task_measures.probe_grid: unknown measure": Case(
        lambda c: tm.probe_grid([], {}, c.labels, tm.probe_plan(c.labels), "f1")),
    "task_measures.corrected_cosines: unknown correction": Case(lambda c: tm.corrected_cosines(c.x, c.x, "zca")),
    "task_measures.correlation_grid: gold of another length": Case(
        lambda c: tm.correlation_grid([pg.Cell("mean", 1)], {"mean": c.per_layer}, {"mean": c.per_layer}, [1.0, 2.0])),
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
    # tokens
    "tokens.annotate_tokens: frame None": Case(lambda c: tk.annotate_tokens(None, "a")),
    "tokens.annotate_tokens: text None": Case(lambda c: tk.annotate_tokens(c.tokens, None)),
    "tokens.unknown_characters: text None": Case(lambda c: tk.unknown_characters(c.tokens, "[UNK]", None)),
    "tokens.highlight_html: text None": Case(lambda c: tk.highlight_html(c.tokens, None)),
    "tokens.highlight_html: frame None": Case(lambda c: tk.highlight_html(None, "a")),
    # vocabulary
    "vocab.token_kind: None": Case(lambda c: vc.token_kind(None, frozenset())),
    "vocab.search_vocabulary: None": Case(lambda c: vc.search_vocabulary(c.vocabulary, None)),
    "vocab.search_vocabulary: a number": Case(lambda c: vc.search_vocabulary(c.vocabulary, 5)),
    "vocab.search_vocabulary: a bad expression": Case(lambda c: vc.search_vocabulary(c.vocabulary, "(?<", True)),
    "vocab.search_vocabulary: empty": Case(lambda c: vc.search_vocabulary(c.vocabulary, ""), OK),
    "vocab.kind_counts: None": Case(lambda c: vc.kind_counts(None)),
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
}

# Public functions without a case, and why none is needed.
EXEMPT: dict[str, str] = {
    **{f"tokenizing.{name}": "batches the ModelInputs the Encoder made itself (Encoder.inputs checks the texts)"
       for name in ("batches", "padded")},
    "tokens.pair_layout": "reads the ModelInput Encoder.inputs made of the pair (\"A\", \"B\")",
    "tokens.token_frame": "lays out the ModelInput Encoder.tokenize made, after checking the text and pad_to",
    "encoder.library_versions": "takes no argument: it reads the installed libraries' versions",
    **{f"store.{name}": "takes no argument: it reads the server's settings or hands freed memory back"
       for name in ("cache_budget", "spill_budget", "spill_folder", "release_free_memory")},
    **{f"figures.{name}": "draws the (checked) output of the functions above; it computes no number"
       for name in ("plain", "plains", "hover_texts", "layer_label", "histogram_figure", "layer_distributions_figure",
                    "heatmap_figure", "token_labels", "attention_figure", "thumbnail_grid_figure", "table_heatmap",
                    "score_grid_figure", "pair_curves_figure", "pca_grid_figure", "unit_square", "pca_grid_spec",
                    "ranking_figure", "guess_grid_figure", "rank_curves_figure", "layer_share_figure",
                    "measures_figure")},
    **{f"masked.{name}": "takes the ModelInput, Word or logits the Encoder made for the same text (masked.masks "
                         "and masked.logit_lens check what the user gives)"
       for name in ("find_masks", "words", "word_labels", "mask_word", "apply_head", "lens")},
    **{f"models.{name}": "loading plumbing behind load_encoder and describe, given what resolve_source resolved"
       for name in ("bundled_model_dir", "read_config", "available_devices", "load_pretrained", "mlm_head",
                    "segments_note", "hub_reachable", "max_length", "config_value", "checkpoint_keys")},
    "Encoder.eager_model": "takes no argument",
    "Encoder.mlm_head": "takes no argument (the 'without a head' error is a logit_lens case)",
    "encoder.record": "writes a log line for tests and benchmarks; no user input",
    "encoding.trim_offset": "trims the offsets the tokenizer gave, inside the Encoder",
    "token_index.index_rows": "builds token_index's rows from its own tokenizer output",
    "token_index.build_index": "fills token_index's index from its own encodings",
    "pooling.supported_strategies": "reads ModelInfo.has_pooler",
    "pooling_grid.cell_title": "formats a Cell and the CellResult score_cell made",
    "pooling_grid.scores_over": "lays out the cells grid_cells made (checked there)",
    "similarity.top_positions": "finds the cells of a Verdict that verdict made for the same table",
    "task_measures.probe_code": "formats teaching code from a plan probe_plan made",
    "task_measures.agreement": "formats two Verdicts that verdict made",
    "pooling_grid.silhouette_grid": "lays out the cells grid_cells made and the CellResults score_cell made",
    **{f"uncertainty.{name}": "works on the replicates and resampling the core's grids made (probe_grid, "
       "correlation_grid, silhouette_grid, sense_verdict, all with cases)"
       for name in ("bootstrap", "folds", "interval", "cell_name", "judge", "mean_replicates", "spearman_replicates",
                    "pair_replicates")},
    "vocab.vocabulary_table": "reads a loaded tokenizer (an Encoder's .tokenizer)",
    "tokens.token_scheme": "reads a loaded tokenizer (Encoder.tokenizer)",
    "word_vectors.word_span": "looks up offsets the tokenizer gave in word_owners' table",
    "word_vectors.one_piece_everywhere": "reads the Occurrences occurrences made",
}


# ---- the encoders and the inputs they make ----------------------------------------------------------------

@pytest.fixture(scope="module")
def c(bundled: Encoder, tiny: Encoder, tiny_no_pooler: Encoder,
      tmp_path_factory: pytest.TempPathFactory) -> SimpleNamespace:
    mlm = load_encoder(str(save_tiny_bert(tmp_path_factory.mktemp("mlm_bad"), layers=2, mlm=True)), device=DEVICE)
    rng = np.random.default_rng(0)
    x, y = rng.normal(size=(20, 8)), rng.normal(size=(20, 8))
    labels = ["a", "b"] * 10
    short, long = bundled.inputs(["The bank.", "A much longer sentence about the river bank and its vault."])
    weights, long_weights = bundled.attentions(["The bank.", "A much longer sentence about the river bank."])
    nan_weights = weights.copy()
    nan_weights[0, 0, 1, 1] = np.nan
    roles = att.token_roles(short.tokens, "[CLS]", "[SEP]")
    long_roles = att.token_roles(long.tokens, "[CLS]", "[SEP]")
    one_weights = np.ones((2, 2, 1, 1), dtype=np.float32)
    index = ti.token_index(bundled, CORPUS)
    query_layers = bundled.encode(["the bank"])[0].hidden_states[:, 2]  # (layers+1, hidden)
    pooled, pooled_query = bundled.embed(CORPUS), bundled.embed(["the bank"])
    nan_pooled_query = {name: np.where(np.arange(v.shape[-1]) == 3, np.nan, v) for name, v in pooled_query.items()}
    hidden = bundled.encode(["The bank vault."])[0].hidden_states
    nan_hidden = hidden.copy()
    nan_hidden[1, 1, 1] = np.nan
    pair = bundled.encode(["The bank."], ["The river."])[0]
    per_layer = rng.normal(size=(20, 3, 8))
    text = "The bank vault."
    (tmp := tmp_path_factory.mktemp("not_a_model")).joinpath("config.json").write_text("{}")
    return SimpleNamespace(
        b=bundled, t=tiny, m=mlm, nopool=tiny_no_pooler, tmp=tmp, x=x, y=y, labels=labels,
        ref=rng.normal(size=(12, 8)), texts4=["a", "b", "c", "d"],
        comparison=cmp.compare(x[:4], rng.normal(size=(12, 8)), "cosine", "none"),
        pair=pair, alone=bundled.encode(["The bank.", "The river."]),
        weights=weights, nan_weights=nan_weights, long_weights=long_weights, roles=roles, long_roles=long_roles,
        rolled=att.rollout(weights), long_rolled=att.rollout(long_weights),
        statistics=att.head_statistics(weights, roles),
        one_weights=one_weights, one_roles=att.token_roles(["x"], "[CLS]", "[SEP]"),
        index=index, one_token_index=ti.token_index(bundled, ["bank", "river"]),
        one_sentence_index=ti.token_index(bundled, ["The bank vault."]),
        query=query_layers[1], nan_query=np.where(np.arange(len(query_layers[1])) == 3, np.nan, query_layers[1]),
        query_layers=query_layers, found=nb.nearest_tokens(index, query_layers[1], 1, 3),
        context=nb.contextuality(index),
        pooled=pooled, pooled_mean={"mean": pooled["mean"]}, pooled_query=pooled_query,
        nan_pooled_query=nan_pooled_query,
        hidden=hidden, nan_hidden=nan_hidden,
        per_layer=per_layer, by_rule={"mean": per_layer, "first": per_layer[:, :, ::-1]},
        strategies={"layer 1": lambda v: v[..., 1, :], "layer 2": lambda v: v[..., 2, :]},
        scores=pd.DataFrame([[0.5, 0.7], [0.6, 0.2]], index=["mean", "max"], columns=["layer 1", "layer 2"]),
        pairs=pd.DataFrame({"sentence1": list("abcdef"), "sentence2": list("ghijkl"), "score": range(6)}),
        tokens=bundled.tokenize(text), vocabulary=vc.vocabulary_table(bundled.tokenizer),
        encodings=bundled.encode(CORPUS),
    )


# ---- checking one case ------------------------------------------------------------------------------------

LIBRARY_SPEAK = ("NoneType", "fits failed", "could not convert", "invalid literal", "object of type", "has no attribute",
                 "unhashable", "operands could not be broadcast", "zero-size array", "Expected 2D array",
                 "Input contains NaN", "index out of bounds", "truth value of an array")


def function_of(name: str) -> Callable:
    """The function a case's key names: "Encoder.tokenize" or "module.function"."""
    owner, function = name.split(":")[0].split(".")
    return getattr(Encoder if owner == "Encoder" else importlib.import_module(f"bertviz_core.{owner}"), function)


def raised_in_core(err: BaseException) -> bool:
    """Whether the innermost frame of ``err``'s traceback is bertviz_core's own code (not numpy's or sklearn's)."""
    frames = traceback.extract_tb(err.__traceback__)
    return bool(frames) and f"{Path(bertviz_core.__file__).parent}" in frames[-1].filename


def nan_in(value: Any, depth: int = 0) -> bool:
    """Whether ``value`` holds NaN anywhere: numbers, arrays, tensors, frames, containers and dataclasses."""
    if depth > 6:
        return False
    if isinstance(value, float | np.floating):
        return bool(np.isnan(value))
    if isinstance(value, torch.Tensor):
        return bool(value.is_floating_point() and value.isnan().any())
    if isinstance(value, np.ndarray):
        if value.dtype.kind in "fc":
            return bool(np.isnan(value).any())
        return value.dtype == object and any(nan_in(v, depth + 1) for v in value.ravel()[:10_000])
    if isinstance(value, pd.DataFrame):
        return any(nan_in(value[col].to_numpy(), depth + 1) for col in value.columns
                   if value[col].dtype.kind in "fc")
    if isinstance(value, pd.Series):
        return value.dtype.kind in "fc" and nan_in(value.to_numpy(), depth + 1)
    if isinstance(value, dict):
        return any(nan_in(v, depth + 1) for v in value.values())
    if isinstance(value, list | tuple):
        return any(nan_in(v, depth + 1) for v in value)
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return any(nan_in(getattr(value, f.name), depth + 1) for f in dataclasses.fields(value))
    return False


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_raises_a_clear_value_error_or_gives_a_result_without_nan(name: str, c: SimpleNamespace) -> None:
    case = CASES[name]
    try:
        result = case.call(c)
    except ValueError as err:
        message = str(err)
        assert case.outcome == ERR, f"expected {case.outcome}, got ValueError: {message}"
        assert raised_in_core(err), f"a ValueError from {traceback.extract_tb(err.__traceback__)[-1].filename}: {message}"
        assert len(message.split()) >= 4, f"too short a message: {message!r}"
        assert not any(speak in message for speak in LIBRARY_SPEAK), f"a library's message: {message!r}"
        return
    except Exception as err:  # noqa: BLE001 - the point: no other exception may come out
        pytest.fail(f"{type(err).__name__}: {str(err)[:300]}")
    assert case.outcome != ERR, f"no ValueError: returned {type(result).__name__}"
    if case.outcome == OK:
        assert not nan_in(result), "the result holds NaN"
    else:
        assert nan_in(result), "a case marked NaN gave none"
        assert "NaN" in (inspect.getdoc(function_of(name)) or ""), "NaN that the docstring does not explain"


def test_every_public_function_has_a_case_or_a_reason() -> None:
    covered = {name.split(":")[0] for name in CASES}
    public = {f"Encoder.{name}" for name, member in vars(Encoder).items()
              if not name.startswith("_") and inspect.isfunction(member)}
    for module_name in MODULES:
        module = importlib.import_module(f"bertviz_core.{module_name}")
        public |= {f"{module_name}.{name}" for name, member in vars(module).items()
                   if not name.startswith("_") and inspect.isfunction(member) and member.__module__ == module.__name__}
    missing = public - covered - set(EXEMPT)
    assert not missing, f"no case and no reason: {sorted(missing)}"
    assert not (covered | set(EXEMPT)) - public, "cases or reasons for functions that do not exist"
    assert all(EXEMPT.values())
