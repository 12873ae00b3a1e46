"""Every core call on every model of the model-family fixture (tests/model_family.py) against plain
transformers: hidden states alone and batched, pairs and their segments, every pooling strategy, attention
weights, truncation at the usable length, word finding, the token index and self-similarity, the masked-LM
head against ``pipeline("fill-mask")``, and ``describe``. A new architecture is one entry of ``FAMILY``."""
from __future__ import annotations

import dataclasses

import threading
from functools import cache
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import BASE_NAMES, DEVICE, FAMILY_NAMES, MLM_NAMES
from test_pooling import REFERENCE
from transformers import AutoConfig, AutoModel, AutoModelForMaskedLM, AutoTokenizer, pipeline

from bertviz_core import Encoder, describe, load_encoder
from bertviz_core.measures.masked import logit_lens
from bertviz_core.measures.neighbours import contextuality, self_similarity
from bertviz_core.measures.pooling import POOLINGS
from bertviz_core.model.token_index import token_index
from bertviz_core.words.tokens import annotate_tokens, pair_layout, token_scheme
from bertviz_core.words.word_vectors import find_spans

TEXTS = ["The bank by the river was muddy.", "Bank!", "A café in Zürich, by the bank; the BANK's vault.",
         "Spring water flows in spring; the spring broke."]
PAIR = ("The bank by the river.", "She went to the bank.")
LONG = " ".join(["The bank by the river was muddy after the rain."] * 30)  # ~330 words: past every fixture's limit
ATOL = 1e-5  # float32 on another CPU


@cache
def plain(folder: Path, text: str, pair: str | None = None, eager: bool = False) -> dict[str, np.ndarray]:
    """transformers alone, one unpadded input, as its tokenizer prepares it by default (truncated at the
    model's usable length): hidden states (layers+1, tokens, hidden), pooler output, attentions."""
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModel.from_pretrained(folder, **({"attn_implementation": "eager"} if eager else {})).eval()
    limit = load_encoder(str(folder), device="cpu").info.max_length
    inputs = tokenizer(text, pair, return_tensors="pt", truncation=True, max_length=limit)
    with torch.no_grad():
        out = model(**inputs, output_hidden_states=True, output_attentions=eager)
    pooler = getattr(out, "pooler_output", None)
    return {"states": torch.stack(out.hidden_states)[:, 0].double().numpy(),
            "pooler": None if pooler is None else pooler[0].double().numpy(),
            "attentions": torch.stack(out.attentions)[:, 0].numpy() if eager else None,
            "ids": inputs["input_ids"][0].tolist()}


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_hidden_states_alone_batched_and_paired_equal_plain_transformers(
        family_encoders: dict[str, Encoder], family_dirs: dict[str, Path], name: str) -> None:
    enc = family_encoders[name]
    for i, got in enumerate(enc.encode(TEXTS)):  # one batch, padded to the longest
        expected = plain(family_dirs[name], TEXTS[i])
        assert got.ids == expected["ids"]
        np.testing.assert_allclose(got.hidden_states, expected["states"], atol=ATOL)
    (got,) = enc.encode([PAIR[0]], [PAIR[1]])
    expected = plain(family_dirs[name], *PAIR)
    assert got.ids == expected["ids"]
    np.testing.assert_allclose(got.hidden_states, expected["states"], atol=ATOL)


@pytest.mark.parametrize("name", BASE_NAMES)
def test_segments_are_what_the_model_receives(family_encoders: dict[str, Encoder], name: str) -> None:
    enc = family_encoders[name]
    frame = enc.tokenize(*PAIR)
    default = enc.tokenizer(*PAIR)
    uses = "token_type_ids" in default and getattr(enc.model.config, "type_vocab_size", 0) > 1
    assert enc.uses_segments == uses and (enc.segments_note is None) == uses
    assert frame["segment"].tolist() == (default["token_type_ids"] if uses else [0] * len(frame))
    assert frame["segment"].max() == (1 if uses else 0)


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_every_pooling_strategy_equals_plain_transformers(family_encoders: dict[str, Encoder],
                                                          family_dirs: dict[str, Path], name: str) -> None:
    enc = family_encoders[name]
    pooled = enc.embed(TEXTS)
    assert ("pooler" in pooled) == enc.info.has_pooler
    for strategy, vectors in pooled.items():
        for i, text in enumerate(TEXTS):
            expected = plain(family_dirs[name], text)
            np.testing.assert_allclose(vectors[i], REFERENCE[strategy](expected["states"], expected["pooler"]),
                                       atol=ATOL, err_msg=f"{strategy}: {text}")
    assert set(pooled) == {s for s in POOLINGS if enc.info.has_pooler or s != "pooler"}


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_attentions_equal_eager_transformers(family_encoders: dict[str, Encoder], family_dirs: dict[str, Path],
                                             name: str) -> None:
    enc = family_encoders[name]
    for text, got in zip(TEXTS[:2], enc.attentions(TEXTS[:2])):
        np.testing.assert_allclose(got, plain(family_dirs[name], text, eager=True)["attentions"], atol=ATOL)
    (got,) = enc.attentions([PAIR[0]], [PAIR[1]])
    np.testing.assert_allclose(got, plain(family_dirs[name], *PAIR, eager=True)["attentions"], atol=ATOL)


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_a_text_past_the_limit_is_cut_at_the_usable_length(family_encoders: dict[str, Encoder],
                                                           family_dirs: dict[str, Path], name: str) -> None:
    enc = family_encoders[name]
    positions = enc.model.config.max_position_embeddings
    assert enc.info.max_length <= positions
    (got,) = enc.encode([LONG])
    assert len(got.ids) == enc.info.max_length and got.dropped > 0
    np.testing.assert_allclose(got.hidden_states, plain(family_dirs[name], LONG)["states"], atol=ATOL)
    assert enc.embed([LONG], ["mean"])["mean"].shape[0] == 1 and len(enc.attentions([LONG])) == 1


