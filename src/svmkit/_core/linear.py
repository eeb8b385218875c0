"""Compiled loops of the linear models: DCD, Pegasos epochs, perceptron sweeps.

Every loop reads the samples through the same three row helpers, so one
implementation serves dense and CSR data. The data are passed as
``(indptr, indices, data, dense)``: for CSR input ``dense`` is ``None``; for
dense input the three CSR arrays are empty. Numba removes the branches on
``dense is None`` at compile time, so each layout gets its own machine code
(a run-time flag instead made the CSR loops twice as slow).
A model with an intercept carries it as an extra weight ``w[n_features]``
for an augmented feature of constant value ``bias_value`` (LIBLINEAR's
``-B``); ``bias_value = 0`` means no intercept.

Every loop returns to its caller after a bounded amount of work (``budget`` values read, or
a number of epochs), its state kept in arrays that the next call continues from, so that the
caller serves Ctrl-C between calls; a fit split over calls is the fit of one long call.

Status codes returned: ``CONVERGED`` (0), ``MAX_ITER_REACHED`` (1) or ``PAUSED`` (2: the
call's budget is spent, call again).
"""

import numpy as np

from ._jit import internal_jit, jit

CONVERGED = 0
MAX_ITER_REACHED = 1
PAUSED = 2

# Columns of the per-sample table of the DCD solver.
_ALPHA, _QBAR, _DIAG, _UPPER = 0, 1, 2, 3

#: Rescale the Pegasos weight vector ``w = scale * v`` once ``scale`` falls below this.
_MIN_SCALE = 1e-9


@internal_jit
def _seed_state(seed):
    """A non-zero xorshift64 state from an integer seed."""
    return np.uint64(seed) * np.uint64(2654435761) + np.uint64(88172645463325252)


@internal_jit
def _random_below(state, bound):
    """Advance the xorshift64 state; return it and a pseudo-random integer in ``[0, bound)``.

    The integer is ``(high 32 bits of the state * bound) >> 32`` (Lemire 2019): no division.
    ``bound`` must be below 2^32.
    """
    state ^= state << np.uint64(13)
    state ^= state >> np.uint64(7)
    state ^= state << np.uint64(17)
    return state, np.int64(((state >> np.uint64(32)) * np.uint64(bound)) >> np.uint64(32))


@internal_jit
def _shuffle(index, size, state):
    """Fisher-Yates shuffle of ``index[:size]``; return the new random state."""
    for s in range(size - 1):
        state, offset = _random_below(state, size - s)
        j = s + offset
        index[s], index[j] = index[j], index[s]
    return state


@internal_jit
def _row_bounds(indptr, i):
    """``indptr[i], indptr[i + 1]`` as unsigned integers.

    Unsigned positions spare numba the test for negative (wrap-around)
    indices on every element of the CSR loops.
    """
    return np.uint64(indptr[i]), np.uint64(indptr[i + 1])


@internal_jit
def _first_value(i, indptr, data, dense):
    """The first stored value of row ``i`` (0.0 for an empty row)."""
    if dense is None:
        start, end = _row_bounds(indptr, i)
        return data[start] if start < end else 0.0
    return dense[i, 0] if dense.shape[1] > 0 else 0.0


@internal_jit
def _row_dot(w, i, indptr, indices, data, dense, bias_value):
    """``w' x_i`` for the (augmented) sample ``i``."""
    total = 0.0
    if dense is None:
        start, end = _row_bounds(indptr, i)
        for k in range(start, end):
            total += w[np.uint64(indices[k])] * data[k]
    else:
        row = dense[i]
        for j in range(row.shape[0]):
            total += w[j] * row[j]
    if bias_value != 0.0:
        total += w[w.shape[0] - 1] * bias_value
    return total


@internal_jit
def _row_axpy(step, w, i, indptr, indices, data, dense, bias_value):
    """``w += step * x_i`` for the (augmented) sample ``i``."""
    if dense is None:
        start, end = _row_bounds(indptr, i)
        for k in range(start, end):
            w[np.uint64(indices[k])] += step * data[k]
    else:
        row = dense[i]
        for j in range(row.shape[0]):
            w[j] += step * row[j]
    if bias_value != 0.0:
        w[w.shape[0] - 1] += step * bias_value


@internal_jit
def _row_sq_norm(i, indptr, indices, data, dense, bias_value):
    """``||x_i||^2`` of the (augmented) sample ``i``."""
    total = bias_value * bias_value
    if dense is None:
        start, end = _row_bounds(indptr, i)
        for k in range(start, end):
            total += data[k] * data[k]
    else:
        row = dense[i]
        for j in range(row.shape[0]):
            total += row[j] * row[j]
    return total


