"""Bad input to the core's model side, table-driven: the Encoder, loading, tokenizing, the token index, the
shared checks, tokens and vocabulary, lengths, identity, the store, the page registry, masked words and the
embedding lens. What a case may say, and the inputs ``c`` holds: tests/core/bad_input.py."""
from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from bad_input import CORPUS, MASKED, OK, Case, NaN, check

import bertviz_core
from bertviz_core import load_encoder
from bertviz_core import checks as ck
from bertviz_core.words import embedding_lens as el
from bertviz_core.model import encoding as enc
from bertviz_core.model import identity as idn
from bertviz_core.model import lengths as ln
from bertviz_core.measures import masked as mk
from bertviz_core.model import models as mdl
from bertviz_core.measures import neighbours as nb
from bertviz_core.views import page_registry as pr
from bertviz_core.measures import similarity as sim
from bertviz_core.runtime import store as sto
from bertviz_core.model import token_index as ti
from bertviz_core.words import tokens as tk
from bertviz_core.words import vocab as vc


# Keys are "module.function: what is bad" ("Encoder.method: ..." for the Encoder's methods); ``c`` holds the
# encoders and the inputs the core made from them (bad_input.inputs).
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
    "model_files.describe: a number": Case(lambda c: bertviz_core.describe(123)),
    "model_files.describe: unknown device with a hub id": Case(lambda c: bertviz_core.describe("bert-base-uncased", "gpu")),
    "model_files.describe: unknown device": Case(lambda c: bertviz_core.describe(None, "gpu")),
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
    # neighbours
    "token_index.check_index: a frame": Case(lambda c: ti.check_index(c.index.tokens)),
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
}


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_raises_a_clear_value_error_or_gives_a_result_without_nan(name: str,
                                                                             bad_input: SimpleNamespace) -> None:
    check(name, CASES[name], bad_input)
