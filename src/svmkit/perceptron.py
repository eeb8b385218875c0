"""Perceptrons: the primal :class:`Perceptron` and the dual :class:`KernelPerceptron`.

Both follow the seed "Representación basada en Kernels": sweep the training
samples in their given order and correct the model on every mistake
(``c_i g(x_i) <= 0``, labels ``c_i`` in {-1, +1}); stop after a sweep without
mistakes, or after ``max_iter`` sweeps with a ``ConvergenceWarning`` (the data
are then not separable, or not yet separated). More than two classes are
handled one-vs-rest.

The kernel perceptron keeps one mistake count ``alpha_i`` per sample and
decides with

    g(x) = sum_i alpha_i c_i K(x_i, x) + sum_i alpha_i c_i,

the bias being the sum of the ``alpha_i c_i``, as the seed writes it. With
``K(u, v) = Phi(u)'Phi(v)`` this is exactly the primal perceptron run on the
features ``Phi(x)`` with learning rate 1 and a bias that moves by ``c_i`` on
each mistake: ``w = sum_i alpha_i c_i Phi(x_i)`` and ``b = sum_i alpha_i c_i``,
so both make the same mistakes in the same order. For ``K(u, v) = (u'v + 1)^2``
on two features, ``Phi(u) = (u1^2, u2^2, sqrt2 u1, sqrt2 u2, sqrt2 u1 u2, 1)``.
"""

from __future__ import annotations

import numbers
import warnings

from numbers import Integral

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from svmkit import _plan
from svmkit._core import linear as _core
from svmkit._first_use import notice_compilation
from svmkit._interrupt import unfitted_on_interrupt
from svmkit._progress import IterationLog, check_verbose
from svmkit._validation import (
    canonical_csr, check_finite_prediction, check_finite_result, check_parameters, validate_data,
)
from svmkit.kernels import make_kernel, resolve_gamma
from svmkit.linear import (
    _bias_value,
    _check_bool,
    _check_int,
    _check_real,
    _core_data,
    _encode_classes,
    _LinearClassifierMixin,
    _ScoreClassifierMixin,
    _split_weights,
    _values_per_row,
)

__all__ = ["Perceptron", "KernelPerceptron"]

#: Bytes of kernel values computed per block (rows of the Gram matrix or of K(X, SV)).
_BLOCK_BYTES = 32 * 2**20


def _warn_not_separated(estimator, max_iter, classes, problem):
    which = f" (one-vs-rest problem of class {classes[problem]})" if classes.size > 2 else ""
    warnings.warn(
        f"{type(estimator).__name__} still made mistakes in sweep {max_iter} = max_iter{which}: the data are "
        "not separable (by this kernel), or need more sweeps.",
        ConvergenceWarning,
    )


