"""Helpers shared by the benchmark scripts: thread settings, timing, peak-RSS
sampling, the SVM dual objective from fitted attributes, dataset loading and
small formatting utilities.

Nothing here imports svmkit, so a benchmark can compare libraries even while
svmkit itself is being edited.
"""

from __future__ import annotations

import logging
import os
import platform
import threading
import time
from pathlib import Path

import numpy as np
import scipy.sparse as sp

DEFAULT_DATA_DIR = Path(__file__).resolve().parents[2] / "shared" / "data"

THREAD_ENV_VARS = (
    "OMP_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "NUMBA_NUM_THREADS",
    "NUMBA_THREADING_LAYER",
    "TBB_NUM_THREADS",
)


# -- environment ---------------------------------------------------------------
def thread_settings():
    """Lines describing the machine and every thread setting that can change timings."""
    lines = []
    try:
        affinity = len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        affinity = None
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo") as handle:
            for line in handle:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    lines.append(f"machine: {cpu}; os.cpu_count()={os.cpu_count()}, usable cores (affinity)={affinity}; "
                 f"Python {platform.python_version()}")
    env = ", ".join(f"{name}={os.environ.get(name, 'unset')}" for name in THREAD_ENV_VARS)
    lines.append(f"env: {env}")
    try:
        import numba

        lines.append(f"numba {numba.__version__}: get_num_threads()={numba.get_num_threads()}, "
                     f"layer={numba.config.THREADING_LAYER}")
    except Exception:  # noqa: BLE001 - informative only
        pass
    try:
        import daal4py

        lines.append(f"oneDAL (daal4py) threads: {daal4py.num_threads()}")
    except Exception:  # noqa: BLE001
        pass
    try:
        from threadpoolctl import threadpool_info

        pools = threadpool_info()
        if pools:
            for pool in pools:
                lines.append(f"threadpoolctl: {pool.get('internal_api')} {pool.get('version')} "
                             f"num_threads={pool.get('num_threads')} ({Path(pool.get('filepath', '')).name})")
        else:
            lines.append("threadpoolctl: no native thread pool loaded yet")
    except ImportError:
        lines.append("threadpoolctl: not installed")
    return lines


def library_versions():
    """``name version`` of the libraries the SVM benchmarks compare."""
    from importlib import metadata

    distributions = {"sklearn": "scikit-learn", "sklearnex": "scikit-learn-intelex", "daal": "daal"}
    versions = {}
    for name in ("numpy", "scipy", "sklearn", "sklearnex", "daal", "numba", "threadpoolctl", "svmkit"):
        try:
            versions[name] = metadata.version(distributions.get(name, name))
        except metadata.PackageNotFoundError:
            try:
                versions[name] = getattr(__import__(name), "__version__", "?")
            except Exception as error:  # noqa: BLE001
                versions[name] = f"unavailable ({type(error).__name__})"
    try:
        import svmkit

        versions["svmkit"] += f" ({Path(svmkit.__file__).parent})"
    except Exception:  # noqa: BLE001
        pass
    return versions


def source_commit(path):
    """The short commit of the git work tree holding ``path``, with ``" + uncommitted changes"``
    when tracked files differ from it; None outside a git work tree. svmkit's version number
    does not change between commits, so results name the commit that was measured."""
    import subprocess

    def git(*arguments):
        return subprocess.run(["git", "-C", str(path), *arguments], capture_output=True, text=True,
                              timeout=30, check=True).stdout.strip()

    try:
        commit = git("rev-parse", "--short", "HEAD")
        changed = git("status", "--porcelain", "--untracked-files=no")
    except (OSError, subprocess.SubprocessError):
        return None
    return commit + (" + uncommitted changes" if changed else "")


# -- memory --------------------------------------------------------------------
def _status_kb(field):
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith(field):
                return int(line.split()[1])
    return None


def current_rss_mb():
    """Resident set size of this process in MB (Linux), or NaN."""
    try:
        kb = _status_kb("VmRSS:")
    except OSError:
        return float("nan")
    return float("nan") if kb is None else kb / 1024.0


def _reset_peak_rss():
    """Reset VmHWM to the current RSS (Linux >= 4.0); True when it worked."""
    try:
        with open("/proc/self/clear_refs", "w") as handle:
            handle.write("5")
        return True
    except OSError:
        return False


