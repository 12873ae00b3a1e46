"""Why similar: which token pairs make two texts' pooled vectors alike (integrated Jacobians), and each token's most
alike token in the other text (MaxSim)."""
import streamlit as st

from bertviz_core.measures.attribution import DEFAULT_STEPS, MAX_TOKENS, PAIR_STRATEGIES, REFERENCES, default_at_layer
from bertviz_core.figures import token_labels
from bertviz_core.figures.pair_figures import pair_lines_figure
from bertviz_core.views.token_pairs import (
    DEFAULT_PAIR,
    STEP_CHOICES,
    at_layer_range,
    attribution_story,
    attribution_tables,
    attribution_title,
    colour_reach,
)
from ui import (
    attribution, attribution_code, canvas_heatmap, chart, columns, cut_notice, download_csv, encoder,
    ensure_app_navigation, int_slider, maxsim, model_key, model_of, or_stop, table, teaching_panel, text_bind,
)

ensure_app_navigation()
VIEWS = ["Token pairs", "Each token's share and MaxSim"]

info = encoder().info
st.title("🔗 Why similar?")
c1, c2 = columns(2)
first = c1.text_area("First text", DEFAULT_PAIR[0], key="wy_first", bind=text_bind("wy_first"), height=90,
                     max_chars=5_000)
second = c2.text_area("Second text", DEFAULT_PAIR[1], key="wy_second", bind=text_bind("wy_second"), height=90,
                      max_chars=5_000)
s1, s2, s3, s4 = columns(4)
strategy = s1.selectbox("Pooling", PAIR_STRATEGIES, index=PAIR_STRATEGIES.index("mean"), key="wy_strategy",
                        bind="query-params", help="The sentence vector whose cosine is explained.")
layer = int_slider("Pooled at layer", 1, info.num_layers, info.num_layers, key="wy_layer", container=s2,
                   bind="query-params")
low, high = at_layer_range(layer)
at_layer = int_slider("Credited to layer", low, high, default_at_layer(layer), key="wy_at", container=s3,
                      bind="query-params",
                      help="Whose token states get the credit: 0 is the embeddings, k the output of layer k. Lower "
                           "layers mean tokens closer to the words themselves, but more layers to integrate "
                           "through: more steps for the same error.")
steps = s4.select_slider("Steps", STEP_CHOICES, DEFAULT_STEPS, key="wy_steps", bind="query-params",
                         help="Points of the path integral (Gauss-Legendre). More steps: a smaller completeness "
                              "error, and a proportionally longer wait.")
r1, r2 = columns([2, 3])
reference = r1.radio("Reference", list(REFERENCES), key="wy_reference", bind="query-params", horizontal=True,
                     help="What each token is compared with: the same text with every token but [CLS] and [SEP] "
                          "replaced by this one.")
cut = r2.checkbox(f"Cut texts longer than {MAX_TOKENS} tokens", key="wy_cut", bind="query-params",
                  help="Attribution runs one pass per token and step over the whole text: its cost grows with the "
                       "square of the length.")

cut_notice(model_key(), first, second)
result = or_stop(lambda: attribution(model_key(), first, second, strategy, layer, at_layer, steps, reference, cut))
st.info("  \n".join(attribution_story(result)), icon="🔗")
pairs = maxsim(model_key(), model_of(model_key()), first, second, layer, cut)
# Only the open tab is drawn (on_change="rerun"): the two charts and the MaxSim table together took most of a
# change's time (docs/performance.md, "One view at a time").
pairs_tab, shares_tab = st.tabs(VIEWS, key="wy_view", bind="query-params", on_change="rerun")
with pairs_tab:
    if pairs_tab.open:
        # the first text's tokens down the side, the second's across; blue adds to the cosine, red takes away
        reach = colour_reach(result)
        canvas_heatmap(result.matrix, token_labels(result.second_tokens), token_labels(result.first_tokens),
                       attribution_title(result), "wy_matrix", colorscale="RdBu", zrange=(-reach, reach), zmid=0,
                       annotate=False, x_title="second text", y_title="first text", value_title="share",
                       hover_format="+.3g")  # 3 significant figures: most shares are too small for 3 decimals
with shares_tab:
    if shares_tab.open:
        chart(pair_lines_figure(result.first_tokens, result.second_tokens, result.first_shares,
                                result.second_shares, pairs,
                                f"Each token's share, and its most alike token in the other text (MaxSim at layer "
                                f"{layer})"), key="wy_lines")
        table(pairs, key="wy_maxsim")
st.caption("What attribution does and does not say: a cell is how much that pair of tokens, moved together from the "
           "reference to the text, adds to the cosine along one straight path. It is exact in sum (up to the "
           "error shown), but it depends on the reference and on the layer credited, and it is not what the model "
           "'looks at'. MaxSim lines need no gradients: they only say which token's state is nearest.")
cells, shares = attribution_tables(result)
d1, d2, d3 = columns(3)
with d1:
    download_csv(cells, "Token pairs (CSV)", "token_pairs.csv", "wy_cells_csv")
with d2:
    download_csv(shares, "Token shares (CSV)", "token_shares.csv", "wy_shares_csv")
with d3:
    download_csv(pairs, "MaxSim pairs (CSV)", "maxsim_pairs.csv", "wy_maxsim_csv")
teaching_panel("Each cell splits the cosine of the two pooled vectors between a token of the first text (row) and "
               "one of the second (column): blue adds to the similarity, red takes away. The cells sum to the "
               "cosine minus the references' part, up to the error shown; the lines join each token to its most "
               "alike token in the other text.", attribution_code(info, result, first, second, cut),
               key="why_similar")
