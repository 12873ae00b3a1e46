"""The bundled model's untrained twin (bertviz_core.model.twin): the same configuration and tokenizer, other weights,
the same weights on every machine and every run for its seed, and the caller's random state untouched."""
from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import torch
from safetensors.numpy import load_file

from bertviz_core import Encoder, load_encoder
from bertviz_core.model.models import UNTRAINED_TWIN, bundled_model_dir, resolve_source
from bertviz_core.model.twin import untrained_twin


@pytest.fixture(scope="module")
def twin_folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return untrained_twin(bundled_model_dir(), cache=tmp_path_factory.mktemp("twin"))


@pytest.mark.slow
def test_the_twin_is_made_once_with_the_same_weights_for_its_seed(twin_folder: Path, tmp_path: Path) -> None:
    state = torch.random.get_rng_state()
    again = untrained_twin(bundled_model_dir(), cache=tmp_path)
    assert torch.equal(torch.random.get_rng_state(), state)  # the caller's random state is as it was
    first, second = load_file(twin_folder / "model.safetensors"), load_file(again / "model.safetensors")
    assert first.keys() == second.keys() and all(np.array_equal(first[k], second[k]) for k in first)
    assert untrained_twin(bundled_model_dir(), cache=tmp_path) == again  # reused, not made again
    other = load_file(untrained_twin(bundled_model_dir(), seed=1, cache=tmp_path) / "model.safetensors")
    assert not np.array_equal(other["embeddings.word_embeddings.weight"], first["embeddings.word_embeddings.weight"])


def test_the_twin_loads_by_name_with_the_bundled_models_shape_and_tokens(
        twin_folder: Path, bundled: Encoder, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BERTVIZ_CACHE", str(twin_folder.parent))
    source = resolve_source(UNTRAINED_TWIN)
    assert Path(source.location) == twin_folder and source.name == UNTRAINED_TWIN
    twin = load_encoder(UNTRAINED_TWIN, device="cpu")
    for field in ("model_type", "num_layers", "hidden_size", "vocab_size", "max_length"):
        assert getattr(twin.info, field) == getattr(bundled.info, field)
    text = "The café's riverbank flooded."
    assert twin.tokenize(text)["token"].tolist() == bundled.tokenize(text)["token"].tolist()
    assert twin.info.identity != bundled.info.identity
    trained, untrained = bundled.embed([text], ["mean"])["mean"], twin.embed([text], ["mean"])["mean"]
    assert np.abs(trained - untrained).max() > 0.1