@pytest.mark.parametrize("name", BASE_NAMES)
def test_every_whole_word_occurrence_is_found(family_encoders: dict[str, Encoder], name: str) -> None:
    enc = family_encoders[name]
    for word in ("bank", "spring", "café", "zürich"):
        expected = [(i, span) for i, text in enumerate(TEXTS) for span in find_spans(text, word)]
        found = enc.word_vectors(TEXTS, word)
        assert [(o.sentence, (o.start, o.end)) for o in found] == expected, word
        for o in found:  # the pieces cover the word's characters exactly
            encoding = enc.encode([TEXTS[o.sentence]])[0]
            covered = [encoding.offsets[p] for p in o.positions]
            assert min(s for s, _ in covered) == o.start and max(e for _, e in covered) == o.end


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_the_token_index_and_self_similarity_find_the_word(family_encoders: dict[str, Encoder], name: str) -> None:
    enc = family_encoders[name]
    index = token_index(enc, TEXTS)
    words = index.tokens.drop_duplicates(["sentence", "word_start"])
    for sentence, text in enumerate(TEXTS):  # every word as written, no space or marker around it
        mine = words[words["sentence"] == sentence]
        assert all(text[a:b] == w and w == w.strip() for a, b, w in zip(mine["word_start"], mine["word_end"],
                                                                         mine["word"]))
    assert (index.tokens["key"] == "bank").groupby(index.tokens["sentence"]).any().sum() == 3
    assert self_similarity(index, "bank").shape == (enc.info.num_layers + 1,)
    assert contextuality(index, min_contexts=2).words >= 3  # the, bank, spring; "." is no word


def test_corpus_self_similarity_leaves_punctuation_out(family_encoders: dict[str, Encoder]) -> None:
    index = token_index(family_encoders["bert"], ["A - b.", "A - c.", "A - d."])
    assert contextuality(index, min_contexts=3).words == 1  # "a"; "-" and "." occur thrice but are no words


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_has_mlm_head_is_decided_by_the_masked_lm_class(family_encoders: dict[str, Encoder], name: str) -> None:
    assert family_encoders[name].info.has_mlm_head == (name in MLM_NAMES)


@pytest.mark.parametrize("name", MLM_NAMES)
def test_fill_mask_equals_the_pipeline(family_encoders: dict[str, Encoder], family_dirs: dict[str, Path],
                                       name: str) -> None:
    enc = family_encoders[name]
    fill = pipeline("fill-mask", model=str(family_dirs[name]), device="cpu")
    for text in (f"The {enc.mask_token} by the river.", f"{enc.mask_token} went to the {enc.mask_token}."):
        expected = fill(text, top_k=5)
        expected = expected if isinstance(expected[0], list) else [expected]
        got = enc.fill_mask(text, 5)
        assert len(got) == len(expected)
        for ours, theirs in zip(got, expected):
            assert ours["id"].tolist() == [guess["token"] for guess in theirs]
            np.testing.assert_allclose(ours["probability"], [guess["score"] for guess in theirs], atol=ATOL)
        lens = logit_lens(enc, text, 5)[0]  # the lens' last layer is the head's answer
        assert lens.top_ids.shape == (enc.info.num_layers + 1, 5) and lens.ranks[0, -1] == 1


