"""svmkit on a Dask cluster: grid search on 1 and 2 workers, and CascadeSVC against one process.

Two parts, each on a ``LocalCluster`` of worker processes with one thread each, started afresh
(so that every worker's peak memory is that of the part measured) and warmed up before timing
(svmkit imported and its compiled code loaded on every worker), without Dask's
``MALLOC_TRIM_THRESHOLD_=65536`` unless ``--dask-malloc-trim``, and with Dask's monitors slowed
down (``QUIET_MONITORS``) unless ``--dask-monitors`` (see the README for both):

* **Grid search**: ``SVCGridSearch``'s default grid, the LIBSVM guide's (the seeds'):
  ``C = 2^-5 ... 2^15``, ``gamma = 2^3 ... 2^-15``, 110 points, 5-fold cross-validation, scaled
  to [-1, 1] in every fold: on 1 worker, the whole search as one task (joblib runs the jobs of a
  single worker thread in the calling process, not on the worker); on 2, through joblib's Dask
  backend with the data scattered once. The results must be identical.
* **CascadeSVC**: a random subset of ``--rows`` rows of covtype.binary (seed 0; ``--test-rows``
  others for the test), scaled to [-1, 1] with the training rows' ranges, or ijcnn1's
  training and test files (``--dataset ijcnn1``), RBF ``--C`` ``--gamma``, against a single-process ``svmkit.SVC`` with the same parameters: fit time,
  dual objective, test accuracy, predictions that agree, passes, and per worker its peak
  memory (``VmHWM``, the process's high-water mark of RSS; and its RSS after the warm-up,
  before the data) and the bytes it sent to other workers (Dask's own ``transfer_outgoing_bytes_total``).

Reads LIBSVM files from ``--data-dir`` (default ``../shared/data``); writes ``--json``
(default ``benchmarks/results/dask_cascade.json``), which ``benchmarks/report.py`` turns into
BENCHMARKS.md. ``--skip-grid``, ``--skip-cascade`` and ``--skip-single`` leave a part out (the
data of the second part is read where one of its fits remains). Examples::

    python benchmarks/dask_cascade.py --rows 100000
    python benchmarks/dask_cascade.py --skip-cascade --skip-single --grid-dataset splice
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from _common import (  # noqa: E402
    DEFAULT_DATA_DIR, PeakRSS, library_versions, scale_like_svm_scale, thread_settings, write_json,
)


class Case:
    def __init__(self, dataset, shape_text, params_text, results):
        self.dataset, self.shape_text, self.params_text, self.results = dataset, shape_text, params_text, results


def _warm_worker():
    """Import svmkit and load its compiled code on a worker (not timed): a small fit (kernel
    values in float64), one whose SMO zig-zags (steps on the face of the free multipliers, as
    the grid's large C take) and, scaled in a pipeline as the grid search's, a larger one
    (float32)."""
    import numpy as np

    from svmkit import SVC, SVCGridSearch
    from svmkit.datasets import load_heart_scale

    X, y = load_heart_scale()
    SVC().fit(X, y).predict(X)
    SVC(kernel="linear", C=100.0).fit(X, y)
    X = np.tile(X, (8, 1)) + np.random.default_rng(0).normal(scale=0.01, size=(8 * X.shape[0], X.shape[1]))
    SVCGridSearch(cv=2, log2_C=(0, 0, 1), log2_gamma=(0, 0, 1), progress=False).fit(X, np.tile(y, 8))


def _rss_mb():
    with open("/proc/self/statm") as handle:
        return int(handle.read().split()[1]) * resource.getpagesize() / 2**20


def _peak_rss_mb():
    """The process's high-water mark of RSS (``VmHWM``: since its ``exec``, unlike
    ``ru_maxrss``, which a spawned worker inherits from the process that started it)."""
    with open("/proc/self/status") as handle:
        for line in handle:
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def _worker_figures(dask_worker):
    return {
        "peak_rss_mb": _peak_rss_mb(),
        "sent_bytes": dask_worker.transfer_outgoing_bytes_total,
        "sent_transfers": dask_worker.transfer_outgoing_count_total,
    }


#: Dask's monitors slowed down, as the README advises where the scheduler shares the workers'
#: cores: the event loops' tick watch (every 20 ms by default), the workers' statistical
#: profiler (a stack sample every 10 ms), the memory monitor (100 ms) and the system monitor
#: (500 ms) take some 3% of a core in every process of an idle cluster.
QUIET_MONITORS = {
    "distributed.admin.tick.interval": "1s",
    "distributed.worker.profile.enabled": False,
    "distributed.worker.memory.monitor-interval": "1s",
    "distributed.admin.system-monitor.interval": "2s",
}


def cluster(n_workers, malloc_trim=False, dask_monitors=False):
    """A LocalCluster of warmed-up workers, without Dask's ``MALLOC_TRIM_THRESHOLD_`` (as the
    README advises for svmkit) unless ``malloc_trim``, its monitors slowed down
    (``QUIET_MONITORS``) unless ``dask_monitors``; and the workers' RSS after the warm-up."""
    import dask
    from distributed import Client, LocalCluster

    unset = {} if malloc_trim else {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}
    with dask.config.set({**unset, **({} if dask_monitors else QUIET_MONITORS)}):
        local = LocalCluster(n_workers=n_workers, threads_per_worker=1, processes=True, dashboard_address=None)
        client = Client(local)
    client.run(_warm_worker)
    return local, client, client.run(_rss_mb)


