"""The one place where the numba compilation flags of svmkit are set."""

import numba

#: Compiled code is cached on disk so that a fresh process pays no JIT cost
#: after the first run.
jit = numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy")

#: Loops that split their work over threads (``numba.prange``).
parallel_jit = numba.njit(cache=True, nogil=True, parallel=True, fastmath=False, error_model="numpy")


#: Elementwise arithmetic whose multiply-adds may be fused into one instruction (FMA), exactly
#: rounded once instead of twice; the flag stays with the function's instructions where it is
#: inlined into ``jit`` code. For functions whose results no other path has to match bit for
#: bit (:func:`svmkit._core._exp.exp_nonpositive`, within 2 units in the last place of the
#: exact exponential either way).
contracting_jit = numba.njit(cache=True, nogil=True, fastmath={"contract"}, error_model="numpy")


#: Functions that only compiled code calls: numba gives them no entry point from Python, whose
#: wrapper (unboxing every array of the solver's named tuples) costs more compilation than many
#: a function's own code.
internal_jit = numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy", no_cpython_wrapper=True,
                          no_cfunc_wrapper=True)


#: Small helpers, and functions with one caller whose own callees are large, inlined into their
#: callers in numba's own representation: each compiled function otherwise costs a compilation
#: of its own, and numba optimises and emits its callees' code again in it, then in every caller.
inlined_jit = numba.njit(cache=True, nogil=True, fastmath=False, error_model="numpy", inline="always")
