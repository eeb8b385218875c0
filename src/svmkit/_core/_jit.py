"""The one place where the numba compilation flags of svmkit are set."""

import numba

#: Compiled code is cached on disk so that a fresh process pays no JIT cost
#: after the first run.
jit = numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")

#: Loops that split their work over threads (``numba.prange``).
parallel_jit = numba.njit(cache=True, nogil=True, parallel=True, fastmath=False, error_model="numpy")

