"""Checks at the borders of the estimators: parameters (as scikit-learn's parameter
constraints), class and sample weights, and the finiteness of what a fit computed."""

from __future__ import annotations

import math
from numbers import Integral, Real

import numpy as np
import scipy.sparse as sp
from sklearn.utils._param_validation import (
    Interval, Options, StrOptions, make_constraint, validate_parameter_constraints,
)

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
    if sp.issparse(X) and not X.has_canonical_format:
        X = X.copy()
        X.sum_duplicates()
    return X


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
    for name, allowed in constraints:
        value = getattr(estimator, name)
        if not any(constraint.is_satisfied_by(value) for constraint in allowed):
            # (scikit-learn's message, which names the parameter and what it accepts)
            validate_parameter_constraints(kind._parameter_constraints, {name: value}, caller_name=kind.__name__)


#: Each estimator class's constraints, made once (a fit checks them in microseconds).
_CONSTRAINTS = {}


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
        if not np.all(np.isfinite(np.asarray(value, dtype=np.float64))):
            raise ValueError(f"The fit's {name} is not finite: {cause}.")
