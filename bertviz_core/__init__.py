"""bertviz_core: a plain library (no Streamlit) for looking inside BERT-family encoders."""
from bertviz_core.encoder import Encoder, Encoding, ModelInfo, load_encoder
from bertviz_core.models import BUNDLED_MODEL, KNOWN_HUB_MODELS

__all__ = ["BUNDLED_MODEL", "KNOWN_HUB_MODELS", "Encoder", "Encoding", "ModelInfo", "load_encoder"]
