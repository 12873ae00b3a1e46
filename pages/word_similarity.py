"""Contextual word similarity: one word in many contexts, across layers and word-vector strategies."""
import pandas as pd
import streamlit as st

from bertviz_core import figures, recipes
from bertviz_core.corpora import TUTORIAL, known_senses, word_presets
from bertviz_core.corpora.tutorial import TUTORIAL_STRATEGY, tutorial_comparison
from bertviz_core.model.lengths import cut_note
from bertviz_core.model.models import BUNDLED_MODEL_NOTE
from bertviz_core.views.page_views import default_word_strategy, missing_occurrences, read_lines, tutorial_table
from bertviz_core.measures.similarity import (
    METRICS,
    UNKNOWN_SENSE,
    pair_layer_curves,
    same_sense_pairs,
    score_grid,
    sense_verdict,
    similarity_matrix,
    top_positions,
)
from bertviz_core.words.word_vectors import (
    SUBWORD_RULES,
    check_word,
    one_piece_everywhere,
    stack,
    suggest_words,
    word_strategies,
)
from ui import (
    apply_preset, canvas_heatmap, chart, corpus_digest, cut_warning, detached, download_csv, encode_texts, encoder,
    ensure_app_navigation, fragment, keep_senses_in_link, literal, model_key, or_stop, OWN, shared_senses, table,
    teaching_panel, text_bind, texts_edited, word_occurrences,
)

ensure_app_navigation()

PRESETS = word_presets()
info = encoder().info
strategies = word_strategies(info.num_layers)


st.title("🏦 Word in context")
preset_name = st.selectbox("Preset", [*PRESETS, OWN], key="ws_preset", bind="query-params", on_change=apply_preset,
                           help="Sentences written for this project, using one word in several senses. Edit them "
                                "and the box says they are your own.")
preset = PRESETS.get(preset_name)
raw = st.text_area("Texts, one per line", "\n".join(preset.texts) if preset else "", key="ws_texts",
                   bind=text_bind("ws_texts"), height=180, max_chars=50_000, on_change=texts_edited)
c1, c2 = st.columns(2)
word_input = c1.text_input("Word", preset.word if preset else "", key="ws_word", bind="query-params", max_chars=100,
                           on_change=texts_edited)
subword = c2.selectbox("Merge a word's pieces by", list(SUBWORD_RULES), key="ws_sub", bind="query-params")

texts = read_lines(raw).texts
if not texts:
    st.info("Enter a few sentences above, one per line, that use the same word in different senses.")
    st.stop()
word = or_stop(lambda: check_word(word_input))

found = word_occurrences(model_key(), texts, word, subword)
missing = missing_occurrences(texts, len(found))
if missing:
    times, searched = missing
    hint = ", ".join(suggest_words(texts, word))
    st.warning(f"“{literal(word)}” {times} as a whole word in the {len(texts)} text(s) searched, "
               f"{literal(searched)}; at least two occurrences are needed. Words that are present: {literal(hint)}.",
               icon="🔍")
    st.stop()
cut = cut_note(info.max_length, [e.dropped for e in encode_texts(model_key(), texts)], "text", numbered=True)
cut_warning(cut and cut + " Occurrences in a cut part are not shown.")

names = [f"{k}: {o.context}" for k, o in enumerate(found)]
numbers = [str(k) for k in range(len(found))]  # chart labels; the key names them
vectors = stack(found)  # (n, layers+1, hidden)


@fragment
@detached
def similarity_view(texts: tuple[str, ...], word: str, subword: str, vectors, names: list[str],
                    numbers: list[str]) -> None:
    """What a word-vector or metric change redraws: only this part of the page reruns.

    ``vectors`` (n occurrences, layers+1, hidden) are the word's vectors, pieces merged by ``subword``.
    """
    c1, c2 = st.columns(2)
    strategy_name = c1.selectbox("Word vector", list(strategies), index=default_word_strategy(list(strategies)),
                                 key="ws_strategy", bind="query-params")
    metric = c2.selectbox("Metric", list(METRICS), key="ws_metric", bind="query-params")
    strategy = strategies[strategy_name]
    teaching_panel(
        f"Each cell compares two occurrences of “{literal(word)}”: the same word, read in different sentences. "
        "A static embedding (Word2Vec) would give them all one vector.  \n"
        "BERT's hidden states depend on the context, so the similarity says how much the context changed the word.",
        recipes.word_similarity(info, list(texts), word, strategy.code, SUBWORD_RULES[subword].code, metric),
        key="word_similarity",
    )
    st.subheader("Similarity matrix")
    matrix = similarity_matrix(strategy.fn(vectors), metric)
    st.caption(f"{metric} of the “{strategy_name}” vectors ({METRICS[metric].note}); pieces merged by {subword}.")
    canvas_heatmap(matrix, numbers, numbers, f"{metric}, {strategy_name}", "ws_matrix",
                   colorscale="Blues" if METRICS[metric].similar_high else "Blues_r")
    st.caption("Key: " + " · ".join(f"**{number}** {literal(name.split(': ', 1)[1])}"
                                    for number, name in zip(numbers, names)))
    download_csv(pd.DataFrame(matrix, index=names, columns=names).reset_index(names="occurrence"),
                 "Download the matrix (CSV)", "word_similarity_matrix.csv", "ws_matrix_csv")


