"""Checks at the borders of the estimators: parameters (as scikit-learn's parameter
constraints), class and sample weights, and the finiteness of what a fit computed."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils import validation as sklearn_validation
from sklearn.utils._param_validation import (
    Interval, Options, make_constraint, validate_parameter_constraints,
)

from ._core.kernels import kernel_asymmetry
from ._first_use import notice_compilation

#: A finite real number.
FINITE = Interval(Real, None, None, closed="neither")
#: A finite real number > 0.
POSITIVE = Interval(Real, 0, None, closed="neither")
#: A finite real number >= 0.
NON_NEGATIVE = Interval(Real, 0, None, closed="left")
#: ``n_jobs``: a positive integer, -1 (every core) or None.
N_JOBS = [Interval(Integral, 1, None, closed="left"), Options(Integral, {-1}), None]

__all__ = [
    "FINITE", "POSITIVE", "NON_NEGATIVE", "N_JOBS",
    "check_parameters", "check_class_weight", "check_finite_bounds", "check_finite_result", "canonical_csr",
    "csr_structure_problem",
]


def canonical_csr(X):
    """``X`` with each row's column indices sorted and duplicate entries summed (as
    scikit-learn and SciPy's arithmetic read a CSR matrix: one value per column, the sum
    of its entries); a copy where ``X`` is not so already, never the caller's matrix
    changed. Dense ``X`` is returned as it is.

    Parameters
    ----------
    X : ndarray or sparse matrix

    Returns
    -------
    ndarray or sparse matrix
    """
    if not sp.issparse(X):
        return X
    problem = csr_structure_problem(X.data, X.indices, X.indptr, X.shape)
    if problem is not None:
        part, message = problem
        raise ValueError(f"X is a sparse matrix whose arrays are inconsistent: X.{part} {message}.")
    if not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


def csr_structure_problem(data, indices, indptr, shape):
    """What makes the arrays of a CSR matrix of ``shape`` inconsistent, as ``(part, message)``
    (``part``: ``'indptr'``, ``'indices'``, ``'data'``), or None: row pointers that do not
    rise from 0 to the number of values, or column indices outside the columns. SciPy's
    constructor does not look (only ``check_format(full_check=True)`` does), and compiled
    code, SciPy's and svmkit's, reads the arrays without bounds checks.

    Examples
    --------
    >>> import numpy as np
    >>> csr_structure_problem(np.ones(2), np.array([0, 7]), np.array([0, 1, 2]), (2, 5))
    ('indices', 'holds column indices outside [0, 5)')
    >>> csr_structure_problem(np.ones(2), np.array([0, 3]), np.array([0, 1, 2]), (2, 5)) is None
    True
    """
    n_rows, n_columns = shape
    n_values = indices.shape[0]
    if indptr.ndim != 1 or indptr.shape[0] != n_rows + 1:
        return "indptr", f"expected {n_rows + 1} entries (rows + 1), got {indptr.shape[0]}"
    if data.shape[0] != n_values:
        return "data", f"has {data.shape[0]} values for {n_values} indices"
    if indptr[0] != 0 or indptr[-1] != n_values or np.any(np.diff(indptr) < 0):
        return "indptr", f"must rise from 0 to the number of values ({n_values})"
    if n_values and (indices.min() < 0 or indices.max() >= n_columns):
        return "indices", f"holds column indices outside [0, {n_columns})"
    return None


def check_parameters(estimator):
    """Check ``estimator``'s parameters against its ``_parameter_constraints`` (those it
    names; scikit-learn's ``InvalidParameterError``, a ``ValueError``, names the parameter).

    Parameters
    ----------
    estimator : BaseEstimator
        An estimator with a ``_parameter_constraints`` dict.
    """
    kind = type(estimator)
    constraints = _CONSTRAINTS.get(kind)
    if constraints is None:
        constraints = _CONSTRAINTS[kind] = [
            (name, [make_constraint(each) for each in allowed])
            for name, allowed in kind._parameter_constraints.items()
            if allowed != "no_validation" and name in kind._get_param_names()
        ]
    key = _parameters_key(estimator, [name for name, _ in constraints])
    if key is not None and key in _ACCEPTED:
        return
    for name, allowed in constraints:
        value = getattr(estimator, name)
        if not any(constraint.is_satisfied_by(value) for constraint in allowed):
            # (scikit-learn's message, which names the parameter and what it accepts)
            validate_parameter_constraints(kind._parameter_constraints, {name: value}, caller_name=kind.__name__)
    if key is not None:
        _remember(_ACCEPTED, key)


def checked_once(estimator, check):
    """Run ``check()``, the whole parameter check of ``estimator``'s fit, unless it passed for
    these very parameter values (every parameter, by type and value) of ``estimator``'s class
    before: a grid search's folds and a benchmark's repetitions fit the same settings again.
    Only a check that passed here is remembered (the checks of loading a model, which are not a
    fit's, are not).

    Examples
    --------
    >>> from svmkit.svm import SVC
    >>> calls = []
    >>> for _ in range(2):
    ...     checked_once(SVC(C=3.5, gamma=0.25), lambda: calls.append("checked"))
    >>> calls
    ['checked']
    """
    kind = type(estimator)
    names = _PARAMETER_NAMES.get(kind)
    if names is None:
        names = _PARAMETER_NAMES[kind] = kind._get_param_names()
    key = _parameters_key(estimator, names)
    if key is not None and key in _FIT_CHECKED:
        return
    check()
    if key is not None:
        _remember(_FIT_CHECKED, key)


def _parameters_key(estimator, names):
    """``estimator``'s class and the name, type and value of each of its parameters ``names``,
    or None where a value cannot be hashed (a ``class_weight`` dict)."""
    values = [getattr(estimator, name) for name in names]
    key = (type(estimator), tuple(zip(names, map(type, values), values)))
    try:
        hash(key)
    except TypeError:
        return None
    return key


#: Each estimator class's constraints, and its parameters' names, made once.
_CONSTRAINTS = {}
_PARAMETER_NAMES = {}
#: Parameter values found valid (class, then name, type and value of each) by check_parameters
#: and by a fit's whole check (checked_once): the same settings again look them up.
_ACCEPTED = set()
_FIT_CHECKED = set()
_ACCEPTED_MAX = 1024  # (settings remembered at most; a grid search has tens to hundreds)


def _remember(accepted, key):
    if len(accepted) >= _ACCEPTED_MAX:
        accepted.clear()
    accepted.add(key)


def check_nu(nu):
    """Refuse a ``nu`` (nu-SVC, one-class, nu-SVR) that is not a real number in (0, 1].

    Examples
    --------
    >>> check_nu(0.5)
    >>> check_nu(True)
    Traceback (most recent call last):
    ...
    ValueError: nu must be in (0, 1], got True.
    """
    if not isinstance(nu, Real) or isinstance(nu, bool) or not 0 < nu <= 1:
        raise ValueError(f"nu must be in (0, 1], got {nu!r}.")


def check_class_weight(class_weight):
    """Refuse a ``class_weight`` dict whose weights are not finite numbers >= 0.

    Parameters
    ----------
    class_weight : dict, str or None
        The estimator's parameter; only a dict's values are looked at here.

    Raises
    ------
    ValueError
        Naming ``class_weight`` and the class whose weight is refused.
    """
    if not isinstance(class_weight, dict):
        return
    for label, weight in class_weight.items():
        if (not isinstance(weight, Real) or isinstance(weight, bool) or not math.isfinite(weight)
                or weight < 0):
            raise ValueError(
                f"class_weight must map each class to a finite number >= 0; class {label!r} has {weight!r}."
            )


def check_finite_bounds(bounds, what):
    """Refuse products of parameters and weights that overflow float64, alone or summed
    (the solver sums them).

    Parameters
    ----------
    bounds : ndarray
        The products (e.g. ``C * class_weight * sample_weight``).
    what : str
        How the products are made, for the message.

    Raises
    ------
    ValueError
        Where a product or their sum is not finite, naming ``what``.
    """
    with np.errstate(over="ignore"):
        total = float(np.sum(bounds))
    if not math.isfinite(total):
        raise ValueError(
            f"{what} overflows float64 (alone or summed over the samples); use smaller values."
        )


def check_finite_result(values, cause):
    """Refuse a fit whose results are not finite.

    Parameters
    ----------
    values : dict of str to array-like
        The fitted values by name.
    cause : str
        What makes them overflow, for the message.

    Raises
    ------
    ValueError
        Naming the first value that is not finite and ``cause``.
    """
    for name, value in values.items():
        if not np.isfinite(np.asarray(value, dtype=np.float64)).all():
            raise ValueError(f"The fit's {name} is not finite: {cause}.")


def check_symmetric_kernel(K, rtol):
    """Raise ``ValueError`` unless the square kernel matrix ``K`` (dense or CSR) is symmetric
    within ``rtol`` times its largest absolute value.

    A dual on a kernel that is not symmetric has no meaning (SMO's steps disagree with its
    gradient and wander); LIBSVM accepts any matrix. Dense matrices (C-ordered float64) are
    read once, by compiled code (:func:`svmkit._core.kernels.kernel_asymmetry`), so the check
    takes no memory.

    Examples
    --------
    >>> check_symmetric_kernel(np.array([[1.0, 0.5], [0.5, 1.0]]), 1e-6)
    >>> check_symmetric_kernel(np.array([[1.0, 0.5], [0.0, 1.0]]), 1e-6)
    Traceback (most recent call last):
    ...
    ValueError: The precomputed kernel matrix is not symmetric: K[0, 1] = 0.5 but K[1, 0] = 0 (a kernel is symmetric, K[i, j] = K(x_i, x_j) = K[j, i]; differences up to 1e-06 of its largest value, 1, are taken for round-off).
    """
    if sp.issparse(K):
        difference = abs(K - K.T).tocoo()
        scale = abs(K).max() if K.nnz else 0.0
        worst = int(np.argmax(difference.data)) if difference.nnz else -1
        largest = difference.data[worst] if worst >= 0 else 0.0
        where = (int(difference.row[worst]), int(difference.col[worst])) if worst >= 0 else (0, 0)
    else:
        notice_compilation(kernel_asymmetry)
        largest, scale = kernel_asymmetry(K)
        where = None  # (found only for a refusal's message)
    if largest > rtol * scale:
        i, j = where or _first_pair_differing_by(K, largest)
        raise ValueError(
            f"The precomputed kernel matrix is not symmetric: K[{i}, {j}] = {K[i, j]:.6g} but K[{j}, {i}] = "
            f"{K[j, i]:.6g} (a kernel is symmetric, K[i, j] = K(x_i, x_j) = K[j, i]; differences up to {rtol:g} "
            f"of its largest value, {scale:.6g}, are taken for round-off)."
        )


def _first_pair_differing_by(K, difference):
    """The first ``(i, j)``, ``i < j`` in row order, where ``|K[i, j] - K[j, i]|`` is
    ``difference``, the largest of a dense square matrix (so some pair has it): row by row, for
    a refusal's message."""
    for i in range(K.shape[0] - 1):
        differences = np.abs(K[i, i + 1:] - K[i + 1:, i])
        if differences.max() == difference:
            return i, i + 1 + int(np.argmax(differences))


def check_finite_prediction(values, estimator, model_values, what="decision values"):
    """Return ``values`` (a prediction's output) where they are all finite; else raise.

    A fitted model's values are finite but may be so large (a model file may carry any
    float64) that its predictions overflow to inf or NaN; those are refused rather than
    returned.

    Parameters
    ----------
    values : ndarray
    estimator : object
        The estimator, named in the message.
    model_values : str
        The fitted attributes the values are computed from, for the message.
    what : str
        What ``values`` are, for the message.

    Raises
    ------
    ValueError
        Naming ``what``, the estimator and ``model_values``.

    Examples
    --------
    >>> check_finite_prediction(np.array([1.0, np.inf]), object(), "coef_ and intercept_")
    Traceback (most recent call last):
    ...
    ValueError: The decision values of object are not finite for some samples: the model's coef_ and intercept_ (or the data) are too large for float64. A model loaded from a file may hold values out of range.
    """
    if not np.isfinite(values).all():
        raise ValueError(
            f"The {what} of {type(estimator).__name__} are not finite for some samples: the model's {model_values} "
            "(or the data) are too large for float64. A model loaded from a file may hold values out of range."
        )
    return values


def validate_data(estimator, *args, **kwargs):
    """scikit-learn's ``validate_data``, whose error for NaN in ``X`` points to svmkit's naive
    Bayes classifiers (which leave missing values out) and to imputing in a Pipeline, instead
    of to scikit-learn's HistGradientBoosting."""
    try:
        return sklearn_validation.validate_data(estimator, *args, **kwargs)
    except ValueError as error:
        first, _, rest = str(error).partition("\n")
        if "contains NaN" not in first or not rest:
            raise
        raise ValueError(
            f"{first}\n{type(estimator).__name__} does not accept missing values encoded as NaN. svmkit's naive "
            "Bayes classifiers (svmkit.GaussianNB, CategoricalNB, MixedNB) leave missing values out when fitting "
            "and predicting; or fill them in first with sklearn.impute.SimpleImputer in a Pipeline (which "
            "svmkit.save saves too)."
        ) from None
