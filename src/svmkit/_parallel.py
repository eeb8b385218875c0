"""svmkit's threads: its worker threads (:func:`map_in_threads`), BLAS kept to one thread
(:func:`single_threaded_blas`) and when compiled loops take their parallel form
(:func:`on_all_cores`).

numba's workqueue threading layer (its fallback when neither TBB nor OpenMP is available)
aborts on concurrent launches of parallel loops, so only the main thread launches them; worker
threads (one-vs-one problems solved in parallel, a user's own threads) run the serial forms.
``NUMBA_NUM_THREADS`` limits numba's threads, ``OMP_NUM_THREADS`` / ``OPENBLAS_NUM_THREADS``
BLAS's, and ``OMP_NUM_THREADS`` svmkit's own (:func:`usable_cores`).
"""

import contextlib
import ctypes
import functools
import numbers
import os
import threading

import numpy as np
from threadpoolctl import ThreadpoolController

# Fewer values than this are computed on one thread: starting numba's parallel loop costs more
PARALLEL_VALUES = 2**20


def on_all_cores(n_values):
    """Whether a compiled loop over ``n_values`` values takes its parallel form: called from
    the main thread for at least ``PARALLEL_VALUES`` values, where more than one core is usable.

    Examples
    --------
    >>> on_all_cores(10), on_all_cores(2**24) == (usable_cores() > 1)
    (False, True)
    """
    return (n_values >= PARALLEL_VALUES and threading.current_thread() is threading.main_thread()
            and usable_cores() > 1)


def usable_cores():
    """The cores this process may run on (its CPU affinity where the system tells it), at most
    ``OMP_NUM_THREADS`` where the environment sets it: the usual limit of a process's
    numerical threads, which Dask's workers, job schedulers and users running several
    processes set.

    Examples
    --------
    >>> usable_cores() >= 1
    True
    """
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)
    limit = os.environ.get("OMP_NUM_THREADS", "").strip()
    return max(1, min(cores, int(limit))) if limit.isdigit() and int(limit) > 0 else cores


def resolve_n_jobs(n_jobs):
    """Number of worker threads of an estimator's ``n_jobs``: ``None`` or -1 every usable core
    (:func:`usable_cores`), a positive integer that many.

    Examples
    --------
    >>> resolve_n_jobs(3), resolve_n_jobs(None) == usable_cores()
    (3, True)
    """
    if n_jobs is None or n_jobs == -1:
        return usable_cores()
    if not isinstance(n_jobs, numbers.Integral) or isinstance(n_jobs, bool) or n_jobs < 1:
        raise ValueError(f"n_jobs must be None, -1 or a positive integer, got {n_jobs!r}.")
    return int(n_jobs)


_blas_controllers = None


def _blas_libraries():
    """``(controller, set_threads)`` of each BLAS library of the process, found once, at the
    first use: by then svmkit has imported SciPy's linear algebra, whose BLAS is another
    library than NumPy's (found at import, before it, one-vs-one pairs on two threads ran
    SciPy's BLAS on every core in each thread). ``set_threads(n)`` sets the library's thread
    count for the process from any thread (:func:`_thread_count_setter`)."""
    global _blas_controllers
    if _blas_controllers is None:
        _blas_controllers = [(library, _thread_count_setter(library))
                             for library in ThreadpoolController().select(user_api="blas").lib_controllers]
    return _blas_controllers


#: Names of OpenBLAS's ``openblas_set_num_threads_local`` (0.3.27 on) in the builds threadpoolctl
#: knows (SciPy's wheels prefix some of their symbols, and 64-bit-integer builds suffix them).
_LOCAL_SETTER_NAMES = tuple(f"{prefix}openblas_set_num_threads_local{suffix}"
                            for prefix in ("", "scipy_") for suffix in ("", "64_", "_64"))


