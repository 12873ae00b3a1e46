"""Attention weights against plain transformers (eager, output_attentions), the head statistics and
rollout against direct numpy on constructed matrices, and the teaching code (the page: pages/test_attention_page.py)."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from transformers import AutoModel, AutoTokenizer

from bertviz_core import Encoder, recipes
from bertviz_core.measures.attention import (
    HEAD_STATISTICS,
    TokenRoles,
    head_statistics,
    is_punctuation,
    mean_weights,
    rollout,
    statistic_grid,
    thumbnails,
    token_roles,
    token_view,
)
from bertviz_core.corpora import TUTORIAL
from bertviz_core.model.models import bundled_model_dir

TEXTS = ["Hi.", TUTORIAL, "A much longer sentence, with commas, to pad the others in the batch quite a lot more."]


def plain_attentions(folder: Path, text: str, pair: str | None = None) -> np.ndarray:
    tokenizer = AutoTokenizer.from_pretrained(folder)
    model = AutoModel.from_pretrained(folder, attn_implementation="eager").eval()
    with torch.no_grad():
        out = model(**tokenizer(text, pair, return_tensors="pt"), output_attentions=True)
    return torch.stack(out.attentions)[:, 0].numpy()  # (layers, heads, tokens, tokens)


def test_attentions_equal_eager_transformers_batched_and_paired(bundled: Encoder) -> None:
    got = bundled.attentions(TEXTS)
    for text, weights in zip(TEXTS, got):
        assert weights.dtype == np.float32 and weights.shape[:2] == (6, 12)
        np.testing.assert_allclose(weights, plain_attentions(bundled_model_dir(), text), atol=1e-5)
        np.testing.assert_allclose(weights.sum(-1), 1.0, atol=1e-5)
    (pair,) = bundled.attentions(["what is your age?"], ["Today is monday"])
    np.testing.assert_allclose(pair, plain_attentions(bundled_model_dir(), "what is your age?", "Today is monday"),
                               atol=1e-5)
    alone = bundled.attentions([TEXTS[0]])[0]
    np.testing.assert_allclose(alone, got[0], atol=1e-5)  # padding in a batch changes nothing
    with pytest.raises(ValueError, match="one pair per text"):
        bundled.attentions(["a", "b"], ["c"])


def test_the_fast_path_stays_sdpa_and_its_numbers_unchanged(bundled: Encoder) -> None:
    before = bundled.encode([TUTORIAL])[0].hidden_states
    bundled.attentions([TUTORIAL])
    assert bundled.model.config._attn_implementation == "sdpa"
    assert bundled.eager_model().config._attn_implementation == "eager"
    shared = dict(bundled.eager_model().named_parameters())
    assert all(p.data_ptr() == shared[name].data_ptr() for name, p in bundled.model.named_parameters())
    np.testing.assert_array_equal(bundled.encode([TUTORIAL])[0].hidden_states, before)


def one_hot(targets: list[int], layers: int = 2, heads: int = 3) -> np.ndarray:
    """Every head of every layer sends each query q all its attention to key targets[q]."""
    n = len(targets)
    weights = np.zeros((layers, heads, n, n), dtype=np.float32)
    weights[:, :, np.arange(n), targets] = 1.0
    return weights


ROLES = TokenRoles(cls=np.array([1, 0, 0, 0, 0, 0], bool), sep=np.array([0, 0, 0, 0, 0, 1], bool),
                   punctuation=np.array([0, 0, 0, 0, 1, 0], bool))
# Constructed heads whose statistic has a known value: (weights, expected) per statistic name.
KNOWN = {
    "[CLS]": [(one_hot([0] * 6), 1.0), (one_hot([5] * 6), 0.0)],
    "[SEP]": [(one_hot([5] * 6), 1.0), (one_hot([0, 5, 0, 5, 0, 5]), 0.5)],
    "punctuation": [(one_hot([4] * 6), 1.0), (one_hot([4, 4, 4, 0, 0, 0]), 0.5)],
    "self": [(one_hot([0, 1, 2, 3, 4, 5]), 1.0), (one_hot([1, 0, 3, 2, 5, 4]), 0.0)],
    "previous token": [(one_hot([0, 0, 1, 2, 3, 4]), 1.0), (one_hot([0, 1, 2, 3, 4, 5]), 0.0)],
    "next token": [(one_hot([1, 2, 3, 4, 5, 5]), 1.0), (one_hot([1, 2, 3, 0, 0, 0]), 0.6)],
    "entropy": [(one_hot([3] * 6), 0.0), (np.full((2, 3, 6, 6), 1 / 6, dtype=np.float32), np.log(6))],
}


@pytest.mark.parametrize("name", list(HEAD_STATISTICS))
def test_every_head_statistic_on_heads_with_a_known_answer(name: str) -> None:
    if name not in KNOWN:
        pytest.fail(f"head statistic {name!r} has no constructed case: add one to KNOWN in {__file__}.")
    for weights, expected in KNOWN[name]:
        np.testing.assert_allclose(HEAD_STATISTICS[name].fn(weights, ROLES), np.full((2, 3), expected), atol=1e-5)


def test_statistics_frame_grid_and_roles() -> None:
    weights = one_hot([0, 0, 1, 2, 3, 4])
    weights[1, 2] = one_hot([5] * 6)[1, 2]  # layer 2, head 3 looks at [SEP]
    frame = head_statistics(weights, ROLES)
    assert len(frame) == 2 * 3 * len(HEAD_STATISTICS)
    sep = statistic_grid(frame, "[SEP]")
    assert list(sep.index) == ["layer 1", "layer 2"] and list(sep.columns) == ["h1", "h2", "h3"]
    assert sep.loc["layer 2", "h3"] == 1.0 and sep.to_numpy().sum() == 1.0
    roles = token_roles(["[CLS]", "hi", ",", "##!", "[SEP]", "x", "[SEP]"], "[CLS]", "[SEP]")
    assert roles.cls.tolist() == [1, 0, 0, 0, 0, 0, 0] and roles.sep.tolist() == [0, 0, 0, 0, 1, 0, 1]
    assert roles.punctuation.tolist() == [0, 0, 1, 1, 0, 0, 0] and not is_punctuation("##ing") and is_punctuation("#")


def test_rollout_mean_weights_token_view_and_thumbnails_match_numpy() -> None:
    rng = np.random.default_rng(3)
    raw = rng.random((4, 3, 7, 7))
    weights = (raw / raw.sum(-1, keepdims=True)).astype(np.float32)
    expected, product = [], np.eye(7)
    for layer in range(4):
        step = 0.5 * weights[layer].astype(np.float64).mean(0) + 0.5 * np.eye(7)
        product = (step / step.sum(1, keepdims=True)) @ product
        expected.append(product)
    np.testing.assert_allclose(rollout(weights), np.stack(expected), atol=1e-12)
    np.testing.assert_allclose(rollout(weights).sum(-1), 1.0, atol=1e-12)
    np.testing.assert_allclose(mean_weights(weights, [1, 3], [0, 2]),
                               (weights[1, 0] + weights[1, 2] + weights[3, 0] + weights[3, 2]) / 4, atol=1e-5)
    raw_view, rolled_view = token_view(weights, rollout(weights), 2)
    np.testing.assert_allclose(raw_view.to_numpy(), weights[:, :, 2].mean(1), atol=1e-5)
    np.testing.assert_allclose(rolled_view.to_numpy(), rollout(weights)[:, 2])
    assert thumbnails(weights, 10) is weights
    small = thumbnails(weights, 3)  # blocks of tokens [0, 1], [2, 3, 4]... as np.linspace rounds: 0, 2, 5, 7
    assert small.shape == (4, 3, 3, 3)
    np.testing.assert_allclose(small.sum(-1), 1.0, atol=1e-5)
    np.testing.assert_allclose(small[1, 2, 1, 0], weights[1, 2, 2:5, 0:2].sum(-1).mean(), atol=1e-5)


def test_the_recipe_reproduces_the_head_view_and_statistics(bundled: Encoder) -> None:
    from recipe_runs import run

    ns = run(recipes.attention(bundled.info, TUTORIAL, None, 3, [2, 5], 10))
    (weights,) = bundled.attentions([TUTORIAL])
    np.testing.assert_allclose(ns["weights"].numpy(), mean_weights(weights, [2], [1, 4]), atol=1e-5)
    np.testing.assert_allclose(ns["from_token"].numpy(), rollout(weights)[:, 10], atol=1e-5)
    tokenizer = bundled.tokenizer
    frame = head_statistics(weights, token_roles(ns["tokens"], tokenizer.cls_token, tokenizer.sep_token))
    np.testing.assert_allclose(ns["cls_share"].numpy(), statistic_grid(frame, "[CLS]").to_numpy(), atol=1e-5)
    np.testing.assert_allclose(ns["entropy"].numpy(), statistic_grid(frame, "entropy").to_numpy(), atol=1e-4)
