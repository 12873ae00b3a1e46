"""bertviz_core: a plain library (no Streamlit) for looking inside BERT-family encoders.

``Encoder``, ``Encoding``, ``load_encoder`` and ``open_store`` (a precomputed store) are imported on first use:
they bring in transformers, which takes seconds; ``describe`` and ``ModelInfo`` do not.
"""
from typing import Any

from bertviz_core.model_files import describe
from bertviz_core.models import BUNDLED_MODEL, KNOWN_HUB_MODELS, ModelInfo

__all__ = ["BUNDLED_MODEL", "KNOWN_HUB_MODELS", "Encoder", "Encoding", "ModelInfo", "describe", "load_encoder", "open_store"]


def __getattr__(name: str) -> Any:
    if name in ("Encoder", "Encoding", "load_encoder"):
        from bertviz_core import encoder

        return getattr(encoder, name)
    if name == "open_store":
        from bertviz_core.precompute.reader import open_store

        return open_store
    raise AttributeError(f"module 'bertviz_core' has no attribute {name!r}")