def _thread_count_setter(library):
    """A function that sets ``library``'s thread count for the process, whichever thread calls
    it. OpenBLAS (0.3.30 at least) ignores ``openblas_set_num_threads`` (threadpoolctl's
    setter) from other threads once the main thread has called it, but not
    ``openblas_set_num_threads_local``, which despite its name sets the same count (a thread
    that sets one thread with it leaves every thread's products on one); other libraries get
    threadpoolctl's setter."""
    if library.internal_api == "openblas":
        for name in _LOCAL_SETTER_NAMES:
            function = getattr(library.dynlib, name, None)
            if function is not None:
                function.argtypes, function.restype = [ctypes.c_int], ctypes.c_int
                return function
    return library.set_num_threads


_single_thread_depth = 0  # how many single_threaded_blas contexts are open, in every thread
_saved_blas_threads = []  # (set_threads, count) of each library before the first open context
_single_thread_lock = threading.Lock()  # (the depth, the saved counts and their setting)


def blas_thread_count():
    """BLAS's number of threads as the user left it (``OMP_NUM_THREADS``,
    ``OPENBLAS_NUM_THREADS``, threadpoolctl's limits), also inside :func:`single_threaded_blas`:
    how many threads svmkit's own parts of BLAS work may take (:func:`map_in_threads`)."""
    if _single_thread_depth:
        return max((n_threads for _, n_threads in _saved_blas_threads), default=1)
    return max((library.num_threads for library, _ in _blas_libraries()), default=1)


@contextlib.contextmanager
def single_threaded_blas():
    """Context in which BLAS runs on one thread (for thin blocks, or inside worker threads).

    BLAS's thread count is one setting of the process: the first context to open, in any
    thread, sets it to one, and the last to close puts back what the first found; contexts
    opened in between (a worker thread, a problem of a multiclass fit, a fit in another of the
    user's threads) set nothing. The BLAS libraries are found once (threadpoolctl's ``limit``
    lists every library on each entry, which a fit of many small problems would pay per
    problem).
    """
    global _single_thread_depth, _saved_blas_threads
    with _single_thread_lock:
        if _single_thread_depth == 0:
            _saved_blas_threads = [(set_threads, library.num_threads) for library, set_threads in _blas_libraries()]
            for set_threads, _ in _saved_blas_threads:
                set_threads(1)
        _single_thread_depth += 1
    try:
        yield
    finally:
        with _single_thread_lock:
            _single_thread_depth -= 1
            if _single_thread_depth == 0:
                for set_threads, n_threads in _saved_blas_threads:
                    set_threads(n_threads)


def on_one_blas_thread(method):
    """Decorate a method ``fit(X, ...)`` (a kernel machine's) so that BLAS runs on one thread
    in it (:func:`single_threaded_blas`): its large products are shared out over svmkit's
    threads (:func:`blas_in_equal_parts`), and BLAS's own threads, which OpenBLAS keeps
    spinning for about 0.1 s after each call that woke them, stay asleep instead of taking a
    core from the solver's loops or the prediction that follows a fit. Where ``X`` is so small
    that no product of its rows reaches :data:`svmkit._plan.BLAS_UNTHREADED_WORK` (``n^2 d``
    multiply-adds) and no product with a vector :data:`svmkit._plan.BLAS_UNTHREADED_VALUES`
    (``n d``), BLAS is left as it is: it then takes one thread by itself, and setting the
    count costs more than such a fit's products.

    Examples
    --------
    >>> import numpy as np
    >>> class Model:
    ...     @on_one_blas_thread
    ...     def fit(self, X):
    ...         return blas_thread_count()  # (the count as the user left it)
    >>> Model().fit(np.zeros((1000, 10))) == Model().fit(np.zeros((10, 10))) == blas_thread_count()
    True
    """

    from ._plan import BLAS_UNTHREADED_VALUES, BLAS_UNTHREADED_WORK

    @functools.wraps(method)
    def on_one_thread(self, *args, **kwargs):
        shape = getattr(args[0] if args else kwargs.get("X"), "shape", ())
        if len(shape) == 2 and shape[0] * shape[0] * shape[1] < BLAS_UNTHREADED_WORK and \
                shape[0] * shape[1] < BLAS_UNTHREADED_VALUES:
            # (no product of such data reaches the size at which BLAS wakes its threads: as it is)
            return method(self, *args, **kwargs)
        with single_threaded_blas():
            return method(self, *args, **kwargs)

    return on_one_thread


