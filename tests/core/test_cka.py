"""Linear CKA and RSA (bertviz_core.measures.cka) against formulas written out here independently: HSIC through centred
kernels, and the unbiased HSIC estimator of Song et al. (2012) summed term by term over index tuples."""
from __future__ import annotations

from itertools import permutations

import numpy as np
import pytest
from scipy.stats import spearmanr

import bertviz_core.measures.cka as cka
from bertviz_core import Encoder
from bertviz_core.measures.cka import cka_matrix, linear_cka, rsa_matrix

RNG = np.random.default_rng(7)


def hsic(k: np.ndarray, l: np.ndarray) -> float:
    """HSIC(K, L) = tr(K H L H) / (n-1)², H = I - 11ᵀ/n."""
    n = len(k)
    h = np.eye(n) - np.ones((n, n)) / n
    return float(np.trace(k @ h @ l @ h)) / (n - 1) ** 2


def hsic_by_kernels(x: np.ndarray, y: np.ndarray) -> float:
    k, l = x @ x.T, y @ y.T
    return hsic(k, l) / np.sqrt(hsic(k, k) * hsic(l, l))


def unbiased_hsic_by_tuples(k: np.ndarray, l: np.ndarray) -> float:
    """Song et al.'s U-statistic: the mean over every ordered 4-tuple of distinct texts (i, j, q, r) of
    k_ij l_ij + k_ij l_qr - 2 k_ij l_iq (summing over every ordering symmetrises it); cheap for a small n."""
    n = len(k)
    total, count = 0.0, 0
    for i, j, q, r in permutations(range(n), 4):
        total += k[i, j] * l[i, j] + k[i, j] * l[q, r] - 2 * k[i, j] * l[i, q]
        count += 1
    return total / count


def test_cka_of_a_representation_with_itself_is_one() -> None:
    x = RNG.normal(size=(40, 12))
    assert linear_cka(x, x) == pytest.approx(1.0, abs=1e-12)
    assert linear_cka(x, x, debiased=True) == pytest.approx(1.0, abs=1e-12)
    a = RNG.normal(size=(30, 4, 16))
    np.testing.assert_allclose(np.diag(cka_matrix(a, a)), 1.0, atol=1e-12)


@pytest.mark.parametrize("debiased", [False, True])
def test_cka_is_invariant_to_rotations_and_isotropic_scaling_but_not_to_anisotropic_scaling(debiased: bool) -> None:
    x, y = RNG.normal(size=(60, 10)), RNG.normal(size=(60, 7))
    y = y + x[:, :7]  # related, so that a change of the score shows
    rotation, _ = np.linalg.qr(RNG.normal(size=(10, 10)))
    base = linear_cka(x, y, debiased)
    assert linear_cka(x @ rotation, y, debiased) == pytest.approx(base, abs=1e-10)
    assert linear_cka(5.0 * x, 0.1 * y, debiased) == pytest.approx(base, abs=1e-10)
    assert linear_cka(x + 3.0, y, debiased) == pytest.approx(base, abs=1e-10)  # a shift of every text, too
    stretched = x * np.geomspace(1, 100, 10)
    assert abs(linear_cka(stretched, y, debiased) - base) > 0.05


def test_cka_equals_hsic_written_with_centred_kernels() -> None:
    x, y = RNG.normal(size=(25, 6)), RNG.normal(size=(25, 9))
    y[:, :3] += 2 * x[:, :3]
    assert linear_cka(x, y) == pytest.approx(hsic_by_kernels(x, y), rel=1e-10)


def test_the_debiased_estimator_equals_the_unbiased_hsic_summed_over_tuples() -> None:
    x, y = RNG.normal(size=(7, 3)), RNG.normal(size=(7, 2))
    y[:, 0] += x[:, 0]
    k, l = x @ x.T, y @ y.T
    expected = unbiased_hsic_by_tuples(k, l) / np.sqrt(unbiased_hsic_by_tuples(k, k) * unbiased_hsic_by_tuples(l, l))
    assert linear_cka(x, y, debiased=True) == pytest.approx(expected, rel=1e-9)


def test_the_debiased_estimator_does_not_drift_up_on_few_texts_as_the_plain_one_does() -> None:
    plain, debiased = [], []
    for _ in range(30):  # independent x and y: the true CKA is 0
        x, y = RNG.normal(size=(20, 50)), RNG.normal(size=(20, 50))
        plain.append(linear_cka(x, y))
        debiased.append(linear_cka(x, y, debiased=True))
    assert np.mean(plain) > 0.5 and abs(np.mean(debiased)) < 0.05


def test_both_routes_through_the_traces_agree(monkeypatch: pytest.MonkeyPatch) -> None:
    a, b = RNG.normal(size=(30, 3, 40)), RNG.normal(size=(30, 4, 50))
    b[:, :, :40] += a[:, :1]
    for debiased in (False, True):
        through_kernels = cka_matrix(a, b, debiased)  # 30 texts, 120 and 200 wide: the n×n kernels cost less
        monkeypatch.setattr(cka, "GRAM_ROWS", 0)
        through_features = cka_matrix(a, b, debiased)
        monkeypatch.undo()
        np.testing.assert_allclose(through_kernels, through_features, atol=1e-12)
        expected = [[linear_cka(a[:, i], b[:, j], debiased) for j in range(4)] for i in range(3)]
        np.testing.assert_allclose(through_kernels, expected, atol=1e-12)


