"""LIBSVM's feature scaling (``svm-scale``) as a scikit-learn transformer.

Each feature is mapped linearly from its training range ``[min, max]`` to
``[lower, upper]`` (by default ``[-1, 1]``), exactly as LIBSVM's ``svm-scale``
does it; the ranges can be saved to and restored from svm-scale's range file so
that test data are scaled with the training ranges ("A Practical Guide to
Support Vector Classification", Hsu, Chang and Lin, section 2.2).

Fit the scaler on the training part only: scaling before splitting lets the
test part leak into the ranges (the seeds' "data snooping").

The range file, as svm-scale writes it::

    y                  (only with target scaling)
    y_lower y_upper
    y_min y_max
    x
    lower upper
    index min max      (one line per feature; constant features are left out)

Examples
--------
>>> import io
>>> import numpy as np
>>> from svmkit.preprocessing import LibsvmScaler, load_range, save_range
>>> scaler = LibsvmScaler().fit(np.array([[0.0, 5.0, 2.0], [10.0, 5.0, 4.0]]))
>>> scaler.transform(np.array([[5.0, 5.0, 3.0], [20.0, 7.0, 2.0]]))
array([[ 0.,  0.,  0.],
       [ 3.,  0., -1.]])
>>> buffer = io.StringIO()
>>> save_range(scaler, buffer)
>>> print(buffer.getvalue(), end="")
x
-1 1
1 0 10
3 2 4
>>> restored, target_range = load_range(io.StringIO(buffer.getvalue()))
>>> restored.data_min_, restored.data_max_, target_range
(array([0., 0., 2.]), array([10.,  0.,  4.]), None)
"""

from __future__ import annotations

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator, OneToOneFeatureMixin, TransformerMixin
from sklearn.utils.validation import check_is_fitted

from ._validation import canonical_csr, validate_data

from ._libsvm_ranges import TargetRange, _check_limits, _scale_linearly, read_range, write_range

__all__ = ["LibsvmScaler", "TargetRange", "load_range", "save_range"]


class LibsvmScaler(OneToOneFeatureMixin, TransformerMixin, BaseEstimator):
    """Scale every feature linearly from its training range to ``[lower, upper]``.

    The map is svm-scale's: ``lower + (upper - lower) (x - min) / (max - min)``,
    with the training minimum and maximum sent exactly to ``lower`` and
    ``upper``. Values outside the training range are extrapolated linearly.
    Features constant in training become 0 (svm-scale drops them from its
    output, which reads back as 0). For sparse input the implicit zeros count
    as values, as in svm-scale; the result stays sparse when every feature
    maps 0 to 0 (e.g. non-negative data with ``lower=0``) and is dense
    otherwise.

    Parameters
    ----------
    lower : float, default=-1.0
        Value of each feature's training minimum.
    upper : float, default=1.0
        Value of each feature's training maximum; must exceed ``lower``.

    Attributes
    ----------
    data_min_ : ndarray of shape (n_features,)
        Training minimum of each feature.
    data_max_ : ndarray of shape (n_features,)
        Training maximum of each feature.
    n_features_in_ : int

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit.preprocessing import LibsvmScaler
    >>> X = np.array([[1.0, -3.0], [3.0, 0.0], [2.0, 3.0]])
    >>> LibsvmScaler(lower=0, upper=1).fit_transform(X)
    array([[0. , 0. ],
           [1. , 0.5],
           [0.5, 1. ]])
    """

    def __init__(self, lower=-1.0, upper=1.0):
        self.lower = lower
        self.upper = upper

    def fit(self, X, y=None):
        """Learn the minimum and maximum of every feature.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)
        y : ignored

        Returns
        -------
        self
        """
        _check_limits(self.lower, self.upper, "x")
        X = canonical_csr(validate_data(self, X, accept_sparse="csr", dtype=np.float64, ensure_all_finite=True))
        if sp.issparse(X):
            self.data_min_ = X.min(axis=0).toarray().ravel()
            self.data_max_ = X.max(axis=0).toarray().ravel()
        else:
            self.data_min_ = X.min(axis=0)
            self.data_max_ = X.max(axis=0)
        return self

    def transform(self, X):
        """Scale ``X`` with the training ranges.

        Parameters
        ----------
        X : array-like or sparse matrix of shape (n_samples, n_features)

        Returns
        -------
        ndarray or CSR matrix of shape (n_samples, n_features)
        """
        check_is_fitted(self)
        X = canonical_csr(validate_data(self, X, accept_sparse="csr", dtype=np.float64, ensure_all_finite=True,
                                        reset=False))
        low, high = self.data_min_, self.data_max_
        if not sp.issparse(X):
            return _scale_linearly(X, low, high, self.lower, self.upper)
        if np.any(_scale_linearly(np.zeros_like(low), low, high, self.lower, self.upper) != 0):
            return _scale_linearly(X.toarray(), low, high, self.lower, self.upper)
        X = X.copy()
        columns = X.indices
        X.data = _scale_linearly(X.data, low[columns], high[columns], self.lower, self.upper)
        return X


def save_range(scaler, target, target_range=None):
    """Write a fitted :class:`LibsvmScaler` (and a target range) as svm-scale's range file.

    Numbers are written with 17 significant digits, as svm-scale does, so
    that a restored scaler reproduces the saved one exactly. Constant features
    are left out.

    Parameters
    ----------
    scaler : LibsvmScaler
        Fitted.
    target : str, os.PathLike or text file object
    target_range : TargetRange, optional
        Written first, as the ``y`` section.

    Examples
    --------
    See the module documentation.
    """
    check_is_fitted(scaler)
    write_range(target, scaler.lower, scaler.upper, scaler.data_min_, scaler.data_max_, target_range)


def load_range(source, n_features=None):
    """Read svm-scale's range file as a fitted :class:`LibsvmScaler`.

    Parameters
    ----------
    source : str, os.PathLike or text file object
    n_features : int, optional
        Number of features of the data to scale. Features beyond the file's
        largest index, and indices the file leaves out, get ``min = max = 0``
        and therefore scale to 0, as svm-scale does.

    Returns
    -------
    scaler : LibsvmScaler
    target_range : TargetRange or None
        The ``y`` section, if the file has one.

    Raises
    ------
    ValueError
        If the file does not follow the format; the message names the line.

    Examples
    --------
    >>> import io
    >>> from svmkit.preprocessing import load_range
    >>> scaler, target_range = load_range(io.StringIO("y\\n0 1\\n-1 1\\nx\\n0 1\\n2 -4 4\\n"), n_features=3)
    >>> scaler.lower, scaler.upper, scaler.data_min_, scaler.data_max_
    (0.0, 1.0, array([ 0., -4.,  0.]), array([0., 4., 0.]))
    >>> target_range
    TargetRange(lower=0.0, upper=1.0, min=-1.0, max=1.0)
    """
    lower, upper, ranges, target_range = read_range(source)
    size = max(ranges, default=0) if n_features is None else max(max(ranges, default=0), n_features)
    scaler = LibsvmScaler(lower=lower, upper=upper)
    scaler.data_min_ = np.zeros(size)
    scaler.data_max_ = np.zeros(size)
    for index, (low, high) in ranges.items():
        scaler.data_min_[index - 1], scaler.data_max_[index - 1] = low, high
    scaler.n_features_in_ = size
    return scaler, target_range


