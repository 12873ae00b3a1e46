"""Layer values: histograms and statistics of hidden-state values per layer, and outlier dimensions."""
from functools import partial

import pandas as pd
import streamlit as st

from bertviz_core import figures, recipes
from bertviz_core.measures import stats
from bertviz_core.corpora import TUTORIAL
from bertviz_core.figures.canvas_bars import histogram_spec
from bertviz_core.model.lengths import cut_note
from bertviz_core.views.page_views import layer_numbers, state_count
from ui import (
    canvas_chart, chart, choose, columns, cut_warning, detached, download_csv, encode_texts, encoder,
    ensure_app_navigation, fragment, int_slider, model_key, table, teaching_panel, text_bind,
)

ensure_app_navigation()


info = encoder().info
num_layers = info.num_layers
states_per_token = state_count(num_layers)
st.title("📊 Layer values")
text = st.text_area("Text", TUTORIAL, key="lv_text", bind=text_bind("lv_text"), max_chars=50_000, height=80)
if not text.strip():
    st.info("Type a text above: its tokens' hidden states appear here, layer by layer.")
    st.stop()

(encoding,) = encode_texts(model_key(), (text,))
states = encoding.hidden_states  # (layers+1, tokens, hidden)
labels = [f"{i} · {t}" for i, t in enumerate(encoding.tokens)]
st.caption(f"This text's hidden states: an array of shape **{tuple(states.shape)}** = (layers+1, tokens, hidden).")
cut_warning(cut_note(info.max_length, [encoding.dropped]))
# Every section reads the token, so its change reruns the page; a layer change reruns only the chosen layer's
# section (a fragment), which is what keeps it quick (docs/performance.md, "One view at a time").
token = choose(st.columns(2)[0], "Token", labels, 5, key="lv_token", bind="query-params")
at_layer = st.container()  # drawn last, under the rule set by the outlier section's sliders below


@fragment
@detached
def layer_view(states, labels: list[str], text: str, token: int, rule: stats.OutlierRule) -> None:
    """The chosen layer: this token's values, or every token's, redrawn alone on a layer change."""
    layer = int_slider("Layer (0 = the embedding layer's output)", 0, num_layers, 5, key="lv_layer",
                       bind="query-params")
    teaching_panel(
        f"Every token has {states_per_token} hidden states: the embedding layer's output (layer 0) and one per "
        f"transformer layer ({states_per_token} = embeddings + {num_layers} layers). Each is a vector of "
        f"{info.hidden_size} numbers.  \n"
        "Below: how those numbers are distributed, how that changes with depth, and which dimensions stand out.",
        recipes.layer_values(info, text, token, layer),
        key="layer_values",
    )
    # Only the open tab is drawn (on_change="rerun"), so a layer change redraws one chart.
    tab_token, tab_dims = st.tabs(["This token's values", "Token × dimension at the chosen layer"],
                                  key="lv_tab", bind="query-params", on_change="rerun")
    with tab_token:
        if tab_token.open:
            vector = states[layer, token]
            counts, edges = stats.histogram(vector)
            left, right = columns([3, 1])
            canvas_chart(partial(histogram_spec, counts, edges),
                         f"Token {labels[token]} at {figures.layer_label(layer)}: {stats.HISTOGRAM_BINS} bins",
                         key="lv_hist", container=left)
            for name, value in stats.vector_stats(vector).items():
                right.metric(name.replace("_", " "), f"{value:.3f}")
            download_csv(pd.DataFrame({"dimension": range(len(vector)), "value": vector}),
                         "Download this vector (CSV)", f"vector_token{token}_layer{layer}.csv", "lv_vec_csv")
    with tab_dims:
        if tab_dims.open:
            marked = stats.outliers_at(states, rule, layer)
            # one line on a projector (40 characters), so that every token's row keeps its name there
            title = f"Dimensions at {figures.layer_label(layer)}" + (" (outliers in red)" if marked else "")
            chart(figures.heatmap_figure(states[layer], [str(d) for d in range(states.shape[2])], labels,
                                         title, colorscale="RdBu_r", marked_columns=marked, zmid=0.0), key="lv_dims")
            download_csv(pd.DataFrame(states[layer], index=labels).reset_index(names="token"),
                         "Download these values (CSV)", f"token_dimension_layer{layer}.csv", "lv_dims_csv")


st.subheader("All layers at once")
# not a fragment: the chosen layer's section above holds the share link, which must carry the scope
scope = st.radio("Values of", ["the chosen token", "all tokens"], horizontal=True, key="lv_scope", bind="query-params")
which = token if scope == "the chosen token" else None
subject = labels[token] if which is not None else f"all {len(labels)} tokens"
stats_table = stats.layer_stats(states, which)
quantiles = stats.layer_quantiles(states, which)
chart(figures.layer_distributions_figure(
    quantiles, f"Values per layer, {subject} ({states_per_token} distributions)"), key="lv_layers")
table(stats_table, key="lv_stats")
st.caption("Kurtosis is excess kurtosis (0 for a normal distribution): heavy tails mean a few extreme values.")
download_csv(stats_table.merge(quantiles.drop(columns=["min", "max"]), on="layer"),
             "Download the statistics (CSV)", "layer_statistics.csv", "lv_stats_csv")
norms = stats.token_norms(states)
chart(figures.heatmap_figure(norms, [figures.layer_label(i) for i in layer_numbers(num_layers)], labels,
                             "L2 norm of each token's vector"), key="lv_norms")
download_csv(pd.DataFrame(norms, index=labels, columns=[f"layer_{i}" for i in layer_numbers(num_layers)])
             .reset_index(names="token"), "Download the norms (CSV)", "token_layer_norms.csv", "lv_norm_csv")

st.subheader("Outlier dimensions")
c1, c2 = st.columns(2)
z = c1.slider("k: how many standard deviations from the layer's mean", 2.0, 10.0, 3.0, 0.5, key="lv_k",
              bind="query-params")
share = c2.slider("in more than this share of the tokens", 0.1, 0.9, 0.5, 0.05, key="lv_share", bind="query-params")
rule = stats.OutlierRule(z=z, share=share)
outliers = stats.outlier_dimensions(states, rule)
st.caption(f"Rule: dimension d is an outlier in layer l when |value − mean of layer l| > {z:g} × std of layer l "
           f"for more than {share:.0%} of the tokens. For BERT-base the literature reports dimensions 308 and 381; "
           "this table shows what the loaded model's data says.")
if outliers.empty:
    st.info("No dimension meets the rule for this text. Lower k or the share to see the most extreme ones.")
else:
    table(outliers, key="lv_outliers")
    download_csv(outliers, "Download the outlier dimensions (CSV)", "outlier_dimensions.csv", "lv_out_csv")

with at_layer:
    layer_view(states, labels, text, token, rule)
