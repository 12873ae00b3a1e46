"""Compare models: which layers of two encoders represent the same texts alike (CKA, RSA), and the same texts
through both, side by side."""
import streamlit as st

from bertviz_core.measures.cka import DEBIASED_MIN_TEXTS
from bertviz_core.views.model_comparison import (
    ESTIMATORS,
    LEVELS,
    LAYER_STRATEGIES,
    colour_range,
    comparison_title,
    nearest_side_by_side,
    similarity_pair,
    text_choices,
    word_pieces,
)
from bertviz_core.measures.pooling import POOLINGS
from bertviz_core.model.models import ModelInfo
from ui import (
    aligned_pair, canvas_table_heatmap, choose, columns, comparison_code, corpus_digest, corpus_source, cut_warnings,
    detached, download_csv, encoder, ensure_app_navigation, fragment, get_encoder, identities, int_slider,
    judged_matches, layer_comparison, literal, match_evidence, model_input, model_key, or_stop, pick_model_b,
    pooled_pair, table, teaching_panel, tokenization_table,
)

ensure_app_navigation()

key_a = model_key()
info_a = encoder().info
st.title("🪞 Compare models")
corpus = corpus_source("Corpus", "cm", "compare_models", "news topics", with_labels=False, min_texts=DEBIASED_MIN_TEXTS,
                       why=", as CKA compares how each model relates the texts to one another")
if corpus is None:
    st.stop()
texts = tuple(corpus.texts)
c1, c2 = columns([3, 2])
key_b = pick_model_b(key_a[1], c1)
if key_b is None:
    st.stop()
info_b = get_encoder(*key_b).info
strategy = c2.selectbox("Pooling", LAYER_STRATEGIES, index=LAYER_STRATEGIES.index("mean"), key="cm_strategy",
                        bind="query-params",
                        help="The strategies with a vector at every layer. At the word level the tables average each "
                             "word's pieces instead; the side-by-side section below still uses this pooling.")
st.caption(f"**A** = {literal(info_a.name)} ({info_a.num_layers} layers, {info_a.hidden_size} wide) · "
           f"**B** = {literal(info_b.name)} ({info_b.num_layers} layers, {info_b.hidden_size} wide)")
cut_warnings(key_a, key_b, texts)


@fragment
@detached
def layers_alike(key_a: tuple[str, str], key_b: tuple[str, str], info_a: ModelInfo, info_b: ModelInfo,
                 texts: tuple[str, ...], strategy: str, corpus_code: str) -> None:
    """Which layers represent the texts alike, and its pickers: a change of the level or the estimator reruns only
    this part of the page (the section below depends on neither).

    Streamlit keeps a fragment's arguments for its reruns as long as the session lives, so each of this page's two
    is given the models and the corpus, not their vectors: those stay in the shared store, within its byte budget."""
    c3, c4 = columns(2)
    level = c3.radio("Compare", list(LEVELS), key="cm_level", bind="query-params",
                     help="Sentences: " + LEVELS["sentences"] + ". Words: " + LEVELS["words"] + ".")
    estimator = c4.radio("Estimator", list(ESTIMATORS), key="cm_estimator", bind="query-params",
                         help="Debiased CKA does not drift upwards on few texts, as linear CKA does.")
    if level == "sentences":
        pooled_a, pooled_b = pooled_pair(key_a, key_b, texts)
        a, b, left_out, read, text_of = pooled_a[strategy], pooled_b[strategy], 0, len(texts), None
    else:
        a, b, left_out, read, text_of = aligned_pair(key_a, key_b, texts)
    keyed = (identities(key_a, key_b), corpus_digest(texts), strategy if level == "sentences" else None, level)
    comparison = or_stop(lambda: layer_comparison(*keyed, estimator, a, b, left_out))
    evidence = match_evidence(*keyed, a, b, text_of)
    story, matches = judged_matches(*keyed, estimator, left_out, comparison, evidence)
    st.info("  \n".join(story), icon="🪞")
    left, right = columns(2)
    titles = comparison_title(comparison, strategy, read, len(texts))
    canvas_table_heatmap(comparison.cka, titles.cka, "cm_cka", colorscale="Viridis", zrange=colour_range(comparison),
                         annotate=False, container=left)
    canvas_table_heatmap(comparison.rsa, titles.rsa, "cm_rsa", colorscale="RdBu", zrange=(-1, 1), zmid=0.0,
                         annotate=False, container=right)
    table(matches, key="cm_matches")
    d1, d2, d3 = columns(3)
    with d1:
        download_csv(comparison.cka.reset_index(names="A layer"), "CKA table (CSV)", "cka.csv", "cm_cka_csv")
    with d2:
        download_csv(comparison.rsa.reset_index(names="A layer"), "RSA table (CSV)", "rsa.csv", "cm_rsa_csv")
    with d3:
        download_csv(matches, "Most alike layers (CSV)", "most_alike_layers.csv", "cm_matches_csv")
    teaching_panel(titles.what, comparison_code(info_a, info_b, corpus_code, level, strategy, estimator),
                   key="compare_models")


layers_alike(key_a, key_b, info_a, info_b, texts, strategy, corpus.code)


@fragment
@detached
def side_by_side(key_a: tuple[str, str], key_b: tuple[str, str], info_a: ModelInfo, info_b: ModelInfo,
                 texts: tuple[str, ...], strategy: str) -> None:
    """The same texts through both models: a change of either layer or of the text reruns only this part of the page
    (its arguments as ``layers_alike``'s)."""
    pooled_a, pooled_b = pooled_pair(key_a, key_b, texts)
    st.subheader("The same texts through both models")
    s1, s2 = columns(2)
    layer_a = int_slider("Model A's layer", 0, info_a.num_layers, info_a.num_layers, key="cm_layer_a", container=s1,
                         bind="query-params")
    layer_b = int_slider("Model B's layer", 0, info_b.num_layers, info_b.num_layers, key="cm_layer_b", container=s2,
                         bind="query-params")
    choices = text_choices(texts)
    query = choose(st, "Text", choices, 0, key="cm_query", bind="query-params")
    at_a, at_b = POOLINGS[strategy].at(pooled_a[strategy], layer_a), POOLINGS[strategy].at(pooled_b[strategy], layer_b)
    left, right = columns(2)
    matrix_a, matrix_b, numbered = similarity_pair(at_a, at_b, texts)
    for side, matrix, where, name, layer in (("A", matrix_a, left, info_a, layer_a),
                                            ("B", matrix_b, right, info_b, layer_b)):
        canvas_table_heatmap(matrix, f"Model {side} ({name.name}), {strategy} at layer {layer}: cosine of the "
                             f"first {len(matrix)} texts", f"cm_sim_{side}", colorscale="RdBu", zrange=(-1, 1),
                             zmid=0.0, container=where)
    st.caption("Key: " + literal(numbered))
    st.markdown(f"**Nearest texts to** “{literal(choices[query])}” in each model ({strategy}, cosine)")
    table(nearest_side_by_side(at_a, at_b, texts, query), key="cm_nearest")
    st.markdown("**How each model cuts the text into pieces**")
    table(word_pieces(texts[query], model_input(key_a, texts[query], None), model_input(key_b, texts[query], None)),
          key="cm_pieces")
    st.markdown("**How each model cuts the whole corpus**")
    table(tokenization_table(key_a, key_b, texts), key="cm_tokenization")


side_by_side(key_a, key_b, info_a, info_b, texts, strategy)
