"""Compare sentences: ad-hoc similarity, query ranking, anisotropy and its corrections, pair inputs."""
from functools import partial

import pandas as pd
import streamlit as st

from bertviz_core import figures, recipes
from bertviz_core.figures.canvas_bars import ranking_spec
from bertviz_core.views.comparison import pair_versus_alone, ranking
from bertviz_core.corpora import news_topics
from bertviz_core.model.lengths import cut_note
from bertviz_core.views.page_views import compare_default_layer, read_lines, sentence_labels, tokens_preview
from bertviz_core.measures.pooling import POOLINGS, supported_strategies
from bertviz_core.measures.similarity import CORRECTIONS, METRICS
from bertviz_core.words.tokens import pair_layout
from ui import (
    canvas_chart, canvas_heatmap, choose, columns, compared, corpus_digest, corpus_lengths, cut_warning, download_csv,
    embed_corpus, encode_texts, encoder, ensure_app_navigation, int_slider, literal, model_input, model_key,
    ranking_store_view, table, teaching_panel, text_bind,
)

ensure_app_navigation()
VIEWS = ["Every pair", "Rank against one sentence", "Two sentences as one input"]

QA_PAIR = ("what is your age?", "Today is monday")  # a pair a Q&A thread reports at 0.93 with bert-base-uncased
EXAMPLE = "\n".join([
    *QA_PAIR,
    "How old are you?",
    "What day of the week is it today?",
    "The river flooded the fields after the storm.",
    "Heavy rain made the river burst its banks.",
])
loaded = encoder()
info = loaded.info
num_layers = info.num_layers

st.title("⚖️ Compare sentences")
raw = st.text_area("Sentences, one per line", EXAMPLE, key="cs_texts", bind=text_bind("cs_texts"), height=160,
                   max_chars=100_000)
available = supported_strategies(info.has_pooler)
c1, c2, c3 = st.columns(3)
strategy = c1.selectbox("Pooling", available, index=available.index("mean"), key="cs_strategy",
                        bind="query-params")
pooling = POOLINGS[strategy]
layer = pooling.layer_of(int_slider(
    "Layer (0 = embeddings)", 0, num_layers, compare_default_layer(num_layers), key="cs_layer", container=c2,
    bind="query-params",
    disabled=not pooling.per_layer,
    help=None if pooling.per_layer else f"{strategy} gives one vector per text, whatever the layer."))
metric = c3.selectbox("Metric", list(METRICS), key="cs_metric", bind="query-params")
c1, c2 = st.columns(2)
correction = c1.radio("Correct for anisotropy", list(CORRECTIONS), horizontal=True, key="cs_correct",
                      bind="query-params", help="Fitted on 80 of the built-in corpus' news-style sentences.")
axes = int(c2.number_input("Whitening: keep the top k axes (0 = all)", 0, info.hidden_size, 0, key="cs_k",
                           bind="query-params", disabled=correction != "whitening")) or None

lines = read_lines(raw)
texts = lines.texts
if lines.too_few_to_compare:
    st.info("Enter at least two sentences, one per line, to compare them." if texts else
            "Enter a few sentences, one per line. The example compares the two sentences of a well-known "
            "question about BERT, 'what is your age?' and 'Today is monday', with related and unrelated ones.")
    st.stop()
if lines.skipped:
    st.caption(f"{lines.skipped} empty line(s) ignored.")
if lines.repeated:
    st.caption("Some sentences appear more than once: duplicates score as identical (1.0 for cosine).")
cut_warning(cut_note(info.max_length, corpus_lengths(model_key(), corpus_digest(texts), texts).dropped, "sentence",
                     numbered=True))

key = model_key()
sentences = pooling.at(embed_corpus(key, texts)[strategy], layer)  # (n, hidden)
reference = pooling.at(embed_corpus(key, tuple(news_topics()["text"]))[strategy], layer)  # (160, hidden)
comparison = compared(key, corpus_digest(texts), strategy, layer, metric, correction, axes, sentences, reference)
labels = sentence_labels(texts)
names = labels.names
where = figures.layer_label(layer)