@jit
def dcd_start(indptr, indices, data, dense, bias_value, y, rows, upper, diag, seed):
    """The state of dual coordinate descent (:func:`dcd_passes`) before its first pass.

    Parameters
    ----------
    y : float64 array of +1/-1, one per sample.
    rows : int64 array, the samples that take part (those with ``C_i > 0``).
    upper, diag : float64 arrays, one per sample.
    seed : seed of the random visiting order.

    Returns
    -------
    sample : (n_samples, 4) float64, per sample: the dual variable, ``Q_ii + D_ii``, ``D_ii``
        and the upper bound.
    signs : (n_samples,) int8 labels.
    index : (n_rows,) the samples in their visiting order (the active ones first).
    bounds : float64 ``[max PG, min PG]`` of the last pass as the shrinking uses them, then the
        spread ``max PG - min PG`` of the last pass.
    counts : int64 ``[active samples, passes made]``.
    random : uint64 ``[state of the random generator]``.
    """
    n_samples = y.shape[0]
    n_rows = rows.shape[0]
    # What a visit of sample i reads, side by side in one 32-byte row (one cache line instead of
    # four), and the labels as bytes: 10 % faster on a9a than separate float64 arrays.
    sample = np.zeros((n_samples, 4))
    signs = np.zeros(n_samples, dtype=np.int8)
    for r in range(n_rows):
        i = rows[r]
        sample[i, _QBAR] = _row_sq_norm(i, indptr, indices, data, dense, bias_value) + diag[i]
        sample[i, _DIAG] = diag[i]
        sample[i, _UPPER] = upper[i]
        signs[i] = 1 if y[i] > 0 else -1
    bounds = np.array([np.inf, -np.inf, np.inf])
    counts = np.array([n_rows, 0], dtype=np.int64)
    random = np.empty(1, dtype=np.uint64)
    random[0] = _seed_state(seed)
    return sample, signs, rows.copy(), bounds, counts, random


@jit
def dcd_passes(indptr, indices, data, dense, bias_value, w, sample, signs, index, bounds, counts, random,
               tol, max_iter, row_values, budget):
    """Passes of dual coordinate descent with shrinking for the L1- and L2-loss linear SVM.

    Solves ``min 1/2 a'(Q + D)a - 1'a`` subject to ``0 <= a_i <= upper_i``
    with ``Q_ij = y_i y_j x_i'x_j`` (Hsieh et al., ICML 2008; LIBLINEAR's
    ``solve_l2r_l1l2_svc``). L1 loss: ``upper = C_i``, ``diag = 0``; L2 loss:
    ``upper = inf``, ``diag = 1 / (2 C_i)``. The state (from :func:`dcd_start`) and
    ``w = sum_i alpha_i y_i x_i`` (augmented, zero at the start) are updated in place, so that
    passes split over several calls give the same result as one call.

    Parameters
    ----------
    tol : stop when ``max PG - min PG <= tol`` on all samples that take part.
    max_iter : maximum number of passes, counted over all calls.
    row_values : values read per visit of a sample (the mean row length).
    budget : return after the pass in which the values read by this call reach ``budget``.

    Returns
    -------
    status : ``CONVERGED``, ``MAX_ITER_REACHED`` or ``PAUSED`` (the budget is spent).
    """
    n_rows = index.shape[0]
    random_state = random[0]
    active_size = counts[0]
    n_iter = counts[1]
    pg_max_old, pg_min_old, gap = bounds[0], bounds[1], bounds[2]
    status = MAX_ITER_REACHED
    work = 0.0
    while n_iter < max_iter:
        if work >= budget:
            status = PAUSED
            break
        work += active_size * row_values
        pg_max_new = -np.inf
        pg_min_new = np.inf
        random_state = _shuffle(index, active_size, random_state)
        s = 0
        while s < active_size:
            i = np.uint64(index[s])
            if s + 1 < active_size:
                # Load the next sample's first value now, so that its cache misses overlap with
                # this update (8-15 % faster on a9a); adding 0.0 times a finite value changes nothing.
                sample[i, _QBAR] += 0.0 * _first_value(np.uint64(index[s + 1]), indptr, data, dense)
            y_i = np.float64(signs[i])
            alpha_i = sample[i, _ALPHA]
            grad = y_i * _row_dot(w, i, indptr, indices, data, dense, bias_value) - 1.0
            grad += sample[i, _DIAG] * alpha_i
            projected = 0.0
            if alpha_i == 0.0:
                if grad > pg_max_old:
                    active_size -= 1
                    index[s], index[active_size] = index[active_size], index[s]
                    continue
                if grad < 0.0:
                    projected = grad
            elif alpha_i == sample[i, _UPPER]:
                if grad < pg_min_old:
                    active_size -= 1
                    index[s], index[active_size] = index[active_size], index[s]
                    continue
                if grad > 0.0:
                    projected = grad
            else:
                projected = grad
            pg_max_new = max(pg_max_new, projected)
            pg_min_new = min(pg_min_new, projected)
            if abs(projected) > 1e-12:
                alpha_new = min(max(alpha_i - grad / sample[i, _QBAR], 0.0), sample[i, _UPPER])
                sample[i, _ALPHA] = alpha_new
                _row_axpy((alpha_new - alpha_i) * y_i, w, i, indptr, indices, data, dense, bias_value)
            s += 1
        n_iter += 1
        gap = pg_max_new - pg_min_new if active_size > 0 else 0.0
        if gap <= tol:
            if active_size == n_rows:
                status = CONVERGED
                break
            # Unshrink and check once more on all samples.
            active_size = n_rows
            pg_max_old = np.inf
            pg_min_old = -np.inf
            continue
        pg_max_old = pg_max_new if pg_max_new > 0.0 else np.inf
        pg_min_old = pg_min_new if pg_min_new < 0.0 else -np.inf
    random[0] = random_state
    counts[0], counts[1] = active_size, n_iter
    bounds[0], bounds[1], bounds[2] = pg_max_old, pg_min_old, gap
    return status


