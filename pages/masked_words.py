"""Masked words: what BERT was trained to guess for each [MASK], and the layer where it knows; for a model without
the head (the bundled one), each [MASK]'s nearest input word embeddings by layer, named as such."""
from functools import partial

import pandas as pd
import streamlit as st

from bertviz_core import figures, recipes
from bertviz_core.figures.canvas_bars import ranking_spec
from bertviz_core.model.lengths import cut_note
from bertviz_core.measures.masked import MAX_TOP_K, NO_HEAD_REASON, mask_word, word_labels, words
from bertviz_core.model.models import KNOWN_HUB_MODELS
from bertviz_core.views.page_views import every_guess, mask_names, miswritten_note, per_mask, settles
from ui import (
    active_info, canvas_chart, chart, choose, columns, cut_warning, download_csv, encoder, ensure_app_navigation,
    int_slider, literal, masked_lens, masks, model_input, model_key, nearest_embeddings, offer_model, or_stop, table,
    teaching_panel, text_bind,
)

ensure_app_navigation()
BERT = KNOWN_HUB_MODELS[0]
PREPARE = (
    "Once, on a machine that is online, download it to a folder (about 440 MB): `huggingface-cli download "
    "bert-base-uncased --include '*.json' vocab.txt model.safetensors --local-dir ./bert-base-uncased`, "
    "or in Python: `AutoModelForMaskedLM.from_pretrained('bert-base-uncased').save_pretrained('bert-base-uncased')` "
    "and the same with `AutoTokenizer`. Copy the folder to the class machine and choose **Custom id or path…** "
    "in the sidebar with its path. Or copy a Hugging Face cache that holds it (`~/.cache/huggingface` after "
    "`huggingface-cli download bert-base-uncased`) and start the app with `HF_HOME` set to it: then the "
    "switch button works offline."
)

VIEWS = ["The guesses", "Layer by layer"]

st.title("🎭 Masked words")
info = active_info()
if not info.has_mlm_head:
    st.warning(literal(NO_HEAD_REASON.format(name=info.name)), icon="🎭")
    st.markdown(
        f"**{BERT}** has the head: it is the model these tutorials use, with the same vocabulary as the bundled "
        "model. It downloads once (about 440 MB) when this server is online; offline it cannot load, and the "
        "current model stays. Below, what this model can show without the head."
    )
    offer_model(BERT, f"Switch to {BERT}")
    with st.expander(f"Before class: prepare {BERT} for a server without internet"):
        st.markdown(PREPARE)
mask_token = encoder().mask_token
MODES = ["Text with masks", "Mask a word"]
mode = st.radio("Input", MODES, horizontal=True, key="mw_mode", bind="query-params",
                help=f"Write {mask_token} yourself, or type a normal sentence and pick the word to hide.")
hidden_by_position: dict[int, int] = {}
if mode == MODES[0]:
    text = st.text_area("Text", f"The man went to the {mask_token} to buy milk.", key="mw_text",
                        bind=text_bind("mw_text"), max_chars=50_000, height=80)
    st.caption(literal(f"This model's mask is {mask_token}, written exactly so: each tokenizer has its own "
                       "(BERT's [MASK], RoBERTa's <mask>)."))
else:
    sentence = st.text_input("Sentence", "The man went to the store to buy milk.", key="mw_sentence",
                             bind=text_bind("mw_sentence"), max_chars=50_000)
    if not sentence.strip():
        st.info("Type a sentence above, then pick the word to mask.")
        st.stop()
    item = or_stop(lambda: model_input(model_key(), sentence, None))
    choices = words(item, sentence)
    if not choices:
        st.info("The sentence has no words to mask.")
        st.stop()
    labels = word_labels(choices)
    chosen = choose(st, "Word to mask", labels, "store", key="mw_word", bind="query-params")
    masked = mask_word(item, sentence, choices[chosen], mask_token)
    text, hidden_by_position = masked.text, masked.hidden
    if masked.split:
        st.info(f"“{literal(choices[chosen].text)}” is {len(masked.pieces)} pieces "
                f"({literal(' '.join(masked.pieces))}), so it became {len(masked.pieces)} masks. BERT guesses each "
                "piece on its own, with the others masked too: it never guesses a word of several pieces as one. "
                "Each mask's “hidden word” curve follows its own piece.", icon="🧩")
    st.caption(f"The model reads, with “{literal(labels[chosen])}” masked: {literal(text)}")

if not text.strip():
    st.info(f"Type a text with {mask_token} where a word should be guessed, e.g. "
            f"“The man went to the {mask_token} to buy milk.”")
    st.stop()
found = or_stop(lambda: masks(model_key(), text))
cut = cut_note(info.max_length, [model_input(model_key(), text, None).dropped])
cut_warning(cut and cut + (f" {found.past_limit} of the masks lie there and are left out." if found.past_limit else ""))
if found.miswritten:
    st.warning(miswritten_note(found.miswritten, mask_token), icon="🔤")
c1, c2, c3 = st.columns([2, 3, 3])
names = mask_names(found.positions)
mask = choose(c1, "Mask", names, 0, key="mw_mask", bind="query-params")
named = names[mask].capitalize()  # "Mask 2 (token 6)": the charts name the mask as its picker does
k = c2.slider("Guesses shown (k)" if info.has_mlm_head else "Nearest embeddings shown (k)", 1, MAX_TOP_K, 10,
              key="mw_k", bind="query-params")

