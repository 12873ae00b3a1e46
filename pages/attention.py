"""Attention: every head of every layer, what it looks at, measured; rollout beside raw attention."""
from functools import partial
from itertools import cycle

import pandas as pd
import streamlit as st

from bertviz_core import figures, recipes
from bertviz_core.measures.attention import HEAD_STATISTICS, statistic_grid, token_view
from bertviz_core.corpora import TUTORIAL
from bertviz_core.model.lengths import cut_note
from bertviz_core.views.page_views import head_numbers, head_view, model_view_note
from bertviz_core.words.tokens import pair_layout
from ui import (
    attention_summary, attention_weights, chart, choose, cut_warning, download_csv, encoder, ensure_app_navigation,
    head_label, head_view_chart, int_slider, literal, model_input, model_key, open_head, OPENED, or_stop,
    teaching_panel, text_bind,
)

ensure_app_navigation()

loaded = encoder()
info = loaded.info
num_layers = info.num_layers
TABS = ["Head view", "Model view", "Statistics", "From one token"]


st.title("🔦 Attention")
text = st.text_area("Text", TUTORIAL, key="at_text", bind=text_bind("at_text"), max_chars=50_000, height=80)
pair_text = st.text_input(f"Optional second sentence (a pair: {pair_layout(model_input(model_key(), 'A', 'B'))})", "",
                          key="at_pair",
                          bind=text_bind("at_pair"), max_chars=50_000)
if not text.strip():
    st.info("Type a text above: every head of every layer shows how its tokens attend to each other.")
    st.stop()
pair = pair_text if pair_text.strip() else None
if pair_text and pair is None:
    st.info("The second sentence is only spaces, so the text is shown alone.")
tokens_in = or_stop(lambda: model_input(model_key(), text, pair))
cut_warning(cut_note(info.max_length, [tokens_in.dropped], "pair" if pair else "text"))
weights = attention_weights(model_key(), text, pair)  # (layers, heads, tokens, tokens)
summary = attention_summary(model_key(), text, pair, weights)
heads = weights.shape[1]
labels = figures.token_labels(tokens_in.tokens, tokens_in.sequences if pair else None)
boundary = tokens_in.sequences.index(1) if pair and 1 in tokens_in.sequences else None

c1, c2, c3 = st.columns([2, 3, 3])
layer = int_slider("Layer", 1, num_layers, 1, key="at_layer", container=c1, bind="query-params")
# Right after a click the heads were set by open_head: no default then (Streamlit logs a warning, with a stack
# trace, for a widget given both); on every other run head 1 is the default, which a link leaves out.
chosen_heads = c2.multiselect("Heads (several: their mean)", head_numbers(heads),
                              None if st.session_state.pop(OPENED, False) else [1], key="at_heads",
                              bind="query-params", format_func=head_label)
token = choose(c3, "Token (From one token)", labels, 10, key="at_token", bind="query-params")
teaching_panel(
    "Attention decides, in every layer and every head, how much each token (a row, the query) takes from each "
    "other token (a column, the key); every row sums to 1.  \n"
    "Heads specialise: some look at the previous or next token, some at [SEP] or [CLS], some at related words. "
    "The statistics measure that for every head at once.",
    recipes.attention(info, text, pair, layer, chosen_heads or [1], token),
    key="attention",
)
with st.expander("Caveat: attention weights are not an explanation by themselves"):
    st.markdown(
        "A weight says how much of a token's *value vector* a head mixes in, not how much that token mattered for the "
        "output: value vectors differ in size, and each layer adds its input back (the residual connection), so "
        "large weights can move little (Kobayashi et al. 2020), and different weights can give the same prediction "
        "(Jain & Wallace 2019). **Rollout** (Abnar & Zuidema 2020) follows the mixing through all layers, with the "
        "residual counted as half of it; read raw attention and rollout together, as clues, not proofs."
    )

tab = st.tabs(TABS, key="at_tab", bind="query-params", on_change="rerun")
head_tab, model_tab, stats_tab, token_tab = tab
with head_tab:
    if head_tab.open:
        if not chosen_heads:
            st.info("Choose at least one head above.")
        else:
            shown, which = head_view(weights, layer, chosen_heads)  # (tokens, tokens)
            st.caption("Rows are the tokens attending, columns the tokens attended to; hover a cell for its weight. "
                       + ("The red lines separate the pair's two segments. " if boundary is not None else "")
                       + "A heatmap, not bertviz's lines: it reads the same at 10 tokens and at 512, and every "
                       "weight stays visible.")
            if pair and loaded.segments_note:
                st.caption(literal(loaded.segments_note))
            head_view_chart(shown, labels, f"Layer {layer}, {which}", boundary, "at_head_chart")
            download_csv(pd.DataFrame(shown, index=labels, columns=labels).reset_index(names="query"),
                         "Download these weights (CSV)", f"attention_layer{layer}.csv", "at_head_csv")
with model_tab:
    if model_tab.open:
        st.caption(model_view_note(summary.thumbnails, len(labels)))
        chart(figures.thumbnail_grid_figure(summary.thumbnails, "Every head: rows are layers, columns heads"),
                        key="at_model_chart")
with stats_tab:
    if stats_tab.open:
        st.caption("Each heatmap is one statistic for every layer (rows) × head (columns h1, h2, …), averaged over "
                   "all query tokens, [CLS] and [SEP] included. Hover a cell for its value; click it to open that "
                   "head in the head view.")
        for column, (i, (name, statistic)) in zip(cycle(st.columns(2)), enumerate(HEAD_STATISTICS.items())):
            chart_key = f"at_stat_{i}"
            with column:
                st.markdown(f"**{name}**: {statistic.definition}")
                chart(figures.table_heatmap(statistic_grid(summary.statistics, name), "",
                                                      colorscale="Purples", selectable=True),
                                key=chart_key, on_select=partial(open_head, chart_key), selection_mode="points")
        download_csv(summary.statistics, "Download every statistic (CSV)", "head_statistics.csv", "at_stats_csv")
with token_tab:
    if token_tab.open:
        raw, rolled = token_view(weights, summary.rollout, token)  # (layers, tokens) each
        raw.columns = rolled.columns = labels
        st.caption(f"Where {literal(labels[token])} looks, layer by layer. Above: raw attention, the mean over the "
                   "layer's heads. Below: rollout, the attention flow through every layer up to this one.")
        chart(figures.table_heatmap(raw, "raw attention (mean over heads)", colorscale="Blues")
              .update_xaxes(title="key (attended to)"), key="at_token_raw")
        chart(figures.table_heatmap(rolled, "rollout", colorscale="Oranges").update_xaxes(title="key (attended to)"),
              key="at_token_rollout")
        download_csv(pd.concat([raw.assign(kind="raw"), rolled.assign(kind="rollout")]).reset_index(names="layer"),
                     "Download both (CSV)", f"attention_from_token{token}.csv", "at_token_csv")
