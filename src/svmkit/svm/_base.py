"""What every kernel SVM estimator shares: parameters, kernels, input checks,
the solver call and chunked kernel evaluation at prediction time."""

from __future__ import annotations

import math
import numbers
import os
from numbers import Integral
import sys
import warnings
from dataclasses import replace

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.exceptions import ConvergenceWarning
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.validation import _check_sample_weight, check_is_fitted

from .. import kernels as kernel_module
from .._parallel import blas_in_equal_parts, on_pool_thread, resolve_n_jobs
from .._plan import PRECOMPUTED_SYMMETRY_RTOL
from .._solver import ITERATION_LIMIT, NOT_FINITE, STALLED, KernelRows, PrecomputedRows, SolverSettings, solve
from .._progress import enable_logging
from .._validation import (
    FINITE, N_JOBS, POSITIVE, canonical_csr, check_finite_prediction, check_symmetric_kernel, validate_data,
)
from ..kernels import LinearKernel, resolve_gamma
from ._decisions import SupportVectors, kernel_decisions

def is_real(value):
    """``isinstance(value, numbers.Real)``, Python's float and int first (the abstract class's
    check is slower)."""
    return type(value) is float or type(value) is int or isinstance(value, numbers.Real)


def is_integer(value):
    """``isinstance(value, numbers.Integral)``, Python's int first (see :func:`is_real`)."""
    return type(value) is int or isinstance(value, numbers.Integral)


def _is_plain_matrix(X, check_finite=True):
    """Whether ``X`` is a finite float64 matrix with at least one row, C-ordered where dense or
    SciPy's CSR (what ``validate_data`` returns unchanged, as far as ``X`` itself goes); with
    ``check_finite=False`` its values are not looked at (the caller checks them in its own pass)."""
    if type(X) in _CSR_TYPES:
        return (X.dtype == np.float64 and X.ndim == 2 and X.shape[0] > 0
                and (not check_finite or bool(np.isfinite(X.data).all())))
    return (
        type(X) is np.ndarray
        and X.dtype == np.float64
        and X.ndim == 2
        and X.flags.c_contiguous
        and X.shape[0] > 0
        and (not check_finite or bool(np.isfinite(X).all()))
    )


_CSR_TYPES = (sp.csr_matrix, sp.csr_array)


def _is_plain_training_data(X, y):
    """Whether ``validate_data(X, y)`` would return ``X`` and ``y`` unchanged: ``X`` a plain
    matrix (:func:`_is_plain_matrix`) with at least one column, ``y`` a finite 1-D numeric
    array with one value per row (``y=None`` is left to ``validate_data``, which refuses it
    where the estimator needs ``y``)."""
    return (
        type(y) is np.ndarray
        and y.ndim == 1
        and y.dtype.kind in "biuf"
        and _is_plain_matrix(X)
        and X.shape[0] == y.shape[0]
        and X.shape[1] > 0
        and (y.dtype.kind != "f" or bool(np.isfinite(y).all()))
    )


_PACKAGE_DIRECTORY = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def warn_at_caller(message, category):
    """``warnings.warn`` attributed to the first caller outside svmkit: the line that called
    ``fit``, however deep the route of the fit. On one of svmkit's worker threads
    (:func:`map_in_threads`), which has no such caller, to the thread's outermost svmkit frame."""
    frame, level = sys._getframe(1), 1
    while frame.f_back is not None and frame.f_back.f_code.co_filename.startswith(_PACKAGE_DIRECTORY):
        frame, level = frame.f_back, level + 1
    # (frame: the outermost svmkit frame of the calls that led here; stacklevel level + 1 names
    # it, level + 2 its caller)
    warnings.warn(message, category, stacklevel=level + (1 if on_pool_thread() else 2))