def blas_in_equal_parts(function, length, multiply_adds, lower_triangle=False):
    """``function(first, last)`` over ``range(length)`` cut into equal parts (with
    ``lower_triangle``, parts of equal work where row ``i`` costs ``i + 1``: the rows of a
    square matrix's values up to its diagonal), one per thread
    that BLAS may take (:func:`blas_thread_count`, at most the usable cores), each part's BLAS
    on one thread, where its products make at least
    :data:`svmkit._plan.ONE_THREAD_BLAS_WORK` multiply-adds; else ``function(0, length)``
    once, BLAS on one thread (below :data:`svmkit._plan.BLAS_UNTHREADED_WORK`, where BLAS takes
    one by itself, as it is). BLAS's own threads are never woken: OpenBLAS's spin for some
    2^28 cycles (about 0.1 s) after each call that used them, and take a core from whatever
    svmkit runs next (a prediction right after a fit, the solver's compiled loops), while
    svmkit's threads wait for work without spinning.

    Examples
    --------
    >>> import numpy as np
    >>> A, out = np.arange(6.0).reshape(3, 2), np.empty((3, 3))
    >>> blas_in_equal_parts(lambda first, last: np.matmul(A[first:last], A.T, out=out[first:last]), 3, 18)
    >>> out[2]
    array([ 5., 23., 41.])
    """
    from ._plan import BLAS_UNTHREADED_WORK, ONE_THREAD_BLAS_WORK

    if multiply_adds < BLAS_UNTHREADED_WORK:
        function(0, length)
        return
    n_parts = min(usable_cores(), blas_thread_count(), length) if multiply_adds >= ONE_THREAD_BLAS_WORK else 1
    if n_parts <= 1:
        with single_threaded_blas():
            function(0, length)
        return
    shares = np.linspace(0.0, 1.0, n_parts + 1)
    bounds = (length * (np.sqrt(shares) if lower_triangle else shares)).astype(np.int64)
    bounds[-1] = length
    map_in_threads(lambda part: function(*part), list(zip(bounds[:-1], bounds[1:])), n_parts)


def map_in_threads(function, items, n_workers):
    """``[function(item) for item in items]`` on up to ``n_workers`` threads.

    The compiled solver, BLAS and NumPy's ``exp`` release the GIL, so
    independent two-class problems run in parallel; BLAS is kept to one thread
    meanwhile so that the workers do not oversubscribe the cores (with one
    worker too: ``n_jobs=1`` means one thread). The calling
    thread and ``n_workers - 1`` of the pool's threads, started once and kept
    (:class:`_PoolThread`), each take the next item until none is left. Called
    from one of those threads, the items run on it in turn.

    Examples
    --------
    >>> map_in_threads(lambda x: x * x, [1, 2, 3, 4], 2)
    [1, 4, 9, 16]
    """
    items = list(items)
    n_workers = min(n_workers, len(items))
    if getattr(_in_worker, "flag", False):
        return [function(item) for item in items]
    if n_workers <= 1:
        with single_threaded_blas():  # (one worker: one thread, BLAS's too)
            return [function(item) for item in items]
    results = [None] * len(items)
    positions = iter(range(len(items)))
    lock = threading.Lock()
    failed = threading.Event()

    def take_items():
        while not failed.is_set():
            with lock:
                k = next(positions, None)
            if k is None:
                return
            try:
                results[k] = function(items[k])
            except BaseException:
                failed.set()  # (the other threads take no further item)
                raise

    with single_threaded_blas():
        workers, started = _idle_workers(n_workers - 1), []
        try:
            for worker in workers:
                worker.start(take_items)
                started.append(worker)
            # the calling thread takes items too: it is running already, while a pool thread has
            # to be woken
            _mark_worker()  # (calls made by the items run in turn, as on the pool's threads)
            take_items()
        finally:
            _in_worker.flag = False
            failed.set()  # (where the caller stopped early: the others take no further item)
            try:
                errors = _join_all(started)  # (all of them, even through a second Ctrl-C: none runs on after the call)
            finally:
                _return_workers(workers)
        for error in errors:
            if error is not None:
                raise error
    return results


