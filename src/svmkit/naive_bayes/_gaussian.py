"""Per-class normal densities of the Gaussian columns.

The sufficient statistics are, for each class and feature, the weighted number
of observed values, their mean and their sum of squared deviations from the
mean.  Missing values (NaN) are left out of all three.  Batches merge exactly
(Chan, Golub and LeVeque), so ``partial_fit`` over batches equals ``fit``.
"""

from typing import NamedTuple

import numpy as np

LOG_2PI = np.log(2.0 * np.pi)

#: Rows per block when the log-likelihood is accumulated block by block.
ROWS_PER_BLOCK = 4096


class Moments(NamedTuple):
    """Weighted count, mean and sum of squared deviations, each (n_classes, n_features)."""

    count: np.ndarray
    mean: np.ndarray
    squared_deviations: np.ndarray


def class_moments(X, missing, class_codes, n_classes, weights):
    """Moments of each column of ``X`` within each class.

    Parameters
    ----------
    X : ndarray of shape (n_samples, n_features)
        Values, NaN where missing.
    missing : ndarray of bool or None
        Mask of the missing values, ``None`` when there are none.
    class_codes : ndarray of int of shape (n_samples,)
        Class index of each row.
    n_classes : int
    weights : ndarray of shape (n_samples,) or None
        Sample weights; ``None`` means one per row.

    Returns
    -------
    Moments
    """
    membership = np.zeros((n_classes, X.shape[0]))
    membership[class_codes, np.arange(X.shape[0])] = 1.0 if weights is None else weights
    if missing is None:
        count = np.repeat(membership.sum(axis=1, keepdims=True), X.shape[1], axis=1)
        observed_X = X
    else:
        count = membership @ ~missing
        observed_X = np.where(missing, 0.0, X)
    mean = _divide_or_zero(membership @ observed_X, count)
    deviations = observed_X - mean[class_codes]
    if missing is not None:
        deviations[missing] = 0.0
    np.square(deviations, out=deviations)
    return Moments(count, mean, membership @ deviations)


def merge_moments(first, second):
    """Moments of the union of two disjoint sets of rows."""
    count = first.count + second.count
    delta = second.mean - first.mean
    second_share = _divide_or_zero(second.count, count)
    mean = first.mean + delta * second_share
    squared_deviations = (
        first.squared_deviations + second.squared_deviations + delta**2 * first.count * second_share
    )
    return Moments(count, mean, squared_deviations)


def floored_variance(moments, ddof, var_smoothing):
    """Class variances with the variance floor added, and the floor.

    The variance of a class is ``squared_deviations / (count - ddof)``, taken as 0
    when ``count <= ddof``.  The floor is ``var_smoothing`` times the largest
    variance (``ddof = 0``, weighted, over all classes) of any feature, or
    ``var_smoothing`` itself when every feature is constant.
    """
    count = moments.count.sum(axis=0)
    mean = _divide_or_zero((moments.count * moments.mean).sum(axis=0), count)
    pooled = moments.squared_deviations.sum(axis=0) + (moments.count * (moments.mean - mean) ** 2).sum(axis=0)
    largest_variance = _divide_or_zero(pooled, count).max()
    epsilon = var_smoothing * (largest_variance if largest_variance > 0 else 1.0)
    variance = _divide_or_zero(moments.squared_deviations, np.maximum(moments.count - ddof, 0.0))
    return variance + epsilon, epsilon


def add_log_likelihood(jll, X, missing, theta, var, count):
    """Add the summed log densities of the rows of ``X`` to ``jll``, shape (n_classes, n_samples).

    A missing value, or a feature a class has no observed value of, adds nothing.
    The rows go through in blocks small enough for the squared distances to stay
    in cache.
    """
    weight, constant = _density_coefficients(theta, var, count)
    squared_distance = np.empty((min(ROWS_PER_BLOCK, X.shape[0]), X.shape[1]))
    for start in range(0, X.shape[0], ROWS_PER_BLOCK):
        block = X[start : start + ROWS_PER_BLOCK]
        stop = start + block.shape[0]
        squared = squared_distance[: block.shape[0]]
        observed = None if missing is None else ~missing[start:stop]
        for k in range(theta.shape[0]):
            np.subtract(block, theta[k], out=squared)
            np.square(squared, out=squared)
            if observed is None:
                jll[k, start:stop] += squared @ weight[k]
            else:
                np.copyto(squared, 0.0, where=~observed)
                jll[k, start:stop] += squared @ weight[k] + observed @ constant[k]
    if missing is None:
        jll += constant.sum(axis=1)[:, None]


def feature_log_likelihood(X, missing, theta, var, count):
    """Log density of each value under each class, (n_samples, n_classes, n_features); 0 where left out."""
    weight, constant = _density_coefficients(theta, var, count)
    terms = (X[:, None, :] - theta) ** 2 * weight + constant
    if missing is not None:
        terms[np.broadcast_to(missing[:, None, :], terms.shape)] = 0.0
    return terms


def _density_coefficients(theta, var, count):
    """``-1 / (2 var)`` and ``-log(2 pi var) / 2``, zeroed where a class saw no value."""
    observed = count > 0
    weight = np.where(observed, -0.5 / var, 0.0)
    constant = np.where(observed, -0.5 * (LOG_2PI + np.log(var)), 0.0)
    return weight, constant


def _divide_or_zero(numerator, denominator):
    out = np.zeros(np.broadcast(numerator, denominator).shape)
    return np.divide(numerator, denominator, out=out, where=denominator > 0)
