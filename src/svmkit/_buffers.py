"""Arrays kept from one use to the next (a working set's block from round to round, a
prediction's products from block to block): memory allocated anew is, where the allocator
has given the last such array back to the system, mapped anew, and every page of it faults on
its first write."""

import math

import numpy as np


def reused_array(holder, name, shape, dtype):
    """A C-ordered array of ``shape`` and ``dtype`` over ``holder``'s buffer ``name`` (an
    attribute; a ``threading.local`` gives each thread its own), made anew only where the
    buffer holds fewer values or another type; its values are those its last use left.

    Examples
    --------
    >>> from types import SimpleNamespace
    >>> buffers = SimpleNamespace()
    >>> block = reused_array(buffers, "block", (3, 3), np.float64)
    >>> smaller = reused_array(buffers, "block", (2, 2), np.float64)
    >>> smaller.shape, smaller.flags.c_contiguous, np.shares_memory(block, smaller)
    ((2, 2), True, True)
    """
    count = math.prod(shape)
    held = getattr(holder, name, None)
    if held is None or held.dtype != dtype or held.shape[0] < count:
        held = np.empty(count, dtype=dtype)
        setattr(holder, name, held)
    return held[:count].reshape(shape)
