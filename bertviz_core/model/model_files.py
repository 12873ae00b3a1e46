"""A local model's facts read from its files (config, tokenizer.json, the weights' names), without importing
transformers or loading weights: ``describe``, and the sizes and usable length that loading computes the same way.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch

from bertviz_core.model.models import ModelInfo, read_config, refuse_remote_code, resolve_device, resolve_source


# Model types whose position ids start after the padding id (RoBERTa's scheme): the first pad_token_id + 1
# rows of the position table are never used for tokens, so fewer positions remain than the table has.
POSITIONS_AFTER_PADDING: frozenset[str] = frozenset(
    {"roberta", "xlm-roberta", "xlm-roberta-xl", "camembert", "data2vec-text", "longformer", "ibert", "luke",
     "mpnet", "roberta-prelayernorm", "xmod"})
# Config keys for a model's size where an architecture names them differently (DistilBERT: n_layers, dim).
CONFIG_ALIASES: dict[str, tuple[str, ...]] = {
    "num_hidden_layers": ("num_hidden_layers", "n_layers", "num_layers"),
    "hidden_size": ("hidden_size", "dim", "d_model"),
    "max_position_embeddings": ("max_position_embeddings", "n_positions"),
}


def max_length(tokenizer_max: int, config: dict[str, Any]) -> int:
    """Tokens the model takes: the positions its table really offers (minus RoBERTa's padding offset), or
    fewer when the tokenizer says so (a huge tokenizer value means "no limit set")."""
    positions = config_value(config, "max_position_embeddings")
    if config.get("model_type") in POSITIONS_AFTER_PADDING:
        positions -= int(config.get("pad_token_id") or 0) + 1
    return min(tokenizer_max if tokenizer_max < 100_000 else 10**9, positions)


def config_value(config: dict[str, Any], key: str) -> Any:
    """``config[key]`` under any of its names (``CONFIG_ALIASES``); None when the config names none."""
    return next((config[name] for name in CONFIG_ALIASES.get(key, (key,)) if name in config), None)


def checkpoint_keys(folder: Path) -> list[str] | None:
    """The weight names of a saved model, read without loading the weights (safetensors' header, or a
    ``pytorch_model.bin`` mapped lazily); None when there is no single weights file."""
    from safetensors import safe_open

    if (folder / "model.safetensors").is_file():
        with safe_open(folder / "model.safetensors", framework="numpy") as tensors:
            return list(tensors.keys())
    if (folder / "pytorch_model.bin").is_file():
        return list(torch.load(folder / "pytorch_model.bin", map_location="meta", weights_only=True, mmap=True))
    return None


def describe(model: str | None = None, device: str = "auto") -> ModelInfo | None:
    """A local model's facts (bundled or a directory) read from its files, without importing
    transformers or loading weights: the ``ModelInfo`` that ``load_encoder(model, device).info`` has, but for
    its ``identity``, left "" (hashing the weights is loading's work; only stored results need it).

    None where the files cannot tell: a hub id, no tokenizer.json or single weights file, sizes the config
    leaves to the library's defaults, or a checkpoint saved with heads (``architectures`` names a class other
    than the bare encoder), where only loading decides whether its masked-language-model head is whole.
    Raises ``ValueError`` as ``load_encoder`` does for a missing folder, remote code or a bad device.
    """
    from tokenizers import Tokenizer

    source, device = resolve_source(model), resolve_device(device)
    if source.kind == "hub":
        return None
    refuse_remote_code(source)
    folder = Path(source.location)
    tokenizer_file = folder / "tokenizer.json"
    config = read_config(source)
    sizes = {key: config_value(config, key) for key in CONFIG_ALIASES}
    architectures = config.get("architectures")
    if (not tokenizer_file.is_file() or not isinstance(config.get("model_type"), str)
            or not all(isinstance(value, int) for value in sizes.values())
            or not isinstance(architectures, list) or not all(str(a).endswith("Model") for a in architectures)):
        return None
    settings, tokenizer_max = folder / "tokenizer_config.json", 10**9
    try:
        if settings.is_file():
            tokenizer_max = int(json.loads(settings.read_text(encoding="utf-8")).get("model_max_length", 10**9))
        keys = checkpoint_keys(folder)
        vocab_size = Tokenizer.from_file(str(tokenizer_file)).get_vocab_size(with_added_tokens=True)
    except Exception:  # noqa: BLE001 - safetensors, torch and tokenizers raise their own error types; loading says what is wrong
        return None
    if keys is None:
        return None
    return ModelInfo(
        name=source.name, source=source.location, kind=source.kind, model_type=config["model_type"],
        num_layers=sizes["num_hidden_layers"], hidden_size=sizes["hidden_size"], vocab_size=vocab_size,
        max_length=max_length(tokenizer_max, config), device=device,
        has_pooler=any("pooler" in key for key in keys), has_mlm_head=False, requested=source.requested,
    )