@jit
def pegasos_start(indptr, indices, data, dense, bias_value, n_samples, seed):
    """What :func:`pegasos_epochs` carries from call to call: the visiting order (the samples
    in their order), the state of the random generator (uint64 ``[state]``) from ``seed``, and
    the samples' squared norms."""
    sq_norms = np.empty(n_samples)
    for i in range(n_samples):
        sq_norms[i] = _row_sq_norm(i, indptr, indices, data, dense, bias_value)
    random = np.empty(1, dtype=np.uint64)
    random[0] = _seed_state(seed)
    return np.arange(n_samples), random, sq_norms


@jit
def pegasos_epochs(indptr, indices, data, dense, bias_value, y, weight, lam, n_epochs, order, random, sq_norms,
                   project, radius, average_start, v, average_offset, state):
    """Run ``n_epochs`` Pegasos epochs (Shalev-Shwartz et al., ICML 2007).

    Minimises ``lam/2 ||w||^2 + mean_i s_i max(0, 1 - y_i w'x_i)`` (``s = weight``);
    each epoch visits the samples in a new random order. Step ``t`` (counted
    over all calls) uses ``eta_t = 1 / (lam t)``::

        w <- (1 - eta_t lam) w + eta_t s_i y_i x_i [y_i w'x_i < 1]
        w <- min(1, radius / ||w||) w          (when ``project``)

    The optimum lies in the ball of ``radius = sqrt(mean(s) / lam)``
    (``1 / sqrt(lam)`` for unit weights).

    The weights are kept as ``w = scale * v`` so that the shrinking step costs
    O(1). The running sum of the iterates after step ``average_start`` is
    ``sum_scale * v - average_offset`` (updated sparsely; Xu 2011).

    Parameters
    ----------
    order, random, sq_norms : from :func:`pegasos_start`; ``order`` and ``random`` are
        updated in place, so that epochs split over several calls give the same result as
        one call.
    v, average_offset : float64 arrays of length n_weights, updated in place.
    state : float64 array ``[scale, sum_scale, t, v_sq_norm]``, updated in place.
    """
    n_samples = y.shape[0]
    random_state = random[0]
    scale, sum_scale, t, v_sq_norm = state[0], state[1], state[2], state[3]
    for _ in range(n_epochs):
        random_state = _shuffle(order, n_samples, random_state)
        for s in range(n_samples):
            i = order[s]
            t += 1.0
            eta = 1.0 / (lam * t)
            dot = _row_dot(v, i, indptr, indices, data, dense, bias_value)
            margin = y[i] * scale * dot
            if t > 1.0:  # the factor 1 - eta_1 lam is 0, and w = 0 before the first step anyway
                scale *= 1.0 - eta * lam
            if margin < 1.0:
                step = eta * y[i] * weight[i] / scale
                v_sq_norm += 2.0 * step * dot + step * step * sq_norms[i]
                _row_axpy(step, v, i, indptr, indices, data, dense, bias_value)
                if sum_scale != 0.0:
                    _row_axpy(step * sum_scale, average_offset, i, indptr, indices, data, dense, bias_value)
            if project:
                norm = scale * np.sqrt(max(v_sq_norm, 0.0))
                if norm > radius:
                    scale *= radius / norm
            if t > average_start:
                sum_scale += scale
            if scale < _MIN_SCALE:  # fold the scale into v, keeping the running sum
                for k in range(v.shape[0]):
                    average_offset[k] -= sum_scale * v[k]
                    v[k] *= scale
                v_sq_norm *= scale * scale
                scale = 1.0
                sum_scale = 0.0
        v_sq_norm = 0.0  # recompute, dropping the round-off of the incremental updates
        for k in range(v.shape[0]):
            v_sq_norm += v[k] * v[k]
    random[0] = random_state
    state[0], state[1], state[2], state[3] = scale, sum_scale, t, v_sq_norm


