"""Support vector regression: epsilon-SVR and nu-SVR (LIBSVM's formulations)."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import RegressorMixin
from sklearn.utils.validation import check_is_fitted

from sklearn.utils._param_validation import Interval

from .._interrupt import unfitted_on_interrupt
from .._parallel import on_one_blas_thread
from .._validation import (
    NON_NEGATIVE, POSITIVE, check_finite_bounds, check_finite_result, check_nu, check_parameters, checked_once,
)
from ._base import SingleProblemSVM
from ._binary import KKTReport
from ._formulations import epsilon_svr_batch, nu_svr_batch, svr_read

#: KKT categories of a training point (SVR).
INSIDE_TUBE = "inside the tube"
ON_TUBE = "on the tube boundary"
BOUNDED_OUTSIDE_TUBE = "bounded, outside the tube"
SVR_CATEGORIES = (INSIDE_TUBE, ON_TUBE, BOUNDED_OUTSIDE_TUBE)


class _BaseSVR(RegressorMixin, SingleProblemSVM):
    """Fitting, theory and prediction shared by epsilon- and nu-SVR."""

    def _check_C(self):
        if not isinstance(self.C, numbers.Real) or isinstance(self.C, bool) or not np.isfinite(self.C) or self.C <= 0:
            raise ValueError(f"C must be a finite number > 0, got {self.C!r}.")

    @on_one_blas_thread
    @unfitted_on_interrupt
    def fit(self, X, y, sample_weight=None):
        """Fit the regressor.

        Parameters
        ----------
        X : array-like, DataFrame or CSR matrix of shape (n_samples, n_features)
            Training data, or the Gram matrix when ``kernel='precomputed'``.
        y : array-like of shape (n_samples,)
            Targets.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights multiplying C per sample.

        Returns
        -------
        self
        """
        checked_once(self, self._check_params)
        X, y = self._validate_train_X(X, y, y_numeric=True)
        z = np.asarray(y, dtype=np.float64)
        weights = self._check_weights(sample_weight, X)
        rows = np.flatnonzero(weights > 0)
        with np.errstate(over="ignore"):
            upper = self.C * weights[rows]
        check_finite_bounds(upper, "C * sample_weight")
        self._check_kernel_matrix(X)
        self.kernel_, source = self._row_source(X)
        batch = self._dual(rows, z[rows], upper)
        solution = self._solve(batch, source)
        a, a_star, b, f, epsilon = svr_read(batch, solution)
        check_finite_result({"intercept_": b, "decision values": f},
                            "the targets y (or C times the kernel values) are too large for float64; scale y")
        self._set_solution(X, rows, a - a_star, b, solution)
        self._set_theory(rows, z[rows], upper, a, a_star, f, b, epsilon, float(batch.p @ solution.alpha))
        return self

    def _set_theory(self, rows, z, upper, a, a_star, f, b, epsilon, linear_term):
        """Theory attributes; ``linear_term`` is ``p'(a, a*)`` of the dual."""
        n = self.shape_fit_[0]
        self._report_rows, self._upper, self._residual, self._epsilon = rows, upper, z - f, epsilon
        self.alpha_ = np.zeros(n)
        self.alpha_[rows] = a
        self.alpha_star_ = np.zeros(n)
        self.alpha_star_[rows] = a_star
        self.slack_ = np.zeros(n)
        self.slack_[rows] = np.maximum(0.0, np.abs(z - f) - epsilon)
        coef = a - a_star
        c_K_c = float(coef @ (f - b))  # f - b = K coef
        self.dual_objective_ = -0.5 * c_K_c - linear_term
        self.primal_objective_ = 0.5 * c_K_c + upper @ self.slack_[rows] + self._tube_cost(upper, epsilon)
        self.duality_gap_ = self.primal_objective_ - self.dual_objective_

    def kkt_report(self):
        """Per training point (of positive weight): the active multiplier, C_i minus it,
        the slack ``max(0, |r| - epsilon)``, the residual ``r = y - f(x)`` and the KKT category.

        ``a = a* = 0``: inside the tube (``|r| <= epsilon``); free: on its
        boundary (``|r| = epsilon``); at ``C_i``: outside (``|r| >= epsilon``).
        The violation is how far ``r`` is from its condition, on the side of
        the multiplier (``a`` for ``r > 0``, ``a*`` for ``r < 0``).

        Returns
        -------
        KKTReport
            ``alpha`` holds ``a_i + a*_i`` (at most one is non-zero at the
            optimum), ``yf`` the residuals (``value_name='residual'``).
        """
        check_is_fitted(self)
        rows, upper, residual, epsilon = self._report_rows, self._upper, self._residual, self._epsilon
        coef = self.alpha_[rows] - self.alpha_star_[rows]
        alpha = self.alpha_[rows] + self.alpha_star_[rows]
        inside = coef == 0
        bounded = ~inside & (np.abs(coef) >= upper)
        free = ~inside & ~bounded
        signed = np.where(inside, np.abs(residual), np.sign(coef) * residual)
        category = np.full(rows.shape[0], INSIDE_TUBE, dtype=object)
        category[free] = ON_TUBE
        category[bounded] = BOUNDED_OUTSIDE_TUBE
        violation = np.where(free, np.abs(signed - epsilon), np.maximum(0.0, epsilon - signed))
        violation = np.where(inside, np.maximum(0.0, signed - epsilon), violation)
        return KKTReport(
            index=rows.copy(),
            alpha=alpha,
            mu=upper - alpha,
            slack=self.slack_[rows],
            yf=residual.copy(),
            category=category.astype(str),
            violation=violation,
            categories=SVR_CATEGORIES,
            value_name="residual",
        )

    def predict(self, X):
        """``f(x) = sum_i (a_i - a*_i) K(x_i, x) + b``."""
        return self._decision_values(X)


