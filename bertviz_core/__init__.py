"""bertviz_core: a plain library (no Streamlit) for looking inside BERT-family encoders.

``Encoder``, ``Encoding`` and ``load_encoder`` are imported on first use: they bring in
transformers, which takes seconds; ``describe`` and ``ModelInfo`` do not.
"""
from typing import Any

from bertviz_core.models import BUNDLED_MODEL, KNOWN_HUB_MODELS, ModelInfo, describe

__all__ = ["BUNDLED_MODEL", "KNOWN_HUB_MODELS", "Encoder", "Encoding", "ModelInfo", "describe", "load_encoder"]


def __getattr__(name: str) -> Any:
    if name in ("Encoder", "Encoding", "load_encoder"):
        from bertviz_core import encoder

        return getattr(encoder, name)
    raise AttributeError(f"module 'bertviz_core' has no attribute {name!r}")
