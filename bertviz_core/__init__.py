"""bertviz_core: a plain library (no Streamlit) for looking inside BERT-family encoders.

What a notebook uses is importable from here (``__all__``); each name lives in one subpackage:

- ``model/``: where a model comes from, loading it, the ``Encoder``, tokenizing, identity, lengths;
- ``measures/``: pooling, similarity, statistics, attention, CKA, attribution, uncertainty, the probe;
- ``words/``: tokens, words made of pieces, the vocabulary, words aligned across tokenizers;
- ``views/``: the page registry and what each page lays out;
- ``figures/``: plotly figures and Vega-Lite specs, built and never drawn;
- ``runtime/``: the shared result store and the background worker;
- ``corpora/``, ``precompute/``, ``recipes/``: built-in texts and corpus sources, stores computed offline, the
  plain transformers code of each teaching panel; ``checks``: the shared input checks.

Names are imported on first use: most bring in transformers or scikit-learn, which take seconds; ``describe``,
``ModelInfo`` and ``BUNDLED_MODEL`` do not.
"""
from importlib import import_module
from typing import Any

from bertviz_core.model.model_files import describe
from bertviz_core.model.models import BUNDLED_MODEL, KNOWN_HUB_MODELS, ModelInfo

PUBLIC: dict[str, str] = {  # name: the module that defines it
    "Encoder": "bertviz_core.model.encoder", "Encoding": "bertviz_core.model.encoding",
    "load_encoder": "bertviz_core.model.encoder", "token_index": "bertviz_core.model.token_index",
    "open_store": "bertviz_core.precompute.reader",
    "linear_cka": "bertviz_core.measures.cka", "cka_matrix": "bertviz_core.measures.cka",
    "rsa_matrix": "bertviz_core.measures.cka", "pair_attribution": "bertviz_core.measures.attribution",
    "similarity_matrix": "bertviz_core.measures.similarity", "nearest_tokens": "bertviz_core.measures.neighbours",
    "contextuality": "bertviz_core.measures.neighbours", "logit_lens": "bertviz_core.measures.masked",
    "probe": "bertviz_core.measures.task_measures", "judge": "bertviz_core.measures.uncertainty",
    "rank_models": "bertviz_core.model_choice",
    "reference_corpus": "bertviz_core.corpora",
    # the registries: one per concept
    "POOLINGS": "bertviz_core.measures.pooling", "METRICS": "bertviz_core.measures.similarity",
    "CORRECTIONS": "bertviz_core.measures.similarity", "PROJECTIONS": "bertviz_core.measures.projection",
    "HEAD_STATISTICS": "bertviz_core.measures.attention", "REFERENCES": "bertviz_core.measures.attribution",
    "SUBWORD_RULES": "bertviz_core.words.word_vectors", "PAGES": "bertviz_core.views.page_registry",
    "CORPUS_SOURCES": "bertviz_core.corpora.corpus_sources", "BUILT_IN_CORPORA": "bertviz_core.corpora.corpus_sources",
}

__all__ = ["BUNDLED_MODEL", "KNOWN_HUB_MODELS", "ModelInfo", "describe", *PUBLIC]


def __getattr__(name: str) -> Any:
    if name in PUBLIC:
        return getattr(import_module(PUBLIC[name]), name)
    raise AttributeError(f"module 'bertviz_core' has no attribute {name!r}")
