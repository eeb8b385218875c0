"""One-class SVM: the support of a distribution (Schölkopf et al. 2001; LIBSVM's one-class)."""

from __future__ import annotations

import numbers

import numpy as np
from sklearn.base import OutlierMixin
from sklearn.utils.validation import check_is_fitted

from sklearn.utils._param_validation import Interval

from .._interrupt import unfitted_on_interrupt
from .._parallel import on_one_blas_thread
from .._validation import check_finite_bounds, check_nu, check_parameters, checked_once
from ._base import SingleProblemSVM
from ._binary import NOT_SUPPORT_VECTOR, KKTReport
from ._formulations import one_class_batch, one_class_read

#: KKT categories of a training point (one-class).
ON_BOUNDARY = "on the boundary"
BOUNDED_OUTLIER_SIDE = "bounded, outlier side"
ONE_CLASS_CATEGORIES = (NOT_SUPPORT_VECTOR, ON_BOUNDARY, BOUNDED_OUTLIER_SIDE)


class OneClassSVM(OutlierMixin, SingleProblemSVM):
    """Unsupervised outlier detection: a hyperplane separating the data from the origin in feature space.

    Minimises ``1/2 ||w||^2 - rho + 1/(nu n) sum_i xi_i`` subject to
    ``w'phi(x_i) >= rho - xi_i``, ``xi_i >= 0``; the decision function is
    ``f(x) = w'phi(x) - rho``, positive inside the estimated support. ``nu``
    bounds the fraction of training outliers from above and of support vectors
    from below. The dual in LIBSVM's scaling, ``min 1/2 a'Ka``,
    ``0 <= a_i <= w_i``, ``e'a = nu sum(w)``, is solved by the shared SMO
    solver from LIBSVM's start (the first samples filled in order).

    Parameters
    ----------
    kernel : {'linear', 'poly', 'rbf', 'sigmoid', 'precomputed'}, Kernel or callable, default='rbf'
        As :class:`~svmkit.SVC`.
    degree : int, default=3
    gamma : {'scale', 'auto'} or float, default='scale'
    coef0 : float, default=0.0
    tol : float, default=1e-3
        Stop when the maximal violating-pair gap is below ``tol``.
    nu : float, default=0.5
        In (0, 1].
    shrinking : bool, default=True
    cache_size : float, default=200
        Memory for kernel values in MB.
    verbose : bool, default=False
    max_iter : int, default=-1
    callback : callable, default=None
        Called with a :class:`svmkit.SolverProgress` about once a second.

    Attributes
    ----------
    support_, support_vectors_, dual_coef_, intercept_, n_support_, coef_, n_iter_, fit_status_, shape_fit_
        As scikit-learn's ``OneClassSVM``: ``dual_coef_`` holds the ``a_i > 0``,
        ``intercept_ = [-rho]``; ``coef_`` for the linear kernel only.
    offset_ : ndarray of shape (1,)
        ``rho = -intercept_``: ``decision_function = score_samples - offset_``.
    alpha_ : ndarray of shape (n_samples,)
        The multipliers (0 for samples of zero weight).
    slack_ : ndarray of shape (n_samples,)
        ``xi_i = max(0, -f(x_i))`` in LIBSVM's scaling.
    dual_objective_, primal_objective_, duality_gap_ : float
        ``-1/2 a'Ka`` (to be maximised), ``1/2 a'Ka - nu sum(w) rho + sum w_i xi_i``
        and their difference, in LIBSVM's scaling (multiply the textbook
        problem by ``nu n``).
    kernel_ : Kernel or None

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit.svm import OneClassSVM
    >>> X = np.array([[0.0], [0.44], [0.45], [0.46], [1.0]])
    >>> model = OneClassSVM(gamma=0.1, nu=0.5).fit(X)
    >>> model.predict([[0.45], [5.0]])
    array([ 1, -1])
    >>> print(model.kkt_report())
    KKT report of 5 training points
      not a support vector                2
      on the boundary                     1
      bounded, outlier side               2
      largest KKT violation        0.000e+00
    index  alpha   mu       xi       f(x)  category
        0      1    0   0.0547    -0.0547  bounded, outlier side
        1    0.5  0.5        0          0  on the boundary
        2      0    1        0  0.0001988  not a support vector
        3      0    1        0  0.0003505  not a support vector
        4      1    0  0.06055   -0.06055  bounded, outlier side
    """

    def __init__(
        self,
        kernel="rbf",
        degree=3,
        gamma="scale",
        coef0=0.0,
        tol=1e-3,
        nu=0.5,
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
        self.nu = nu
        self.shrinking = shrinking
        self.cache_size = cache_size
        self.verbose = verbose
        self.max_iter = max_iter
        self.callback = callback

    _parameter_constraints = {
        **SingleProblemSVM._parameter_constraints,
        "nu": [Interval(numbers.Real, 0, 1, closed="right")],
    }

    def _check_params(self):
        self._check_common_params()
        check_nu(self.nu)
        check_parameters(self)

    @on_one_blas_thread
    @unfitted_on_interrupt
    def fit(self, X, y=None, sample_weight=None):
        """Estimate the support of the training data.

        Parameters
        ----------
        X : array-like, DataFrame or CSR matrix of shape (n_samples, n_features)
            Training data, or the Gram matrix when ``kernel='precomputed'``.
        y : ignored
            Accepted and ignored, as in scikit-learn: the method is unsupervised.
        sample_weight : array-like of shape (n_samples,), optional
            Non-negative weights (the bound of each ``a_i``); a weight counts
            as that many repetitions of the sample.

        Returns
        -------
        self
        """
        checked_once(self, self._check_params)
        X, _ = self._validate_train_X(X, None)
        weights = self._check_weights(sample_weight, X)
        check_finite_bounds(weights * self.nu, "nu * sample_weight")
        rows = np.flatnonzero(weights > 0)
        self._check_kernel_matrix(X)
        self.kernel_, source = self._row_source(X)
        batch = one_class_batch(rows, weights[rows], self.nu)
        solution = self._solve(batch, source)
        alpha, b, f = one_class_read(batch, solution)
        self._set_solution(X, rows, alpha, b, solution)
        self.offset_ = -self.intercept_
        self._set_theory(rows, weights[rows], alpha, f, b)
        return self

    def _set_theory(self, rows, weights, alpha, f, b):
        n = self.shape_fit_[0]
        self._report_rows, self._upper, self._f = rows, weights, f
        self.alpha_ = np.zeros(n)
        self.alpha_[rows] = alpha
        self.slack_ = np.zeros(n)
        self.slack_[rows] = np.maximum(0.0, -f)
        a_K_a = float(alpha @ (f - b))  # f - b = K a
        self.dual_objective_ = -0.5 * a_K_a
        self.primal_objective_ = 0.5 * a_K_a + self.nu * weights.sum() * b + weights @ self.slack_[rows]
        self.duality_gap_ = self.primal_objective_ - self.dual_objective_

    def kkt_report(self):
        """Per training point (of positive weight): alpha, mu = w - alpha, xi, f(x) and KKT category.

        ``a = 0``: ``f >= 0`` (inside); ``0 < a < w``: ``f = 0`` (on the
        boundary); ``a = w``: ``f <= 0`` (outlier side). The violation is how
        far ``f`` is from its condition.

        Returns
        -------
        KKTReport
            ``yf`` holds ``f(x_i)`` (``value_name='f'``).
        """
        check_is_fitted(self)
        rows, upper, f = self._report_rows, self._upper, self._f
        alpha = self.alpha_[rows]
        at_zero = alpha <= 0
        at_upper = ~at_zero & (alpha >= upper)
        free = ~at_zero & ~at_upper
        category = np.full(rows.shape[0], NOT_SUPPORT_VECTOR, dtype=object)
        category[free] = ON_BOUNDARY
        category[at_upper] = BOUNDED_OUTLIER_SIDE
        violation = np.where(at_zero, np.maximum(0.0, -f), np.where(free, np.abs(f), np.maximum(0.0, f)))
        return KKTReport(
            index=rows.copy(),
            alpha=alpha,
            mu=upper - alpha,
            slack=self.slack_[rows],
            yf=f.copy(),
            category=category.astype(str),
            violation=violation,
            categories=ONE_CLASS_CATEGORIES,
            value_name="f",
        )

    def decision_function(self, X):
        """``f(x) = sum_i a_i K(x_i, x) - rho``: positive inside the support, negative for outliers."""
        return self._decision_values(X)

    def score_samples(self, X):
        """``sum_i a_i K(x_i, x)``, i.e. ``decision_function(X) + offset_``."""
        return self.decision_function(X) + self.offset_

    def predict(self, X):
        """+1 for inliers (``f(x) > 0``), -1 for outliers, as LIBSVM."""
        return np.where(self.decision_function(X) > 0, 1, -1).astype(np.intp)


__all__ = ["OneClassSVM"]
