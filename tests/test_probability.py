"""Probabilities of SVC and NuSVC: Platt scaling, pairwise coupling and LIBSVM's folds.

The oracles are direct ports of LIBSVM's svm.cpp (``sigmoid_train``,
``multiclass_probability``, ``std::mt19937`` with scikit-learn's bounded
integers), written as loops, and scikit-learn's ``SVC(probability=True)``
itself: with the same ``random_state`` the cross-validation folds are the same.
"""

import doctest
import math

import numpy as np
import pytest
from compiled_doctests import run_docstring_examples
from sklearn import svm as libsvm
from sklearn.base import clone
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.preprocessing import StandardScaler

import svmkit.svm._probability
from svmkit.svm import SVC, NuSVC
from svmkit._core.platt import bounded_shuffle, mt19937_draws, platt_newton
from svmkit.svm._probability import fold_permutation, pairwise_coupling, sigmoid_train

# scikit-learn 1.9 deprecates probability=True and probA_/probB_ (in favour of CalibratedClassifierCV)
pytestmark = pytest.mark.filterwarnings("ignore:.*deprecated.*:FutureWarning")


# -- oracles: LIBSVM's C++ as plain Python loops -----------------------------------------------


def libsvm_sigmoid_train(dec_values, labels):
    prior1 = sum(1 for label in labels if label > 0)
    prior0 = len(labels) - prior1
    max_iter, min_step, sigma, eps = 100, 1e-10, 1e-12, 1e-5
    hi, lo = (prior1 + 1.0) / (prior1 + 2.0), 1 / (prior0 + 2.0)
    t = [hi if label > 0 else lo for label in labels]
    A, B = 0.0, math.log((prior0 + 1.0) / (prior1 + 1.0))

    def value(A, B):
        total = 0.0
        for f, ti in zip(dec_values, t):
            fApB = f * A + B
            if fApB >= 0:
                total += ti * fApB + math.log(1 + math.exp(-fApB))
            else:
                total += (ti - 1) * fApB + math.log(1 + math.exp(fApB))
        return total

    fval = value(A, B)
    for _ in range(max_iter):
        h11, h22, h21, g1, g2 = sigma, sigma, 0.0, 0.0, 0.0
        for f, ti in zip(dec_values, t):
            fApB = f * A + B
            if fApB >= 0:
                p, q = math.exp(-fApB) / (1.0 + math.exp(-fApB)), 1.0 / (1.0 + math.exp(-fApB))
            else:
                p, q = 1.0 / (1.0 + math.exp(fApB)), math.exp(fApB) / (1.0 + math.exp(fApB))
            d2 = p * q
            h11 += f * f * d2
            h22 += d2
            h21 += f * d2
            g1 += f * (ti - p)
            g2 += ti - p
        if abs(g1) < eps and abs(g2) < eps:
            break
        det = h11 * h22 - h21 * h21
        dA, dB = -(h22 * g1 - h21 * g2) / det, -(-h21 * g1 + h11 * g2) / det
        gd = g1 * dA + g2 * dB
        step = 1.0
        while step >= min_step:
            newf = value(A + step * dA, B + step * dB)
            if newf < fval + 0.0001 * step * gd:
                A, B, fval = A + step * dA, B + step * dB, newf
                break
            step /= 2.0
        if step < min_step:
            break
    return A, B


def libsvm_multiclass_probability(r):
    k = len(r)
    p = [1.0 / k] * k
    Q = [[0.0] * k for _ in range(k)]
    for t in range(k):
        for j in range(t):
            Q[t][t] += r[j][t] * r[j][t]
            Q[t][j] = Q[j][t]
        for j in range(t + 1, k):
            Q[t][t] += r[j][t] * r[j][t]
            Q[t][j] = -r[j][t] * r[t][j]
    for _ in range(max(100, k)):
        Qp = [sum(Q[t][j] * p[j] for j in range(k)) for t in range(k)]
        pQp = sum(p[t] * Qp[t] for t in range(k))
        if max(abs(Qp[t] - pQp) for t in range(k)) < 0.005 / k:
            break
        for t in range(k):
            diff = (-Qp[t] + pQp) / Q[t][t]
            p[t] += diff
            pQp = (pQp + diff * (diff * Q[t][t] + 2 * Qp[t])) / (1 + diff) / (1 + diff)
            for j in range(k):
                Qp[j] = (Qp[j] + diff * Q[t][j]) / (1 + diff)
                p[j] /= 1 + diff
    return p


