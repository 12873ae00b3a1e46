"""Why similar's Streamlit glue: the pair attribution and the MaxSim pairs, kept for every session. The page only
lays them out."""
from __future__ import annotations

from typing import TYPE_CHECKING

import pandas as pd
import streamlit as st

from ui.picker import get_encoder
from ui.results import Progress, corpus_digest, model_of, result_store, shared, takes_handed

if TYPE_CHECKING:
    from bertviz_core.measures.attribution import PairAttribution
    from bertviz_core.model.models import ModelInfo

STARTED = "wy_started"  # session state: the settings of the long attribution this session chose to start


def _start(entry: tuple) -> None:
    """The "Start" button's callback: the session may now run the long attribution of ``entry``."""
    st.session_state[STARTED] = entry


def attribution(key: tuple[str, str], first: str, second: str, strategy: str, layer: int, at_layer: int,
                steps: int, reference: str, cut: bool, report: Progress | None = None) -> PairAttribution:
    """``attribution.pair_attribution``, computed once per model, texts and settings, with its expected time said
    first and a progress bar over its forward-mode passes; one expected to be long (``token_pairs.wait_note``) waits
    for a click on "Start" (keyed ``wy_start``; ``STARTED`` remembers it), the page stopping until then.
    With ``report``, no bar and no wait: each pass is reported to it instead (the warm-up, which has no page)."""
    from bertviz_core.measures.attribution import expected_seconds, pair_attribution
    from bertviz_core.views.token_pairs import duration, wait_note

    entry = ("attribution", model_of(key), corpus_digest((first, second)), strategy, layer, at_layer, steps, reference, cut)
    found = result_store().get(entry)
    if found is not None:
        return found
    expected = ""
    if report is None:
        seconds, passes = expected_seconds(get_encoder(*key), first, second, strategy, layer, steps, reference,
                                           at_layer, cut)
        note, expected = wait_note(seconds, passes, steps), f" ({duration(seconds)} in all)"
        if note is not None and st.session_state.get(STARTED) != entry:
            st.warning(note, icon="⏳")
            st.button("Start", key="wy_start", type="primary", on_click=_start, args=(entry,))
            st.stop()

    def run() -> PairAttribution:
        bar = st.progress(0.0, text="Integrating along the path from the reference…") if report is None else None

        def progress(done: int, total: int) -> None:
            if bar is None:
                report(done, total)
            else:
                bar.progress(min(done / total, 1.0),
                             text=f"Integrating: {done:,} of {total:,} forward-mode passes{expected}")

        try:
            return pair_attribution(get_encoder(*key), first, second, strategy, layer, steps, reference, at_layer,
                                    cut, progress)
        finally:
            if bar is not None:
                bar.empty()

    # through the store every session shares: a second session asking for the same attribution meanwhile waits
    # for the first one's result (``get_or_compute``) rather than running the model again beside it
    return shared(entry, run)


@st.cache_data(max_entries=64, show_spinner="Running the model on both texts…")
@takes_handed  # the warm-up hands its worker's result here (ui.warm)
def maxsim(key: tuple[str, str], model: tuple, first: str, second: str, layer: int, cut: bool) -> pd.DataFrame:
    """Cached ``token_pairs.maxsim_pairs`` (``model``: the identity the result is keyed by)."""
    from bertviz_core.views.token_pairs import maxsim_pairs

    return maxsim_pairs(get_encoder(*key), first, second, layer, cut)


def cut_notice(key: tuple[str, str], first: str, second: str) -> None:
    """What the model's own length cut from either text, in one warning (numbered: text 1 is the first)."""
    from bertviz_core.model.lengths import cut_note

    from ui.cached import corpus_lengths
    from ui.display import cut_warning

    dropped = corpus_lengths(key, corpus_digest((first, second)), (first, second)).dropped  # not tokenized each rerun
    cut_warning(cut_note(get_encoder(*key).info.max_length, [int(d) for d in dropped], numbered=True))


def attribution_code(info: ModelInfo, result: PairAttribution, first: str, second: str, cut: bool) -> str:
    """The plain transformers code that reproduces the matrix shown (``cut``: the page's cut is on)."""
    from bertviz_core import recipes
    from bertviz_core.measures.attribution import MAX_TOKENS, REFERENCES
    from bertviz_core.measures.pooling import POOLINGS

    return recipes.pair_attribution(info, first, second, POOLINGS[result.strategy].code, result.layer,
                                    result.at_layer, result.steps, REFERENCES[result.reference], result.layer_class,
                                    MAX_TOKENS if cut else None)
