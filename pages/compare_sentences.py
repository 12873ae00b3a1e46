"""Compare sentences: ad-hoc similarity, query ranking, anisotropy and its corrections, pair inputs."""
import numpy as np
import pandas as pd
import streamlit as st

from bertviz_core import figures, recipes
from bertviz_core.corpora import news_topics
from bertviz_core.pooling import POOLINGS
from bertviz_core.similarity import (
    CORRECTIONS,
    METRICS,
    baseline_band,
    fit_correction,
    random_pair_baseline,
    share_below,
    similarity_matrix,
)
from ui import (
    download_csv,
    embed_corpus,
    encode_texts,
    encoder,
    model_key,
    table,
    teaching_panel,
    through_navigation,
)

through_navigation()

EXAMPLE = "\n".join([
    "what is your age?",
    "Today is monday",
    "How old are you?",
    "What day of the week is it today?",
    "The river flooded the fields after the storm.",
    "Heavy rain made the river burst its banks.",
])
enc = encoder()
info = enc.info
L = info.num_layers

st.title("⚖️ Compare sentences")
raw = st.text_area("Sentences, one per line", EXAMPLE, key="cs_texts", bind="query-params", height=160,
                   max_chars=100_000)
available = [name for name, p in POOLINGS.items() if info.has_pooler or not p.needs_pooler]
c1, c2, c3 = st.columns(3)
strategy = c1.selectbox("Pooling", available, index=available.index("mean"), key="cs_strategy",
                        bind="query-params")
per_layer = POOLINGS[strategy].per_layer
layer = c2.slider("Layer (0 = embeddings)", 0, L, max(0, L - 1), key="cs_layer", bind="query-params", disabled=not per_layer,
                  help=None if per_layer else f"{strategy} gives one vector per text, whatever the layer.")
metric = c3.selectbox("Metric", list(METRICS), key="cs_metric", bind="query-params")
c1, c2 = st.columns(2)
correction = c1.radio("Correct for anisotropy", list(CORRECTIONS), horizontal=True, key="cs_correct",
                      bind="query-params", help="Fitted on 80 of the built-in corpus' news-style sentences.")
k = int(c2.number_input("Whitening: keep the top k axes (0 = all)", 0, info.hidden_size, 0, key="cs_k",
                        bind="query-params", disabled=correction != "whitening"))

texts = tuple(line.strip() for line in raw.splitlines() if line.strip())
skipped = len([line for line in raw.splitlines() if not line.strip()])
if len(texts) < 2:
    st.info("Enter at least two sentences, one per line, to compare them." if texts else
            "Enter a few sentences, one per line. The example compares the two sentences of a well-known "
            "question about BERT, 'what is your age?' and 'Today is monday', with related and unrelated ones.")
    st.stop()
if skipped:
    st.caption(f"{skipped} empty line(s) ignored.")
if len(set(texts)) < len(texts):
    st.caption("Some sentences appear more than once: duplicates score as identical (1.0 for cosine).")
cut = [(i, d) for i, d in enumerate(enc.dropped(list(texts))) if d]
if cut:
    st.warning("Truncated to the model's maximum of " f"{info.max_length} tokens: "
               + ", ".join(f"sentence {i + 1} lost {d:,} tokens" for i, d in cut) + ".", icon="✂️")

key = model_key()
reference_texts = tuple(news_topics()["text"])
index = layer if per_layer else 0


def vectors_of(pooled: dict[str, np.ndarray]) -> np.ndarray:
    return pooled[strategy][:, index]


sentences = vectors_of(embed_corpus(key, texts))  # (n, hidden)
reference = vectors_of(embed_corpus(key, reference_texts))  # (160, hidden)
# Fit on half of the built-in corpus and draw the random-pair baseline from the other half: whitening
# makes the very texts it was fitted on orthogonal, which would say nothing about unseen pairs.
fix = fit_correction(correction, reference[::2], k or None)
names = [f"{i + 1}: {t[:50]}{'…' if len(t) > 50 else ''}" for i, t in enumerate(texts)]
where = figures.layer_label(layer) if per_layer else "one vector"

teaching_panel(
    f"Each cell is the {metric} of two sentence vectors ({strategy}, {where}). Hidden states share a common "
    "direction (anisotropy), so even unrelated sentences score high: judge every number against the orange band "
    "of random, unrelated pairs.  \n"
    "A model trained for sentence similarity (like the bundled one) removes most of this in its last layer only: "
    "compare the last layer with the ones below it.",
    recipes.compare_sentences(info, list(texts), POOLINGS[strategy].code, layer if per_layer else None, correction,
                              k or None),
)

