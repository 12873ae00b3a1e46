"""Similar contexts: a token's nearest neighbours in a corpus, layer by layer, and how contextual each layer is."""
import streamlit as st

from bertviz_core import figures, recipes
from bertviz_core.corpora import TUTORIAL
from bertviz_core.corpora.tutorial import query_token
from bertviz_core.figures import layer_label
from bertviz_core.model.lengths import cut_note
from bertviz_core.measures.neighbours import MIN_CONTEXTS, MIN_TEXTS, own_sentences
from bertviz_core.views.page_views import fewer_tokens_note, neighbours_listed
from bertviz_core.views.similar_contexts import share_said
from bertviz_core.measures.pooling import POOLINGS, supported_strategies
from bertviz_core.measures.similarity import METRICS
from bertviz_core.model.token_index import index_rows
from ui import (
    chart, choose, columns, contextuality_view, corpus_contextuality, corpus_digest, corpus_lengths, corpus_source,
    cut_warning, detached, download_csv, embed_corpus, encode_texts, encoder, ensure_app_navigation, fragment,
    int_slider, literal, measures_view, model_input, model_key, neighbour_summary, or_stop, sentence_neighbours,
    store_view, table, teaching_panel, text_bind, token_index, token_neighbours, with_progress, word_contextuality,
)

ensure_app_navigation()

info = encoder().info
num_layers = info.num_layers
st.title("🔭 Similar contexts")
corpus = corpus_source("Corpus", "sc", "similar_contexts", "reference sentences", with_labels=False,
                       min_texts=MIN_TEXTS,
                       why=" (other contexts, and the random-pair baseline, need two sentences or more)")
if corpus is None:
    st.stop()  # no corpus results until a file can be used
texts, corpus_code = corpus.texts, corpus.code
if corpus.store is None:
    corpus_id = corpus_digest(texts)
    cut_warning(cut_note(info.max_length, corpus_lengths(model_key(), corpus_id, texts).dropped, "corpus sentence"))
sentence = st.text_input("Your sentence", TUTORIAL, key="sc_text", bind=text_bind("sc_text"), max_chars=5_000)
if not sentence.strip():
    st.info("Type a sentence above, then pick one of its tokens: the corpus shows where else the model puts it.")
    st.stop()
query_input = or_stop(lambda: model_input(model_key(), sentence, None))
cut_warning(cut_note(info.max_length, [query_input.dropped], "sentence"))
if all(query_input.special):
    st.info("Your sentence gives no token but the markers the tokenizer adds: it holds only characters the "
            "tokenizer drops (e.g. zero-width or control characters). Type a sentence with words.", icon="✋")
    st.stop()
labels = figures.token_labels(query_input.tokens)
token = choose(st, "Token", labels, query_token(query_input.tokens), key="sc_token", bind="query-params",
               help="Starts on the text's second “bank”, as in the tutorial, or its first word.")
if corpus.store is not None:
    contextuality_view(corpus, store_view(corpus, sentence, query_input, token))
    st.stop()
c1, c2 = st.columns([3, 2])
k = c1.slider("Neighbours (k)", 1, 50, 10, key="sc_k", bind="query-params")
metric = c2.selectbox("Metric", list(METRICS), key="sc_metric", bind="query-params")

if query_input.special[token]:
    st.error(f"{literal(labels[token])} is a marker the tokenizer adds, not a word of your sentence, and the index "
             "holds only the corpus' words. Pick another token.", icon="✋")
    st.stop()
words = index_rows([query_input], [sentence])
word = words.loc[words["position"] == token, "word"].iloc[0]
index = with_progress("Indexing the corpus, every token at every layer",
                      lambda progress: token_index(model_key(), corpus_id, texts, progress))
if own_sentences(texts, sentence):
    st.caption("Your sentence is also in the corpus; that copy is left out of every list below, where it would "
               "only find itself.")
fewer = fewer_tokens_note(k, len(index.tokens))
if fewer:
    st.warning(fewer)
states = encode_texts(model_key(), (sentence,))[0].hidden_states  # from the shared store, every run
summary = neighbour_summary(model_key(), corpus_id, sentence, token, k, metric, word, index, states)
lists = st.container()  # drawn last, once the sentence search's pickers below are read (its code names them)


