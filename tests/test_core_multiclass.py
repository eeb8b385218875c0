"""Class scores from one-vs-one decisions (svmkit._core.multiclass) against scikit-learn and a loop."""

from itertools import combinations

import numpy as np
import pytest
from compiled_doctests import run_docstring_examples
from sklearn.utils.multiclass import _ovr_decision_function

from svmkit._core.multiclass import one_vs_one_votes, ovr_scores

N_CLASSES = 5
PAIRS = np.array(list(combinations(range(N_CLASSES), 2)))


def _decisions(seed=0):
    decisions = np.random.default_rng(seed).normal(size=(60, PAIRS.shape[0]))
    decisions[::7, 3] = 0.0  # zeros: a vote for the first class here, for the second in LIBSVM's votes
    decisions[1] = 1.0  # ties in the votes, broken by the confidences
    return decisions


def test_ovr_scores_equal_scikit_learns_bit_for_bit():
    decisions = _decisions()
    expected = _ovr_decision_function(decisions < 0, -decisions, N_CLASSES)
    np.testing.assert_array_equal(ovr_scores(decisions, PAIRS[:, 0], PAIRS[:, 1], N_CLASSES), expected)


def test_votes_follow_libsvm_positive_for_the_first_class():
    decisions = _decisions(1)
    expected = np.zeros((decisions.shape[0], N_CLASSES), dtype=np.int64)
    for k, (i, j) in enumerate(PAIRS):
        expected[:, i] += decisions[:, k] > 0
        expected[:, j] += decisions[:, k] <= 0
    np.testing.assert_array_equal(one_vs_one_votes(decisions, PAIRS[:, 0], PAIRS[:, 1], N_CLASSES), expected)


@pytest.mark.parametrize("function", [one_vs_one_votes, ovr_scores])
def test_docstring_examples(function):
    tries, failures = run_docstring_examples(function)
    assert tries > 0 and failures == 0