class Perceptron(_LinearClassifierMixin, ClassifierMixin, BaseEstimator):
    """Rosenblatt's perceptron in primal form.

    Sweeps the samples in their given order; on a mistake
    ``y_i (w'x_i + b) <= 0`` it updates ``w += eta y_i x_i`` and
    ``b += eta y_i``. Stops after a sweep without mistakes; after ``max_iter``
    sweeps it warns (``ConvergenceWarning``) and keeps the last weights.

    With ``eta=1`` on the features ``Phi(x)`` of a kernel it makes the same
    mistakes as :class:`KernelPerceptron` (see the module notes).

    Parameters
    ----------
    eta : float > 0, default=1.0
        Learning rate.
    fit_intercept : bool, default=True
        Learn the bias ``b``; otherwise ``b = 0``.
    max_iter : int >= 1, default=1000
        Maximum number of sweeps over the data.
    verbose : bool or int, default=False
        Log each problem's sweeps and mistakes (about once a second, and at
        its end) to the ``svmkit`` logger.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    coef_ : ndarray of shape (1, n_features) or (n_classes, n_features)
    intercept_ : ndarray of shape (1,) or (n_classes,)
    alpha_ : ndarray of shape (n_problems, n_samples)
        Mistakes made on each sample: ``w = eta sum_i alpha_i y_i x_i``.
    n_iter_ : int
        Largest number of sweeps over the binary problems.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit.perceptron import Perceptron
    >>> X = np.array([[0.0, 0.0], [0.0, 1.0], [1.0, 0.0], [1.0, 1.0]])
    >>> clf = Perceptron().fit(X, [0, 0, 0, 1])   # logical AND
    >>> clf.predict(X)
    array([0, 0, 0, 1])
    >>> clf.coef_, clf.intercept_
    (array([[3., 2.]]), array([-4.]))
    """

    def __init__(self, eta=1.0, *, fit_intercept=True, max_iter=1000, verbose=False):
        self.eta = eta
        self.fit_intercept = fit_intercept
        self.max_iter = max_iter
        self.verbose = verbose

    @unfitted_on_interrupt
    def fit(self, X, y, sample_weight=None):
        """Fit the perceptron.

        Parameters
        ----------
        X : array-like or CSR matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights ``s_i``: a mistake on sample ``i`` updates by
            ``eta s_i y_i x_i`` (as scikit-learn's Perceptron); a sample of
            weight 0 is left out.

        Returns
        -------
        self
        """
        _check_real("eta", self.eta)
        _check_bool("fit_intercept", self.fit_intercept)
        _check_int("max_iter", self.max_iter, low=1)
        check_verbose(self.verbose)
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C")
        X = canonical_csr(X)
        self.classes_, _, targets = _encode_classes(self, y)
        n_samples = X.shape[0]
        X, targets, rows = _weighted_rows(X, targets, sample_weight)
        bias_value = _bias_value(self.fit_intercept, 1.0)
        n_weights = X.shape[1] + (bias_value != 0.0)
        data = _core_data(X)
        weights = np.empty((targets.shape[0], n_weights))
        self.alpha_ = np.zeros((targets.shape[0], n_samples), dtype=np.int64)
        n_iters = []
        row_values = _values_per_row(X, bias_value)
        budget = float(_plan.LINEAR_VALUES_PER_CALL)
        notice_compilation(_core.perceptron_sweeps)
        log = IterationLog(self, self.classes_, targets.shape[0])
        for k, target in enumerate(targets):
            weights[k] = 0.0
            mistakes, counts = np.zeros(X.shape[0], dtype=np.int64), np.zeros(1, dtype=np.int64)
            status = _core.PAUSED
            while status == _core.PAUSED:  # (bounded calls, so that Ctrl-C is served between them)
                status = _core.perceptron_sweeps(*data, bias_value, target, float(self.eta), weights[k], mistakes,
                                                 counts, int(self.max_iter), row_values, budget)
                log.report(k, f"sweep {int(counts[0]):>6d}  mistakes {int(mistakes.sum())}", status != _core.PAUSED)
            if status == _core.MAX_ITER_REACHED:
                _warn_not_separated(self, self.max_iter, self.classes_, k)
            self.alpha_[k, rows] = mistakes
            n_iters.append(int(counts[0]))
        check_finite_result({"weights": weights}, "the data or eta are too large for float64; scale the data")
        self.coef_, self.intercept_ = _split_weights(weights, bias_value, X.shape[1])
        self.n_iter_ = int(max(n_iters))
        return self


