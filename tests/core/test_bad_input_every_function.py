"""Every public function of bertviz_core has a bad-input case (tests/core/test_bad_input_*.py) or, here, the
reason it needs none."""
from __future__ import annotations

import importlib
import inspect

from bad_input import MODULES
from test_bad_input_comparison import CASES as COMPARISON
from test_bad_input_grids import CASES as GRIDS
from test_bad_input_measures import CASES as MEASURES
from test_bad_input_model import CASES as MODEL
from test_bad_input_pairs import CASES as PAIRS

from bertviz_core import Encoder


CASES = {**MODEL, **MEASURES, **GRIDS, **COMPARISON, **PAIRS}

# Public functions without a case, and why none is needed.
EXEMPT: dict[str, str] = {
    **{f"tokenizing.{name}": "batches the ModelInputs the Encoder made itself (Encoder.inputs checks the texts)"
       for name in ("batches", "padded")},
    **{f"page_views.{name}": "shapes what a page already holds (a widget's value, a model's counts, a checked core "
                             "result) into a default, label or sentence; tests/core/test_page_views.py pins each"
       for name in ("state_count", "layer_numbers", "head_numbers", "clip", "read_lines", "head_view",
                    "model_view_note", "compare_default_layer", "sentence_labels", "tokens_preview", "mask_names",
                    "miswritten_note", "settles", "per_mask", "every_guess", "pooling_default_layers", "default_cell",
                    "folds_note", "map_title", "grid_panels", "neighbours_listed", "fewer_tokens_note", "rounded",
                    "default_padding", "token_counts", "vocab_window", "vocab_rows", "default_word_strategy",
                    "missing_occurrences", "tutorial_table")},
    "corpus_sources.stores_listed": "takes no argument: it reads the server's BERTVIZ_CORPORA setting",
    "tokens.pair_layout": "reads the ModelInput Encoder.inputs made of the pair (\"A\", \"B\")",
    "tokens.token_frame": "lays out the ModelInput Encoder.tokenize made, after checking the text and pad_to",
    "encoder.library_versions": "takes no argument: it reads the installed libraries' versions",
    "model_choice.cell_name": "names a key of the grid ranked built itself (model, strategy at layer)",
    "projection.compile_umap": "takes no argument: it compiles umap's functions at install",
    **{f"store.{name}": "takes no argument: it reads the server's settings or hands freed memory back"
       for name in ("cache_budget", "spill_budget", "spill_folder", "release_free_memory")},
    **{f"grid_figures.{name}": "lays out the (checked) PCA or map coordinates of the grids; it computes no number"
       for name in ("pca_grid_figure", "unit_square", "pca_grid_spec", "label_colours")},
    **{f"figures.{name}": "draws the (checked) output of the functions above; it computes no number"
       for name in ("plain", "plains", "hover_texts", "layer_label", "layer_distributions_figure",
                    "heatmap_figure", "token_labels", "attention_figure", "thumbnail_grid_figure", "table_heatmap", "table_cells",
                    "score_grid_figure", "pair_curves_figure", "guess_grid_figure", "rank_curves_figure", "layer_share_figure",
                    "measures_figure")},
    "canvas_heatmaps.heatmap_spec": "lays out a matrix a page computed; its refusals of labels that do not match the "
                                    "matrix, an unknown colour scale, a best cell or boundary outside it are "
                                    "tests/core/test_figures.py's",
    "canvas_heatmaps.title_from_data": "names one of the views' own datasets (a constant of the code), never a "
                                       "user's input",
    "canvas_heatmaps.title_rows": "repeats a title the page wrote (already wrapped) for the rows of a view's data",
    "canvas_bars.ranking_spec": "lays out a ranking a page computed; its refusals of scores that do not match the "
                                "names and of a band that is not three numbers are tests/core/test_canvas_bars.py's",
    "canvas_bars.histogram_spec": "lays out the bins stats.histogram made (its bad input has cases); its refusal of "
                                  "edges that do not bound the bins is tests/core/test_canvas_bars.py's",
    "map_figures.map_spec": "lays out the MapDrawing map_drawing checked and built; it computes no number",
    **{f"axes.{name}": "lays out the (checked) column labels and marked columns of heatmap_figure; it computes no number"
       for name in ("column_axis", "tick_step")},
    **{f"masked.{name}": "takes the ModelInput, Word or logits the Encoder made for the same text (masked.masks "
                         "and masked.logit_lens check what the user gives)"
       for name in ("find_masks", "words", "word_labels", "mask_word", "apply_head", "lens")},
    **{f"models.{name}": "loading plumbing behind load_encoder and describe, given what resolve_source resolved"
       for name in ("bundled_model_dir", "read_config", "available_devices", "load_pretrained", "mlm_head",
                    "segments_note", "hub_reachable", "refuse_remote_code")},
    **{f"model_files.{name}": "reads what describe and loading found in a model's files"
       for name in ("max_length", "config_value", "checkpoint_keys")},
    "Encoder.eager_model": "takes no argument",
    "Encoder.mlm_head": "takes no argument (the 'without a head' error is a logit_lens case)",
    "pair_figures.pair_lines_figure": "draws the (checked) result of attribution.pair_attribution and "
                                      "token_pairs.maxsim_pairs; it computes no number",
    "encoder.record": "writes a log line for tests and benchmarks; no user input",
    "encoding.trim_offset": "trims the offsets the tokenizer gave, inside the Encoder",
    "token_index.index_rows": "builds token_index's rows from its own tokenizer output",
    **{f"model_choice.{name}": "rank_models is scoring, then ranked: its cases (test_bad_input_grids) pass through both"
       for name in ("scoring", "ranked")},
    **{f"which_model.{name}": "shapes what the Which model? page already holds (checked models, a rank_models "
                              "table, checked pairs) into a check, a table or a figure; "
                              "tests/pages/test_which_model_page.py pins each, its bad input included"
       for name in ("check_models", "cost_table", "disk_bytes", "layer_choices", "layers_spec", "layers_title",
                    "leaderboard", "model_cells", "model_grid", "model_grid_figure", "pairs_corpus", "parameter_count",
                    "encoding_speed", "stored_speed", "shared_scale", "shared_scale_sentence")},
    "word_vectors.distinct": "takes word_strategies' own registry, never a user's input",
    "token_index.build_index": "fills token_index's index from its own encodings",
    "pooling.supported_strategies": "reads ModelInfo.has_pooler",
    "pooling_grid.cell_title": "formats a Cell and the CellResult score_cell made",
    "pooling_grid.scores_over": "lays out the cells grid_cells made (checked there)",
    "similarity.top_positions": "finds the cells of a Verdict that verdict made for the same table",
    "task_measures.probe_code": "formats teaching code from a plan probe_plan made",
    "task_measures.agreement": "formats two Verdicts that verdict made",
    "pooling_grid.silhouette_grid": "lays out the cells grid_cells made and the CellResults score_cell made",
    **{f"uncertainty.{name}": "works on the replicates and resampling the core's grids made (probe_grid, "
       "correlation_grid, silhouette_grid, sense_verdict, all with cases)"
       for name in ("bootstrap", "folds", "interval", "cell_name", "judge", "mean_replicates", "spearman_replicates",
                    "pair_replicates")},
    "vocab.vocabulary_table": "reads a loaded tokenizer (an Encoder's .tokenizer)",
    "tokens.token_scheme": "reads a loaded tokenizer (Encoder.tokenizer)",
    "word_vectors.word_span": "looks up offsets the tokenizer gave in word_owners' table",
    "word_vectors.one_piece_everywhere": "reads the Occurrences occurrences made",
    "twin.cache_folder": "takes no argument (reads BERTVIZ_CACHE)",
    **{f"class_server.{name}": "starts or watches server processes from the operator's command line, not a "
                               "user's input (tests/test_class_server.py runs them; a bad WORKERS is said in a sentence)"
       for name in ("haproxy_path", "haproxy_config", "thread_share", "server_env", "class_server", "watch",
                    "main")},
}



def test_every_public_function_has_a_case_or_a_reason() -> None:
    covered = {name.split(":")[0] for name in CASES}
    public = {f"Encoder.{name}" for name, member in vars(Encoder).items()
              if not name.startswith("_") and inspect.isfunction(member)}
    for module_name, path in MODULES.items():
        module = importlib.import_module(path)
        public |= {f"{module_name}.{name}" for name, member in vars(module).items()
                   if not name.startswith("_") and inspect.isfunction(member) and member.__module__ == module.__name__}
    missing = public - covered - set(EXEMPT)
    assert not missing, f"no case and no reason: {sorted(missing)}"
    assert not (covered | set(EXEMPT)) - public, "cases or reasons for functions that do not exist"
    assert all(EXEMPT.values())