@jit
def perceptron_sweeps(indptr, indices, data, dense, bias_value, y, eta, w, mistakes, counts, max_iter,
                      row_values, budget):
    """The primal perceptron: sweep the samples in order, update on mistakes.

    A mistake is ``y_i (w'x_i + b) <= 0``; it triggers ``w += eta y_i x_i``
    and ``b += eta y_i bias_value`` (``b`` is ``w[n_features]``, and the
    augmented feature makes the bias update ``eta y_i`` when
    ``bias_value = 1``). Stops after a sweep without mistakes.

    Parameters
    ----------
    w : (n_weights,) weights (bias last when ``bias_value != 0``), zero at the start.
    mistakes : (n_samples,) int64, mistakes made on each sample, zero at the start.
    counts : int64 ``[sweeps made]``. ``w``, ``mistakes`` and ``counts`` are updated in
        place, so that sweeps split over several calls give the same result as one call.
    max_iter : maximum number of sweeps, counted over all calls.
    row_values : values read per visit or update of a sample (the mean row length).
    budget : return after the sweep in which the values read by this call reach ``budget``.

    Returns
    -------
    status : ``CONVERGED``, ``MAX_ITER_REACHED`` or ``PAUSED`` (the budget is spent).
    """
    n_samples = y.shape[0]
    status = MAX_ITER_REACHED
    n_iter = counts[0]
    work = 0.0
    while n_iter < max_iter:
        if work >= budget:
            status = PAUSED
            break
        n_iter += 1
        n_errors = 0
        for i in range(n_samples):
            if y[i] * _row_dot(w, i, indptr, indices, data, dense, bias_value) <= 0.0:
                mistakes[i] += 1
                n_errors += 1
                _row_axpy(eta * y[i], w, i, indptr, indices, data, dense, bias_value)
        work += (n_samples + n_errors) * row_values
        if n_errors == 0:
            status = CONVERGED
            break
    counts[0] = n_iter
    return status


@jit
def kernel_perceptron_sweeps(gram, y, alpha, decision, counts, max_iter, budget):
    """The kernel perceptron in dual form over a precomputed Gram matrix.

    ``g(x_j) = sum_i alpha_i y_i (K(x_i, x_j) + 1)``; a mistake on ``j``
    (``y_j g(x_j) <= 0``) sets ``alpha_j += 1``. The values ``g`` of all
    samples are kept up to date (one row of ``gram`` per mistake), so a sweep
    costs O(n) plus O(n) per mistake. Stops after a sweep without mistakes.

    Parameters
    ----------
    alpha : (n_samples,) int64 mistake counts, zero at the start.
    decision : (n_samples,) float64 values ``g``, zero at the start.
    counts : int64 ``[sweeps made]``. ``alpha``, ``decision`` and ``counts`` are updated in
        place, so that sweeps split over several calls give the same result as one call.
    max_iter : maximum number of sweeps, counted over all calls.
    budget : return after the sweep in which the values read by this call reach ``budget``.

    Returns
    -------
    status : ``CONVERGED``, ``MAX_ITER_REACHED`` or ``PAUSED`` (the budget is spent).
    """
    n_samples = y.shape[0]
    status = MAX_ITER_REACHED
    n_iter = counts[0]
    work = 0.0
    while n_iter < max_iter:
        if work >= budget:
            status = PAUSED
            break
        n_iter += 1
        n_errors = 0
        for i in range(n_samples):
            if y[i] * decision[i] <= 0.0:
                alpha[i] += 1
                n_errors += 1
                row = gram[i]
                for j in range(n_samples):
                    decision[j] += y[i] * (row[j] + 1.0)
        work += float(n_samples) * (1 + n_errors)
        if n_errors == 0:
            status = CONVERGED
            break
    counts[0] = n_iter
    return status
