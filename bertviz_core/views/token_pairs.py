"""What the Why similar page shows beside a pair attribution (``attribution.pair_attribution``), as plain results:
MaxSim pairs (each token's most alike token in the other text, no gradients), the sentences that read the
matrix, and its tables for download."""
from __future__ import annotations

import numpy as np
import pandas as pd

import bertviz_core.checks as checks
from bertviz_core.measures.attribution import DEFAULT_STEPS, MAX_TOKENS, PairAttribution, side_input
from bertviz_core.model.encoder import Encoder

# The tutorial's "bank" sentence, split in two: the same word in two senses, and little else shared.
DEFAULT_PAIR = ("After stealing money from the bank vault, the bank robber ran.",
                "He was seen fishing on the Mississippi river bank.")
STEP_CHOICES = (2, 4, DEFAULT_STEPS, 16, 32, 64)
TOP_PAIRS = 3  # pairs named in the story, on each side of 0
ERROR_SHARE = 0.02  # the completeness error, as a share of the score, above which the story says to add steps
LONG_SECONDS = 30  # an attribution expected to take longer waits for a click (wait_note)


def maxsim_pairs(enc: Encoder, first: str, second: str, layer: int | None = None, cut: bool = False) -> pd.DataFrame:
    """Each token of each text (specials left out) and the token of the other text whose state at ``layer``
    (default the last) is most alike by cosine, as ColBERT's MaxSim: columns text ("first" or "second"),
    position, token, partner position, partner token, cosine. The texts are cut as ``pair_attribution`` cuts
    them (``cut``), so positions match its matrix."""
    enc = checks.encoder(enc)
    layer = enc.info.num_layers if layer is None else checks.whole_number(layer, "layer", 0, enc.info.num_layers)
    items = [side_input(enc, first, "The first text", cut)[0], side_input(enc, second, "The second text", cut)[0]]
    states = {i: e.hidden_states[layer] for i, e in enc.encode_inputs(items, [first, second])}
    rows = []
    for side, other in ((0, 1), (1, 0)):
        a = states[side] / np.linalg.norm(states[side], axis=1, keepdims=True).clip(1e-12)
        b = states[other] / np.linalg.norm(states[other], axis=1, keepdims=True).clip(1e-12)
        keep_b = [j for j, special in enumerate(items[other].special) if not special]
        if not keep_b:
            continue
        cosines = a @ b[keep_b].T
        for i, special in enumerate(items[side].special):
            if not special:
                best = keep_b[int(np.argmax(cosines[i]))]
                rows.append({"text": ("first", "second")[side], "position": i, "token": items[side].tokens[i],
                             "partner position": best, "partner token": items[other].tokens[best],
                             "cosine": float(cosines[i].max())})
    return pd.DataFrame(rows, columns=["text", "position", "token", "partner position", "partner token", "cosine"])


def attribution_story(result: PairAttribution) -> list[str]:
    """The matrix in sentences: how the score splits (references, token pairs, error), and the pairs that add
    and take away most."""
    r = checks.instance(result, PairAttribution, "result", "pair_attribution")
    share = abs(r.error) / max(abs(r.score), 1e-12)
    story = [f"Cosine **{r.score:.3f}** = **{r.matrix.sum():+.3f}** from the token pairs (the matrix's sum) "
             f"**{r.reference_score:+.3f}** from the references {-r.error:+.2g} integration error ({share:.2%} of "
             f"the score, {r.steps} steps). The references are the two texts with every token but the special ones "
             f"set to {r.reference}; their part, s(ref A, B) + s(A, ref B) − s(ref A, ref B), is what the cosine "
             "owes to them, not to the tokens (large when the two references lie close together)."]
    if share > ERROR_SHARE:
        story.append(f"The error is over {ERROR_SHARE:.0%} of the score: raise the steps before reading the "
                     "cells.")
    order = np.argsort(r.matrix, axis=None)
    for label, picks, sign in (("add most", order[::-1][:TOP_PAIRS], 1), ("take away most", order[:TOP_PAIRS], -1)):
        cells = [np.unravel_index(k, r.matrix.shape) for k in picks]
        cells = [(i, j) for i, j in cells if sign * r.matrix[i, j] > 0]
        listed = ", ".join(f"“{i} · {r.first_tokens[i]}”–“{j} · {r.second_tokens[j]}” ({r.matrix[i, j]:+.3g})"
                           for i, j in cells)
        story.append(f"The pairs that {label}: {listed}." if cells else
                     f"No pair {'adds to' if sign > 0 else 'takes away from'} the cosine.")
    if r.cut:
        story.append(f"To keep each text within {MAX_TOKENS} tokens, {r.cut:,} more tokens were cut (besides what the "
                     "model's own length cut).")
    return story