class MT19937:
    """``std::mt19937`` (Matsumoto and Nishimura 1998) with its integer seeding."""

    def __init__(self, seed):
        self.state = [seed & 0xFFFFFFFF]
        for i in range(1, 624):
            self.state.append((1812433253 * (self.state[-1] ^ (self.state[-1] >> 30)) + i) & 0xFFFFFFFF)
        self.index = 624

    def __call__(self):
        if self.index == 624:
            for i in range(624):
                y = (self.state[i] & 0x80000000) | (self.state[(i + 1) % 624] & 0x7FFFFFFF)
                self.state[i] = self.state[(i + 397) % 624] ^ (y >> 1) ^ (0x9908B0DF if y & 1 else 0)
            self.index = 0
        y = self.state[self.index]
        self.index += 1
        y ^= y >> 11
        y ^= (y << 7) & 0x9D2C5680
        y ^= (y << 15) & 0xEFC60000
        return y ^ (y >> 18)


def libsvm_permutation(n, seed):
    """svm_binary_svc_probability's shuffle with scikit-learn's bounded_rand_int (newrand.h)."""
    rand = MT19937(seed)

    def bounded_rand_int(size):
        x = rand()
        m = x * size
        low = m & 0xFFFFFFFF
        if low < size:
            t = (-size) % 2**32
            if t >= size:
                t -= size
                if t >= size:
                    t %= size
            while low < t:
                x = rand()
                m = x * size
                low = m & 0xFFFFFFFF
        return m >> 32

    perm = list(range(n))
    for i in range(n):
        j = i + bounded_rand_int(n - i)
        perm[i], perm[j] = perm[j], perm[i]
    return perm


# -- the building blocks against the oracles -----------------------------------------------------


def test_mt19937_oracle_is_the_standard_generator():
    rand = MT19937(5489)  # the C++ standard: the 10000th output of a default-constructed mt19937
    values = [rand() for _ in range(10000)]
    assert values[0] == 3499211612 and values[-1] == 4123659995


@pytest.mark.parametrize("n, seed", [(1, 0), (5, 0), (37, 1), (300, 209652396), (2000, 2147483646)])
def test_fold_permutation_is_libsvms(n, seed):
    np.testing.assert_array_equal(fold_permutation(n, seed), libsvm_permutation(n, seed))


@pytest.mark.parametrize("seed", range(6))
def test_sigmoid_train_matches_libsvm(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 200))
    labels = rng.choice([-1.0, 1.0], size=n, p=[0.7, 0.3])
    decisions = 1.5 * labels + rng.normal(scale=1.5, size=n)
    A, B = sigmoid_train(decisions, labels)
    expected = libsvm_sigmoid_train(decisions.tolist(), labels.tolist())
    np.testing.assert_allclose([A, B], expected, rtol=1e-9, atol=1e-12)
    assert A < 0  # larger decision values, larger P(+1)


def test_sigmoid_train_with_one_class_only_and_separable_values():
    decisions = np.array([-3.0, -2.0, -1.5, 1.0, 2.0, 4.0])
    labels = np.sign(decisions)
    np.testing.assert_allclose(sigmoid_train(decisions, labels), libsvm_sigmoid_train(decisions, labels), rtol=1e-9)
    positive_only = np.ones(6)
    np.testing.assert_allclose(
        sigmoid_train(decisions, positive_only), libsvm_sigmoid_train(decisions, positive_only), rtol=1e-9, atol=1e-12
    )