class SVR(_BaseSVR):
    """epsilon-support vector regression: errors below epsilon cost nothing.

    Minimises ``1/2 ||w||^2 + C sum_i (xi_i + xi*_i)`` subject to
    ``-epsilon - xi*_i <= y_i - f(x_i) <= epsilon + xi_i``, ``xi, xi* >= 0``,
    through its dual over ``(a, a*)``: ``2n`` variables sharing the ``n``
    kernel rows, ``y = (+1, -1)``, ``p = (epsilon - y, epsilon + y)``,
    ``0 <= a, a* <= C`` (LIBSVM's ``solve_epsilon_svr``), solved by the shared
    SMO solver. ``f(x) = sum_i (a_i - a*_i) K(x_i, x) + b``.

    Parameters
    ----------
    kernel : {'linear', 'poly', 'rbf', 'sigmoid', 'precomputed'}, Kernel or callable, default='rbf'
        As :class:`~svmkit.SVC`.
    degree : int, default=3
    gamma : {'scale', 'auto'} or float, default='scale'
    coef0 : float, default=0.0
    tol : float, default=1e-3
    C : float, default=1.0
        Penalty of the errors beyond epsilon (> 0).
    epsilon : float, default=0.1
        Half-width of the tube (>= 0), in the units of ``y``.
    shrinking : bool, default=True
    cache_size : float, default=200
    verbose : bool, default=False
    max_iter : int, default=-1
    callback : callable, default=None

    Attributes
    ----------
    support_, support_vectors_, dual_coef_, intercept_, n_support_, coef_, n_iter_, fit_status_, shape_fit_
        As scikit-learn's ``SVR``: ``dual_coef_`` holds ``a_i - a*_i``.
    alpha_, alpha_star_ : ndarray of shape (n_samples,)
        The multipliers of the upper (``y - f <= epsilon + xi``) and lower constraints.
    slack_ : ndarray of shape (n_samples,)
        ``max(0, |y_i - f(x_i)| - epsilon)``: ``xi_i + xi*_i``.
    dual_objective_, primal_objective_, duality_gap_ : float
        ``-1/2 c'Kc - epsilon sum(a + a*) + y'c`` with ``c = a - a*`` (to be
        maximised), ``1/2 c'Kc + sum_i C_i (xi_i + xi*_i)`` and their difference.
    kernel_ : Kernel or None

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit.svm import SVR
    >>> X = np.arange(6.0)[:, None]
    >>> model = SVR(kernel="linear", C=10.0, epsilon=0.5).fit(X, 2 * X[:, 0] + 1)
    >>> model.coef_.round(3), model.intercept_.round(3)
    (array([[1.8]]), array([1.5]))
    >>> print(model.kkt_report())
    KKT report of 6 training points
      inside the tube                     4
      on the tube boundary                2
      bounded, outside the tube           0
      largest KKT violation        0.000e+00
    index  alpha    mu  xi  y - f(x)  category
        0   0.36  9.64   0      -0.5  on the tube boundary
        1      0    10   0      -0.3  inside the tube
        2      0    10   0      -0.1  inside the tube
        3      0    10   0       0.1  inside the tube
        4      0    10   0       0.3  inside the tube
        5   0.36  9.64   0       0.5  on the tube boundary
    """

    def __init__(
        self,
        kernel="rbf",
        degree=3,
        gamma="scale",
        coef0=0.0,
        tol=1e-3,
        C=1.0,
        epsilon=0.1,
        shrinking=True,
        cache_size=200,
        verbose=False,
        max_iter=-1,
        callback=None,
    ):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.tol = tol
        self.C = C
        self.epsilon = epsilon
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.callback = callback

    def _check_params(self):
        self._check_common_params()
        self._check_C()
        eps = self.epsilon
        if not isinstance(eps, numbers.Real) or isinstance(eps, bool) or not np.isfinite(eps) or eps < 0:
            raise ValueError(f"epsilon must be a finite number >= 0, got {eps!r}.")
        check_parameters(self)

    _parameter_constraints = {**SingleProblemSVM._parameter_constraints, "C": [POSITIVE], "epsilon": [NON_NEGATIVE]}

    def _dual(self, rows, z, upper):
        return epsilon_svr_batch(rows, z, upper, float(self.epsilon))

    @staticmethod
    def _tube_cost(upper, epsilon):
        return 0.0