class BaseKernelSVM(BaseEstimator):
    """Parameters and machinery shared by the kernel SVM estimators."""

    _parameter_constraints = {
        "kernel": [StrOptions(set(kernel_module.KERNEL_NAMES)), callable],
        "degree": [Interval(Integral, 0, None, closed="left")],
        "coef0": [FINITE],
        "tol": [POSITIVE],
        "cache_size": [POSITIVE],
        "shrinking": ["boolean"],
        "verbose": ["verbose"],
        "max_iter": [Interval(Integral, -1, None, closed="left")],
        "callback": [callable, None],
        "n_jobs": N_JOBS,
    }

    def __sklearn_is_fitted__(self):
        """Whether a fit has set the decision function (what ``check_is_fitted`` asks; its
        default scans every attribute name)."""
        return hasattr(self, "intercept_")

    def _check_common_params(self):
        kernel = self.kernel
        if isinstance(kernel, str) and kernel not in kernel_module.KERNEL_NAMES:
            raise ValueError(f"Unknown kernel {kernel!r}: use one of {kernel_module.KERNEL_NAMES}, "
                             "a svmkit.kernels.Kernel or a callable of two matrices.")
        if not isinstance(kernel, str) and not callable(kernel):
            raise ValueError(f"kernel must be a name, a svmkit.kernels.Kernel or a callable, got {kernel!r}.")
        if kernel == "poly" and (not is_integer(self.degree) or self.degree < 1):
            raise ValueError(f"degree must be an integer >= 1, got {self.degree!r}.")
        if not is_real(self.coef0) or not math.isfinite(self.coef0):
            raise ValueError(f"coef0 must be a finite number, got {self.coef0!r}.")
        if not is_real(self.tol) or not self.tol > 0:
            raise ValueError(f"tol must be > 0, got {self.tol!r}.")
        if not is_real(self.cache_size) or not self.cache_size > 0:
            raise ValueError(f"cache_size must be > 0 (MB), got {self.cache_size!r}.")
        if not is_integer(self.max_iter) or (self.max_iter < 1 and self.max_iter != -1):
            raise ValueError(f"max_iter must be a positive integer or -1 (no limit), got {self.max_iter!r}.")
        if self.callback is not None and not callable(self.callback):
            raise ValueError("callback must be a callable taking a svmkit SolverProgress.")
        gamma = self.gamma
        if not (isinstance(gamma, str) and gamma in ("scale", "auto")) and (
                not is_real(gamma) or isinstance(gamma, bool) or not math.isfinite(gamma) or gamma <= 0):
            raise ValueError(f"gamma must be 'scale', 'auto' or a positive number, got {gamma!r}.")

    @property
    def _precomputed(self):
        return isinstance(self.kernel, str) and self.kernel == "precomputed"

    def _validate_train_X(self, X, y, y_numeric=False):
        """Validated training ``(X, y)``; with ``y=None`` (one-class) ``y`` is not checked."""
        settings = dict(accept_sparse="csr", dtype=np.float64, order="C", ensure_all_finite=True)
        if _is_plain_training_data(X, y):  # (what validate_data would return unchanged: its checks are slow)
            self.n_features_in_ = X.shape[1]
            if hasattr(self, "feature_names_in_"):  # (fitted on a DataFrame before)
                del self.feature_names_in_
        elif y is None:
            X = validate_data(self, X, y=None, **settings)
        else:
            X, y = validate_data(self, X, y, y_numeric=y_numeric, **settings)
        X = canonical_csr(X)
        if self._precomputed and X.shape[0] != X.shape[1]:
            raise ValueError(
                f"With kernel='precomputed', X must be the square Gram matrix of the training set; "
                f"got shape {X.shape}."
            )
        return X, y

    def _check_kernel_matrix(self, X):
        """With ``kernel='precomputed'``, refuse a training kernel matrix that is not symmetric
        (called once the labels and weights are checked, whose errors come first)."""
        if self._precomputed:
            check_symmetric_kernel(X, PRECOMPUTED_SYMMETRY_RTOL)

    def _validate_test_X(self, X):
        if not self.__sklearn_is_fitted__():
            check_is_fitted(self)  # raises NotFittedError
        if not self._is_valid_test_array(X):  # (else scikit-learn's checks)
            X = validate_data(self, X, accept_sparse="csr", dtype=np.float64, order="C", reset=False)
        X = canonical_csr(X)
        if self._precomputed and X.shape[1] != self.shape_fit_[0]:
            raise ValueError(
                f"With kernel='precomputed', X must hold the kernel between the test and the "
                f"{self.shape_fit_[0]} training samples; got {X.shape[1]} columns."
            )
        return X

    def _is_valid_test_array(self, X, check_finite=True):
        """Whether ``X`` is already what ``validate_data(reset=False)`` would return unchanged:
        a finite C-ordered float64 matrix with the fitted number of columns (and the
        estimator was fitted without feature names); finiteness as :func:`_is_plain_matrix`."""
        return (
            _is_plain_matrix(X, check_finite)
            and X.shape[1] == self.n_features_in_
            and not hasattr(self, "feature_names_in_")
        )

    @staticmethod
    def _check_weights(sample_weight, X):
        """Sample weights as float64, one per sample, non-negative (None: all ones); a new
        array, never the caller's."""
        if sample_weight is None:
            return np.ones(X.shape[0])
        sample_weight = _check_sample_weight(sample_weight, X, dtype=np.float64, copy=True)
        if np.any(sample_weight < 0):
            raise ValueError("sample_weight must be non-negative.")
        return sample_weight

    def _row_source(self, X):
        """``(kernel_, source)``: the kernel object (None when precomputed) and the row source
        of the training data (:mod:`svmkit._solver.rows`)."""
        if self._precomputed:
            return None, PrecomputedRows(X.toarray() if sp.issparse(X) else X)
        gamma = resolve_gamma(self.gamma, X) if self.kernel in ("rbf", "poly", "sigmoid") else None
        kernel = kernel_module.make_kernel(self.kernel, degree=self.degree, gamma=gamma or 1.0, coef0=self.coef0)
        return kernel, KernelRows(kernel, X)

    def _solver_settings(self, names=(), label=""):
        """The solver's settings from the parameters; ``names`` and ``label`` name the
        problems and the batch in progress reports."""
        return SolverSettings(
            tol=float(self.tol), max_iter=int(self.max_iter), shrinking=bool(self.shrinking),
            cache_size=float(self.cache_size), n_jobs=resolve_n_jobs(getattr(self, "n_jobs", 1)),
            verbose=bool(self.verbose), callback=self.callback, problem_names=tuple(names), label=label,
        )

    def _reports_progress(self):
        """Whether the solver reports progress (verbose logs, a callback): only then are the
        problems' names for the reports worth making."""
        return bool(self.verbose or self.callback is not None)

    def _solve(self, batch, source, check=None, names=(), label="", settings=None):
        """The solution of the duals of ``batch`` on the rows of ``source``; a warning for each
        problem stopped above ``tol``, an error where one met values that are not finite.
        ``check``, where given, is called with the solution first (it may raise). ``names``
        (one per problem) and ``label`` (the batch) name them in progress reports. ``settings``:
        the fit's :meth:`_solver_settings`, where it has made them already."""
        if self.verbose:
            enable_logging()
        if settings is None:
            settings = self._solver_settings(names, label)
        elif names or label:
            settings = replace(settings, problem_names=tuple(names), label=label)
        solution = solve(batch, source, settings)
        if check is not None:
            check(solution)
        if (solution.status == NOT_FINITE).any():
            raise ValueError(self._not_finite_message(batch, source))
        for k in solution.status.nonzero()[0]:
            self._warn_unless_optimal(int(solution.status[k]), float(solution.gap[k]))
        return solution

    def _kernel_description(self):
        """The kernel and its parameters, for messages."""
        if self._precomputed:
            return "the precomputed kernel"
        if not isinstance(self.kernel, str):
            return f"the kernel {self.kernel!r}"
        if self.kernel in ("poly", "sigmoid", "rbf"):
            named = {"poly": ("gamma", "coef0", "degree"), "sigmoid": ("gamma", "coef0"), "rbf": ("gamma",)}
            values = ", ".join(f"{name}={getattr(self, name)!r}" for name in named[self.kernel])
            return f"kernel={self.kernel!r} ({values})"
        return f"kernel={self.kernel!r}"

    def _not_finite_message(self, batch, source):
        """Why the solver met values that are not finite: kernel values that overflow, or
        kernel values times the bounds of the multipliers (C and the weights) that do."""
        with np.errstate(over="ignore", invalid="ignore"):
            diagonal = np.abs(np.asarray(source.diagonal(), dtype=np.float64))
        kernel = self._kernel_description()
        if not np.all(np.isfinite(diagonal)):
            return (
                f"The kernel values K(x, x) of {kernel} are not finite for some training samples (they overflow "
                "float64): use smaller kernel parameters or scale the data."
            )
        finite = batch.upper[np.isfinite(batch.upper)]
        bound = float(finite.max()) if finite.size else 0.0
        scale = float(diagonal.max()) if diagonal.size else 0.0
        return (
            f"The solver's gradients overflow float64: the kernel values of {kernel} (up to {scale:.3g} on the "
            f"diagonal) times the bounds of the multipliers (C, class_weight, sample_weight and nu; up to "
            f"{bound:.3g}, over {batch.upper.shape[0]} variables), or the targets, are too large. Use smaller "
            "C or weights, smaller kernel parameters, or scale the data."
        )

    def _warn_unless_optimal(self, status, gap):
        """A ConvergenceWarning where the solver stopped above ``tol``."""
        if status == ITERATION_LIMIT:
            limit = f"max_iter={self.max_iter}" if self.max_iter > 0 else "its default step limit"
            warn_at_caller(
                f"The solver stopped at {limit} with the KKT gap {gap:.3e} above tol={self.tol:g}; "
                "the solution is not optimal.",
                ConvergenceWarning,
            )
        elif status == STALLED:
            warn_at_caller(
                f"The solver stopped improving at the KKT gap {gap:.3e} > tol={self.tol:g} "
                "(round-off limits the accuracy); try a larger tol or scaled features.",
                ConvergenceWarning,
            )

    def _decision_coef(self):
        """The coefficients (n_SV, k) of the support vectors in the ``k`` decision functions."""
        return self.dual_coef_.T

    def _prediction_model(self):
        """What predictions need beyond the fitted attributes: the linear kernel's weights
        ``w = SV' coef`` (n_features, k), or the support vectors as other built-in kernels'
        predictions read them (:class:`svmkit.svm._decisions.SupportVectors`)."""
        return self._prediction_parts()[0]

    def _prediction_parts(self):
        """``(model, by_class)``: :meth:`_prediction_model`'s model and
        :meth:`_class_coefficients`. Made at the end of a fit and kept while the support vectors
        and coefficients are those they were made from; else made anew and not kept (a
        prediction leaves the estimator as it was)."""
        coef = self._decision_coef()
        kept = self.__dict__.get("_kept_prediction")
        if kept is not None and kept[0] is self.support_vectors_ and np.array_equal(kept[1], coef):
            return kept[2]
        return self._made_prediction_parts(coef)

    def _made_prediction_parts(self, coef):
        if isinstance(self.kernel_, LinearKernel):
            model = np.ascontiguousarray(np.asarray(self.support_vectors_.T @ coef), dtype=np.float64)
        else:
            form = None if self.kernel_ is None else self.kernel_.compiled_form()
            model = None if form is None else SupportVectors(self.support_vectors_, form)
        return model, self._class_coefficients(coef)

    def _class_coefficients(self, coef):
        """The coefficients ``coef`` class by class where one-vs-one problems have them
        (:class:`svmkit.svm._decisions.PairCoefficients`), else None."""
        return None

    def _keep_prediction_model(self):
        """Make :meth:`_prediction_parts` once, at the end of a fit."""
        self.__dict__.pop("_kept_prediction", None)
        coef = self._decision_coef()
        self._kept_prediction = (self.support_vectors_, coef.copy(), self._made_prediction_parts(coef))

    @property
    def coef_(self):
        """``w = sum_i coef_i x_i`` of each problem, shape (n_problems, n_features): one row for
        two classes, regression and one-class (linear kernel only)."""
        check_is_fitted(self)
        if not isinstance(self.kernel_, LinearKernel):
            raise AttributeError("coef_ is only available with the linear kernel.")
        return self._prediction_model().T.copy()

    def _kernel_decision(self, X, coef, intercept):
        """``K(X, SV) @ coef + intercept`` for a coefficient matrix (n_SV, k) (:meth:`_decision_of`);
        a ValueError where they are not finite (a model's values beyond float64's range)."""
        return check_finite_prediction(self._decision_of(X, coef, intercept), self,
                                       "dual_coef_, support_vectors_ and intercept_")

    def _decision_of(self, X, coef, intercept):
        """``K(X, SV) @ coef + intercept`` for a coefficient matrix (n_SV, k): the linear kernel
        through ``w``; a precomputed kernel from the support vectors' columns; others in blocks
        of test rows (:func:`svmkit.svm._decisions.kernel_decisions`)."""
        model, by_class = self._prediction_parts()
        if isinstance(self.kernel_, LinearKernel):
            if sp.issparse(X):
                return np.asarray(X @ model) + intercept
            if model.shape[1] > 1:
                out = np.empty((X.shape[0], model.shape[1]))
                blas_in_equal_parts(lambda first, last: np.matmul(X[first:last], model, out=out[first:last]),
                                    X.shape[0], model.size * X.shape[0])
                return out + intercept
            # (one decision function: row by row, so that a row's value, and its sign at the
            # boundary, does not depend on the other rows)
            return np.einsum("ij,jk->ik", X, model) + intercept
        if self._precomputed:
            return np.asarray(X[:, self.support_] @ coef) + intercept
        n_rows, n_sv = X.shape[0], self.support_vectors_.shape[0]
        if n_sv == 0:
            return np.broadcast_to(intercept, (n_rows, coef.shape[1])).copy()
        if by_class is not None and by_class.pays(n_rows):
            coef = by_class
        out = kernel_decisions(X, self.support_vectors_, model, coef, self.kernel_, getattr(self, "n_jobs", None))
        out += intercept
        return out

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.sparse = True
        tags.input_tags.pairwise = self._precomputed
        return tags


