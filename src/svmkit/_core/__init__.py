"""Compiled kernels of svmkit (numba).

Everything here takes NumPy arrays and scalars and returns arrays or short
tuples. Nothing imports the rest of svmkit, nothing prints, and failures are
reported as integer status codes that the Python layer turns into warnings or
exceptions. The JIT options live in :mod:`svmkit._core._jit`.
"""