class NuSVR(_BaseSVR):
    """nu-support vector regression: the tube width is learned, ``nu`` bounds the fraction outside it.

    Minimises ``1/2 ||w||^2 + C (nu epsilon + 1/n sum_i (xi_i + xi*_i))`` over
    ``w, b, epsilon >= 0``: ``nu`` is an upper bound on the fraction of points
    outside the tube and a lower bound on the fraction of support vectors.
    The dual in LIBSVM's scaling (``solve_nu_svr``): ``p = (-y, y)``,
    ``0 <= a, a* <= C``, ``e'(a - a*) = 0``, ``e'(a + a*) = nu C n``, solved
    by the shared SMO solver keeping the sums of ``a`` and ``a*`` fixed.

    Parameters
    ----------
    nu : float, default=0.5
        In (0, 1].
    C : float, default=1.0
        Penalty (> 0).
    kernel : {'linear', 'poly', 'rbf', 'sigmoid', 'precomputed'}, Kernel or callable, default='rbf'
    degree : int, default=3
    gamma : {'scale', 'auto'} or float, default='scale'
    coef0 : float, default=0.0
    shrinking : bool, default=True
    tol : float, default=1e-3
    cache_size : float, default=200
    verbose : bool, default=False
    max_iter : int, default=-1
    callback : callable, default=None

    Attributes
    ----------
    support_, support_vectors_, dual_coef_, intercept_, n_support_, coef_, n_iter_, fit_status_, shape_fit_
        As scikit-learn's ``NuSVR``.
    epsilon_ : float
        The learned half-width of the tube (LIBSVM's ``-r``).
    alpha_, alpha_star_, slack_ : ndarray of shape (n_samples,)
        As :class:`SVR`, for the learned ``epsilon_``.
    dual_objective_, primal_objective_, duality_gap_ : float
        ``-1/2 c'Kc + y'c`` (to be maximised), ``1/2 c'Kc + nu epsilon_ sum(C_i)
        + sum_i C_i (xi_i + xi*_i)`` (LIBSVM's scaling) and their difference.
    kernel_ : Kernel or None

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit.svm import NuSVR
    >>> X = np.arange(10.0)[:, None]
    >>> y = 2 * X[:, 0] + np.where(np.arange(10) % 2, 0.5, -0.5)
    >>> model = NuSVR(kernel="linear", C=10.0, nu=0.5).fit(X, y)
    >>> round(model.epsilon_, 3), model.coef_.round(3)
    (0.5, array([[2.]]))
    """

    def __init__(
        self,
        nu=0.5,
        C=1.0,
        kernel="rbf",
        degree=3,
        gamma="scale",
        coef0=0.0,
        shrinking=True,
        tol=1e-3,
        cache_size=200,
        verbose=False,
        max_iter=-1,
        callback=None,
    ):
        self.nu = nu
        self.C = C
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.shrinking = shrinking
        self.tol = tol
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.callback = callback

    def _check_params(self):
        self._check_common_params()
        self._check_C()
        check_nu(self.nu)
        check_parameters(self)

    _parameter_constraints = {
        **SingleProblemSVM._parameter_constraints,
        "C": [POSITIVE],
        "nu": [Interval(numbers.Real, 0, 1, closed="right")],
    }

    def _dual(self, rows, z, upper):
        return nu_svr_batch(rows, z, upper, self.nu)

    def _tube_cost(self, upper, epsilon):
        return self.nu * epsilon * upper.sum()

    def _set_theory(self, rows, z, upper, a, a_star, f, b, epsilon, linear_term):
        self.epsilon_ = float(epsilon)
        super()._set_theory(rows, z, upper, a, a_star, f, b, epsilon, linear_term)


__all__ = ["SVR", "NuSVR"]
