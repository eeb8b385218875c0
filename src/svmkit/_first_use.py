"""The one-line notice that svmkit compiles its code on first use.

svmkit's compiled functions (:mod:`svmkit._core`) are compiled by numba the first time they
run after an install and kept in numba's cache on disk; that first compilation takes seconds
to a minute, which a user would otherwise take for a hang. Before the first call of a
compiled function in a process, :func:`notice_compilation` looks for it in the cache and,
where it is missing, says once on standard error what is happening.
"""

import os
import sys

#: Printed once per process.
NOTICE = "svmkit: compiling for first use (seconds to a minute, once; numba caches the result)"

_checked = set()  # (functions looked for in this process)
_said = False


def notice_compilation(*functions):
    """Print :data:`NOTICE` to standard error, once per process, where one of the compiled
    ``functions`` is not in numba's cache (nothing is said with ``NUMBA_DISABLE_JIT=1``).

    Examples
    --------
    >>> from svmkit._core.smo import solve_batch
    >>> notice_compilation(solve_batch)  # (silent where the cache holds the solver)
    """
    global _said
    for function in functions:
        if _said or function in _checked:
            return
        _checked.add(function)
        if not _is_cached(function):
            _said = True
            print(NOTICE, file=sys.stderr, flush=True)


def _is_cached(function):
    """Whether numba's cache on disk has an index for ``function`` (True for a function that
    is not compiled or where numba does not say where its cache is)."""
    cache_file = getattr(getattr(function, "_cache", None), "_cache_file", None)
    index = getattr(cache_file, "_index_path", None)
    return index is None or os.path.exists(index)