similarity_view(texts, word, subword, vectors, names, numbers)

if TUTORIAL in texts and TUTORIAL_STRATEGY in strategies:  # a model of fewer than 4 layers has no such strategy
    rows = tutorial_comparison(found, texts.index(TUTORIAL), strategies[TUTORIAL_STRATEGY])
    if rows:
        st.subheader("The tutorial's numbers")
        st.caption(f"The tutorial used bert-base-uncased (12 layers, 768 wide) and the sum of its last four layers. "
                   f"These are the loaded model's numbers ({literal(info.name)}, sum of its last four layers, "
                   "pieces merged by mean). Different models give different numbers; the ordering is what to compare.")
        table(tutorial_table(rows, info.name), key="ws_tutorial")
        if info.kind == "bundled":
            st.caption(BUNDLED_MODEL_NOTE)

st.subheader("Sense labels")
st.caption("Give each occurrence a sense. The defaults are the presets' labels for their sentences (“?” for any "
           "other); edit them to score your own examples. "
           "Your labels are in the page's link.")
defaults = known_senses(word, texts, [o.sentence for o in found], UNKNOWN_SENSE)
editor_key = f"ws_senses_{corpus_digest(texts + (word,))[:12]}"
# The table starts from the link's labels (or the defaults) and keeps that start while it is edited:
# a start that changed between reruns would reset the editor and lose what was being typed.
start = st.session_state.setdefault(f"{editor_key}_start", shared_senses(len(found)) or defaults)

labels_frame = st.data_editor(pd.DataFrame({"occurrence": names, "sense": start}), hide_index=True,
                              disabled=["occurrence"], key=editor_key, width="stretch", on_change=keep_senses_in_link,
                              args=(editor_key, start, defaults))
senses = [str(s).strip() or UNKNOWN_SENSE for s in labels_frame["sense"]]

st.subheader("Context entering layer by layer")
curves = pair_layer_curves(vectors, [str(k) for k in range(len(found))])
same = {f"{i} ↔ {j}": kind for (i, j), kind in same_sense_pairs(senses).items()}
st.caption("Cosine of every pair at every layer (pair names use the occurrence numbers above). Layer 0 is the "
           "context-free baseline; solid lines join the same sense, dashed lines different senses.")
chart(figures.pair_curves_figure(curves, same, "cosine per layer, every pair"), key="ws_curves")
download_csv(curves, "Download the layer curves (CSV)", "word_layer_curves.csv", "ws_curves_csv")

st.subheader("Which layer and which merge separate the senses?")
score = st.radio("Score", ["auc", "gap"], horizontal=True, key="ws_score", bind="query-params",
                 format_func={"auc": "ROC AUC of same-sense over different-sense pairs",
                              "gap": "mean same-sense cosine − mean different-sense cosine"}.__getitem__)
by_rule = {rule: stack(word_occurrences(model_key(), texts, word, rule)) for rule in SUBWORD_RULES}
grid = score_grid(by_rule, {name: s.fn for name, s in strategies.items()}, senses, score)
if grid is None:
    st.info("Label at least two different senses (and some shared ones) to score the strategies.")
    st.stop()
top = sense_verdict(by_rule, {name: s.fn for name, s in strategies.items()}, senses, score)
if top is None:
    st.info("Every labelled pair has the same sense, or none does: scores need both kinds of pair.")
    st.stop()
chart(figures.score_grid_figure(grid, f"{score} per merge rule × word vector (top boxed in red)",
                                          top_positions(top, grid)), key="ws_scores")
one_piece = (f" “{literal(word)}” is a single WordPiece token in every sentence, so the four merge rules give the "
             "same vector and the same score." if one_piece_everywhere(found) else "")
(st.info if top.tie else st.success)(top.sentence + (one_piece if top.tie else ""), icon="🤝" if top.tie else "🏆")
download_csv(grid.reset_index(names="merge"), "Download the scores (CSV)", "word_sense_scores.csv", "ws_scores_csv")
