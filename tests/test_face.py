"""Steps on the face of the free multipliers (svmkit._core.face, compiled) against the KKT
system of tests/naive.py, and the invariants every step keeps."""

import numpy as np
import pytest

from naive import face_newton_step
from svmkit._core.face import face_run

_EPS = np.finfo(np.float64).eps


def _problem(k, rank, nu, seed):
    """A face of ``k`` free multipliers of a kernel matrix of rank ``rank`` (features of a
    linear kernel), in the middle of the box ``[0, 1]``, with a gradient small enough that the
    face's minimum lies inside the box where the matrix has full rank."""
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(k, rank))
    y = np.where(rng.random(k) < 0.5, 1.0, -1.0)
    Q = (y[:, None] * y[None, :]) * (X @ X.T)
    alpha = rng.uniform(0.4, 0.6, size=k)
    g = 0.01 * rng.normal(size=k)
    return Q, g, alpha, y, np.ones(k), nu


def _objective(Q, g, alpha, start):
    d = alpha - start
    return float(g @ d + 0.5 * d @ Q @ d)


def _run(Q, g, alpha, y, upper, nu, max_steps):
    """``(steps taken, multipliers, gradient)`` of face_run on copies."""
    g, alpha = g.copy(), alpha.copy()
    taken = face_run(Q, g, alpha, y, upper, nu, _EPS, max_steps)
    return taken, alpha, g


@pytest.mark.parametrize("nu", [False, True])
def test_a_newton_step_inside_the_box_reaches_the_kkt_minimum_of_the_face(nu):
    Q, g, alpha, y, upper, nu = _problem(30, 40, nu, seed=1)
    taken, new, new_g = _run(Q, g, alpha, y, upper, nu, 64)
    assert taken == 1
    np.testing.assert_allclose(new - alpha, face_newton_step(Q, g, y, nu), rtol=1e-7, atol=1e-12)
    # the gradient is kept exact: G + Q d
    np.testing.assert_allclose(new_g, g + Q @ (new - alpha), rtol=1e-9, atol=1e-14)


@pytest.mark.parametrize("nu", [False, True])
@pytest.mark.parametrize("rank", [3, 12])
def test_steps_on_a_singular_face_keep_the_constraints_and_lower_the_objective(nu, rank):
    # a linear kernel of `rank` features: flat directions, along which the steps run to a bound
    Q, _, alpha, y, upper, nu = _problem(60, rank, nu, seed=2)
    g = np.random.default_rng(3).normal(size=60)
    # the runs of 1, 2, ... steps from the same start are the first steps of one run
    objectives = [0.0]
    for n in range(1, 200):
        taken, new, new_g = _run(Q, g, alpha, y, upper, nu, n)
        if taken < n:
            break
        objectives.append(_objective(Q, g, new, alpha))
    assert len(objectives) > 2
    assert np.all(np.diff(objectives) <= 1e-12)
    assert np.all((new >= 0) & (new <= upper))
    sums = [(y > 0, y < 0)] if nu else [(np.ones(60, dtype=bool),)]
    for groups in sums:
        for group in groups:
            assert abs(y[group] @ (new - alpha)[group]) < 1e-12
    # the gradient is kept exact where it is read, on the multipliers still free
    free = (new > 0) & (new < upper)
    np.testing.assert_allclose(new_g[free], (g + Q @ (new - alpha))[free], rtol=1e-9, atol=1e-12)
    # what is left free is the minimum of its face: no flat direction and no Newton step left
    assert free.sum() <= rank + (2 if nu else 1)
    step = face_newton_step(Q[np.ix_(free, free)], new_g[free], y[free], nu)
    assert np.abs(step).max() < 1e-8


@pytest.mark.parametrize("nu", [False, True])
def test_a_face_without_curvature_is_walked_to_a_vertex(nu):
    # Q = 0 (a kernel of value 0, rank 0): the objective is linear on the face, every direction
    # is flat, and the walk ends where no free multiplier is left but one per constraint
    rng = np.random.default_rng(5)
    y = np.where(rng.random(20) < 0.5, 1.0, -1.0)
    alpha, g = rng.uniform(0.3, 0.7, size=20), rng.normal(size=20)
    taken, new, _ = _run(np.zeros((20, 20)), g, alpha, y, np.ones(20), nu, 100)
    assert taken > 0
    assert np.all((new >= 0) & (new <= 1))
    for group in ([y > 0, y < 0] if nu else [np.ones(20, dtype=bool)]):
        assert abs(y[group] @ (new - alpha)[group]) < 1e-12
    assert g @ (new - alpha) < 0
    free = (new > 0) & (new < 1)
    assert free.sum() <= (2 if nu else 1)


def test_a_fit_whose_first_look_finds_too_many_free_multipliers_gets_face_steps_later():
    # digits 1 and 7 against the rest, linear kernel: at SMO's first look for a face (step 3,594)
    # more multipliers are free than a try takes; the looks a call's steps later find the face
    # settled enough, and its steps cut SMO's zig-zag (467,457 steps when the first look's
    # verdict held for the rest of the fit) while the optimum stays LIBSVM's
    from sklearn.datasets import load_digits
    from sklearn.preprocessing import StandardScaler
    from sklearn.svm import SVC as LibsvmSVC

    from naive import dual_objective
    from svmkit.svm import SVC

    X, digit = load_digits(return_X_y=True)
    X = StandardScaler().fit_transform(X)
    y = np.isin(digit, [1, 7]).astype(int)
    model = SVC(kernel="linear", C=10).fit(X, y)
    reference = LibsvmSVC(kernel="linear", C=10).fit(X, y)
    assert model.n_iter_[0] < 100_000
    ours = dual_objective(model.dual_coef_[0], model.support_vectors_ @ model.support_vectors_.T)
    theirs = dual_objective(reference.dual_coef_[0], reference.support_vectors_ @ reference.support_vectors_.T)
    assert ours == pytest.approx(theirs, rel=1e-3)


@pytest.mark.parametrize("nu", [False, True])
def test_newton_steps_cut_short_by_bounds_end_at_the_minimum_of_the_face_left(nu):
    # a full-rank face (RBF-like: more features than multipliers) whose Newton step leaves the
    # box: each step stops at a bound, the next is the Newton step of the smaller face from the
    # same factorisation with the multipliers that left held, until one ends inside the box
    Q, _, alpha, y, upper, nu = _problem(80, 120, nu, seed=7)
    g = 100.0 * np.random.default_rng(8).normal(size=80)
    objectives = [0.0]
    for n in range(1, 64):
        taken, new, new_g = _run(Q, g, alpha, y, upper, nu, n)
        objectives.append(_objective(Q, g, new, alpha))
        if taken < n:
            break
    assert 2 < taken < 63
    assert np.all(np.diff(objectives) <= 1e-12)
    for group in ([y > 0, y < 0] if nu else [np.ones(80, dtype=bool)]):
        assert abs(y[group] @ (new - alpha)[group]) < 1e-12
    free = (new > 0) & (new < upper)
    assert 2 <= free.sum() < 80
    np.testing.assert_allclose(new_g[free], (g + Q @ (new - alpha))[free], rtol=1e-9, atol=1e-12)
    # the last step was the free face's Newton step: none is left
    step = face_newton_step(Q[np.ix_(free, free)], new_g[free], y[free], nu)
    assert np.abs(step).max() < 1e-8
