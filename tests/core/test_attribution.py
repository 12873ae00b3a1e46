"""Token-pair attribution of a similarity (bertviz_core.measures.attribution): completeness, symmetry, captum's integrated
gradients as the marginals, constructed cases whose answer is known, the page's recipe, and every architecture."""
from __future__ import annotations

import numpy as np
import pytest
import torch
from model_family import SENTENCES

from bertviz_core import Encoder, recipes
from bertviz_core.measures.attribution import MAX_TOKENS, REFERENCES, pair_attribution, side_input
from bertviz_core.measures.pooling import POOLINGS
from bertviz_core.views.token_pairs import (
    DEFAULT_PAIR,
    attribution_story,
    attribution_tables,
    maxsim_pairs,
    wait_note,
)

FIRST, SECOND = "The bank raised its interest rates again.", "We sat on the river bank and watched the boats."


def cosine(enc: Encoder, strategy: str, layer: int, *texts: str) -> float:
    v = enc.embed(list(texts), [strategy])[strategy][:, layer].astype(np.float64)
    v /= np.linalg.norm(v, axis=1, keepdims=True)
    return float(v[0] @ v[1])


@pytest.mark.slow
def test_the_default_pair_on_the_bundled_model_is_complete_within_2_percent(bundled: Encoder) -> None:
    r = pair_attribution(bundled, *DEFAULT_PAIR)
    assert (r.strategy, r.layer, r.at_layer, r.steps) == ("mean", 6, 4, 8)
    assert r.score == pytest.approx(cosine(bundled, "mean", 6, *DEFAULT_PAIR), abs=1e-5)
    assert abs(r.error) <= 0.02 * abs(r.score)
    assert r.matrix.sum() == pytest.approx(r.score - r.reference_score, abs=0.02 * abs(r.score))
    assert r.matrix.shape == (len(r.first_tokens), len(r.second_tokens))
    np.testing.assert_allclose(r.matrix, r.first_vectors @ r.second_vectors.T, atol=1e-12)


@pytest.mark.parametrize("strategy", ["cls", "max", "mean_no_special"])
@pytest.mark.slow
def test_completeness_on_a_tiny_random_model_converges_with_the_steps(tiny: Encoder, strategy: str) -> None:
    errors = [abs(pair_attribution(tiny, FIRST, SECOND, strategy, steps=steps, at_layer=0).error)
              for steps in (2, 32)]
    r = pair_attribution(tiny, FIRST, SECOND, strategy, steps=32, at_layer=0)
    assert r.score == pytest.approx(cosine(tiny, strategy, tiny.info.num_layers, FIRST, SECOND), abs=1e-5)
    assert errors[1] <= max(0.02 * abs(r.score), 1e-6)
    # Max pooling's integrand jumps where a dimension's argmax token changes along the path, so its error is not
    # monotone in the steps (on the CPU 1.6e-3, 8.0e-4, 2.5e-3, 3.1e-4, 7.8e-4 at 2, 4, 8, 16, 32 steps; a GPU's
    # rounding reorders them again); the smooth strategies' error falls.
    if strategy != "max":
        assert errors[1] <= errors[0] + 1e-9


def test_swapping_the_texts_transposes_the_matrix(bundled: Encoder) -> None:
    ab, ba = pair_attribution(bundled, FIRST, SECOND, steps=4), pair_attribution(bundled, SECOND, FIRST, steps=4)
    np.testing.assert_allclose(ba.matrix, ab.matrix.T, atol=1e-6)
    assert (ba.score, ba.reference_score) == pytest.approx((ab.score, ab.reference_score), abs=1e-6)
    assert ba.first_tokens == ab.second_tokens


