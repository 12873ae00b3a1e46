"""Masked words: fill-mask against transformers' pipeline, the logit lens against the head applied by hand,
``has_mlm_head`` from the checkpoint, bad input, and the teaching code on every model (the page:
pages/test_masked_words_page.py)."""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest
import torch
from conftest import DEVICE, FAMILY_NAMES, MLM_NAMES
from recipe_runs import run
from transformers import AutoConfig, AutoModelForMaskedLM, AutoTokenizer, DebertaV2ForMaskedLM, pipeline

from bertviz_core import Encoder, describe, load_encoder, recipes
from bertviz_core.measures.masked import MAX_MASKS, logit_lens, mask_word, masks, word_labels, words

TEXTS = ["The man went to the [MASK] to buy milk.", "[MASK] is the capital of [MASK].",
         "A longer sentence, with a [MASK] near its end so that padding matters [MASK]"]


def plain_lens(folder: Path, text: str) -> tuple[np.ndarray, np.ndarray]:
    """The head applied by hand to every layer's hidden states of a plain AutoModelForMaskedLM:
    probabilities and logits, (masks, layers+1, vocab)."""
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModelForMaskedLM.from_pretrained(folder).eval()
    inputs = tokenizer(text, return_tensors="pt", truncation=True)
    masks = (inputs["input_ids"][0] == tokenizer.mask_token_id).nonzero()[:, 0]
    with torch.no_grad():
        states = torch.stack(model(**inputs, output_hidden_states=True).hidden_states)[:, 0, masks]
        logits = model.cls(states).transpose(0, 1)
    return logits.softmax(-1).numpy(), logits.numpy()


def rank_range(logits: np.ndarray, token: int, atol: float = 1e-5) -> tuple[np.ndarray, np.ndarray]:
    """The ranks ``token`` may have in ``logits`` (..., vocab) computed on another device (the plain model runs
    on the CPU): from 1 + the logits above its own by more than ``atol`` to 1 + those above its own less ``atol``."""
    own = logits[..., [token]]
    return (logits > own + atol).sum(-1) + 1, (logits > own - atol).sum(-1) + 1


@pytest.mark.parametrize("top_k", [1, 5, 12])
def test_fill_mask_equals_the_pipeline(mlm: Encoder, mlm_dir: Path, top_k: int) -> None:
    fill = pipeline("fill-mask", model=str(mlm_dir), top_k=top_k)
    for text in TEXTS:
        expected = fill(text)
        expected = expected if isinstance(expected[0], list) else [expected]  # one mask: a flat list
        got = mlm.fill_mask(text, top_k)
        assert len(got) == len(expected) == text.count("[MASK]")
        for ours, theirs in zip(got, expected):
            assert ours["id"].tolist() == [guess["token"] for guess in theirs]
            np.testing.assert_allclose(ours["probability"], [guess["score"] for guess in theirs], atol=1e-5)
            assert list(ours.columns) == ["token", "id", "probability"]
            assert ours["token"].tolist() == [mlm.tokenizer.convert_ids_to_tokens(g["token"]) for g in theirs]


def test_the_lens_equals_the_head_applied_by_hand_and_its_last_layer_is_fill_mask(mlm: Encoder,
                                                                                    mlm_dir: Path) -> None:
    for text in TEXTS:
        probs, logits = plain_lens(mlm_dir, text)
        lenses = logit_lens(mlm, text, 10)
        for m, (lens, fill) in enumerate(zip(lenses, mlm.fill_mask(text, 10))):
            assert lens.top_ids.shape == (13, 10)
            order = np.argsort(-probs[m], axis=-1, kind="stable")[:, :10]
            np.testing.assert_allclose(lens.top_probs, np.take_along_axis(probs[m], order, -1), atol=1e-5)
            assert (lens.top_ids[:, 0] == order[:, 0]).all()
            assert lens.predictions(10)["id"].tolist() == fill["id"].tolist()
            np.testing.assert_allclose(lens.predictions(10)["probability"], fill["probability"], atol=1e-7)
            answer = lens.tracked_ids[0]
            assert answer == fill["id"].iloc[0]
            low, high = rank_range(logits[m], answer)
            assert ((low <= lens.ranks[0]) & (lens.ranks[0] <= high)).all() and lens.ranks[0, -1] == 1
            np.testing.assert_allclose(lens.probs[0], probs[m][:, answer], atol=1e-5)


def test_the_hidden_word_is_followed_by_rank(mlm: Encoder, mlm_dir: Path) -> None:
    text = "The man went to the [MASK] to buy milk."
    store = AutoTokenizer.from_pretrained(mlm_dir).convert_tokens_to_ids("store")
    (lens,) = logit_lens(mlm, text, 5, [store])
    _, logits = plain_lens(mlm_dir, text)
    assert lens.tracked_tokens[1] == "store"
    low, high = rank_range(logits[0], store)
    assert ((low <= lens.ranks[1]) & (lens.ranks[1] <= high)).all()
    frame = lens.tracked()
    assert set(frame["role"]) == {"final answer", "hidden word"} and len(frame) == 2 * 13