teaching_panel(
    f"Each cell is the {metric} of two sentence vectors ({strategy}, {where}). Hidden states share a common "
    "direction (anisotropy), so even unrelated sentences score high: judge every number against the orange band "
    "of random, unrelated pairs.  \n"
    "A model trained for sentence similarity (like the bundled one) removes most of this in its last layer only: "
    "compare the last layer with the ones below it.",
    recipes.compare_sentences(info, list(texts), pooling.code, layer, correction, axes, metric),
    key="compare_sentences",
)

# Only the open tab is drawn (on_change="rerun"): the matrix, the ranking and its table together took most of a
# change's time (docs/performance.md, "One view at a time").
matrix_tab, rank_tab, pair_tab = st.tabs(VIEWS, key="cs_view", bind="query-params", on_change="rerun")
# Rows and columns are numbered, with the sentences in a key: long sentences must not squeeze the matrix.
scale = "Blues" if METRICS[metric].similar_high else "Blues_r"
numbers = labels.numbers
with matrix_tab:
    if matrix_tab.open:
        if correction == "none":
            canvas_heatmap(comparison.raw, numbers, numbers, f"{metric}, {strategy}, {where}", "cs_raw",
                           colorscale=scale)
        else:
            left, right = columns(2)
            canvas_heatmap(comparison.raw, numbers, numbers, "raw", "cs_raw", colorscale=scale, container=left)
            canvas_heatmap(comparison.corrected, numbers, numbers, f"after {correction}", "cs_fixed",
                           colorscale=scale, container=right)
        if texts[:2] == QA_PAIR:
            st.caption(f"The Q&A thread's 0.93 for sentences 1 and 2 came from bert-base-uncased; the loaded model "
                       f"({literal(info.name)}, {strategy}, {where}) gives **{comparison.raw[0, 1]:.2f}** ({metric}).")
        st.caption("Key: " + " · ".join(f"**{number}** {literal(text)}" for number, text in labels.key))
        exported = {"raw": comparison.raw} | ({f"after {correction}": comparison.corrected}
                                              if correction != "none" else {})
        download_csv(pd.concat([pd.DataFrame(m, index=names, columns=names).reset_index(names="sentence")
                                .assign(matrix=name) for name, m in exported.items()]),
                     "Download the matrix (CSV)", "sentence_similarity.csv", "cs_matrix_csv")

with rank_tab:
    if rank_tab.open:
        query = choose(st, "Query", names, 0, key="cs_query", bind="query-params")
        ranked = ranking(comparison, query, texts)
        canvas_chart(partial(ranking_spec, [labels.short[i] for i in ranked["index"]], ranked[metric],
                             comparison.band), f"{metric} to sentence {numbers[query]}", "cs_rank")
        band = comparison.band
        shown = ranked.drop(columns="index").rename(columns={"above this share of random pairs": "beats random pairs"})
        table(shown, key="cs_ranking")  # shown to 3 decimals; the CSV keeps full precision
        st.caption(f"“Beats random pairs”: the share of {len(comparison.baseline):,} random pairs from half of the "
                   f"built-in corpus that score lower"
                   f"{'; the correction was fitted on the other half' if correction != 'none' else ''}. Random pairs: "
                   f"5th percentile {band[0]:.3f}, median {band[1]:.3f}, 95th {band[2]:.3f}.")
        download_csv(ranked.drop(columns="index"), "Download the ranking (CSV)", "ranking.csv", "cs_rank_csv")
        ranking_store_view(texts[query], metric, "compare_sentences")

with pair_tab:
    if pair_tab.open:  # opening the tab asks for the pair: it runs the model once for it
        st.markdown(f"Sentences 1 and 2 encoded as one pair, {literal(pair_layout(model_input(key, 'A', 'B')))}, "
                    "beside each encoded alone.")
        (pair,) = encode_texts(key, texts[:1], texts[1:2])
        alone = encode_texts(key, texts[:2])
        cosines = pair_versus_alone(pair, alone)
        table(cosines.reset_index(names="vector"), key="cs_pair_table")
        st.caption("As a pair, every token of A attends to every token of B: the pair's [CLS] is one vector for the "
                   "two together (what a cross-encoder scores), not a mix of two sentence vectors. Encoded apart, "
                   "each sentence gets its own vector, which is what similarity search compares. "
                   f"Pair tokens: {tokens_preview(pair.tokens)}.")
        st.caption(literal(loaded.segments_note) if loaded.segments_note else
                   "The model receives segment 0 for A's tokens and segment 1 for B's.")