@pytest.mark.slow
def test_each_rows_sum_is_captums_layer_integrated_gradients_on_the_same_forward(bundled: Encoder) -> None:
    from captum.attr import LayerIntegratedGradients

    r = pair_attribution(bundled, FIRST, SECOND, "max", steps=8)
    model, item = bundled.eager_model(), bundled.inputs([FIRST])[0]
    partner = torch.tensor(r.second_vectors.sum(axis=0), dtype=torch.float32, device=model.device)  # Σ_j d_j
    ids = torch.tensor([item.ids], device=model.device)
    reference = torch.where(torch.tensor([item.special], device=model.device), ids, bundled.tokenizer.pad_token_id)

    def similarity(input_ids: torch.Tensor) -> torch.Tensor:  # u(first) · Σ_j d_j, the pooling written out
        states = model(input_ids=input_ids, output_hidden_states=True).hidden_states[r.layer]
        pooled = states.max(dim=1).values
        return pooled / pooled.norm(dim=-1, keepdim=True) @ partner

    layer = model.encoder.layer[r.at_layer - 1]  # its output is hidden_states[at_layer]
    found = LayerIntegratedGradients(similarity, layer).attribute(ids, baselines=reference, n_steps=8,
                                                                  method="gausslegendre")
    per_token = found[0].sum(-1).detach().cpu().numpy()
    np.testing.assert_allclose(r.first_shares, r.first_vectors @ r.second_vectors.sum(axis=0), atol=1e-9)
    np.testing.assert_allclose(r.first_shares, per_token, atol=1e-5)


@pytest.mark.slow
def test_a_text_against_itself_gives_a_symmetric_positive_matrix_and_specials_share_nothing(bundled: Encoder) -> None:
    r = pair_attribution(bundled, FIRST, FIRST, at_layer=0, steps=16)
    assert r.score == pytest.approx(1.0, abs=1e-5)
    np.testing.assert_allclose(r.matrix, r.matrix.T, atol=1e-6)
    assert np.linalg.eigvalsh((r.matrix + r.matrix.T) / 2).min() > -1e-6  # C Cᵀ: positive semi-definite
    # Σ_ij c_i·d_j = (Σ c)·(Σ d) = |u(a) - u(ref)|²; c and d come from two model runs of the same text, equal up to
    # float32 rounding on a GPU (other batch shapes), so the identity is checked with both.
    assert r.matrix.sum() == pytest.approx(r.first_vectors.sum(0) @ r.second_vectors.sum(0), abs=1e-9)
    assert r.matrix.sum() == pytest.approx(np.sum(r.first_vectors.sum(0) ** 2), rel=1e-6)
    specials = [i for i, s in enumerate(bundled.inputs([FIRST])[0].special) if s]
    assert not r.matrix[specials].any() and not r.matrix[:, specials].any()  # [CLS] and [SEP] are their reference


@pytest.mark.slow
def test_one_word_changed_moves_the_credit_to_that_word(bundled: Encoder) -> None:
    same = pair_attribution(bundled, "The cat sat on the mat.", "The cat sat on the mat.", at_layer=0, steps=16)
    changed = pair_attribution(bundled, "The cat sat on the mat.", "The dog sat on the mat.", at_layer=0, steps=16)
    cat = same.first_tokens.index("cat")
    assert changed.score < same.score
    assert changed.matrix[cat, cat] < same.matrix[cat, cat]  # "cat"–"dog" adds less than "cat"–"cat"


@pytest.mark.slow
def test_the_recipe_reproduces_the_matrix(bundled: Encoder, tiny: Encoder) -> None:
    for enc, strategy, reference in ((bundled, "mean", "[PAD]"), (tiny, "max", "[MASK]")):
        r = pair_attribution(enc, FIRST, SECOND, strategy, steps=4, reference=reference)
        namespace: dict = {}
        exec(recipes.pair_attribution(enc.info, FIRST, SECOND, POOLINGS[strategy].code, r.layer, r.at_layer, r.steps,
                                      REFERENCES[reference], r.layer_class), namespace)  # noqa: S102
        np.testing.assert_allclose(namespace["matrix"], r.matrix, atol=1e-5)
        assert namespace["score"] == pytest.approx(r.score, abs=1e-5)
        assert namespace["reference_score"] == pytest.approx(r.reference_score, abs=1e-5)


