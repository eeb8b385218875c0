"""Checks of input arrays, one pass without temporary arrays."""

import numpy as np

from ._jit import jit


@jit
def all_finite(values):
    """Whether no value of a float array (any shape, C order) is NaN or infinite.

    Examples
    --------
    >>> import numpy as np
    >>> all_finite(np.array([[1.0, 2.0], [3.0, 4.0]])), all_finite(np.array([1.0, np.inf]))
    (True, False)
    """
    flat = values.ravel()
    finite = True
    for k in range(flat.shape[0]):
        finite &= np.isfinite(flat[k])
    return finite
