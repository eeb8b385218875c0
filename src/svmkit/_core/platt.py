"""Compiled loops of LIBSVM's probability estimates: the fold shuffle and Platt's sigmoid fit.

Both run once per one-vs-one pair of a ``probability=True`` fit, with a loop per sample
that would be slow in Python.
"""

import math

import numpy as np

from ._jit import internal_jit, jit

_UINT32_RANGE = np.uint64(2**32)
_LOW_BITS = np.uint64(0xFFFFFFFF)
_MT_N, _MT_M = 624, 397
_MT_UPPER, _MT_LOWER, _MT_MATRIX = np.uint32(0x80000000), np.uint32(0x7FFFFFFF), np.uint32(0x9908B0DF)


@jit
def mt19937_draws(seed, count):
    """The first ``count`` 32-bit outputs of the Mersenne twister seeded with ``seed``
    (``init_genrand``: ``std::mt19937(seed)``, and NumPy's ``RandomState(seed)``, which is
    slower to construct than these draws take).

    Examples
    --------
    >>> mt19937_draws(5489, 2)  # the C++ standard's default seed
    array([3499211612,  581869302], dtype=uint32)
    """
    state = np.empty(_MT_N, dtype=np.uint32)
    state[0] = np.uint32(seed)
    for i in range(1, _MT_N):
        previous = state[i - 1]
        state[i] = np.uint32((np.uint64(1812433253) * np.uint64(previous ^ (previous >> np.uint32(30))) + i)
                             & _LOW_BITS)
    out = np.empty(count, dtype=np.uint32)
    position = _MT_N
    for k in range(count):
        if position == _MT_N:
            for i in range(_MT_N):
                bits = (state[i] & _MT_UPPER) | (state[(i + 1) % _MT_N] & _MT_LOWER)
                state[i] = state[(i + _MT_M) % _MT_N] ^ (bits >> np.uint32(1)) ^ (
                    _MT_MATRIX if bits & np.uint32(1) else np.uint32(0))
            position = 0
        value = state[position]
        position += 1
        value ^= value >> np.uint32(11)
        value ^= (value << np.uint32(7)) & np.uint32(0x9D2C5680)
        value ^= (value << np.uint32(15)) & np.uint32(0xEFC60000)
        value ^= value >> np.uint32(18)
        out[k] = value
    return out


@jit
def bounded_shuffle(raw, n):
    """LIBSVM's Fisher-Yates shuffle of ``range(n)`` with scikit-learn's bounded integers
    (Lemire's method) drawn from the raw 32-bit values ``raw`` in order.

    Returns ``(perm, used)``: the permutation and how many values it took, or ``used = -1``
    when ``raw`` ran out (draw more and call again).

    Examples
    --------
    >>> bounded_shuffle(mt19937_draws(0, 21), 5)
    (array([2, 3, 4, 0, 1]), 5)
    """
    perm = np.arange(n)
    used = 0
    for i in range(n):
        size = np.uint64(n - i)
        threshold = (_UINT32_RANGE - size) % size
        while True:
            if used == raw.shape[0]:
                return perm, -1
            product = np.uint64(raw[used]) * size
            used += 1
            if (product & _LOW_BITS) >= threshold:
                break
        j = i + np.int64(product >> np.uint64(32))
        perm[i], perm[j] = perm[j], perm[i]
    return perm, used


@internal_jit
def _log_loss(decisions, targets, A, B):
    """Platt's objective, ``sum t log(1 + e^-z) + (1 - t) log(1 + e^z)``, z = -(A f + B), stably."""
    total = 0.0
    for i in range(decisions.shape[0]):
        fApB = decisions[i] * A + B
        if fApB >= 0:
            total += targets[i] * fApB + math.log1p(math.exp(-fApB))
        else:
            total += (targets[i] - 1.0) * fApB + math.log1p(math.exp(fApB))
    return total


@jit
def platt_newton(decisions, targets, A, B, max_iter, min_step, sigma, eps):
    """Newton's method with backtracking for ``A, B`` of ``P(+1 | f) = 1 / (1 + exp(A f + B))``
    from the start ``A, B`` and the regularised targets (LIBSVM's ``sigmoid_train`` loop).

    Examples
    --------
    >>> import numpy as np
    >>> decisions = np.array([-2.0, -1.0, 0.5, 1.0, 2.0])
    >>> targets = np.array([0.2, 0.2, 0.2, 0.75, 0.75])  # 2 positives, 3 negatives
    >>> A, B = platt_newton(decisions, targets, 0.0, np.log(4.0 / 3.0), 100, 1e-10, 1e-12, 1e-5)
    >>> round(float(A), 4), round(float(B), 4)
    (-0.7205, 0.4926)
    """
    fval = _log_loss(decisions, targets, A, B)
    for _ in range(max_iter):
        h11 = sigma
        h22 = sigma
        h21 = 0.0
        g1 = 0.0
        g2 = 0.0
        for i in range(decisions.shape[0]):
            fApB = decisions[i] * A + B
            if fApB >= 0:
                e = math.exp(-fApB)
                p = e / (1.0 + e)
                q = 1.0 / (1.0 + e)
            else:
                e = math.exp(fApB)
                p = 1.0 / (1.0 + e)
                q = e / (1.0 + e)
            d2 = p * q
            h11 += decisions[i] * decisions[i] * d2
            h22 += d2
            h21 += decisions[i] * d2
            d1 = targets[i] - p
            g1 += decisions[i] * d1
            g2 += d1
        if abs(g1) < eps and abs(g2) < eps:
            break
        det = h11 * h22 - h21 * h21
        dA = -(h22 * g1 - h21 * g2) / det
        dB = -(-h21 * g1 + h11 * g2) / det
        gd = g1 * dA + g2 * dB
        step = 1.0
        while step >= min_step:
            new_A = A + step * dA
            new_B = B + step * dB
            new_f = _log_loss(decisions, targets, new_A, new_B)
            if new_f < fval + 0.0001 * step * gd:
                A, B, fval = new_A, new_B, new_f
                break
            step /= 2.0
        if step < min_step:
            break
    return A, B