class SingleProblemSVM(BaseKernelSVM):
    """Kernel machines with one dual problem (one-class SVM, SVR): their
    attributes in scikit-learn's (LIBSVM's) layout and their decision values."""

    def _set_solution(self, X, rows, coef, intercept, solution):
        """support_, dual_coef_, intercept_, ... from the coefficient of each row.

        Parameters
        ----------
        X : training data (or Gram matrix)
        rows : int array
            Training rows of the problem (those with a positive weight).
        coef : float array
            Coefficient of each of those rows in ``f(x) = sum coef K(x_i, x) + b``.
        intercept : float
        solution : DualSolution
        """
        keep = coef != 0
        support = rows[keep]
        self.shape_fit_ = X.shape
        self.support_ = support.astype(np.int32)
        self.support_vectors_ = np.empty((0, X.shape[1])) if self._precomputed else X[support]
        self.dual_coef_ = coef[keep][np.newaxis, :]
        self.intercept_ = np.array([intercept])
        self.n_support_ = np.array([support.shape[0]], dtype=np.int32)
        self.n_iter_ = int(solution.n_iter[0])
        self.fit_status_ = int(solution.status[0] != 0)
        self._keep_prediction_model()

    def _decision_values(self, X):
        X = self._validate_test_X(X)
        return self._kernel_decision(X, self._decision_coef(), self.intercept_)[:, 0]