class PeakRSS:
    """Context manager measuring the peak RSS increase of a block of code, in MB.

    Where the kernel allows it, the high-water mark VmHWM is reset on entry
    and read on exit: the exact peak, with nothing running beside the code.
    Elsewhere a daemon thread reads VmRSS from ``/proc/self/status`` every
    ``interval`` seconds (native code that holds the GIL can starve it, so its
    peak may be low; it cost fits of 1-3 ms some 0.03 ms). ``peak_mb`` is the
    peak minus the RSS on entry (``baseline_mb``).
    No garbage collection is forced on entry: a full collection evicts the caches,
    and made the next fit of 1-5 ms take 0.7-0.8 ms longer, with any library.
    """

    def __init__(self, interval=0.005):
        self.interval = interval
        self.baseline_mb = float("nan")
        self.sampled_peak_mb = float("nan")
        self.hwm_peak_mb = float("nan")
        self.n_samples = 0
        self._stop = threading.Event()
        self._thread = None

    def _sample(self):
        peak = self.baseline_mb
        while not self._stop.is_set():
            peak = max(peak, current_rss_mb())
            self.n_samples += 1
            self._stop.wait(self.interval)
        self.sampled_peak_mb = max(peak, current_rss_mb())

    def __enter__(self):
        self._hwm = _reset_peak_rss()
        self.baseline_mb = current_rss_mb()
        if not self._hwm:
            self._stop.clear()
            self._thread = threading.Thread(target=self._sample, name="rss-sampler", daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc):
        if self._thread is not None:
            self._stop.set()
            self._thread.join()
            self._thread = None
        if self._hwm:
            try:
                self.hwm_peak_mb = _status_kb("VmHWM:") / 1024.0
            except (OSError, TypeError):
                self.hwm_peak_mb = float("nan")
        return False

    @property
    def peak_mb(self):
        peaks = [p for p in (self.sampled_peak_mb, self.hwm_peak_mb) if np.isfinite(p)]
        return max(peaks) - self.baseline_mb if peaks else float("nan")