def test_a_layer_with_one_vector_for_every_text_is_undefined_not_a_number() -> None:
    a = RNG.normal(size=(12, 2, 8)).astype(np.float32)
    a[:, 0] = a[0, 0]  # e.g. [CLS] at the embedding layer
    m = cka_matrix(a, a)
    assert np.isnan(m[0]).all() and np.isnan(m[:, 0]).all() and m[1, 1] == pytest.approx(1.0)
    with pytest.raises(ValueError, match="same vector for every text"):
        linear_cka(a[:, 0], a[:, 1])


@pytest.mark.parametrize("call, message", [
    (lambda: linear_cka(np.ones((1, 3)), np.ones((1, 3))), "at least 2 texts"),
    (lambda: linear_cka(RNG.normal(size=(3, 3)), RNG.normal(size=(3, 3)), debiased=True),
     "at least 4 texts for the debiased"),
    (lambda: linear_cka(RNG.normal(size=(5, 3)), RNG.normal(size=(4, 3))), "item"),
    (lambda: cka_matrix(RNG.normal(size=(5, 3)), RNG.normal(size=(5, 1, 3))), "3 axes"),
    (lambda: cka_matrix(RNG.normal(size=(5, 1, 3)), RNG.normal(size=(5, 1, 3)), debiased="yes"), "True or False"),
    (lambda: rsa_matrix(RNG.normal(size=(2, 1, 3)), RNG.normal(size=(2, 1, 3))), "at least 3"),
    (lambda: linear_cka(np.full((5, 3), np.nan), np.ones((5, 3))), "finite"),
])
def test_bad_input_says_what_is_wrong(call, message: str) -> None:  # noqa: ANN001
    with pytest.raises(ValueError, match=message):
        call()


def test_rsa_is_the_spearman_correlation_of_the_pairwise_cosines() -> None:
    a, b = RNG.normal(size=(15, 2, 6)), RNG.normal(size=(15, 3, 5))
    b[:, 0] = a[:, 1, :5] + 0.2 * b[:, 0]
    got = rsa_matrix(a, b)
    upper = np.triu_indices(15, 1)

    def cosines(x: np.ndarray) -> np.ndarray:
        unit = x / np.linalg.norm(x, axis=1, keepdims=True)
        return (unit @ unit.T)[upper]

    expected = [[spearmanr(cosines(a[:, i]), cosines(b[:, j])).statistic for j in range(3)] for i in range(2)]
    np.testing.assert_allclose(got, expected, atol=1e-12)
    assert got[1, 0] > 0.5
    np.testing.assert_allclose(np.diag(rsa_matrix(a, a)), 1.0)


def test_on_the_bundled_model_each_layer_is_most_like_itself_and_its_neighbours(bundled: Encoder,
                                                                                news_pooled) -> None:  # noqa: ANN001
    mean = news_pooled["mean"]  # (160, 7, 384)
    m = cka_matrix(mean, mean)
    np.testing.assert_allclose(np.diag(m), 1.0, atol=1e-9)
    np.testing.assert_allclose(m, m.T, atol=1e-9)
    assert all(m[i, i + 1] > m[i, min(i + 3, 6)] - 1e-9 for i in range(5))  # similarity falls with distance


def test_replicates_equal_cka_of_the_resampled_arrays_repeated_rows_and_all() -> None:
    a, b = RNG.normal(size=(25, 3, 12)), RNG.normal(size=(25, 2, 7))
    b[:, :, :7] += a[:, 1:, :7]
    b[:, 0] *= np.linspace(0.5, 3, 7)  # unequal axes, so the layers differ
    drawn = RNG.integers(0, 25, size=(6, 25))  # with replacement: repeated rows count twice
    halves = np.argsort(RNG.random((4, 25)), axis=1)[:, :12]  # and without: half of the rows
    for rows in (*drawn, *halves):
        weights = np.bincount(rows, minlength=25)[None].astype(float)
        found = cka.cka_replicates(a, b, weights)
        for debiased in (False, True):
            np.testing.assert_allclose(found[debiased][0], cka_matrix(a[rows], b[rows], debiased), atol=1e-10)


def test_replicates_of_a_constant_layer_or_too_few_rows_are_nan() -> None:
    a = RNG.normal(size=(10, 2, 6))
    a[:, 0] = a[0, 0]
    weights = np.zeros((2, 10))
    weights[0], weights[1, :3] = 1, 1  # all ten rows; then three, too few for the debiased estimator
    found = cka.cka_replicates(a, a, weights)
    assert np.isnan(found[False][:, 0]).all() and np.isnan(found[False][:, :, 0]).all()
    np.testing.assert_allclose(found[False][:, 1, 1], 1.0)
    assert found[True][0, 1, 1] == pytest.approx(1.0) and np.isnan(found[True][1, 1, 1])


@pytest.mark.slow
def test_chance_is_the_mean_over_every_random_pairing_of_the_texts() -> None:
    a = RNG.normal(size=(7, 2, 3)) * [1.0, 3.0, 5.0]
    b = RNG.normal(size=(7, 1, 4)) * [1.0, 2.0, 6.0, 1.0]
    b[:, 0, :3] += a[:, 1]  # related, so that the pairing matters
    tables = cka.cka_tables(a, b)
    for debiased in (False, True):
        np.testing.assert_allclose(tables[debiased][0], cka_matrix(a, b, debiased), atol=1e-12)
        over_pairings = np.mean([cka_matrix(a, b[list(order)], debiased) for order in permutations(range(7))],
                                axis=0)  # all 5,040
        np.testing.assert_allclose(tables[debiased][1], over_pairings, atol=1e-12)
    assert tables[False][1].min() > 0.1  # linear CKA of texts paired at random is far from 0 on 7 texts