@fragment
@detached
def token_lists(texts: tuple[str, ...], corpus_id: str, corpus_code: str, sentence: str, token: int, word: str,
                k: int, metric: str, summary, sentences: tuple[str, int | None]) -> None:
    """The two layers' nearest corpus tokens, each under its layer's slider, and the code of the whole page: a
    layer change reruns only this part (docs/performance.md, "One view at a time"). ``summary`` is the token's
    share of the same word by layer (small); the corpus index and the sentence's hidden states are read from the
    shared store, not kept with the fragment's arguments. ``sentences``: the sentence search's pooling code and
    layer, for the code."""
    index = with_progress("Indexing the corpus, every token at every layer",
                          lambda progress: token_index(model_key(), corpus_id, texts, progress))
    states = encode_texts(model_key(), (sentence,))[0].hidden_states  # (layers+1, tokens, hidden)
    panel = st.container()  # above the lists, filled once their layer sliders are read (its code names them)
    st.subheader(f"Where else the model puts “{literal(query_input.tokens[token])}”, token {token}")
    st.caption(f"{len(index.tokens):,} tokens of {len(texts):,} sentences, {metric} "
               f"({METRICS[metric].note}); the token is between « ». The downloads hold the whole sentences.")
    layers: list[int] = []
    for column, (label, default, side) in zip(st.columns(2), (("Layer, left", 1, "left"),
                                                             ("Layer, right", num_layers, "right"))):
        with column:
            layer = int_slider(label, 0, num_layers, default, key=f"sc_layer_{side}", bind="query-params")
            shown = token_neighbours(model_key(), corpus_id, sentence, token, layer, k, metric, index, states)
            share = summary.loc[summary["layer"] == layer].iloc[0]
            st.markdown(f"**{layer_label(layer).capitalize()}**: {literal(share_said(share, word))}")
            table(shown[["rank", "score", "context"]], key=f"sc_near_{side}", height=420)
            download_csv(shown, "Download (CSV)", f"neighbours_layer{layer}.csv", f"sc_near_{side}_csv")
            layers.append(layer)
    strategy_code, sentence_layer = sentences
    with panel:
        teaching_panel(
            "Every token of the corpus is kept at every layer; the lists are the corpus tokens whose vectors lie "
            "nearest to the chosen token's, at two layers side by side.  \n"
            "Low layers group a token with the same word wherever it stands; higher layers with tokens in similar "
            "contexts. Below: that shift at every layer, semantic search over sentences, and how contextual each "
            "layer is.",
            recipes.similar_contexts(info, sentence, token, corpus_code, (layers[0], layers[1]), k, metric, word,
                                     strategy_code, sentence_layer),
            key="similar_contexts",
        )


st.subheader("The same word, or a similar context? Layer by layer")
st.caption(f"At every layer: the share of the {neighbours_listed(k, len(index.tokens))} nearest corpus tokens that "
           f"belong to “{literal(word)}” itself (“most possible”: how many of them can, as many as the corpus "
           "holds outside your sentence), and the words most common among them. BERT-base's upper layers are "
           "much less self-similar (Ethayarajh 2019), so context can take over from identity there; where the share "
           "stays high, context still decides which occurrences come nearest (compare the two lists above).")
left, right = columns([3, 2])
chart(figures.layer_share_figure(summary, f"Share of neighbours that are “{word}”, by layer"), key="sc_share",
      container=left)
with right:
    table(summary.drop(columns="neighbours").assign(  # the neighbours listed: k, said in the caption above
        layer=[layer_label(x) for x in summary["layer"]], **{"same word": summary["same word"].map("{:.0%}".format)}),
        key="sc_summary")
download_csv(summary, "Download the summary (CSV)", "neighbour_summary.csv", "sc_summary_csv")

st.subheader("Nearest sentences")
strategies = supported_strategies(info.has_pooler)
s1, s2 = st.columns(2)
strategy = s1.selectbox("Sentence vector", strategies, index=strategies.index("mean"), key="sc_strategy",
                        bind="query-params", help="How token vectors become one sentence vector (see Sentence pooling).")
sentence_layer = int_slider("Layer (sentences)", 0, num_layers, num_layers, key="sc_sentence_layer", container=s2,
                            bind="query-params", disabled=not POOLINGS[strategy].per_layer)
pooled = with_progress("Pooling the corpus' sentences", lambda progress: embed_corpus(model_key(), texts, progress))
near = sentence_neighbours(model_key(), corpus_id, sentence, strategy, POOLINGS[strategy].layer_of(sentence_layer), k,
                           metric, pooled, texts, embed_corpus(model_key(), (sentence,)))
with lists:
    token_lists(texts, corpus_id, corpus_code, sentence, token, word, k, metric, summary,
                (POOLINGS[strategy].code, POOLINGS[strategy].layer_of(sentence_layer)))
st.caption(f"Semantic search: the corpus sentences whose “{strategy}” vectors lie nearest to your sentence's, by "
           f"{metric}. Compare sentences ranks sentences you paste; this searches the whole corpus.")
table(near[["rank", "score", "text"]], key="sc_sentences", height=420)
download_csv(near, "Download (CSV)", "nearest_sentences.csv", "sc_sentences_csv")

st.subheader("How contextual is each layer?")
corpus = corpus_contextuality(model_key(), corpus_id, index)
st.caption(
    "After Ethayarajh (2019). **Self-similarity**: the mean cosine between a word's vectors in different sentences "
    f"(for the corpus: every word found in at least {MIN_CONTEXTS} sentences, {corpus.words:,} words here; "
    "punctuation is no word and is left out, as in the paper's code). "
    "**Intra-sentence**: the mean cosine between a sentence's tokens and their mean. **Anisotropy baseline**: the "
    "mean cosine between random tokens of different sentences. **Adjusted**: minus the baseline, as the paper "
    "reports them, since a high cosine can mean only that all vectors point one way."
)
measures = corpus.table
try:
    measures = measures.merge(word_contextuality(model_key(), corpus_id, word, index, corpus), on="layer")
except ValueError as err:
    st.info(literal(str(err)), icon="🔎")
measures_view(measures, "sc", "Contextuality by layer", "contextuality.csv")