def _grid_search_here(X, y):
    from svmkit import SVCGridSearch

    return SVCGridSearch(cv=5, n_jobs=1).fit(X, y)


def grid_search(args):
    import joblib

    from svmkit import SVCGridSearch
    from svmkit.datasets import load_heart_scale
    from svmkit.io import load_libsvm

    if args.grid_dataset == "heart":
        X, y = load_heart_scale()
    else:
        X, y = load_libsvm(Path(args.data_dir) / args.grid_dataset)
        X = X.toarray()
    results, tables = {}, {}
    _warm_worker()  # (this process refits the best point after the 2 workers' search, as each worker warmed)
    for n_workers in (1, 2):
        local, client, _ = cluster(n_workers, args.dask_malloc_trim, args.dask_monitors)
        client.amm.stop()  # (as the README advises: its ReduceReplicas would drop the copies scatter=[X, y] made)
        try:
            started = time.perf_counter()
            if n_workers == 1:  # (joblib runs the jobs of one worker thread in this process: on the worker instead)
                search = client.submit(_grid_search_here, X, y).result()
            else:
                with joblib.parallel_config(backend="dask", scatter=[X, y]):
                    search = SVCGridSearch(cv=5).fit(X, y)
            seconds = time.perf_counter() - started
        finally:
            client.close()
            local.close()
        name = "svmkit" if n_workers == 1 else "svmkit-2-workers"
        results[name] = {"fit": seconds, "predict": None, "accuracy": search.best_score_}
        tables[n_workers] = search.cv_results_["mean_accuracy"]
        print(f"grid search {args.grid_dataset} {X.shape}, {len(tables[n_workers])} points x 5 folds on "
              f"{n_workers} worker(s): {seconds:.1f} s, best {search.best_params_} ({search.best_score_:.4f})",
              flush=True)
    identical = bool(np.array_equal(tables[1], tables[2]))
    speedup = results["svmkit"]["fit"] / results["svmkit-2-workers"]["fit"]
    results["svmkit-2-workers"].update(speedup=speedup, identical_results=identical)
    print(f"  2 workers / 1 worker speed-up {speedup:.2f}x; results identical: {identical}", flush=True)
    return Case(f"grid {args.grid_dataset}", f"{X.shape[0]}x{X.shape[1]}", "seeds' grid 11x10, 5 folds", results)


