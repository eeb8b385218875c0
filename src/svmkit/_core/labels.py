"""Class labels as indices into their sorted distinct values."""

import numpy as np

from ._jit import jit


@jit
def class_indices(y):
    """``np.unique(y, return_inverse=True)`` of a numeric 1-D array (finite values): the
    sorted distinct values and each value's index among them.

    Examples
    --------
    >>> import numpy as np
    >>> class_indices(np.array([1.0, -1.0, 1.0, 3.0]))
    (array([-1.,  1.,  3.]), array([1, 0, 1, 2]))
    """
    classes = np.unique(y)
    return classes, np.searchsorted(classes, y)
