"""The offline view of Masked words: a mask's nearest input word embeddings by layer, against numpy, and its
recipe (plain transformers) against the core on every model of the family fixture."""
from __future__ import annotations


import numpy as np
import pytest
from conftest import FAMILY_NAMES
from recipe_runs import run

from bertviz_core import Encoder, recipes
from bertviz_core.words.embedding_lens import nearest_input_embeddings

TEXT = "The man went to the [MASK] to buy milk."


def narrow(enc: Encoder) -> bool:
    """Whether the model's word embeddings are narrower than its hidden states (ALBERT, ELECTRA)."""
    return enc.model.get_input_embeddings().weight.shape[1] != enc.info.hidden_size


def test_nearest_input_embeddings_equal_numpy(bundled: Encoder) -> None:
    (near,) = nearest_input_embeddings(bundled, TEXT, 5)
    states = bundled.encode([TEXT])[0].hidden_states[:, near.position]  # (layers+1, hidden)
    table = bundled.model.get_input_embeddings().weight.detach().cpu().numpy()
    cosines = (states / np.linalg.norm(states, axis=1, keepdims=True)) @ (
        table / np.linalg.norm(table, axis=1, keepdims=True)).T
    order = np.argsort(-cosines, axis=1, kind="stable")[:, :5]
    assert near.top_ids.shape == (7, 5) and (near.top_ids == order).all()
    np.testing.assert_allclose(near.cosines, np.take_along_axis(cosines, order, 1), atol=1e-5)
    assert near.top_tokens[0, 0] == "[MASK]"  # the embedding layer's output is still the mask's own embedding
    frame = near.table(3)
    assert list(frame.columns) == ["layer", "rank", "token", "id", "cosine"] and len(frame) == 7 * 3


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_every_model_gives_its_neighbours_or_says_why(family_encoders: dict[str, Encoder], name: str) -> None:
    enc = family_encoders[name]
    text = TEXT.replace("[MASK]", enc.mask_token)
    if narrow(enc):  # ALBERT, ELECTRA
        with pytest.raises(ValueError, match="projection lies between them"):
            nearest_input_embeddings(enc, text)
    else:
        (near,) = nearest_input_embeddings(enc, text, 3)
        assert near.top_ids.shape == (enc.info.num_layers + 1, 3) and np.isfinite(near.cosines).all()
        assert (np.diff(near.cosines, axis=1) <= 0).all()


@pytest.mark.parametrize(("text", "k"), [("No mask here.", 3), (TEXT, 0), (TEXT, 2.5)])
def test_bad_input_is_a_value_error(bundled: Encoder, text: str, k: object) -> None:
    with pytest.raises(ValueError):
        nearest_input_embeddings(bundled, text, k)


@pytest.mark.parametrize("name", FAMILY_NAMES)
def test_the_nearest_embeddings_recipe_on_every_model(family_encoders: dict[str, Encoder], name: str) -> None:
    """The code Masked words shows without the head, run as a reader would, gives the core's numbers."""
    enc = family_encoders[name]
    if narrow(enc):
        pytest.skip("the page shows no recipe: the embeddings and hidden states differ in width")
    text = "The [MASK] by the river was [MASK].".replace("[MASK]", enc.mask_token)
    for mask in (0, 1):
        nearest = run(recipes.nearest_embeddings(enc.info, text, mask, 5))["nearest"]
        near = nearest_input_embeddings(enc, text, 5)[mask]
        assert nearest.indices.tolist() == near.top_ids.tolist()
        np.testing.assert_allclose(nearest.values.numpy(), near.cosines, atol=1e-5)