@pytest.mark.parametrize("k", [2, 3, 4, 7])
def test_pairwise_coupling_matches_libsvm(k):
    rng = np.random.default_rng(k)
    n = 40
    r = np.zeros((n, k, k))
    for i in range(k):
        for j in range(i + 1, k):
            r[:, i, j] = np.clip(rng.uniform(size=n), 1e-7, 1 - 1e-7)
            r[:, j, i] = 1 - r[:, i, j]
    p = pairwise_coupling(r)
    expected = np.array([libsvm_multiclass_probability(sample.tolist()) for sample in r])
    np.testing.assert_allclose(p, expected, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(p.sum(axis=1), 1.0, atol=1e-12)


# -- end to end against scikit-learn (LIBSVM) with the same folds -------------------------------


def _scaled(load):
    data = load()
    return StandardScaler().fit_transform(data.data), data.target


DATASETS = {"breast_cancer": _scaled(load_breast_cancer), "wine": _scaled(load_wine), "iris": _scaled(load_iris)}
MODELS = {
    "SVC": (SVC, libsvm.SVC, dict(C=1.0)),
    "NuSVC": (NuSVC, libsvm.NuSVC, dict(nu=0.3)),
}


@pytest.mark.parametrize("dataset", list(DATASETS))
@pytest.mark.parametrize("name", list(MODELS))
def test_probabilities_match_scikit_learn_with_the_same_folds(name, dataset):
    ours_class, oracle_class, params = MODELS[name]
    X, y = DATASETS[dataset]
    ours = ours_class(probability=True, random_state=0, **params).fit(X, y)
    oracle = oracle_class(probability=True, random_state=0, **params).fit(X, y)
    np.testing.assert_allclose(ours.probA_, oracle.probA_, rtol=0.02)
    np.testing.assert_allclose(ours.probB_, oracle.probB_, atol=0.02)
    proba = ours.predict_proba(X)
    assert np.abs(proba - oracle.predict_proba(X)).max() <= 0.02
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, atol=1e-12)
    np.testing.assert_allclose(ours.predict_log_proba(X), np.log(proba))


def test_probabilities_with_sample_weights_match_scikit_learn():
    X, y = DATASETS["wine"]
    weights = np.random.default_rng(0).choice([0.0, 0.5, 1.0, 2.0], size=y.shape[0])
    ours = SVC(probability=True, random_state=3).fit(X, y, sample_weight=weights)
    oracle = libsvm.SVC(probability=True, random_state=3).fit(X, y, sample_weight=weights)
    assert np.abs(ours.predict_proba(X) - oracle.predict_proba(X)).max() <= 0.02


def test_probabilities_are_deterministic_for_a_random_state():
    X, y = DATASETS["iris"]
    first = SVC(probability=True, random_state=7).fit(X, y)
    again = SVC(probability=True, random_state=7).fit(X, y)
    other = SVC(probability=True, random_state=8).fit(X, y)
    np.testing.assert_array_equal(first.predict_proba(X), again.predict_proba(X))
    np.testing.assert_array_equal(first.probA_, again.probA_)
    assert not np.array_equal(first.probA_, other.probA_)


def test_predict_from_proba_agrees_with_the_probabilities():
    X, y = DATASETS["breast_cancer"]
    model = SVC(C=0.05, probability=True, random_state=0).fit(X, y)
    proba = model.predict_proba(X)
    from_proba = model.predict_from_proba(X)
    np.testing.assert_array_equal(from_proba, model.classes_[np.argmax(proba, axis=1)])
    # the documented disagreement: Platt's sigmoid from cross-validation moves the threshold slightly
    disagree = from_proba != model.predict(X)
    assert 0 < disagree.sum() <= 0.05 * y.shape[0]
    assert np.all(np.abs(proba[disagree, 1] - 0.5) < 0.2)