@pytest.mark.slow
def test_every_architecture_attributes_its_own_cosine(family_encoders: dict[str, Encoder]) -> None:
    for name, enc in family_encoders.items():
        r = pair_attribution(enc, SENTENCES[0], SENTENCES[3], steps=16, at_layer=0)
        assert r.score == pytest.approx(cosine(enc, "mean", enc.info.num_layers, SENTENCES[0], SENTENCES[3]),
                                        abs=1e-5), name
        assert abs(r.error) <= max(0.02 * abs(r.score), 1e-5), name
        pairs = maxsim_pairs(enc, SENTENCES[0], SENTENCES[3])
        assert set(pairs["text"]) == {"first", "second"}, name


def test_maxsim_pairs_each_token_with_its_nearest_token_in_the_other_text(bundled: Encoder) -> None:
    pairs = maxsim_pairs(bundled, FIRST, SECOND)
    states = [e.hidden_states[-1] for e in bundled.encode([FIRST, SECOND])]
    unit = [s / np.linalg.norm(s, axis=1, keepdims=True) for s in states]
    specials = [bundled.inputs([t])[0].special for t in (FIRST, SECOND)]
    for side, other in ((0, 1), (1, 0)):
        rows = pairs[pairs["text"] == ("first", "second")[side]]
        keep = [j for j, s in enumerate(specials[other]) if not s]
        for position, partner, value in zip(rows["position"], rows["partner position"], rows["cosine"]):
            cosines = unit[side][position] @ unit[other][keep].T
            assert partner == keep[int(np.argmax(cosines))] and value == pytest.approx(cosines.max(), abs=1e-5)
    bank = pairs[(pairs["text"] == "first") & (pairs["token"] == "bank")]
    assert bank["partner token"].tolist() == ["bank"]


@pytest.mark.slow
def test_the_story_and_tables_say_what_the_matrix_holds(bundled: Encoder) -> None:
    r = pair_attribution(bundled, FIRST, SECOND, steps=4)
    story = attribution_story(r)
    assert f"Cosine **{r.score:.3f}** = **{r.matrix.sum():+.3f}** from the token pairs" in story[0]
    assert f"**{r.reference_score:+.3f}** from the references {-r.error:+.2g} integration error" in story[0]
    top = np.unravel_index(np.argmax(r.matrix), r.matrix.shape)
    assert f"“{top[0]} · {r.first_tokens[top[0]]}”–“{top[1]} · {r.second_tokens[top[1]]}”" in " ".join(story)
    nothing_lost = pair_attribution(bundled, FIRST, FIRST, at_layer=0, steps=4)  # specials' rows are exactly 0
    said = " ".join(attribution_story(nothing_lost))
    assert "(+0)" not in said and "(-0)" not in said
    cells, shares = attribution_tables(r)
    assert cells["share"].sum() == pytest.approx(r.matrix.sum()) and len(cells) == r.matrix.size
    assert shares.groupby("text")["share"].sum().to_dict() == pytest.approx(
        {"first": r.matrix.sum(), "second": r.matrix.sum()})


@pytest.mark.slow
def test_long_texts_are_refused_with_their_cost_or_cut(bundled: Encoder) -> None:
    long = " ".join(["bank"] * (MAX_TOKENS + 40))
    with pytest.raises(ValueError, match="too long to attribute: 170 tokens.*square of the length.*cut=True"):
        pair_attribution(bundled, long, SECOND, steps=1)
    r = pair_attribution(bundled, long, SECOND, steps=1, at_layer=5, cut=True)
    assert len(r.first_tokens) == MAX_TOKENS and r.first_tokens[-1] == "[SEP]" and r.cut == 42
    namespace: dict = {}  # the recipe cuts as the page does
    exec(recipes.pair_attribution(bundled.info, long, SECOND, POOLINGS["mean"].code, r.layer, r.at_layer, r.steps,
                                  REFERENCES[r.reference], r.layer_class, MAX_TOKENS), namespace)  # noqa: S102
    np.testing.assert_allclose(namespace["matrix"], r.matrix, atol=1e-5)