def prefault(megabytes):
    """Write ``megabytes`` MB of fresh memory once and free it.

    On a virtual machine whose host backs guest memory only when it is first touched, a
    process's first writes to fresh memory cost 2-3 ms per MB and the same pages written again
    after they were freed 0.2 ms per MB: without this, whichever library runs first pays for
    the pages all of them use (see benchmarks/svc.py's docstring)."""
    if megabytes > 0:
        pages = np.empty(int(megabytes * 2**20) // 8)
        pages.fill(0.0)
        del pages


def timed(function, *args, **kwargs):
    """``(seconds, result)`` of one call, with ``time.perf_counter``."""
    start = time.perf_counter()
    result = function(*args, **kwargs)
    return time.perf_counter() - start, result


def busy(seconds):
    """Spin in a Python loop for ``seconds``: time passes and the core stays busy, while almost
    no memory is touched."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


def timed_with_memory(function, *args, **kwargs):
    """``(seconds, peak MB above the RSS before the call, result)``."""
    with PeakRSS() as memory:
        start = time.perf_counter()
        result = function(*args, **kwargs)
        elapsed = time.perf_counter() - start
    return elapsed, memory.peak_mb, result


# -- kernels and the dual objective --------------------------------------------
def numeric_gamma(gamma, X):
    """scikit-learn's numeric value of ``'scale'`` / ``'auto'`` (or ``gamma`` itself)."""
    if gamma == "scale":
        if sp.issparse(X):
            variance = X.multiply(X).mean() - X.mean() ** 2
        else:
            variance = np.asarray(X, dtype=np.float64).var()
        return 1.0 / (X.shape[1] * variance) if variance != 0 else 1.0
    if gamma == "auto":
        return 1.0 / X.shape[1]
    return float(gamma)


def _dense_or_csr(S, max_dense_bytes=256 * 2**20):
    if sp.issparse(S):
        S = sp.csr_matrix(S, dtype=np.float64)
        if S.shape[0] * S.shape[1] * 8 <= max_dense_bytes:
            return S.toarray()
        return S
    return np.asarray(S, dtype=np.float64)


def _row_sq_norms(S):
    if sp.issparse(S):
        return np.asarray(S.multiply(S).sum(axis=1)).ravel()
    return np.einsum("ij,ij->i", S, S)


def kernel_block(A, B, kernel, gamma=None, degree=3, coef0=0.0, B_sq_norms=None):
    """``K(A, B)`` as a dense float64 array from the kernel formula (A, B dense or CSR)."""
    product = A @ B.T
    product = product.toarray() if sp.issparse(product) else np.asarray(product)
    if kernel == "linear":
        return product
    if kernel == "rbf":
        b_norms = _row_sq_norms(B) if B_sq_norms is None else B_sq_norms
        sq = _row_sq_norms(A)[:, None] + b_norms[None, :] - 2.0 * product
        np.maximum(sq, 0.0, out=sq)
        return np.exp(-gamma * sq, out=sq)
    if kernel == "poly":
        return (gamma * product + coef0) ** degree
    if kernel == "sigmoid":
        return np.tanh(gamma * product + coef0)
    raise ValueError(f"unsupported kernel {kernel!r}")


def ovo_pair_coefficients(dual_coef, n_support):
    """Columns of one-vs-one coefficients in LIBSVM's layout, one column per pair.

    For the pair (i, j), i < j, the support vectors of class i take
    ``dual_coef[j - 1]`` and those of class j take ``dual_coef[i]``; all other
    entries of the column are zero. Returns an array (n_SV, n_pairs) and the
    list of pairs.
    """
    if sp.issparse(dual_coef):  # scikit-learn keeps it sparse after a sparse fit
        dual_coef = dual_coef.toarray()
    dual_coef = np.asarray(dual_coef, dtype=np.float64)
    n_support = np.asarray(n_support, dtype=np.int64)
    n_classes = n_support.shape[0]
    n_sv = dual_coef.shape[1]
    if n_classes <= 2:
        return dual_coef[0][:, None].copy(), [(0, 1)]
    start = np.concatenate([[0], np.cumsum(n_support)])
    pairs = [(i, j) for i in range(n_classes) for j in range(i + 1, n_classes)]
    coefficients = np.zeros((n_sv, len(pairs)))
    for column, (i, j) in enumerate(pairs):
        coefficients[start[i]:start[i + 1], column] = dual_coef[j - 1, start[i]:start[i + 1]]
        coefficients[start[j]:start[j + 1], column] = dual_coef[i, start[j]:start[j + 1]]
    return coefficients, pairs


def dual_objective(model, kernel, gamma=None, degree=3, coef0=0.0, block_bytes=64 * 2**20, per_pair=False):
    """The C-SVC dual objective ``sum |c| - 1/2 c'K c`` of a fitted model, summed over pairs.

    Uses only ``dual_coef_``, ``support_vectors_`` and ``n_support_`` (LIBSVM's
    one-vs-one layout), so it is computed the same way for every library. The
    kernel matrix of the support vectors is formed in row blocks of about
    ``block_bytes`` and multiplied at once by the coefficients of all pairs.
    """
    coefficients, pairs = ovo_pair_coefficients(model.dual_coef_, model.n_support_)
    S = _dense_or_csr(model.support_vectors_)
    n_sv = S.shape[0]
    quadratic = np.zeros(len(pairs))
    if n_sv:
        s_norms = _row_sq_norms(S) if kernel == "rbf" else None
        rows = max(1, int(block_bytes // (8 * n_sv)))
        for begin in range(0, n_sv, rows):
            end = min(n_sv, begin + rows)
            K = kernel_block(S[begin:end], S, kernel, gamma, degree, coef0, B_sq_norms=s_norms)
            quadratic += np.einsum("ip,ip->p", coefficients[begin:end], K @ coefficients)
    objectives = np.abs(coefficients).sum(axis=0) - 0.5 * quadratic
    return objectives if per_pair else float(objectives.sum())


def kernel_quadratic_forms(S, coefficients, kernel, gamma=None, degree=3, coef0=0.0, block_bytes=64 * 2**20):
    """``c'K c`` for every column ``c`` of ``coefficients`` (n_SV, k), ``K`` the kernel matrix of
    the rows of ``S``, formed in row blocks of about ``block_bytes``: the quadratic term of any
    SVM dual (one-class, regression, nu-SVC), computed the same way for every library."""
    coefficients = np.asarray(coefficients, dtype=np.float64)
    if coefficients.ndim == 1:
        coefficients = coefficients[:, None]
    S = _dense_or_csr(S)
    n_sv = S.shape[0]
    quadratic = np.zeros(coefficients.shape[1])
    if n_sv:
        s_norms = _row_sq_norms(S) if kernel == "rbf" else None
        rows = max(1, int(block_bytes // (8 * n_sv)))
        for begin in range(0, n_sv, rows):
            end = min(n_sv, begin + rows)
            K = kernel_block(S[begin:end], S, kernel, gamma, degree, coef0, B_sq_norms=s_norms)
            quadratic += np.einsum("ip,ip->p", coefficients[begin:end], K @ coefficients)
    return quadratic


# -- data ----------------------------------------------------------------------
def with_int32_indices(X):
    """CSR with 32-bit indices (some scikit-learn wrappers reject 64-bit ones)."""
    X = sp.csr_matrix(X, dtype=np.float64)
    X.sort_indices()
    return sp.csr_matrix((X.data, X.indices.astype(np.int32), X.indptr.astype(np.int32)), shape=X.shape)


def shape_text(X):
    """``n x d`` of a data set as the results show it: ``"270x13"``, ``"8000x123 csr(11%)"``."""
    n, d = X.shape
    text = f"{n}x{d}"
    if sp.issparse(X):
        text += f" csr({X.nnz / (n * d):.0%})"
    return text


def load_split(data_dir, train_name, test_name, n_features=None):
    """``(X_train, y_train, X_test, y_test)`` as CSR from two LIBSVM files, or None when one is missing."""
    from sklearn.datasets import load_svmlight_file

    paths = [Path(data_dir) / train_name, Path(data_dir) / test_name]
    missing = [str(path) for path in paths if not path.exists()]
    if missing:
        print(f"  missing {', '.join(missing)}: skipped")
        return None
    X_train, y_train = load_svmlight_file(str(paths[0]), n_features=n_features)
    X_test, y_test = load_svmlight_file(str(paths[1]), n_features=n_features or X_train.shape[1])
    return with_int32_indices(X_train), y_train, with_int32_indices(X_test), y_test


def crossed_features(X, n_columns=2**20):
    """CSR ``X`` of binary features with every pair of a row's features (their conjunction)
    added, hashed into ``n_columns`` columns (the pair ``(f, g)``, ``f < g``, to column
    ``(f * d + g) * 2654435761 mod n_columns``, ``d`` the features; the features keep their
    columns): the feature crosses of sparse categorical data, which make its rows as sparse
    and as wide as text rows."""
    X = sp.csr_matrix(X)
    X.sort_indices()
    lengths = np.diff(X.indptr)
    row_of = np.repeat(np.arange(X.shape[0]), lengths)
    row_end = X.indptr[1:][row_of]
    features = X.indices.astype(np.int64)
    rows, columns = [row_of], [features]
    for offset in range(1, int(lengths.max(initial=1))):
        first = np.flatnonzero(np.arange(X.nnz) + offset < row_end)
        rows.append(row_of[first])
        columns.append((features[first] * X.shape[1] + features[first + offset]) * 2654435761 % n_columns)
    rows, columns = np.concatenate(rows), np.concatenate(columns)
    crossed = sp.csr_matrix((np.ones(rows.shape[0]), (rows, columns)), shape=(X.shape[0], n_columns))
    crossed.sum_duplicates()
    return with_int32_indices(crossed)


def scale_like_svm_scale(X_train, X_test, lower=-1.0, upper=1.0):
    """Map each feature linearly to [lower, upper] with the training split's ranges
    (``svm-scale -l -1 -u 1 -s range`` then ``-r range`` on the test split; constant
    features become 0, test values may fall outside the interval)."""
    X_train = np.asarray(X_train.toarray() if sp.issparse(X_train) else X_train, dtype=np.float64)
    X_test = np.asarray(X_test.toarray() if sp.issparse(X_test) else X_test, dtype=np.float64)
    low, high = X_train.min(axis=0), X_train.max(axis=0)
    span = np.where(high > low, high - low, 1.0)

    def apply(X):
        scaled = lower + (upper - lower) * (X - low) / span
        scaled[:, high == low] = 0.0
        return scaled

    return apply(X_train), apply(X_test)


def power_law(sizes, seconds):
    """Least-squares fit of ``t = a n^b`` on log-log axes; ``(a, b)`` or None with fewer than two points."""
    sizes = np.asarray(sizes, dtype=np.float64)
    seconds = np.asarray(seconds, dtype=np.float64)
    keep = np.isfinite(seconds) & (seconds > 0)
    if keep.sum() < 2:
        return None
    b, log_a = np.polyfit(np.log(sizes[keep]), np.log(seconds[keep]), 1)
    return float(np.exp(log_a)), float(b)


# -- logging of scikit-learn-intelex's dispatch ----------------------------------
class SklearnexDispatch(logging.Handler):
    """Records whether scikit-learn-intelex ran oneDAL or fell back to scikit-learn."""

    def __init__(self):
        super().__init__(level=logging.INFO)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())

    def __enter__(self):
        self.messages.clear()
        self._logger = logging.getLogger("sklearnex")
        self._old = (self._logger.level, self._logger.propagate, list(self._logger.handlers))
        for handler in self._old[2]:  # sklearnex's own stderr handler would print every call
            self._logger.removeHandler(handler)
        self._logger.setLevel(logging.INFO)
        self._logger.propagate = False
        self._logger.addHandler(self)
        return self

    def __exit__(self, *exc):
        self._logger.removeHandler(self)
        for handler in self._old[2]:
            self._logger.addHandler(handler)
        self._logger.setLevel(self._old[0])
        self._logger.propagate = self._old[1]
        return False

    @property
    def summary(self):
        """'oneDAL', 'fallback' or 'unknown' over the recorded calls."""
        text = " ".join(self.messages).lower()
        if "fallback" in text or "original scikit-learn" in text:
            return "fallback"
        if "accelerated" in text:
            return "oneDAL"
        return "unknown"


# -- formatting ------------------------------------------------------------------
def fmt(value, spec=".3f", missing="-"):
    if value is None or (isinstance(value, float) and not np.isfinite(value)):
        return missing
    return format(value, spec)


def text_table(header, rows):
    """Columns aligned with two spaces between them; numbers right-aligned."""
    widths = [max(len(str(h)), *(len(str(r[k])) for r in rows)) if rows else len(str(h)) for k, h in enumerate(header)]

    def line(cells, is_header=False):
        out = []
        for k, cell in enumerate(cells):
            cell = str(cell)
            numeric = not is_header and cell.replace(".", "", 1).replace("-", "", 1).replace("e", "", 1).isdigit()
            out.append(cell.rjust(widths[k]) if numeric or (is_header and k > 0) else cell.ljust(widths[k]))
        return "  ".join(out).rstrip()

    return "\n".join([line(header, True), "  ".join("-" * w for w in widths)] + [line(r) for r in rows])


def markdown_table(header, rows):
    out = ["| " + " | ".join(str(h) for h in header) + " |", "|" + "|".join("---" for _ in header) + "|"]
    out += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return "\n".join(out)


# -- results -------------------------------------------------------------------
def write_json(path, benchmark, command, versions, cases, extra=None):
    """The results of a run as JSON (``benchmarks/results/``, read by ``benchmarks/report.py``):
    the command, date, machine, versions and the commit of this work tree (the svmkit measured,
    where it is installed from here), and per case and library the figures measured."""
    import datetime
    import json

    records = []
    for case in cases:
        records.append({
            "dataset": case.dataset, "shape": case.shape_text, "params": case.params_text,
            "results": {library: {key: value for key, value in result.items() if key != "dispatch"}
                        for library, result in case.results.items()},
        })
    document = {
        "benchmark": benchmark, "command": command, "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "machine": thread_settings()[0], "versions": versions, "cases": records,
        "commit": source_commit(Path(__file__).resolve().parent), **(extra or {}),
    }
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text(json.dumps(document, indent=1, default=float) + "\n")
    print(f"results written to {path}")