if not info.has_mlm_head:
    try:
        nearest = nearest_embeddings(model_key(), text)
    except ValueError as err:  # ALBERT, ELECTRA: a projection lies between their embeddings and hidden states
        st.info(f"{literal(str(err))} So this model has no offline view here; its other pages work.", icon="📐")
        st.stop()
    near = nearest[mask]
    teaching_panel(
        f"Not a guess: this model has no head to guess with. Each row compares the {mask_token}'s hidden state "
        "after one layer with every row of the model's input word-embedding table (the vectors it reads words in "
        f"as) and shows the {k} nearest by cosine.  \n"
        "Row 0, the embedding layer's output (the mask's word embedding plus its position's), mostly points at the "
        "mask itself; where later rows turn to words that fit the gap, the layers have written context there.",
        recipes.nearest_embeddings(info, text, mask, k),
        key="nearest_embeddings",
    )
    st.subheader(f"Nearest input word embeddings to each {mask_token}, layer by layer")
    chart(figures.guess_grid_figure(near.top_tokens[:, :k], near.cosines[:, :k],
                                    f"{named}: the {k} nearest input word embeddings (cosine) by layer, "
                                    "not the head's guesses", measure="cosine", rank_name="nearest"),
          key="mw_nearest")
    st.caption(f"Row L: the nearest input word embeddings (cosine) to the {literal(mask_token)}'s hidden state "
               "after layer L — not the pre-training head's guesses, which this model lacks. Row 0 is the "
               "embedding layer's output, before any attention.")
    st.caption(f"Why {literal(mask_token)} itself and unrelated words (names, “bert”) fill these rows: a "
               f"{literal(mask_token)} position's hidden state stays near the {literal(mask_token)} embedding itself, "
               "since no word is read there, and this model has no masked-LM head to turn that state into a guess, "
               "so its nearest input embeddings are not predictions of the hidden word.")
    item = model_input(model_key(), text, None)
    by_position = dict(zip(found.positions, names))
    left, right = st.columns([2, 3])
    with left:
        st.markdown(f"**How the text is tokenised** ({len(item.tokens)} tokens; each mask is one token, "
                    f"{literal(mask_token)})")
        table(pd.DataFrame({"position": range(len(item.tokens)), "token": item.tokens, "id": item.ids,
                            "mask": [by_position.get(p, "") for p in range(len(item.tokens))]}),
              key="mw_tokens", height=400)
    with right:
        st.markdown(f"**{literal(named)}: the {k} nearest input word embeddings after each layer**")
        table(near.table(k), key="mw_nearest_table", height=400)
    download_csv(per_mask([one.table(k) for one in nearest]),
                 "Download every mask's nearest input embeddings (CSV)", "nearest_input_embeddings.csv",
                 "mw_nearest_csv")
    st.stop()

hidden_ids = tuple(hidden_by_position.get(position) for position in found.positions)
lenses = or_stop(lambda: masked_lens(model_key(), text, hidden_ids), icon="⚠️")  # a head that cannot be read
layer = int_slider("Layer (0 = embeddings)", 0, info.num_layers, info.num_layers, key="mw_layer", container=c3,
                   bind="query-params", help="The row outlined in “Layer by layer”, and the layer the code reads.")
lens = lenses[mask]
teaching_panel(
    f"BERT's pre-training task: guess the token behind each {mask_token}. Its head turns the last layer's hidden "
    "state into a probability for every vocabulary entry; the bars are the best guesses.  \n"
    "The logit lens applies the same head to the hidden state after every layer, so the grid and the curves show "
    "at which depth the final answer appears.",
    recipes.masked_words(info, text, mask, layer, k, hidden_ids[mask]),
    key="masked_words",
)

filled = " · ".join(f"mask {m}: **{literal(one.top_tokens[-1, 0])}**" for m, one in enumerate(lenses, start=1))
st.markdown(f"Top guess for each mask — {filled}")
every_mask = every_guess(lenses, k)
# Only the open tab is drawn (on_change="rerun"): the guesses and the layer-by-layer views together took most of a
# change's time (docs/performance.md, "One view at a time").
guesses_tab, layers_tab = st.tabs(VIEWS, key="mw_view", bind="query-params", on_change="rerun")
with guesses_tab:
    if guesses_tab.open:
        guesses = lens.predictions(k)
        left, right = columns(2)
        canvas_chart(partial(ranking_spec, guesses["token"], guesses["probability"], None, score_format=".3g"),
                     f"{named}: the {k} best guesses (last layer)", "mw_guesses", container=left)
        with right:
            shown = every_mask.assign(probability=every_mask["probability"].map("{:.3g}".format))  # small ones legible
            table(shown[["mask", "rank", "token", "id", "probability"]], key="mw_guesses_table", height=400)
with layers_tab:
    if layers_tab.open:
        knows = lens.first_layer_at_top()
        answer = literal(lens.tracked_tokens[0])
        st.caption(f"Where does the model know the word? Each row is the head applied after one layer (0 = the "
                   f"embeddings, before any attention); the red row is layer {layer}. The final answer, "
                   f"“{answer}”, is the top guess {settles(knows, info.num_layers)}.")
        chart(figures.guess_grid_figure(lens.top_tokens[:, :k], lens.top_probs[:, :k],
                                        f"{named}: the {k} best guesses after each layer", layer), key="mw_grid")
        chart(figures.rank_curves_figure(lens.tracked(), f"{named}: rank and probability by layer"),
              key="mw_curves")
download_csv(every_mask, "Download every mask's guesses (CSV)", "masked_guesses.csv", "mw_guesses_csv")
download_csv(per_mask([one.layer_table(k) for one in lenses]),
             "Download the lens, every mask and layer (CSV)", "logit_lens.csv", "mw_lens_csv")
download_csv(per_mask([one.tracked() for one in lenses]),
             "Download the ranks by layer (CSV)", "answer_ranks.csv", "mw_ranks_csv")