def test_a_model_whose_layers_pass_no_gradient_is_refused(tiny: Encoder) -> None:
    model = tiny.eager_model()
    handles = [layer.register_forward_hook(lambda module, args, output: output.detach()
                                           if isinstance(output, torch.Tensor) else
                                           tuple(o.detach() if isinstance(o, torch.Tensor) else o for o in output))
               for layer in model.encoder.layer]
    try:
        with pytest.raises(ValueError, match="No gradient reaches"):
            pair_attribution(tiny, FIRST, SECOND, steps=2, at_layer=0)
    finally:
        for handle in handles:
            handle.remove()


@pytest.mark.slow
def test_two_sessions_attributing_at_once_both_get_their_own_result(bundled: Encoder) -> None:
    from concurrent.futures import ThreadPoolExecutor

    pairs = [(FIRST, SECOND), ("The cat sat on the mat.", "A dog lay on the rug.")]
    alone = [pair_attribution(bundled, *pair, steps=2) for pair in pairs]
    with ThreadPoolExecutor(2) as pool:  # torch allows one forward-mode level per process
        together = list(pool.map(lambda pair: pair_attribution(bundled, *pair, steps=2), pairs * 2))
    for found, expected in zip(together, alone * 2):
        np.testing.assert_allclose(found.matrix, expected.matrix, atol=1e-6)


def test_the_expected_time_is_the_work_at_the_models_last_measured_pace(tiny: Encoder, bundled: Encoder,
                                                                       monkeypatch) -> None:  # noqa: ANN001
    # Issue #52: 64 steps on two 128-token texts took 468 s, and the page said so only while it ran.
    import bertviz_core.measures.attribution as attribution

    monkeypatch.setattr(attribution, "_WORK_SECONDS", {})  # this model never attributed: it is timed first
    first, second = "The bank by the river.", "Money in the bank vault."
    seconds, passes = attribution.expected_seconds(tiny, first, second, steps=4, at_layer=10)
    assert seconds > 0 and list(attribution._WORK_SECONDS) == [(tiny.info.identity, tiny.info.device)]
    tokens = [len(side_input(tiny, text, "text", False)[0].ids) for text in (first, second)]
    assert passes == 4 * sum(tokens)
    # twice the steps, twice the time; the layers above at_layer and the square of the length count too
    assert attribution.expected_seconds(tiny, first, second, steps=8, at_layer=10)[0] == pytest.approx(2 * seconds)
    assert attribution.expected_seconds(tiny, first, second, steps=4, at_layer=8)[0] == pytest.approx(2 * seconds)
    assert attribution.expected_seconds(tiny, "word " * 200, "word " * 200, steps=4, at_layer=10, cut=True)[0] == \
        pytest.approx(seconds * 2 * MAX_TOKENS ** 2 / sum(t * t for t in tokens))
    with pytest.raises(ValueError, match="too long to attribute"):  # as the run itself, before any timing
        attribution.expected_seconds(bundled, "word " * 200, second)


@pytest.mark.parametrize("seconds, said", [(29.9, None), (45, "about 45 s"), (468, "about 8 minutes"),
                                           (9000, "about 2.5 hours")])
def test_a_wait_over_half_a_minute_is_said_before_the_run(seconds: float, said: str | None) -> None:
    note = wait_note(seconds, 16_384, 64)
    assert note is None if said is None else f"take **{said}**: 16,384 forward-mode passes (64 steps" in note