def covtype(args):
    from svmkit.io import load_libsvm

    X, y = load_libsvm(Path(args.data_dir) / "covtype.binary.bz2")
    order = np.random.default_rng(0).permutation(X.shape[0])
    train, test = order[:args.rows], order[args.rows:args.rows + args.test_rows]
    X_train, X_test = scale_like_svm_scale(X[train], X[test])
    return X_train, y[train], X_test, y[test]


def ijcnn1(args):
    """ijcnn1's training file (49,990 rows) and test file (91,701 rows), scaled as published."""
    from svmkit.io import load_libsvm

    X, y = load_libsvm(Path(args.data_dir) / "ijcnn1.bz2")
    X_test, y_test = load_libsvm(Path(args.data_dir) / "ijcnn1.t.bz2", n_features=X.shape[1])
    return X.toarray(), y, X_test.toarray(), y_test


def cascade(args):
    from svmkit import SVC

    X, y, X_test, y_test = (covtype if args.dataset == "covtype.binary" else ijcnn1)(args)
    params = dict(C=args.C, gamma=args.gamma, cache_size=args.cache_size)
    print(f"{args.dataset} {X.shape[0]} training rows, {X_test.shape[0]} test rows, RBF C={args.C} "
          f"gamma={args.gamma}", flush=True)
    results, single_labels = {}, None
    if not args.skip_single:
        with PeakRSS() as memory:
            started = time.perf_counter()
            single = SVC(**params).fit(X, y)
            seconds = time.perf_counter() - started
        single_labels = single.predict(X_test) if X_test.shape[0] else None  # (--test-rows 0: every row trains)
        results["svmkit"] = {"fit": seconds, "predict": None, "objective": float(single.dual_objective_),
                             "accuracy": float(np.mean(single_labels == y_test)) if X_test.shape[0] else None,
                             "peak_mb": memory.peak_mb, "support_vectors": int(single.support_.shape[0])}
        print(f"  single process: {seconds:.1f} s, dual {single.dual_objective_:.6f}, "
              f"{single.support_.shape[0]} SVs"
              + (f", accuracy {results['svmkit']['accuracy']:.4f}" if X_test.shape[0] else "")
              + f", peak {memory.peak_mb:.0f} MB", flush=True)
    if not args.skip_cascade:
        results["cascade-2-workers"] = _cascade_fit(args, X, y, X_test, y_test, params, results.get("svmkit"),
                                                    single_labels)
    return Case(args.dataset, f"{X.shape[0]}x{X.shape[1]}", f"rbf C={args.C:g} gamma={args.gamma:g}", results)


