"""When svmkit's compiled loops take their parallel form (``numba.prange`` over all cores).

numba's workqueue threading layer (its fallback when neither TBB nor OpenMP is available)
aborts on concurrent launches of parallel loops, so only the main thread launches them; worker
threads (one-vs-one problems solved in parallel, a user's own threads) run the serial forms.
``NUMBA_NUM_THREADS`` limits the number of threads.
"""

import threading

# Fewer values than this are computed on one thread: starting numba's parallel loop costs more
# (usps, linear kernel: 44 updates of about 70 rows x 1,400 columns took 0.9 ms each on two threads)
PARALLEL_VALUES = 2**20


def on_all_cores(n_values):
    """Whether a compiled loop over ``n_values`` values takes its parallel form: called from
    the main thread for at least ``PARALLEL_VALUES`` values.

    Examples
    --------
    >>> on_all_cores(10), on_all_cores(2**24)
    (False, True)
    """
    return n_values >= PARALLEL_VALUES and threading.current_thread() is threading.main_thread()
