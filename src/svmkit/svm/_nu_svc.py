"""nu-support vector classification (Schölkopf et al. 2000; LIBSVM's nu-SVC)."""

from __future__ import annotations

import numbers
from dataclasses import dataclass
from functools import cached_property

import numpy as np
from sklearn.utils.validation import check_is_fitted

from sklearn.utils._param_validation import Interval

from .._validation import check_finite_bounds, check_nu
from ._base import warn_at_caller
from ._binary import BinaryModel, StackedVariables
from ._formulations import nu_svc_batch, nu_svc_read
from ._svc import SVC


class DegenerateNuWarning(UserWarning):
    """nu-SVC's optimum has ``w = 0`` (``r`` zero within ``tol``): its decision function is arbitrary."""


@dataclass
class NuBinaryModel(BinaryModel):
    """A fitted nu-SVC problem, held as the C-SVC it equals.

    LIBSVM solves the nu-SVC dual and divides the multipliers and the bias by
    ``r`` (:func:`~svmkit.svm._formulations.nu_svc_solution`); the result is
    the C-SVC solution for ``C_i = w_i / r`` (Chang and Lin 2001), so every
    attribute of :class:`BinaryModel` (slacks, margin, objectives, KKT report)
    is that of this C-SVC.

    Attributes
    ----------
    r : float
        The margin parameter ``rho`` of the nu-SVC primal (LIBSVM's ``r``);
        ``1 / r`` is the equivalent C. When ``r <= 0`` (a degenerate problem,
        see :class:`DegenerateNuWarning`) the multipliers are left unscaled.
    """

    r: float = 1.0

    @property
    def nu_dual_objective(self):
        """``1/2 a'Qa`` of the nu-SVC dual in LIBSVM's scaling (``a = r alpha``), to be minimised."""
        scale = self.r if self.r > 0 else 1.0
        return 0.5 * scale**2 * self.w_norm_squared