def test_predict_proba_needs_probability_true():
    X, y = DATASETS["iris"]
    model = SVC().fit(X, y)
    assert not hasattr(model, "predict_proba") and not hasattr(model, "predict_from_proba")
    with pytest.raises(AttributeError, match="has no attribute .predict_proba."):
        model.predict_proba(X)
    assert model.probA_.shape == (0,) and model.probB_.shape == (0,)
    with pytest.raises(ValueError, match="multiclass='ovo'"):
        SVC(probability=True, multiclass="ovr").fit(X, y)
    binary = SVC(probability=True, multiclass="ovr", random_state=0).fit(X[:100], y[:100])
    assert binary.predict_proba(X[:100]).shape == (100, 2)


def test_docstring_examples_run():
    result = doctest.testmod(svmkit.svm._probability, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 0 and result.failed == 0


@pytest.mark.parametrize("seed", [0, 1, 5489, 209652396, 2**31 - 2])
def test_mt19937_draws_are_numpys_random_state(seed):
    np.testing.assert_array_equal(
        mt19937_draws(seed, 1500), np.random.RandomState(seed).randint(0, 2**32, size=1500, dtype=np.uint32)
    )


@pytest.mark.parametrize("function", [bounded_shuffle, mt19937_draws, platt_newton])
def test_compiled_docstring_examples(function):
    tries, failures = run_docstring_examples(function)
    assert tries > 0 and failures == 0


def test_fold_permutation_draws_more_values_when_rejections_use_up_the_first_ones(monkeypatch):
    """The shuffle asks for more raw values when it runs out: the same permutation."""
    calls = []

    def short_first(raw, n):
        calls.append(raw.shape[0])
        return bounded_shuffle(raw[: n // 2] if len(calls) == 1 else raw, n)

    monkeypatch.setattr(svmkit.svm._probability, "bounded_shuffle", short_first)
    np.testing.assert_array_equal(fold_permutation(300, 209652396), libsvm_permutation(300, 209652396))
    assert calls == [364, 300 + 64 * 16]


@pytest.mark.parametrize("estimator", [
    SVC(probability=True, random_state=0),
    SVC(kernel="linear", C=0.5, probability=True, random_state=1),
    NuSVC(nu=0.3, probability=True, random_state=0),
], ids=["rbf", "linear", "nu"])
@pytest.mark.parametrize("loader", [load_wine, load_breast_cancer], ids=["wine", "cancer"])
def test_cross_validation_fits_in_one_batch_are_the_fits_of_each_fold(estimator, loader):
    """The five fits of each pair, solved together as one batch of duals (each fold the pair's
    problem with its held-out rows bounded at 0), give the sigmoid that the same folds fitted
    one by one as estimators of their own give (LIBSVM's procedure spelled out with the public
    API: folds, fits, held-out decisions, sigmoid)."""
    from svmkit.svm._probability import draw_seed, fold_splits, sigmoid_train

    X, y = loader(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    estimator = clone(estimator).set_params(tol=1e-10)  # (both to the optimum: the same decision values)
    fitted = clone(estimator).fit(X, y)
    seed = draw_seed(np.random.RandomState(estimator.random_state))
    gamma = getattr(fitted.kernel_, "gamma", "scale")  # (the fit's gamma, not the folds' own 'scale')
    n_classes = fitted.classes_.shape[0]
    for pair, (i, j) in enumerate([(i, j) for i in range(n_classes) for j in range(i + 1, n_classes)][:2]):
        rows = np.concatenate([np.flatnonzero(y == i), np.flatnonzero(y == j)])
        labels = np.where(y[rows] == i, 1.0, -1.0)
        decisions, splits = fold_splits(labels, seed)
        for train, held in splits:
            fold_model = clone(estimator).set_params(probability=False, gamma=gamma)
            fold_model.fit(X[rows[train]], labels[train])
            decisions[held] = fold_model.decision_function(X[rows[held]])
        a, b = sigmoid_train(decisions, labels)
        np.testing.assert_allclose([fitted.probA_[pair], fitted.probB_[pair]], [a, b], rtol=1e-6, atol=1e-6)