def _cascade_fit(args, X, y, X_test, y_test, params, single, single_labels):
    """CascadeSVC on a fresh cluster: its figures, compared with the single-process fit's
    (``single`` and its test labels, None where skipped)."""
    import dask.array as da

    from svmkit.dask import CascadeSVC

    local, client, warm_rss = cluster(args.workers, args.dask_malloc_trim, args.dask_monitors)
    try:
        dX = da.from_array(X, chunks=(-(-X.shape[0] // args.partitions), -1))
        dy = da.from_array(y, chunks=(dX.chunks[0],))
        started = time.perf_counter()
        model = CascadeSVC(**params, verbose=True).fit(dX, dy)
        seconds = time.perf_counter() - started
        workers = client.run(_worker_figures)
        for address, figures in workers.items():
            figures["rss_after_warm_up_mb"] = warm_rss[address]
    finally:
        client.close()
        local.close()
    labels = model.predict(X_test) if X_test.shape[0] else None  # (--test-rows 0: every row trains)
    partition_mb = X.nbytes / args.partitions / 2**20
    result = {
        "fit": seconds, "predict": None, "objective": float(model.dual_objective_),
        "accuracy": float(np.mean(labels == y_test)) if labels is not None else None, "passes": model.n_passes_, "history": model.history_,
        "support_vectors": int(model.support_.shape[0]), "kkt_violation": model.kkt_violation_,
        "duality_gap": float(model.duality_gap_), "partitions": args.partitions, "partition_mb": partition_mb,
        "workers": list(workers.values()),
        "sent_bytes_total": int(sum(w["sent_bytes"] for w in workers.values())),
        "support_vector_mb": model.support_vectors_.nbytes / 2**20,
    }
    if single is not None:
        reference = single["objective"]
        result["objective_difference"] = (result["objective"] - reference) / abs(reference)
        if labels is not None:
            result["agreement"] = float(np.mean(labels == single_labels))
    print(f"  cascade on {args.workers} workers, {args.partitions} partitions ({partition_mb:.1f} MB each): "
          f"{seconds:.1f} s, {model.n_passes_} passes, dual {result['objective']:.6f}"
          + (f" (relative difference {result['objective_difference']:+.2e})" if single is not None else "")
          + (f", agreement {result['agreement']:.4f}" if "agreement" in result else "")
          + (f", accuracy {result['accuracy']:.4f}" if labels is not None else "")
          + f", largest KKT violation {model.kkt_violation_:.2e}", flush=True)
    for address, figures in workers.items():
        print(f"  worker {address}: peak RSS {figures['peak_rss_mb']:.0f} MB ({figures['rss_after_warm_up_mb']:.0f} MB "
              f"after the warm-up), sent {figures['sent_bytes'] / 2**20:.1f} MB "
              f"in {figures['sent_transfers']} transfers", flush=True)
    print(f"  support vectors: {result['support_vectors']} rows, {result['support_vector_mb']:.1f} MB; "
          f"sent between workers in all: {result['sent_bytes_total'] / 2**20:.1f} MB", flush=True)
    return result


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR))
    parser.add_argument("--dataset", choices=("covtype.binary", "ijcnn1"), default="covtype.binary",
                        help="covtype.binary: --rows random rows (and --test-rows others), scaled to [-1, 1]; "
                             "ijcnn1: its training and test files (then pass --C 32 --gamma 2)")
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--test-rows", type=int, default=20_000)
    parser.add_argument("--C", type=float, default=4.0)
    parser.add_argument("--gamma", type=float, default=1.0)
    parser.add_argument("--cache-size", type=float, default=200.0)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--partitions", type=int, default=8)
    parser.add_argument("--grid-dataset", default="heart",
                        help="'heart' (svmkit's copy) or a LIBSVM file in --data-dir")
    parser.add_argument("--skip-grid", action="store_true")
    parser.add_argument("--skip-cascade", action="store_true", help="no CascadeSVC fit")
    parser.add_argument("--skip-single", action="store_true", help="no single-process fit (it takes long)")
    parser.add_argument("--dask-malloc-trim", action="store_true",
                        help="start the workers with Dask's MALLOC_TRIM_THRESHOLD_=65536 (by default unset)")
    parser.add_argument("--dask-monitors", action="store_true",
                        help="Dask's monitors at their default intervals (by default slowed: QUIET_MONITORS)")
    parser.add_argument("--json", default=str(HERE / "results" / "dask_cascade.json"))
    args = parser.parse_args(argv)
    for line in thread_settings():
        print(line)
    cases = []
    if not args.skip_grid:
        cases.append(grid_search(args))
    if not (args.skip_cascade and args.skip_single):
        cases.append(cascade(args))
    trim = "65536 (Dask's default)" if args.dask_malloc_trim else "unset"
    monitors = "at their defaults" if args.dask_monitors else "slowed (" + ", ".join(
        f"{key.split('.', 1)[1]}: {value}" for key, value in QUIET_MONITORS.items()) + ")"
    command = "python benchmarks/dask_cascade.py " + " ".join(argv if argv is not None else sys.argv[1:])
    write_json(args.json, "dask_cascade", command.strip(), library_versions(), cases,
               extra={"anchors": {"svmkit": "one worker / one process"},
                      "settings": f"LocalCluster of worker processes, 1 thread each, MALLOC_TRIM_THRESHOLD_ {trim}, "
                                  f"Dask's monitors {monitors}; "
                                  f"tol=1e-3, cache_size={args.cache_size:g} MB"})


if __name__ == "__main__":
    main()
