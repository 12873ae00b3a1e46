"""Tokenization: text -> WordPiece tokens, IDs, segments, attention mask, padding; the vocabulary."""
import unicodedata

import pandas as pd
import streamlit as st

from bertviz_core import recipes
from bertviz_core.corpora import TUTORIAL
from bertviz_core.model.lengths import cut_note
from bertviz_core.views.page_views import VOCAB_SHOWN, default_padding, token_counts, vocab_rows, vocab_window
from bertviz_core.words.tokens import token_scheme, unknown_characters
from bertviz_core.words.vocab import kind_counts, search_vocabulary
from ui import (
    annotated_tokens,
    cut_warning,
    detached,
    download_csv,
    encoder,
    ensure_app_navigation,
    fragment,
    literal,
    model_key,
    table,
    teaching_panel,
    text_bind,
    token_highlight,
    tokenize_text,
    vocabulary,
)

ensure_app_navigation()

loaded = encoder()
info = loaded.info
st.title("🧩 Tokenization")

text = st.text_area("Text", TUTORIAL, key="tok_text", bind=text_bind("tok_text"), max_chars=50_000, height=90)
pair = st.text_input("Optional second sentence (makes a sentence pair)", "", key="tok_pair",
                     bind=text_bind("tok_pair"), max_chars=50_000)
pair = pair or None

scheme = token_scheme(loaded.tokenizer)


@fragment
@detached
def token_view(text: str, pair: str | None) -> None:
    """Padding, the token table and the vocabulary of ``text`` (and ``pair``): a change of the padding, the tab or
    the vocabulary's pickers reruns only this part of the page, not the text boxes above it."""
    unpadded = tokenize_text(model_key(), text, pair, None)
    n_tokens = len(unpadded)
    left, right = st.columns([1, 2])
    pad = left.toggle("Pad to a fixed length T", key="tok_pad", bind="query-params",
                      help="Batches need equal lengths: shorter inputs get [PAD] tokens with attention mask 0.")
    pad_to = None
    if pad:
        pad_to = int(right.number_input(f"T (from {n_tokens} to {info.max_length})", n_tokens, info.max_length,
                                        default_padding(n_tokens, info.max_length), key="tok_T", bind="query-params"))
    tokens = annotated_tokens(model_key(), text, pair, pad_to)

    teaching_panel(
        f"Each row is one token the model sees: its {scheme.name} string, its row (ID) in the embedding table, "
        "its segment, and whether attention may look at it.  \n"
        f"A word missing from the vocabulary is split into pieces; {scheme.marking}",
        recipes.tokenization(info, text, pair, pad_to),
        key="tokenization",
    )

    words, continuations = token_counts(tokens, scheme.continuation)
    unknown = unknown_characters(tokens, loaded.tokenizer.unk_token, text, pair)
    dropped = tokens.attrs.get("dropped", 0)
    cols = st.columns(5)
    cols[0].metric("Tokens", n_tokens)
    cols[1].metric("Words", words)
    cols[2].metric(scheme.pieces, continuations)
    cols[3].metric("[UNK]", len(unknown))
    cols[4].metric("Dropped by truncation", dropped)

    if not text.strip() and not pair:
        st.info("The text is empty, so only the special tokens [CLS] and [SEP] remain. Type a sentence above.")
    cut_warning(cut_note(info.max_length, [dropped], "pair" if pair else "text"))
    if unknown:
        st.warning(f"{len(unknown)} piece(s) of the text are not in the vocabulary and became "
                   f"{loaded.tokenizer.unk_token}:", icon="❓")
        table(pd.DataFrame({
            "text": unknown,
            "code points": [" ".join(f"U+{ord(c):04X}" for c in u) for u in unknown],
            "name": [", ".join(unicodedata.name(c, "?") for c in u) for u in unknown],
        }), key="tok_unknown")

    # Only the open tab is drawn (on_change="rerun"), so a change of the text or padding redraws no vocabulary grid.
    tab_tokens, tab_vocab = st.tabs(["Tokens", "Vocabulary"], key="tok_tab", bind="query-params", on_change="rerun")
    with tab_tokens:
        if tab_tokens.open:
            st.caption("The text with each token's span shaded: one colour per word, a dark bar before each piece that "
                       "continues a word, red for [UNK]. Hover a span for its token and ID.")
            st.html(token_highlight(model_key(), text, pair, pad_to, 0))
            if pair:
                st.caption("Second sentence (segment 1):" if loaded.uses_segments else "Second sentence:")
                st.html(token_highlight(model_key(), text, pair, pad_to, 1))
            shown = tokens[["position", "token", "id", "segment", "attention_mask", "word_index", "piece", "word",
                            "start", "end"]]
            if pair and loaded.segments_note:
                st.info(literal(loaded.segments_note), icon="🧩")
            shade = {scheme.continuation: "background-color: #fef3c7", "special": "background-color: #e0e7ff",
                     "padding": "color: #94a3b8"}
            table(shown, key="tok_table", height=1000, row_css=shown["piece"].map(shade).fillna(""))
            download_csv(shown, "Download the token table (CSV)", "tokens.csv", "tok_csv")
            if loaded.uses_segments:
                st.caption("The BERT tutorials set segment IDs to 1 for a lone sentence; the tokenizer (and this page) "
                           "uses 0. Segment 1 only marks the second sentence of a pair.")
            else:
                st.caption(f"The segment column is what the model receives. {literal(loaded.segments_note)}")

    with tab_vocab:
        if tab_vocab.open:
            vocab = vocabulary(model_key())
            counts = kind_counts(vocab)
            st.caption(f"{len(vocab):,} entries. Whole words, ## pieces that continue a word, single characters, "
                       "[unused] slots kept free for fine-tuning, and the special tokens.")
            table(counts.rename("entries").to_frame().T, key="voc_counts")
            c1, c2, c3 = st.columns([1, 1, 2])
            last_id, first_shown = vocab_window(len(vocab))
            start = int(c1.number_input("First ID", 0, last_id, first_shown, key="voc_start", bind="query-params"))
            count = int(c2.number_input("How many", 1, VOCAB_SHOWN, 21, key="voc_n", bind="query-params"))
            query = c3.text_input("Search tokens (substring)", "", key="voc_q", bind="query-params",
                                  placeholder="e.g. bank, or ^##ing$ with regex on")
            regex = c3.toggle("Regular expression", key="voc_re", bind="query-params")
            if query:
                try:
                    hits = search_vocabulary(vocab, query, regex)
                except ValueError as err:
                    st.error(literal(str(err)))
                    hits = vocab.iloc[0:0]
                st.caption(f"{len(hits):,} entries match; showing up to {VOCAB_SHOWN}.")
                table(hits.head(VOCAB_SHOWN), key="voc_hits")
            else:
                table(vocab_rows(vocab, start, count), key="voc_slice")


token_view(text, pair)
