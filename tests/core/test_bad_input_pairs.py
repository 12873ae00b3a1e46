"""Bad input to the pair attribution and its views (bertviz_core.measures.attribution, token_pairs), table-driven. What a
case may say, and the inputs ``c`` holds: tests/core/bad_input.py."""
from __future__ import annotations

from types import SimpleNamespace

import pytest
from bad_input import OK, Case, check

from bertviz_core.measures import attribution as at
from bertviz_core.views import token_pairs as tp

A, B = "The bank vault.", "The river bank."


def attributed(c: SimpleNamespace) -> at.PairAttribution:
    return at.pair_attribution(c.t, A, B, steps=2)


CASES: dict[str, Case] = {
    "attribution.pair_attribution: first empty": Case(lambda c: at.pair_attribution(c.t, "", B)),
    "attribution.pair_attribution: second None": Case(lambda c: at.pair_attribution(c.t, A, None)),
    "attribution.pair_attribution: not an encoder": Case(lambda c: at.pair_attribution("bert", A, B)),
    "attribution.pair_attribution: strategy pooler": Case(lambda c: at.pair_attribution(c.t, A, B, "pooler")),
    "attribution.pair_attribution: layer 0": Case(lambda c: at.pair_attribution(c.t, A, B, layer=0)),
    "attribution.pair_attribution: layer 99": Case(lambda c: at.pair_attribution(c.t, A, B, layer=99)),
    "attribution.pair_attribution: at_layer at the pooled layer": Case(
        lambda c: at.pair_attribution(c.t, A, B, layer=1, at_layer=1)),
    "attribution.pair_attribution: steps 0": Case(lambda c: at.pair_attribution(c.t, A, B, steps=0)),
    "attribution.pair_attribution: steps 2.5": Case(lambda c: at.pair_attribution(c.t, A, B, steps=2.5)),
    "attribution.pair_attribution: reference [UNK]": Case(lambda c: at.pair_attribution(c.t, A, B, reference="[UNK]")),
    "attribution.pair_attribution: progress not callable": Case(
        lambda c: at.pair_attribution(c.t, A, B, steps=2, progress=3)),
    "attribution.pair_attribution: two short texts": Case(lambda c: at.pair_attribution(c.t, A, B, steps=2), OK),
    "attribution.side_input: empty": Case(lambda c: at.side_input(c.t, " ", "The first text", False)),
    "attribution.side_input: a text": Case(lambda c: at.side_input(c.t, A, "The first text", False), OK),
    "attribution.expected_seconds: second empty": Case(lambda c: at.expected_seconds(c.t, A, "")),
    "attribution.expected_seconds: steps 0": Case(lambda c: at.expected_seconds(c.t, A, B, steps=0)),
    "attribution.expected_seconds: not an encoder": Case(lambda c: at.expected_seconds(None, A, B)),
    "attribution.expected_seconds: two short texts": Case(lambda c: at.expected_seconds(c.t, A, B, steps=2), OK),
    "token_pairs.duration: negative": Case(lambda c: tp.duration(-1)),
    "token_pairs.duration: NaN": Case(lambda c: tp.duration(float("nan"))),
    "token_pairs.wait_note: no passes": Case(lambda c: tp.wait_note(60, 0, 8)),
    "token_pairs.wait_note: a long wait": Case(lambda c: tp.wait_note(60, 400, 8), OK),
    "attribution.default_at_layer: 0": Case(lambda c: at.default_at_layer(0)),
    "attribution.default_at_layer: 6": Case(lambda c: at.default_at_layer(6), OK),
    "token_pairs.maxsim_pairs: layer -1": Case(lambda c: tp.maxsim_pairs(c.t, A, B, -1)),
    "token_pairs.maxsim_pairs: empty": Case(lambda c: tp.maxsim_pairs(c.t, A, "")),
    "token_pairs.maxsim_pairs: two texts": Case(lambda c: tp.maxsim_pairs(c.t, A, B), OK),
    "token_pairs.attribution_story: None": Case(lambda c: tp.attribution_story(None)),
    "token_pairs.attribution_story: a result": Case(lambda c: tp.attribution_story(attributed(c)), OK),
    "token_pairs.attribution_tables: a table": Case(lambda c: tp.attribution_tables(attributed(c).matrix)),
    "token_pairs.attribution_tables: a result": Case(lambda c: tp.attribution_tables(attributed(c)), OK),
    "token_pairs.attribution_title: None": Case(lambda c: tp.attribution_title(None)),
    "token_pairs.colour_reach: None": Case(lambda c: tp.colour_reach(None)),
    "token_pairs.colour_reach: a result": Case(lambda c: tp.colour_reach(attributed(c)), OK),
    "token_pairs.at_layer_range: 0": Case(lambda c: tp.at_layer_range(0)),
    "token_pairs.at_layer_range: 3": Case(lambda c: tp.at_layer_range(3), OK),
}


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_raises_a_clear_value_error_or_gives_a_result_without_nan(name: str,
                                                                             bad_input: SimpleNamespace) -> None:
    check(name, CASES[name], bad_input)