def test_has_mlm_head_comes_from_the_checkpoint(bundled: Encoder, tiny: Encoder, tiny_dir: Path, mlm: Encoder,
                                                mlm_dir: Path) -> None:
    assert not bundled.info.has_mlm_head and bundled.info.has_pooler
    assert not tiny.info.has_mlm_head and tiny.info.has_pooler
    assert mlm.info.has_mlm_head and not mlm.info.has_pooler  # BertForMaskedLM saves no pooler
    assert describe(str(tiny_dir)) == replace(tiny.info, identity="")
    assert describe(str(mlm_dir)) is None  # a checkpoint with heads: only loading tells whether its head is whole
    with pytest.raises(ValueError, match="has no masked-language-model head"):
        bundled.fill_mask("The [MASK] is here.")


def test_loading_the_head_changes_no_other_number(mlm: Encoder) -> None:
    before = mlm.encode([TEXTS[0]])[0].hidden_states
    mlm.fill_mask(TEXTS[0])
    np.testing.assert_array_equal(mlm.encode([TEXTS[0]])[0].hidden_states, before)
    assert mlm.model.config._attn_implementation == "sdpa"


@pytest.mark.parametrize(("text", "message"), [
    ("No mask in this sentence.", "has no \\[MASK\\]"),
    ("The [mask] is lowercase.", "in capitals"),
    ("[MASK] " * 20, f"up to {MAX_MASKS} at once"),
    ("word " * 200 + "[MASK]", "past the model's 128-token limit"),
])
def test_bad_masks_are_explained(mlm: Encoder, text: str, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        logit_lens(mlm, text)


def test_masks_cut_off_or_miswritten_are_counted(mlm: Encoder) -> None:
    found = masks(mlm, "[MASK] and [mask] " + "word " * 200 + "[MASK]")
    assert found.positions == [1] and found.past_limit == 1 and found.miswritten == 1


def test_masking_a_word_of_several_pieces_keeps_every_position(mlm: Encoder) -> None:
    text = "Word embeddings are everywhere."
    (item,) = mlm.inputs([text])
    chosen = next(w for w in words(item, text) if w.text == "embeddings")
    masked = mask_word(item, text, chosen, mlm.mask_token)
    assert chosen.pieces == 4 and masked.pieces == ["em", "##bed", "##ding", "##s"]
    assert masked.text == "Word [MASK] [MASK] [MASK] [MASK] are everywhere."
    (after,) = mlm.inputs([masked.text])
    assert len(after.ids) == len(item.ids) and masks(mlm, masked.text).positions == list(masked.hidden)
    assert [item.ids[p] for p in masked.hidden] == list(masked.hidden.values())


def test_repeated_words_get_unique_labels(mlm: Encoder) -> None:
    text = "The cat saw the other cat."
    assert word_labels(words(mlm.inputs([text])[0], text)) == ["The", "cat", "saw", "the", "other", "cat #2", "."]


def test_the_recipe_reproduces_the_guesses_and_the_lens(mlm: Encoder, mlm_dir: Path) -> None:
    text = TEXTS[1]
    ns = run(recipes.masked_words(mlm.info, text, mask=1, layer=4, k=7))
    lens = logit_lens(mlm, text, 7)[1]
    assert ns["guesses"].indices[1].tolist() == lens.predictions(7)["id"].tolist()
    assert ns["layer_guesses"].indices.tolist() == lens.top_ids[4].tolist()
    np.testing.assert_allclose(ns["layer_guesses"].values.numpy(), lens.top_probs[4], atol=1e-5)
    assert ns["rank"].tolist() == lens.ranks[0].tolist()
    capital = mlm.tokenizer.convert_tokens_to_ids("paris")
    ns = run(recipes.masked_words(mlm.info, text, mask=0, layer=2, k=3, hidden_id=capital))
    lens = logit_lens(mlm, text, 3, [capital])[0]
    assert ns["hidden_rank"].tolist() == lens.ranks[1].tolist()
    np.testing.assert_allclose(ns["hidden_probability"].numpy(), lens.probs[1], atol=1e-5)


def test_the_missing_head_recipe_lists_the_heads_random_weights(bundled: Encoder) -> None:
    ns = run(recipes.missing_head(bundled.info))
    assert "cls.predictions.transform.dense.weight" in ns["missing"]


def check_masked_recipe(enc: Encoder) -> None:
    """The masked-words recipe on ``enc`` against the core: the guesses, and the lens of both masks at every
    layer with the answer's and a hidden token's rank and probability."""
    text = f"The {enc.mask_token} by the river was {enc.mask_token}."
    hidden = enc.inputs(["bank"])[0].ids[1]
    for mask, layer in ((0, 0), (1, enc.info.num_layers)):
        ns = run(recipes.masked_words(enc.info, text, mask=mask, layer=layer, k=5, hidden_id=hidden))
        lens = logit_lens(enc, text, 5, [hidden, hidden])[mask]
        assert ns["guesses"].indices[mask].tolist() == lens.predictions(5)["id"].tolist()
        np.testing.assert_allclose(ns["guesses"].values[mask].numpy(), lens.predictions(5)["probability"], atol=1e-5)
        every_layer = ns["lens"].topk(5)
        assert every_layer.indices.tolist() == lens.top_ids.tolist()
        np.testing.assert_allclose(every_layer.values.numpy(), lens.top_probs, atol=1e-5)
        assert ns["layer_guesses"].indices.tolist() == lens.top_ids[layer].tolist()
        assert ns["rank"].tolist() == lens.ranks[0].tolist()
        np.testing.assert_allclose(ns["answer_probability"].numpy(), lens.probs[0], atol=1e-5)
        row = lens.tracked_ids.index(hidden)  # 0 when the hidden token is the answer itself
        assert ns["hidden_rank"].tolist() == lens.ranks[row].tolist()
        np.testing.assert_allclose(ns["hidden_probability"].numpy(), lens.probs[row], atol=1e-5)


@pytest.mark.parametrize("name", MLM_NAMES)
def test_the_masked_words_recipe_on_every_model_with_the_head(family_encoders: dict[str, Encoder], name: str) -> None:
    """Each architecture's own head in the recipe (BERT's cls, DistilBERT's vocab_*, ELECTRA's generator_*,
    ALBERT's predictions, RoBERTa's lm_head, DeBERTa's cls, ModernBERT's head and decoder after final_norm)."""
    check_masked_recipe(family_encoders[name])


def test_the_masked_words_recipe_on_deberta_with_the_newer_head(family_dirs: dict[str, Path], tmp_path: Path) -> None:
    """DeBERTa's non-legacy head (lm_predictions, which reuses the word embeddings; the fixture's is legacy):
    the recipe's lens after layer k is the masked-LM model built with only k layers, for every k. Checked
    against transformers, not the core: the core's head (mlm_head.MaskedLMHead) ties the word embeddings onto
    what transformers returns as this head's output embeddings, its 32x32 dense layer, and its lens fails."""
    config = AutoConfig.from_pretrained(family_dirs["deberta-v3-mlm"])
    config.legacy = False
    torch.manual_seed(0)
    DebertaV2ForMaskedLM(config).save_pretrained(tmp_path)
    tokenizer = AutoTokenizer.from_pretrained(family_dirs["deberta-v3-mlm"])
    tokenizer.save_pretrained(tmp_path)
    text = f"The {tokenizer.mask_token} by the river."
    info = load_encoder(str(tmp_path), device=DEVICE).info
    ns = run(recipes.masked_words(info, text, mask=0, layer=1, k=5))
    assert info.has_mlm_head and "lm_predictions" in recipes.masked_words(info, text, 0, 1, 5)
    inputs = tokenizer(text, return_tensors="pt")
    position = int((inputs["input_ids"][0] == tokenizer.mask_token_id).nonzero()[0, 0])
    for k in range(1, info.num_layers + 1):
        cut = DebertaV2ForMaskedLM.from_pretrained(tmp_path, num_hidden_layers=k).eval()
        with torch.no_grad():
            probs = cut(**inputs).logits[0, position].softmax(-1)
        np.testing.assert_allclose(ns["lens"][k].numpy(), probs.numpy(), atol=1e-5, err_msg=f"layer {k}")


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_the_missing_head_recipe_on_every_model(family_encoders: dict[str, Encoder], name: str) -> None:
    """Every missing weight outside the encoder, whatever the architecture calls its head: none exactly
    where the app finds a whole head."""
    ns = run(recipes.missing_head(family_encoders[name].info))
    assert (not ns["missing"]) == family_encoders[name].info.has_mlm_head


def test_the_missing_head_recipe_lists_a_half_heads_missing_weights(family_dirs: dict[str, Path],
                                                                    tmp_path: Path) -> None:
    """DistilBERT's head without its transform (the app finds no head there): the recipe lists just those."""
    from safetensors.torch import load_file, save_file

    for file in family_dirs["distilbert-mlm"].iterdir():
        (tmp_path / file.name).write_bytes(file.read_bytes())
    weights = load_file(tmp_path / "model.safetensors")
    save_file({k: v for k, v in weights.items() if not k.startswith("vocab_transform.")},
              tmp_path / "model.safetensors", metadata={"format": "pt"})
    enc = load_encoder(str(tmp_path), device=DEVICE)
    ns = run(recipes.missing_head(enc.info))
    assert not enc.info.has_mlm_head and sorted(ns["missing"]) == ["vocab_transform.bias", "vocab_transform.weight"]