def test_a_checkpoint_whose_head_lacks_weights_has_no_head(family_dirs: dict[str, Path], tmp_path: Path) -> None:
    from safetensors.torch import load_file, save_file

    folder = tmp_path / "half-head"
    folder.mkdir()
    for file in family_dirs["bert-mlm"].iterdir():
        (folder / file.name).write_bytes(file.read_bytes())
    weights = load_file(folder / "model.safetensors")
    save_file({k: v for k, v in weights.items() if ".transform." not in k}, folder / "model.safetensors",
              metadata={"format": "pt"})
    enc = load_encoder(str(folder), device="cpu")
    assert not enc.info.has_mlm_head
    with pytest.raises(ValueError, match="has no masked-language-model head"):
        enc.fill_mask(f"The {enc.mask_token}.")


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_describe_reads_the_same_facts_or_defers_to_loading(family_encoders: dict[str, Encoder],
                                                            family_dirs: dict[str, Path], name: str) -> None:
    described = describe(str(family_dirs[name]), DEVICE)
    if name in MLM_NAMES:  # a checkpoint with heads: only loading tells whether its head is whole
        assert described is None
    else:
        assert described == dataclasses.replace(family_encoders[name].info, identity="")


@pytest.mark.parametrize("name", MLM_NAMES)
def test_the_logit_lens_at_layer_k_is_the_model_cut_after_k_layers(family_encoders: dict[str, Encoder],
                                                                   family_dirs: dict[str, Path], name: str) -> None:
    """An independent reference for every layer: the masked-LM model loaded with only its first k layers ends
    with the head (and ModernBERT's final norm) right after layer k, which is what the lens reads there."""
    enc, folder = family_encoders[name], family_dirs[name]
    text = f"The {enc.mask_token} by the river."
    lens = logit_lens(enc, text, 5)[0]
    tokenizer = AutoTokenizer.from_pretrained(folder)
    inputs = tokenizer(text, return_tensors="pt")
    position = int((inputs["input_ids"][0] == tokenizer.mask_token_id).nonzero()[0, 0])
    layer_types = getattr(AutoConfig.from_pretrained(folder), "layer_types", None)
    for k in range(1, enc.info.num_layers + 1):  # DeBERTa and ModernBERT cannot be built with 0 layers
        extra = {} if layer_types is None else {"layer_types": layer_types[:k]}
        cut = AutoModelForMaskedLM.from_pretrained(folder, num_hidden_layers=k, **extra).eval()
        with torch.no_grad():
            probs = cut(**inputs).logits[0, position].softmax(-1).numpy()
        order = np.argsort(-probs, kind="stable")[:5]
        np.testing.assert_allclose(lens.top_probs[k], probs[order], atol=ATOL, err_msg=f"layer {k}")


def test_loads_in_two_threads_keep_the_masked_lm_head(family_dirs: dict[str, Path]) -> None:
    """transformers swaps weight tying out during a load; two loads at once left it off for good, and every
    later masked-LM checkpoint read as headless. Loads take turns now."""
    others = threading.Thread(target=lambda: [load_encoder(str(family_dirs[n]), device="cpu")
                                              for n in ("bert", "roberta", "distilbert")])
    others.start()
    first = load_encoder(str(family_dirs["bert-mlm"]), device="cpu").info.has_mlm_head
    others.join()
    assert first and load_encoder(str(family_dirs["roberta-mlm"]), device="cpu").info.has_mlm_head


@pytest.mark.parametrize("name", BASE_NAMES)
def test_the_token_scheme_names_the_tokenizer_and_its_continuations(family_encoders: dict[str, Encoder],
                                                                     name: str) -> None:
    enc = family_encoders[name]
    scheme = token_scheme(enc.tokenizer)
    kind = type(enc.tokenizer.backend_tokenizer.model).__name__
    assert scheme.name.startswith({"WordPiece": "WordPiece", "BPE": "byte-level BPE", "Unigram": "SentencePiece"}[kind])
    text = "The unbelievable bank."
    frame = annotate_tokens(enc.tokenize(text), text, None, scheme.continuation)
    words = frame["word_index"].tolist()
    expected = ["special" if w is None else scheme.continuation if i and w == words[i - 1] else "word start"
                for i, w in enumerate(words)]
    assert frame["piece"].tolist() == expected and scheme.continuation in expected  # "unbelievable" is split


@pytest.mark.parametrize("name", BASE_NAMES)
def test_the_pair_layout_is_the_tokenizers_own(family_encoders: dict[str, Encoder], name: str) -> None:
    enc = family_encoders[name]
    ids = enc.tokenizer("A", "B")["input_ids"]
    specials = [t for t, i in zip(enc.tokenizer.convert_ids_to_tokens(ids), ids) if i in enc.tokenizer.all_special_ids]
    layout = pair_layout(enc.inputs(["A"], ["B"])[0])
    assert [t for t in layout.split() if t not in ("A", "B")] == specials and layout.count("A") == layout.count("B") == 1
    assert layout == ("<s> A </s> </s> B </s>" if name.startswith(("roberta", "xlm")) else "[CLS] A [SEP] B [SEP]")