def attribution_tables(result: PairAttribution) -> tuple[pd.DataFrame, pd.DataFrame]:
    """The matrix as a long table (first position, first token, second position, second token, share) and each
    token's share (text, position, token, share: its row's or column's sum)."""
    r = checks.instance(result, PairAttribution, "result", "pair_attribution")
    i, j = np.indices(r.matrix.shape)
    cells = pd.DataFrame({"first position": i.ravel(), "first token": np.array(r.first_tokens)[i.ravel()],
                          "second position": j.ravel(), "second token": np.array(r.second_tokens)[j.ravel()],
                          "share": r.matrix.ravel()})
    shares = pd.concat([pd.DataFrame({"text": name, "position": range(len(tokens)), "token": tokens,
                                      "share": values})
                        for name, tokens, values in (("first", r.first_tokens, r.first_shares),
                                                     ("second", r.second_tokens, r.second_shares))],
                       ignore_index=True)
    return cells, shares


def at_layer_range(layer: int) -> tuple[int, int]:
    """The layers whose token states can be attributed when the pooled vector is at ``layer`` (0 = the embeddings),
    (lowest, highest); ``attribution.default_at_layer`` is where a page starts."""
    layer = checks.whole_number(layer, "layer", 1)
    return 0, layer - 1


def colour_reach(result: PairAttribution) -> float:
    """The matrix's largest magnitude: its colour scale runs from minus this to plus this, 0 white."""
    r = checks.instance(result, PairAttribution, "result", "pair_attribution")
    return float(max(np.abs(r.matrix).max(initial=0.0), 1e-12))


def attribution_title(result: PairAttribution) -> str:
    """What the matrix is, in its title: the pooling, layers, reference and steps."""
    r = checks.instance(result, PairAttribution, "result", "pair_attribution")
    where = "the embeddings" if r.at_layer == 0 else f"layer {r.at_layer}"
    return (f"Token pairs' shares of the cosine ({r.strategy} at layer {r.layer}, credited to {where}, "
            f"{r.reference} reference, {r.steps} steps)")


def duration(seconds: float) -> str:
    """``seconds`` as a person says a wait: "about 40 s", "about 8 minutes", "about 2.5 hours"."""
    seconds = checks.real_number(seconds, "seconds", 0)
    if seconds < 90:
        return f"about {max(seconds, 1):.0f} s"
    return f"about {seconds / 60:.0f} minutes" if seconds < 5400 else f"about {seconds / 3600:.1f} hours"


def wait_note(seconds: float, passes: int, steps: int) -> str | None:
    """What a page says before an attribution of ``steps`` steps expected to take over ``LONG_SECONDS``, so that no
    one starts a long run by accident (``seconds`` and ``passes`` as ``attribution.expected_seconds`` gives them);
    None for a shorter one, which starts at once."""
    seconds, passes = checks.real_number(seconds, "seconds", 0), checks.whole_number(passes, "passes", 1)
    if seconds <= LONG_SECONDS:
        return None
    return (f"This attribution is expected to take **{duration(seconds)}**: {passes:,} forward-mode passes "
            f"({checks.whole_number(steps, 'steps', 1)} steps × the two texts' tokens), each over a whole text, timed "
            "on this model here. Fewer steps or shorter texts take less: the time grows with the steps and with the "
            "square of the length.")
