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


@jit
def one_vs_one_rows(order, class_start, first, second):
    """The variables of the one-vs-one problems of the classes ``(first[k], second[k])``, one
    problem after another, in LIBSVM's order: the rows of the first class labelled +1, then
    those of the second labelled -1. ``order`` holds the rows class by class (class ``c``:
    ``order[class_start[c]:class_start[c + 1]]``). Returns ``(rows, labels, bounds)``:
    problem ``k`` has the variables ``bounds[k]:bounds[k + 1]``.

    Examples
    --------
    >>> import numpy as np
    >>> order, class_start = np.array([0, 3, 1, 2]), np.array([0, 2, 3, 4])  # classes 0 1 2 0
    >>> rows, labels, bounds = one_vs_one_rows(order, class_start, np.array([0, 0, 1]), np.array([1, 2, 2]))
    >>> rows[bounds[1]:bounds[2]], labels[bounds[1]:bounds[2]]
    (array([0, 3, 2]), array([ 1.,  1., -1.]))
    """
    n_problems = first.shape[0]
    bounds = np.zeros(n_problems + 1, dtype=np.int64)
    for k in range(n_problems):
        size = class_start[first[k] + 1] - class_start[first[k]] + class_start[second[k] + 1] - class_start[second[k]]
        bounds[k + 1] = bounds[k] + size
    rows = np.empty(bounds[n_problems], dtype=np.int64)
    labels = np.empty(bounds[n_problems])
    for k in range(n_problems):
        t = bounds[k]
        for c, label in ((first[k], 1.0), (second[k], -1.0)):
            for s in range(class_start[c], class_start[c + 1]):
                rows[t] = order[s]
                labels[t] = label
                t += 1
    return rows, labels, bounds
