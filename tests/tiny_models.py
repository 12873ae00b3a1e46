"""Tiny randomly initialised BERT checkpoints, saved to a folder with the bundled WordPiece vocabulary:
for tests and benchmarks that need a model of a given shape, or one with a masked-language-model head."""
from __future__ import annotations

from pathlib import Path

from transformers import AutoTokenizer, BertConfig, BertForMaskedLM, BertModel

from bertviz_core.model.models import bundled_model_dir


def save_tiny_bert(folder: Path, layers: int = 12, hidden: int = 48, pooler: bool = True, heads: int = 4,
                   mlm: bool = False, positions: int = 128) -> Path:
    """Save a random BertModel (or, with ``mlm``, a BertForMaskedLM: the head, and no pooler) to ``folder``, reading
    ``positions`` tokens at most."""
    tokenizer = AutoTokenizer.from_pretrained(bundled_model_dir())
    config = BertConfig(
        vocab_size=len(tokenizer), hidden_size=hidden, num_hidden_layers=layers,
        num_attention_heads=heads, intermediate_size=2 * hidden, max_position_embeddings=positions,
    )
    model = BertForMaskedLM(config) if mlm else BertModel(config, add_pooling_layer=pooler)
    model.save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder
