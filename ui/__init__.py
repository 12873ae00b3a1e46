"""Streamlit glue shared by every page; the only bridge between Streamlit and the core (bertviz_core).

One concern a module: ``picker`` (the model and its Encoder), ``results`` (the shared store and the model
runs that fill it), ``cached`` (cached core calls), ``display`` (messages, charts, tables, downloads) and
``links`` (share links, presentation mode). Pages import what they use from here.
"""
from ui.cached import (
    compared, corpus_contextuality, corpus_lengths, correlation_scores, map_cell, masked_lens, masks, neighbour_summary,
    parse_pairs, pooling_cell, probe_cell, sentence_neighbours, token_neighbours, tokenize_text, vocabulary,
    word_occurrences,
)
from ui.display import (
    chart, cut_warning, download_csv, download_npy, int_slider, literal, or_stop, progress_over, scatter_grid,
    probe_grids_view, score_grid_view, table, teaching_panel, with_progress,
)
from ui.links import PRESENT, forget_shared_senses, presentation_style, presenting, set_shared_senses, shared_senses
from ui.picker import (
    BUNDLED_MODEL, active_info, allowed_models, encoder, ensure_app_navigation, failed_models, get_encoder,
    model_choices, model_key, model_sidebar, offer_model, remembered_failure, show_in_picker,
)
from ui.results import (
    LARGE_CORPUS, at_low_priority, attention_summary, attention_weights, corpus_digest, embed_corpus, encode_texts,
    model_input, result_store, token_index,
)

__all__ = [
    "BUNDLED_MODEL", "LARGE_CORPUS", "PRESENT", "active_info", "allowed_models", "at_low_priority", "attention_summary",
    "attention_weights", "chart", "compared", "corpus_contextuality", "corpus_digest", "corpus_lengths", "correlation_scores",
    "cut_warning", "download_csv", "download_npy", "embed_corpus", "encode_texts", "encoder", "ensure_app_navigation",
    "failed_models", "forget_shared_senses", "get_encoder", "int_slider", "literal", "map_cell", "masked_lens", "masks",
    "model_choices", "model_input", "model_key", "model_sidebar", "neighbour_summary", "offer_model", "or_stop", "parse_pairs",
    "pooling_cell", "presentation_style", "presenting", "probe_cell", "progress_over", "remembered_failure", "result_store",
    "probe_grids_view", "scatter_grid", "score_grid_view", "sentence_neighbours", "set_shared_senses", "shared_senses", "show_in_picker",
    "table", "teaching_panel", "token_index", "token_neighbours", "tokenize_text", "vocabulary", "with_progress", "word_occurrences",
]