def _label(value):
    """A class label as the user wrote it (a NumPy scalar as its Python value)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


class NuSVC(SVC):
    """nu-support vector classifier: ``nu`` bounds the fractions of errors and support vectors.

    Minimises ``1/2 ||w||^2 - nu rho + 1/n sum_i xi_i`` subject to
    ``y_i (w'phi(x_i) + b) >= rho - xi_i``, ``xi_i >= 0``, ``rho >= 0``. ``nu``
    is an upper bound on the fraction of margin errors and a lower bound on
    the fraction of support vectors. The dual (LIBSVM's scaling)
    ``min 1/2 a'Qa``, ``y'a = 0``, ``e'a = nu n``, ``0 <= a_i <= 1`` is solved
    by the shared SMO solver keeping the sum of each class fixed, and the
    solution is rescaled by ``1/r`` as LIBSVM does, which makes it the C-SVC
    solution with ``C = 1/r`` (:attr:`effective_C_`). Multiclass: one-vs-one
    as LIBSVM, or one-vs-rest.

    Parameters
    ----------
    nu : float, default=0.5
        In (0, 1]. For every two-class problem with (weighted) class sizes
        ``n_i`` and ``n_j`` it must satisfy ``nu (n_i + n_j) / 2 <= min(n_i, n_j)``;
        an infeasible ``nu`` is refused before any kernel evaluation, with the
        largest feasible value. Below a data-dependent smallest useful ``nu``
        the optimum has ``w = 0`` and the decision function is arbitrary (in
        LIBSVM too): a :class:`DegenerateNuWarning` says so.
    kernel : {'linear', 'poly', 'rbf', 'sigmoid', 'precomputed'}, Kernel or callable, default='rbf'
        As :class:`~svmkit.SVC`.
    degree : int, default=3
    gamma : {'scale', 'auto'} or float, default='scale'
    coef0 : float, default=0.0
    shrinking : bool, default=True
    probability : bool, default=False
        Fit LIBSVM's probability model for :meth:`predict_proba` (see :class:`~svmkit.SVC`).
    two_class_probability : {'coupling', 'sigmoid'}, default='coupling'
        Two classes: coupled pair (scikit-learn) or Platt's sigmoid itself
        (LIBSVM's ``svm-predict -b 1``); see :class:`~svmkit.SVC`.
    tol : float, default=1e-3
    cache_size : float, default=200
    class_weight : dict, 'balanced' or None, default=None
        Multiplies the sample weights of each class, so a class of weight 2
        counts as if each of its samples were repeated. LIBSVM (and
        scikit-learn's ``NuSVC``) ignore ``class_weight``; the default None
        gives their results.
    verbose : bool, default=False
    max_iter : int, default=-1
    multiclass : {'ovo', 'ovr'}, default='ovo'
    decision_function_shape : {'ovr', 'ovo'}, default='ovr'
    break_ties : bool, default=False
        As in :class:`SVC` (and scikit-learn): with ``decision_function_shape='ovr'``,
        ties of votes go to the largest one-vs-rest score.
    random_state : int, RandomState or None, default=None
        Seeds the cross-validation folds of ``probability=True``.
    callback : callable, default=None
    n_jobs : int or None, default=None
        As in :class:`SVC`: threads for the two-class problems; None means every core
        (**unlike scikit-learn**, where it means one; see :class:`SVC`).

    Attributes
    ----------
    classes_, support_, support_vectors_, n_support_, dual_coef_, intercept_, coef_, n_iter_, fit_status_
        As :class:`~svmkit.SVC` and scikit-learn's ``NuSVC``.
    probA_, probB_ : ndarray
        Platt parameters per one-vs-one pair, as :class:`~svmkit.SVC`.
    binary_models_ : list of NuBinaryModel
        Each problem as its equivalent C-SVC.
    effective_C_ : float or ndarray
        ``1 / r`` of each problem: the C of the C-SVC with the same solution
        (not positive for a degenerate problem).
    alpha_, slack_, margin_, dual_objective_, primal_objective_, duality_gap_ : float or ndarray
        Those of the equivalent C-SVC (``C_i = effective_C_ * w_i``), as in
        :class:`~svmkit.SVC`; ``kkt_report()`` likewise.
    radius_, rho_, vc_bound_ : float, float or ndarray, int or ndarray
        The fat-margin bound on the VC dimension and its terms, as in :class:`~svmkit.SVC`
        (``rho_`` from the equivalent C-SVC's margin).

    Notes
    -----
    When a class has no free multiplier, ``r`` and ``rho`` may lie anywhere in
    an interval allowed by the KKT conditions; both LIBSVM and svmkit take its
    midpoint (``Solver_NU::calculate_rho``), but LIBSVM's rounding can leave a
    multiplier a hair below its bound and take that multiplier's gradient
    instead, so intercepts then differ from scikit-learn's by a fraction of
    the interval (decision values by a few hundredths on iris with a linear
    kernel and ``nu=0.1``)
    while the dual solutions agree.

    Examples
    --------
    >>> from sklearn.datasets import load_iris
    >>> from svmkit.svm import NuSVC
    >>> X, y = load_iris(return_X_y=True)
    >>> model = NuSVC(nu=0.1, kernel="linear").fit(X, y)
    >>> model.n_support_
    array([ 8, 11,  8], dtype=int32)
    >>> float(model.score(X, y))
    0.98
    >>> NuSVC(nu=0.9).fit(X[:60], y[:60])  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: nu=0.9 is infeasible for the classes 0 and 1 (weighted sizes 50 and 10): ...
    """

    def __init__(
        self,
        nu=0.5,
        kernel="rbf",
        degree=3,
        gamma="scale",
        coef0=0.0,
        shrinking=True,
        probability=False,
        tol=1e-3,
        cache_size=200,
        class_weight=None,
        verbose=False,
        max_iter=-1,
        multiclass="ovo",
        decision_function_shape="ovr",
        break_ties=False,
        random_state=None,
        callback=None,
        n_jobs=None,
        two_class_probability="coupling",
    ):
        self.nu = nu
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.probability = probability
        self.tol = tol
        self.cache_size = cache_size
        self.class_weight = class_weight
        self.verbose = verbose
        self.max_iter = max_iter
        self.multiclass = multiclass
        self.decision_function_shape = decision_function_shape
        self.break_ties = break_ties
        self.random_state = random_state
        self.callback = callback
        self.n_jobs = n_jobs
        self.two_class_probability = two_class_probability

    def _check_params(self):
        check_nu(self.nu)
        self._check_classifier_params()

    _parameter_constraints = {
        **{name: value for name, value in SVC._parameter_constraints.items() if name not in ("C", "solver")},
        "nu": [Interval(numbers.Real, 0, 1, closed="right")],
    }

    def _upper_bounds(self, weights, y_index):
        """The bounds ``U_i = w_i`` of LIBSVM's scaling, after LIBSVM's feasibility
        rule ``nu (n_i + n_j) / 2 <= min(n_i, n_j)`` for each problem (weighted sizes)."""
        check_finite_bounds(weights, "class_weight * sample_weight")
        sizes = np.bincount(y_index, weights=weights, minlength=self.classes_.shape[0])
        largest, worst = np.inf, None
        for positive, negative in self._problems(sizes.shape[0]):
            n_i = sizes[positive]
            n_j = sizes.sum() - n_i if negative is None else sizes[negative]
            limit = 2 * min(n_i, n_j) / (n_i + n_j) if n_i + n_j > 0 else 0.0
            if limit < largest:
                largest, worst = limit, (positive, negative, n_i, n_j)
        if self.nu > largest:
            positive, negative, n_i, n_j = worst
            if negative is None:
                pair = f"class {_label(self.classes_[positive])} and the rest"
            else:
                (first, n_first), (second, n_second) = sorted([(positive, n_i), (negative, n_j)])
                pair = f"classes {_label(self.classes_[first])} and {_label(self.classes_[second])}"
                n_i, n_j = n_first, n_second
            raise ValueError(
                f"nu={self.nu:g} is infeasible for the {pair} (weighted sizes {n_i:g} and {n_j:g}): "
                f"nu (n_i + n_j) / 2 must not exceed min(n_i, n_j). "
                f"The largest feasible nu for these data is {largest:.6g}."
            )
        return weights

    def _is_hard_margin(self):
        return False

    def _batch(self, problem_data):
        # (samples of weight 0 stay, at the bound 0: LIBSVM leaves them out, which is the same dual)
        return nu_svc_batch(problem_data, self.nu)

    def _read(self, batch, solution, problems):
        """The solved duals as the C-SVC problems they equal (upper bounds ``w_i / r``), with
        ``r`` of each problem (:attr:`effective_C_`); a warning for each degenerate problem
        of the fit (``problems``; None for cross-validation folds)."""
        alpha, b, yf, r = nu_svc_read(batch, solution)
        for k in np.flatnonzero(~(r > self.tol)) if problems is not None else ():
            positive, negative = problems[k]
            other = "the rest" if negative is None else _label(self.classes_[negative])
            warn_at_caller(
                f"nu={self.nu:g} is about the smallest useful nu or below it for {_label(self.classes_[positive])} "
                f"against {other}: the margin parameter r = {r[k]:.3g} is zero within tol={self.tol:g}, i.e. the "
                "nu-SVC optimum has w = 0 (the classes' reduced convex hulls intersect) and the decision function "
                "is arbitrary, as in LIBSVM. Use a larger nu (or a smaller tol).",
                DegenerateNuWarning,
            )
        upper = batch.upper / np.repeat(np.where(r > 0, r, 1.0), np.diff(batch.bounds))
        return StackedVariables(batch.bounds, batch.rows, batch.y, alpha, upper, yf, b,
                                solution.n_iter.astype(np.int64), solution.gap, solution.status, r)

    @cached_property
    def binary_models_(self):
        """The fitted two-class problems (:class:`NuBinaryModel`), each as its equivalent C-SVC."""
        models = SVC.binary_models_.func(self)
        return [NuBinaryModel(**vars(model), r=float(r)) for model, r in zip(models, self._variables.r)]

    @property
    def effective_C_(self):
        """``1 / r`` of each problem: nu-SVC's solution is the C-SVC solution for this C."""
        check_is_fitted(self)
        values = 1.0 / np.asarray(self._variables.r, dtype=np.float64)
        return float(values[0]) if values.shape[0] == 1 else values


__all__ = ["NuSVC", "NuBinaryModel", "DegenerateNuWarning"]
