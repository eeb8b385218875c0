"""Class probabilities from decision values, as LIBSVM computes them.

* Platt scaling ``P(y = +1 | f) = 1 / (1 + exp(A f + B))`` fitted by Newton's
  method with backtracking on the regularised targets ``(N+ + 1) / (N+ + 2)``
  and ``1 / (N- + 2)`` (Platt 1999; Lin, Lin and Weng 2007: LIBSVM's
  ``sigmoid_train``), on decision values from a 5-fold cross-validation
  (``svm_binary_svc_probability``).
* Pairwise coupling of the one-vs-one probabilities ``r_ij`` into class
  probabilities (Wu, Lin and Weng 2004, method 2: ``multiclass_probability``).

The folds are LIBSVM's: a Fisher-Yates shuffle drawn from a Mersenne twister
(``std::mt19937``) seeded with ``random_state.randint(2**31 - 1)``, with
scikit-learn's bounded integers (Lemire's method), and fold ``k`` holding
positions ``k l / 5`` to ``(k + 1) l / 5`` of the shuffle. With the same
``random_state`` the folds are those of scikit-learn's ``SVC(probability=True)``.
"""

import numpy as np

from .._core.platt import bounded_shuffle, mt19937_draws, platt_newton

#: Number of cross-validation folds (LIBSVM's ``nr_fold``).
N_FOLDS = 5

#: Pairwise probabilities are clipped to ``[MIN_PROB, 1 - MIN_PROB]`` before coupling.
MIN_PROB = 1e-7

_MAX_SEED = np.iinfo(np.int32).max


def draw_seed(random_state):
    """The seed of the fold shuffle, drawn as scikit-learn draws LIBSVM's."""
    return int(random_state.randint(_MAX_SEED))


def fold_permutation(n, seed):
    """LIBSVM's shuffle of ``range(n)`` for the cross-validation folds.

    Examples
    --------
    >>> fold_permutation(5, seed=0)
    array([2, 3, 4, 0, 1])
    """
    extra = 64  # values beyond one per position, for the rare rejected draws
    while True:
        perm, used = bounded_shuffle(mt19937_draws(seed, n + extra), n)
        if used >= 0:
            return perm
        extra *= 16


def fold_splits(labels, seed):
    """LIBSVM's cross-validation folds of a two-class problem for Platt scaling.

    Parameters
    ----------
    labels : float array
        +1/-1 labels of the problem's samples.
    seed : int
        Seed of :func:`fold_permutation`.

    Returns
    -------
    decisions : float array
        One decision value per sample, set already for the folds whose training part holds
        one class only (+1 or -1, 0 when empty), as LIBSVM.
    splits : list of (train, held) int arrays
        The other folds: positions to train on and positions whose decision values the
        fitted model gives.

    Examples
    --------
    >>> decisions, splits = fold_splits(np.array([1.0, -1.0] * 5), seed=0)
    >>> len(splits), sorted(np.concatenate([held for _, held in splits]).tolist()) == list(range(10))
    (5, True)
    """
    n = labels.shape[0]
    perm = fold_permutation(n, seed)
    decisions = np.empty(n)
    splits = []
    for k in range(N_FOLDS):
        begin, end = k * n // N_FOLDS, (k + 1) * n // N_FOLDS
        held = perm[begin:end]
        train = np.concatenate([perm[:begin], perm[end:]])
        n_positive = int(np.sum(labels[train] > 0))
        n_negative = train.shape[0] - n_positive
        if n_positive and n_negative:
            splits.append((train, held))
        else:
            decisions[held] = np.sign(n_positive - n_negative)
    return decisions, splits


def sigmoid_train(decisions, labels, max_iter=100, min_step=1e-10, sigma=1e-12, eps=1e-5):
    """Fit ``A, B`` of ``P(+1 | f) = 1 / (1 + exp(A f + B))`` (LIBSVM's ``sigmoid_train``).

    Parameters
    ----------
    decisions : float array
        Decision values ``f``.
    labels : array
        Positive entries are the positive class.

    Returns
    -------
    A, B : float

    Examples
    --------
    >>> A, B = sigmoid_train(np.array([-2.0, -1.0, 0.5, 1.0, 2.0]), np.array([-1, -1, -1, 1, 1]))
    >>> round(A, 4), round(B, 4)
    (-0.7205, 0.4926)
    """
    positive = labels > 0
    prior1 = float(np.sum(positive))
    prior0 = float(labels.shape[0] - prior1)
    targets = np.where(positive, (prior1 + 1.0) / (prior1 + 2.0), 1.0 / (prior0 + 2.0))
    A, B = platt_newton(
        np.asarray(decisions, dtype=np.float64), targets, 0.0, float(np.log((prior0 + 1.0) / (prior1 + 1.0))),
        max_iter, min_step, sigma, eps,
    )
    return float(A), float(B)


