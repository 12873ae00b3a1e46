"""Shared fixtures: the bundled encoder, and tiny random BERT checkpoints saved to temp dirs."""
from __future__ import annotations

import os
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")

from transformers import AutoTokenizer, BertConfig, BertModel  # noqa: E402

from bertviz_core import Encoder, load_encoder  # noqa: E402
from bertviz_core.models import bundled_model_dir  # noqa: E402

# The device the encoder fixtures run on; set BERTVIZ_TEST_DEVICE=cuda to run the core tests on a GPU.
DEVICE = os.environ.get("BERTVIZ_TEST_DEVICE", "cpu")


def save_tiny_bert(folder: Path, layers: int = 12, hidden: int = 48, pooler: bool = True) -> Path:
    """Save a randomly initialised BertModel with the bundled WordPiece vocabulary."""
    tokenizer = AutoTokenizer.from_pretrained(bundled_model_dir())
    config = BertConfig(
        vocab_size=len(tokenizer), hidden_size=hidden, num_hidden_layers=layers,
        num_attention_heads=4, intermediate_size=2 * hidden, max_position_embeddings=128,
    )
    BertModel(config, add_pooling_layer=pooler).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


@pytest.fixture(scope="session")
def bundled() -> Encoder:
    return load_encoder(device=DEVICE)


@pytest.fixture(scope="session")
def tiny_dir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return save_tiny_bert(tmp_path_factory.mktemp("tiny12"))


@pytest.fixture(scope="session")
def tiny(tiny_dir: Path) -> Encoder:
    return load_encoder(str(tiny_dir), device=DEVICE)


@pytest.fixture(scope="session")
def tiny_no_pooler(tmp_path_factory: pytest.TempPathFactory) -> Encoder:
    return load_encoder(str(save_tiny_bert(tmp_path_factory.mktemp("nopool"), layers=2, pooler=False)), device=DEVICE)


@pytest.fixture
def model_calls(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts model runs (Encoder._forward, behind encode, embed and word_vectors) while a test runs:
    one entry per run, holding how many texts it was given."""
    calls: list[int] = []
    original = Encoder._forward

    def counting(self: Encoder, items, progress=None):  # noqa: ANN001
        calls.append(len(items))
        yield from original(self, items, progress)

    monkeypatch.setattr(Encoder, "_forward", counting)
    return calls