class KernelPerceptron(_ScoreClassifierMixin, ClassifierMixin, BaseEstimator):
    """The perceptron in dual form with a kernel (seed "Representación basada en Kernels").

    ``g(x) = sum_i alpha_i c_i K(x_i, x) + sum_i alpha_i c_i``; starting from
    ``alpha = 0``, each sweep over the samples (in their given order) adds 1
    to ``alpha_i`` whenever ``c_i g(x_i) <= 0``. Stops after a sweep without
    mistakes; after ``max_iter`` sweeps it warns (``ConvergenceWarning``).

    The Gram matrix is computed once, by blocks of rows (``n_samples^2``
    float64 values must fit in memory); the sweeps run compiled over it and
    keep ``g(x_j)`` of every sample up to date, one kernel row per mistake.

    Parameters
    ----------
    kernel : {'linear', 'poly', 'rbf', 'sigmoid'}, Kernel or callable, default='rbf'
        A kernel name (scikit-learn's parameters below), any
        :class:`svmkit.kernels.Kernel`, or a function of two matrices.
    degree : int, default=3
    gamma : {'scale', 'auto'} or float > 0, default='scale'
        'scale': ``1 / (n_features * X.var())``; 'auto': ``1 / n_features``.
    coef0 : float, default=0.0
    max_iter : int >= 1, default=1000
        Maximum number of sweeps.
    verbose : bool or int, default=False
        Log each problem's sweeps and mistakes (about once a second, and at
        its end) to the ``svmkit`` logger.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    alpha_ : ndarray of shape (n_problems, n_samples)
        Mistake counts (one row per binary problem; one problem for two
        classes, with ``c = +1`` for ``classes_[1]``).
    support_ : ndarray of shape (n_SV,)
        Indices of the samples with ``alpha > 0`` in some problem.
    support_vectors_ : ndarray or CSR matrix of shape (n_SV, n_features)
    dual_coef_ : ndarray of shape (n_problems, n_SV)
        ``alpha_i c_i`` of the support vectors, laid out as scikit-learn's
        ``SVC.dual_coef_``.
    intercept_ : ndarray of shape (n_problems,)
        ``sum_i alpha_i c_i``.
    kernel_ : Kernel
        The kernel used (with ``gamma`` resolved).
    n_iter_ : int
        Largest number of sweeps over the binary problems.
    n_features_in_ : int

    Examples
    --------
    XOR, solved by the kernel ``(x'y + 1)^2``:

    >>> import numpy as np
    >>> from svmkit.perceptron import KernelPerceptron
    >>> X = np.array([[1.0, 1.0], [-1.0, -1.0], [1.0, -1.0], [-1.0, 1.0]])
    >>> y = np.array([1, 1, -1, -1])
    >>> clf = KernelPerceptron(kernel="poly", degree=2, gamma=1.0, coef0=1.0).fit(X, y)
    >>> clf.predict(X)
    array([ 1,  1, -1, -1])
    >>> clf.alpha_
    array([[1, 1, 1, 1]])
    """

    _parameter_constraints = {
        "degree": [Interval(Integral, 0, None, closed="left")],
    }

    def __init__(self, kernel="rbf", *, degree=3, gamma="scale", coef0=0.0, max_iter=1000, verbose=False):
        self.kernel = kernel
        self.degree = degree
        self.gamma = gamma
        self.coef0 = coef0
        self.max_iter = max_iter
        self.verbose = verbose

    def _make_kernel(self, X):
        named = isinstance(self.kernel, str)
        if named and self.kernel not in ("linear", "poly", "rbf", "sigmoid"):
            raise ValueError(
                f"kernel must be 'linear', 'poly', 'rbf', 'sigmoid', a Kernel or a callable, got {self.kernel!r}."
            )
        if named and self.kernel != "linear":
            if not isinstance(self.coef0, numbers.Real) or not np.isfinite(self.coef0):
                raise ValueError(f"coef0 must be a finite number, got {self.coef0!r}.")
            gamma = resolve_gamma(self.gamma, X)
            return make_kernel(self.kernel, degree=self.degree, gamma=gamma, coef0=float(self.coef0))
        return make_kernel(self.kernel)

    @unfitted_on_interrupt
    def fit(self, X, y, sample_weight=None):
        """Fit the kernel perceptron.

        Parameters
        ----------
        X : array-like or CSR matrix of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights ``s_i``: a mistake on sample ``i`` adds
            ``s_i c_i (K(x_i, x) + 1)`` to ``g`` (``dual_coef_`` holds
            ``alpha_i s_i c_i``), as :class:`Perceptron` with ``eta=1`` on the
            kernel's features; a sample of weight 0 is left out.

        Returns
        -------
        self
        """
        _check_int("max_iter", self.max_iter, low=1)
        check_verbose(self.verbose)
        check_parameters(self)
        X, y = validate_data(self, X, y, accept_sparse="csr", dtype=np.float64, order="C")
        X = canonical_csr(X)
        self.classes_, _, targets = _encode_classes(self, y)
        kernel = self._make_kernel(X)
        all_rows, n_samples = X, X.shape[0]
        X, targets, rows = _weighted_rows(X, targets, sample_weight)
        gram = _kernel_block(kernel, X, X)
        if not np.all(np.isfinite(gram)):
            raise ValueError(
                f"The kernel values of kernel={self.kernel!r} are not finite on the training data (they overflow "
                "float64): use smaller kernel parameters (gamma, coef0, degree) or scale the data."
            )
        self.kernel_ = kernel
        self.alpha_ = np.zeros((targets.shape[0], n_samples), dtype=np.int64)
        coefficients = np.zeros(self.alpha_.shape)
        n_iters = []
        notice_compilation(_core.kernel_perceptron_sweeps)
        budget = float(_plan.LINEAR_VALUES_PER_CALL)
        log = IterationLog(self, self.classes_, targets.shape[0])
        for k, target in enumerate(targets):
            alpha, decision, counts = np.zeros(X.shape[0], dtype=np.int64), np.zeros(X.shape[0]), np.zeros(1, np.int64)
            status = _core.PAUSED
            while status == _core.PAUSED:  # (bounded calls, so that Ctrl-C is served between them)
                status = _core.kernel_perceptron_sweeps(gram, target, alpha, decision, counts, int(self.max_iter),
                                                        budget)
                log.report(k, f"sweep {int(counts[0]):>6d}  mistakes {int(alpha.sum())}", status != _core.PAUSED)
            if status == _core.MAX_ITER_REACHED:
                _warn_not_separated(self, self.max_iter, self.classes_, k)
            self.alpha_[k, rows] = alpha
            coefficients[k, rows] = alpha * target
            n_iters.append(int(counts[0]))
        self.n_iter_ = int(max(n_iters))
        self.support_ = np.flatnonzero(self.alpha_.any(axis=0))
        self.support_vectors_ = all_rows[self.support_]
        self.dual_coef_ = coefficients[:, self.support_]
        self.intercept_ = self.dual_coef_.sum(axis=1)
        return self

    def decision_function(self, X):
        """``g(x)`` for every sample and binary problem.

        Parameters
        ----------
        X : array-like or CSR matrix of shape (n_samples, n_features)

        Returns
        -------
        ndarray of shape (n_samples,) for two classes (positive means
        ``classes_[1]``), else (n_samples, n_classes).
        """
        check_is_fitted(self)
        X = canonical_csr(validate_data(self, X, accept_sparse="csr", dtype=np.float64, order="C", reset=False))
        kernel_values = _kernel_block(self.kernel_, X, self.support_vectors_)
        scores = check_finite_prediction(kernel_values @ self.dual_coef_.T + self.intercept_, self,
                                         "dual_coef_, support_vectors_ and intercept_")
        return scores.ravel() if scores.shape[1] == 1 else scores


def _weighted_rows(X, targets, sample_weight):
    """The rows of positive weight, their targets ``c_i`` times the weights ``s_i`` (a
    mistake's update is proportional to them), and their indices; all rows, targets
    unchanged, without weights."""
    if sample_weight is None:
        return X, targets, slice(None)
    weights = _check_sample_weight(sample_weight, X, dtype=np.float64, ensure_non_negative=True)
    if not np.all(np.isfinite(weights)):
        raise ValueError("sample_weight must be finite.")
    rows = np.flatnonzero(weights > 0)
    if rows.size == 0:
        raise ValueError("sample_weight must have a positive entry.")
    return X[rows], targets[:, rows] * weights[rows], rows


def _kernel_block(kernel, A, B):
    """``K(A, B)`` as a C-contiguous float64 array, computed by blocks of rows of ``A``."""
    out = np.empty((A.shape[0], B.shape[0]))
    rows_per_block = max(1, _BLOCK_BYTES // (8 * max(1, B.shape[0])))
    for start in range(0, A.shape[0], rows_per_block):
        stop = start + rows_per_block
        out[start:stop] = kernel(A[start:stop], B)
    return out
