"""Plain transformers code that reproduces what a view shows, for a reader's own notebook.

Each function returns the source of a short program that loads the model the app has loaded and computes the
numbers a view shows, the same on every BERT-family architecture the app admits: the tokenizer is told the
model's usable length, segments count only where the model uses them, a word's pieces are found by their
characters with the spaces some tokenizers count in a word's first piece trimmed, and the logit lens applies
the architecture's own masked-LM head. tests/core/test_recipes.py runs every recipe on every model of the
model-family fixture against the core.

``common``: the load lines and shared snippets; ``views``: one text (tokens, hidden states, layer values,
attention) and one word across texts; ``sentences``: pooling, comparison and the task measures; ``contexts``:
Similar contexts; ``masked``: Masked words; ``models``: Compare models and Which model; ``pairs``: Why similar.
"""
from bertviz_core.recipes.common import TRIM_CODE, load_lines, pooled_vectors
from bertviz_core.recipes.contexts import BUILT_IN_CORPUS, similar_contexts, store_sentences, store_tokens
from bertviz_core.recipes.models import compare_models, compare_models_words, which_model
from bertviz_core.recipes.pairs import pair_attribution
from bertviz_core.recipes.masked import HEADS, masked_words, missing_head, nearest_embeddings
from bertviz_core.recipes.sentences import (
    BUILT_IN_PAIRS_CODE,
    NEWS_TOPICS_CODE,
    UPLOADED_CODE,
    UPLOADED_TEXTS_CODE,
    compare_sentences,
    correlation,
    probe,
    projection_map,
    sentence_pooling,
    store_corpus,
    store_map,
    store_measures,
)
from bertviz_core.recipes.views import attention, hidden_states, layer_values, tokenization, word_similarity

__all__ = ["BUILT_IN_CORPUS", "BUILT_IN_PAIRS_CODE", "HEADS", "NEWS_TOPICS_CODE", "TRIM_CODE", "UPLOADED_CODE", "UPLOADED_TEXTS_CODE",
           "attention", "compare_models", "compare_models_words", "compare_sentences", "correlation", "hidden_states", "layer_values", "load_lines",
           "masked_words", "missing_head", "nearest_embeddings", "pair_attribution", "pooled_vectors", "probe", "projection_map",
           "sentence_pooling", "similar_contexts", "store_corpus", "store_map", "store_measures", "store_sentences", "store_tokens", "tokenization", "which_model",
           "word_similarity"]
