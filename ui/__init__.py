"""Streamlit glue shared by every page; the only bridge between Streamlit and the core (bertviz_core).

Pages import the ui layer one way: ``from ui import …``, every name a page uses being listed here. One concern a
module: ``picker`` (the model and its Encoder), ``results`` (the shared store and the model runs that fill it),
``cached`` (cached core calls), ``display`` (messages, charts, tables, downloads), ``links`` (share links,
presentation mode), ``uploads`` (a CSV upload as a page's corpus), ``text_pickers`` (pickers over the user's text),
``widgets`` (functions given to widgets; ``@detached``), ``warm`` (the background warm-up); and three groups:
``layout/`` (how a chart is laid out to be read), ``stores/`` (a precomputed store as a page's corpus) and
``page_parts/`` (what one page alone needs: Attention, Compare models, Why similar, Masked words, Task measures,
Which model?).
"""
from ui.cached import (
    annotated_tokens, compared, corpus_contextuality, corpus_lengths, correlation_scores, map_cell, masked_lens,
    masks, neighbour_summary, pooling_cell, pooling_cells, probe_cell, sentence_neighbours, task_scoring,
    token_highlight, token_neighbours, tokenize_text, vocabulary, word_contextuality, word_occurrences,
)
from ui.display import (
    chart, cut_warning, download_csv, download_npy, int_slider, literal, literal_but_bold, or_stop, progress_over,
    scatter_grid, score_grid_view, table, teaching_panel, with_progress,
)
from ui.layout.canvas import (
    canvas_chart, canvas_heatmap, canvas_table_heatmap,
)
from ui.layout.present import (
    columns,
)
from ui.links import (
    ensure_app_navigation, forget_shared_senses, PRESENT, presentation_style, presenting, served_by_app,
    set_shared_senses, shared_senses, text_bind,
)
from ui.page_parts.attention import (
    head_view_chart,
)
from ui.page_parts.compare_models import (
    aligned_pair, comparison_code, cut_warnings, identities, judged_matches, layer_comparison, match_evidence,
    pick_model_b, pooled_pair, tokenization_table,
)
from ui.page_parts.masked import (
    nearest_embeddings,
)
from ui.page_parts.task_measures import (
    probe_grids_view,
)
from ui.page_parts.which_model import (
    model_costs, model_infos, model_ranking, models_cut_warnings, pick_models, pooled_models, which_model_code,
)
from ui.page_parts.why_similar import (
    attribution, attribution_code, cut_notice, maxsim,
)
from ui.picker import (
    active_info, allowed_models, BUNDLED_MODEL, encoder, failed_models, get_encoder,
    model_choices, model_key, model_sidebar, offer_model, remembered_failure, show_in_picker,
)
from ui.results import (
    at_low_priority, attention_summary, attention_weights, corpus_digest, embed_corpus, encode_texts, LARGE_CORPUS,
    model_input, model_of, result_store, token_index,
)
from ui.stores.contexts import (
    contextuality_view, measures_view,
)
from ui.stores.corpus import (
    ranking_store_view, store_view,
)
from ui.stores.exports import (
    corpus_downloads,
)
from ui.stores.maps import (
    maps_store_view,
)
from ui.stores.measures import (
    pooling_store_view, probe_store_view,
)
from ui.stores.models import (
    held_model_cells, model_stores_source, stores_ranking,
)
from ui.text_pickers import (
    choose,
)
from ui.uploads import (
    corpus_source, scored_pairs,
)
from ui.warm import (
    fragment, page_running, preload_encoder,
)
from ui.widgets import (
    apply_preset, detached, head_label, keep_senses_in_link, open_head, OPENED, OWN, strategy_label, texts_edited,
)

__all__ = [
    "active_info", "aligned_pair", "allowed_models", "annotated_tokens", "apply_preset", "at_low_priority", "attention_summary",
    "attention_weights", "attribution", "attribution_code", "BUNDLED_MODEL", "canvas_chart", "canvas_heatmap",
    "canvas_table_heatmap", "chart", "choose", "columns", "compared", "comparison_code", "contextuality_view",
    "corpus_contextuality", "corpus_digest", "corpus_downloads", "corpus_lengths", "corpus_source",
    "correlation_scores", "cut_notice",
    "cut_warning", "cut_warnings", "detached", "download_csv", "download_npy", "embed_corpus", "encode_texts",
    "encoder", "ensure_app_navigation", "failed_models", "forget_shared_senses", "fragment", "get_encoder", "head_label",
    "head_view_chart",
    "held_model_cells", "identities", "judged_matches", "int_slider", "keep_senses_in_link", "LARGE_CORPUS",
    "layer_comparison", "literal", "literal_but_bold", "map_cell", "maps_store_view", "masked_lens", "masks",
    "match_evidence", "maxsim", "measures_view", "model_choices", "model_costs", "model_infos", "model_ranking",
    "model_stores_source", "models_cut_warnings", "pick_models", "pooled_models", "stores_ranking", "which_model_code",
    "model_input", "model_key", "model_of", "model_sidebar", "nearest_embeddings", "neighbour_summary", "offer_model",
    "open_head", "OPENED", "or_stop", "OWN", "page_running", "pick_model_b", "pooled_pair", "pooling_cell",
    "pooling_cells", "pooling_store_view", "preload_encoder", "PRESENT", "presentation_style", "presenting", "probe_cell",
    "probe_grids_view", "probe_store_view", "progress_over", "ranking_store_view", "remembered_failure", "result_store",
    "scatter_grid", "score_grid_view", "scored_pairs", "sentence_neighbours", "served_by_app", "set_shared_senses",
    "shared_senses", "show_in_picker", "store_view", "strategy_label", "table", "task_scoring", "teaching_panel", "text_bind",
    "texts_edited", "token_highlight", "token_index", "token_neighbours", "tokenization_table", "tokenize_text", "vocabulary",
    "with_progress", "word_contextuality", "word_occurrences"
]