def sigmoid_predict(decisions, A, B):
    """``1 / (1 + exp(A f + B))`` without overflow."""
    fApB = decisions * A + B
    e = np.exp(-np.abs(fApB))
    return np.where(fApB >= 0, e, 1.0) / (1.0 + e)


def pairwise_coupling(r):
    """Class probabilities from pairwise ones (LIBSVM's ``multiclass_probability``).

    Solves ``min_p 1/2 p'Qp`` subject to ``sum p = 1`` with
    ``Q_tt = sum_{j != t} r_jt^2`` and ``Q_tj = -r_jt r_tj`` by LIBSVM's
    coordinate iterations (at most ``max(100, k)`` sweeps, stopping when
    ``max_t |(Qp)_t - p'Qp| < 0.005 / k``), for many samples at once: each
    sample stops at its own iteration, exactly as LIBSVM's loop per sample.

    Parameters
    ----------
    r : float array of shape (n_samples, k, k)
        ``r[:, i, j]`` estimates ``P(class i | class i or j)``; the diagonal is ignored.

    Returns
    -------
    float array of shape (n_samples, k)

    Examples
    --------
    >>> r = np.array([[[0.0, 0.9], [0.1, 0.0]]])
    >>> pairwise_coupling(r).round(6)
    array([[0.9, 0.1]])
    """
    n, k = r.shape[0], r.shape[1]
    off = ~np.eye(k, dtype=bool)
    rt = np.swapaxes(r, 1, 2)  # rt[:, t, j] = r[:, j, t]
    Q = np.where(off, -rt * r, 0.0)
    Q[:, np.arange(k), np.arange(k)] = np.sum(np.where(off, rt * rt, 0.0), axis=2)
    p = np.full((n, k), 1.0 / k)
    eps = 0.005 / k
    running = np.arange(n)
    for _ in range(max(100, k)):
        Qr, pr = Q[running], p[running]
        Qp = np.einsum("stj,sj->st", Qr, pr)
        pQp = np.sum(pr * Qp, axis=1)
        converged = np.max(np.abs(Qp - pQp[:, None]), axis=1) < eps
        running, Qr, pr, Qp, pQp = running[~converged], Qr[~converged], pr[~converged], Qp[~converged], pQp[~converged]
        if running.shape[0] == 0:
            break
        for t in range(k):
            Qtt = Qr[:, t, t]
            diff = (-Qp[:, t] + pQp) / Qtt
            pr[:, t] += diff
            pQp = (pQp + diff * (diff * Qtt + 2 * Qp[:, t])) / (1 + diff) / (1 + diff)
            Qp = (Qp + diff[:, None] * Qr[:, t, :]) / (1 + diff[:, None])
            pr /= (1 + diff[:, None])
        p[running] = pr
    return p


def pairwise_probabilities(decisions, prob_a, prob_b, n_classes):
    """Class probabilities from one-vs-one decision values, coupled (LIBSVM's
    ``svm_predict_probability`` for three or more classes; with two, LIBSVM 3.24 and later
    return the clipped sigmoid of the pair itself, scikit-learn's SVC this coupling).

    Parameters
    ----------
    decisions : float array of shape (n_samples, n_pairs)
        Decision values of the pairs ``(i, j)``, ``i < j`` in LIBSVM's order,
        positive for class ``i``.
    prob_a, prob_b : float arrays of shape (n_pairs,)
        Platt parameters of each pair.
    n_classes : int

    Returns
    -------
    float array of shape (n_samples, n_classes)
    """
    n = decisions.shape[0]
    r = np.zeros((n, n_classes, n_classes))
    p = 0
    for i in range(n_classes):
        for j in range(i + 1, n_classes):
            r_ij = np.clip(sigmoid_predict(decisions[:, p], prob_a[p], prob_b[p]), MIN_PROB, 1 - MIN_PROB)
            r[:, i, j] = r_ij
            r[:, j, i] = 1 - r_ij
            p += 1
    return pairwise_coupling(r)