raw_matrix = similarity_matrix(sentences, metric)
fixed_matrix = similarity_matrix(fix(sentences), metric)
scale = "Blues" if METRICS[metric].similar_high else "Blues_r"
if correction == "none":
    st.plotly_chart(figures.heatmap_figure(raw_matrix, names, names, f"{metric}, {strategy}, {where}",
                                           colorscale=scale, annotate=True), key="cs_raw")
else:
    numbers = [str(i + 1) for i in range(len(texts))]
    left, right = st.columns(2)
    left.plotly_chart(figures.heatmap_figure(raw_matrix, numbers, names, "raw", colorscale=scale, annotate=True),
                      key="cs_raw")
    right.plotly_chart(figures.heatmap_figure(fixed_matrix, numbers, numbers, f"after {correction}",
                                              colorscale=scale, annotate=True), key="cs_fixed")
matrix = fixed_matrix
exported = {"raw": raw_matrix} | ({f"after {correction}": fixed_matrix} if correction != "none" else {})
download_csv(pd.concat([pd.DataFrame(m, index=names, columns=names).reset_index(names="sentence").assign(matrix=name)
                        for name, m in exported.items()]), "Download the matrix (CSV)", "sentence_similarity.csv",
             "cs_matrix_csv")

st.subheader("Rank the others against one sentence")
baseline = random_pair_baseline(fix(reference[1::2]), metric)
band = baseline_band(baseline)
query = st.selectbox("Query", range(len(texts)), format_func=names.__getitem__, key="cs_query", bind="query-params")
others = [i for i in range(len(texts)) if i != query]
scores = matrix[query, others]
left, right = st.columns([3, 2])
left.plotly_chart(figures.ranking_figure([names[i] for i in others], scores, band,
                                         f"{metric} to “{names[query]}”", METRICS[metric].similar_high),
                  key="cs_rank")
order = np.argsort(scores)[::-1] if METRICS[metric].similar_high else np.argsort(scores)
ranking = pd.DataFrame({"rank": range(1, len(others) + 1), "sentence": [texts[others[i]] for i in order],
                        metric: scores[order], "above this share of random pairs": share_below(baseline, scores[order])})
with right:
    table(ranking)  # shown to 3 decimals; the CSV keeps full precision
right.caption(f"Random pairs from half of the built-in corpus ({len(baseline):,} pairs"
              f"{'; the correction was fitted on the other half' if correction != 'none' else ''}): "
              f"5th percentile {band[0]:.3f}, median {band[1]:.3f}, 95th {band[2]:.3f}.")
with right:
    download_csv(ranking, "Download the ranking (CSV)", "ranking.csv", "cs_rank_csv")

st.subheader("Two sentences as one input")
pair_on = st.toggle("Encode sentences 1 and 2 as a pair: [CLS] A [SEP] B [SEP], segments 0 then 1", key="cs_pair",
                    bind="query-params")
if pair_on:
    (pair,) = encode_texts(key, texts[:1], texts[1:2])
    alone = encode_texts(key, texts[:2])
    rows = {"[CLS] of the pair, last layer": pair.hidden_states[-1, 0],
            "[CLS] of sentence 1 alone": alone[0].hidden_states[-1, 0],
            "[CLS] of sentence 2 alone": alone[1].hidden_states[-1, 0]}
    if info.has_pooler:
        rows |= {"pooler output of the pair": pair.pooler, "pooler of sentence 1 alone": alone[0].pooler,
                 "pooler of sentence 2 alone": alone[1].pooler}
    vectors = np.stack(list(rows.values()))
    cos = similarity_matrix(vectors, "cosine")
    st.dataframe(pd.DataFrame(cos, index=list(rows), columns=list(rows)).round(3))
    st.caption("As a pair, every token of A attends to every token of B: the pair's [CLS] is one vector for the two "
               "together (what a cross-encoder scores), not a mix of two sentence vectors. Encoded apart, each "
               "sentence gets its own vector, which is what similarity search compares. "
               f"Pair tokens: {len(pair.tokens)} ({' '.join(pair.tokens[:24])}{' …' if len(pair.tokens) > 24 else ''}).")