def _join_all(workers):
    """What each of ``workers``' tasks raised (None where nothing), once every one has ended;
    an interrupt of the wait (Ctrl-C) waits on, and is raised after them."""
    errors, interrupt = [], None
    for worker in workers:
        while True:
            try:
                errors.append(worker.join())
                break
            except BaseException as error:  # (KeyboardInterrupt: the task still runs)
                interrupt = interrupt or error
    if interrupt is not None:
        raise interrupt
    return errors


def in_equal_parts(function, length, n_values):
    """``function(first, last)`` over ``range(length)`` cut into equal parts, one per usable
    core, where work of ``n_values`` values takes its parallel form (:func:`on_all_cores`);
    else ``function(0, length)`` once. For compiled loops, which release the GIL.

    Examples
    --------
    >>> parts = []
    >>> in_equal_parts(lambda first, last: parts.append((first, last)), 10, 100)
    >>> parts
    [(0, 10)]
    """
    n_parts = min(usable_cores(), length) if on_all_cores(n_values) else 1
    if n_parts <= 1:
        function(0, length)
        return
    bounds = np.linspace(0, length, n_parts + 1).astype(np.int64)
    map_in_threads(lambda part: function(*part), list(zip(bounds[:-1], bounds[1:])), n_parts)


class _PoolThread:
    """A worker thread of :func:`map_in_threads`, started once and kept: it sleeps until given
    a task, runs it and says so. An event each way is all a task costs (an executor's futures
    and queue doubled the time of a call of two short tasks)."""

    def __init__(self):
        self._wake, self._done = threading.Event(), threading.Event()
        self._task, self._error = None, None
        threading.Thread(target=self._run, name="svmkit", daemon=True).start()

    def _run(self):
        _start_pool_thread()
        while True:
            self._wake.wait()
            self._wake.clear()
            try:
                self._task()
            except BaseException as error:  # (raised in the caller's thread by join)
                self._error = error
            finally:
                self._task = None
                self._done.set()

    def start(self, task):
        """Run ``task()`` on this thread."""
        self._error = None
        self._done.clear()
        self._task = task
        self._wake.set()

    def join(self):
        """Wait for the task; what it raised, or None (not kept: its frames hold the task's data)."""
        self._done.wait()
        error, self._error = self._error, None
        return error


_idle = []  # (the pool's threads without a task)
_idle_lock = threading.Lock()
_in_worker = threading.local()


def _idle_workers(n_workers):
    """``n_workers`` of the pool's idle threads, started where there are fewer (calls on
    several of a user's threads at once each take their own)."""
    with _idle_lock:
        taken = _idle[max(len(_idle) - n_workers, 0):] if n_workers else []
        del _idle[len(_idle) - len(taken):]
    return taken + [_PoolThread() for _ in range(n_workers - len(taken))]


def _return_workers(workers):
    with _idle_lock:
        _idle.extend(workers)


def _mark_worker():
    _in_worker.flag = True


def _start_pool_thread():
    _in_worker.pool_thread = True  # (for good: warn_at_caller finds no caller of fit here)
    _mark_worker()


def _forget_pool():
    """In a forked child the pool's threads do not exist (a task given to one would wait
    forever): start new ones when needed."""
    global _idle, _idle_lock
    _idle, _idle_lock = [], threading.Lock()


os.register_at_fork(after_in_child=_forget_pool)


def on_pool_thread():
    """Whether the calling thread is one of the pool's (:func:`map_in_threads`)."""
    return getattr(_in_worker, "pool_thread", False)
