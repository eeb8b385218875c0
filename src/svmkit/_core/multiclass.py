"""One-vs-one decision values combined into class scores, one pass over the samples."""

import numpy as np

from ._jit import jit


@jit
def one_vs_one_votes(decisions, first, second, n_classes):
    """LIBSVM's votes: pair ``k`` votes for class ``first[k]`` where its decision value is
    positive, else for ``second[k]``. Returns an int64 array (n_samples, n_classes).

    Examples
    --------
    >>> import numpy as np
    >>> decisions = np.array([[1.0, -2.0, 0.0]])  # pairs (0, 1), (0, 2), (1, 2)
    >>> one_vs_one_votes(decisions, np.array([0, 0, 1]), np.array([1, 2, 2]), 3)
    array([[1, 0, 2]])
    """
    votes = np.zeros((decisions.shape[0], n_classes), dtype=np.int64)
    for s in range(decisions.shape[0]):
        for k in range(decisions.shape[1]):
            votes[s, first[k] if decisions[s, k] > 0 else second[k]] += 1
    return votes


@jit
def ovr_scores(decisions, first, second, n_classes):
    """scikit-learn's one-vs-rest scores of one-vs-one decisions
    (``_ovr_decision_function(decisions < 0, -decisions, n_classes)``, with the same sums in
    the same order): votes (pair ``k`` votes for ``first[k]`` where its decision is at least
    0) plus the summed confidences mapped into (-1/3, 1/3), ``x / (3 (|x| + 1))``, which
    break ties without overturning a vote.

    Examples
    --------
    >>> import numpy as np
    >>> decisions = np.array([[1.0, -2.0, 0.0]])  # pairs (0, 1), (0, 2), (1, 2)
    >>> ovr_scores(decisions, np.array([0, 0, 1]), np.array([1, 2, 2]), 3).round(4)
    array([[0.8333, 0.8333, 1.2222]])
    """
    n_samples = decisions.shape[0]
    scores = np.zeros((n_samples, n_classes))
    confidences = np.zeros(n_classes)
    for s in range(n_samples):
        confidences[:] = 0.0
        for k in range(decisions.shape[1]):
            confidences[first[k]] -= -decisions[s, k]
            confidences[second[k]] += -decisions[s, k]
            scores[s, first[k] if decisions[s, k] >= 0 else second[k]] += 1.0
        for c in range(n_classes):
            scores[s, c] += confidences[c] / (3 * (np.abs(confidences[c]) + 1))
    return scores
