"""Kernel SVC: svmkit against scikit-learn (LIBSVM) and scikit-learn-intelex (oneDAL).

All three estimators get the same data, C, numeric gamma, tol (1e-3) and
cache_size (200 MB), and run interleaved in one process (rep 1: svmkit,
sklearn, sklearnex; rep 2: svmkit, sklearnex, sklearn; rep 3 as rep 1, ...: the
calls of each library follow those of each other one equally often, across the
repetitions too; right after a oneDAL call, whose OpenMP threads stay busy for
a while on this 2-core machine, a fit of 1 ms took 0.2 ms longer), after
warm-up fits of each on small subsets
(numba compilation, thread pools and library loading are not timed). For every
dataset and library the script prints

* the median fit time and median prediction time (``decision_function`` on
  the test split), and their ratios to scikit-learn and to sklearnex;
* the dual objective ``sum_pairs (sum |c| - 1/2 c'K c)``, computed the same way
  for all three from ``dual_coef_`` / ``support_vectors_`` (LIBSVM's
  one-vs-one layout) with the kernel formula, and its relative difference to
  scikit-learn's (positive: a larger, i.e. better, dual value);
* the number of support vectors, the test accuracy and the peak memory of a fit
  (the kernel's high-water mark of RSS, reset before the fit, where Linux allows
  it; else RSS sampled every 5 ms; minus the RSS before the fit; the largest
  over the repetitions and the untimed rounds before them).

Before each dataset's warm-up, ``--prefault-mb`` (1,024) MB are written once and freed: on a
virtual machine whose host backs guest memory only when it is first touched, a process's first
writes to fresh memory cost 2-3 ms per MB (400 MB: 0.8-1.2 s; the same pages written again after
they were freed, 0.2 ms per MB), and whichever library ran first paid for all (a single fit of the
synthetic n = 10,000 problem: svmkit 1.77 s after the warm-ups, 0.25-0.30 s with the pages
written beforehand; LIBSVM and oneDAL, running after it, found the pages it had freed).

Garbage is collected once per dataset, before the prefault and the warm-up, not before
each timed call: a full collection evicts the caches, and the fit after one took 0.7-0.8 ms
longer with every library (heart_scale: svmkit 0.96 -> 1.69 ms, scikit-learn
2.99 -> 3.83 ms), which made the ratios of small problems look closer to 1. It also empties
CPython's free lists (of floats, tuples, dicts, ...), and the calls after it run slower until
they are filled again: with the collection between the warm-up and the timed repetitions,
svmkit's prediction on wine took 47.6, 42.3, 26.0, 24.0, ... 19.6, 19.1 us in 15
repetitions (scikit-learn's 342, 261, 248, 253 us in the first four), so the median of 5
was that of the first repetitions only; the warm-up now fills the lists again.

After the warm-up, up to ``--warm-up-rounds`` (8) rounds of every library on the whole dataset,
interleaved as the timed ones, are untimed, as long as a round takes less than
``--warm-up-round-seconds`` (0.25 s; a round of a larger dataset is timed from the first). On
small datasets every library's fits get faster over the first rounds after the warm-up: heart
RBF, 12 rounds, fit times in us,

* svmkit 472, 432, 340, 326, 353, 307, 286, 279, 278, 278, 271, 273 (45 minor page faults in
  each of the first two fits, none after);
* scikit-learn 1054, 956, 929, 915, 914, 884, 943, 877, 878, 874, 874, 924;
* oneDAL 1648, 1404, 1440, 1379, 1292, 1278, 1323, 1275, 1451, 1264, 1266, 1267 (118 faults
  in the first);

so that a median of 5 measured the first fits after a change of dataset rather than the cost of a
fit. ``--warm-up-rounds 0`` measures as before.

If a library's first fit of a dataset takes longer than ``--max-seconds``, its
other repetitions are skipped and the single time is reported ("fits" = 1).

Datasets (LIBSVM files in ``--data-dir``; missing ones are skipped):

=============  ===================================================  ===========================
a9a            32561 x 123 sparse 0/1 (CSR), test 16281              RBF C=1 gamma=0.05; linear C=1
a9a-dense      the same as a dense array                             RBF C=1 gamma=0.05; linear C=1
a9a-crossed    a9a's first 10,000 training rows and first 5,000 test  RBF C=1 gamma=0.01; linear C=1
               rows with every pair of a row's features (their con-
               junctions) hashed into 2^20 columns: real rows made
               high-dimensional and sparse, as text rows, some 100
               nonzeros a row (crossed_features); not in the
               default run
usps           7291 x 256 dense, 10 classes, test 2007               RBF C=10 gamma='scale' (numeric); linear C=1
splice         1000 x 60 unscaled, test 2175                         RBF C=1 gamma='scale' (numeric); linear C=1
svmguide1      3089 x 4 scaled to [-1, 1] (svm-scale), test 4000     RBF C=2 gamma=2; linear C=2
heart          heart_scale, LIBSVM's example: 270 x 13 scaled to     RBF C=1 gamma='scale' (numeric); linear C=1
               [-1, 1]; a stratified quarter (seed 0) is the test
digits         scikit-learn's copy, 1797 x 64, 10 classes, standar-  RBF C=1 gamma='scale' (numeric); linear C=1
               dised; a stratified quarter (seed 0) is the test
cancer         scikit-learn's breast cancer, 569 x 30, standardised;  RBF C=1 gamma='scale' (numeric); linear C=1
               a stratified quarter (seed 0) is the test
iris, wine     scikit-learn's copies: 150 x 4 and 178 x 13, 3        RBF C=1 gamma='scale' (numeric); linear C=1
               classes each, standardised; a stratified quarter
               (seed 0) is the test
sparse-text    synthetic text-like rows: 5000 x 20,000 CSR, 40        RBF C=1 gamma='scale' (numeric); linear C=1
               nonzeros a row (0.2%) drawn from Zipf-like feature
               frequencies, labels from a sparse linear rule with
               5% flipped (seed 0); test 2500
many-classes   letter-like: make_classification, 26 classes, 16      RBF C=1 gamma='scale' (numeric); linear C=1
               features (12 informative), standardised, 5000 rows,
               test 2000 (seed 0); not in the default run
wide-linear    madelon-like: make_classification, 2000 x 500 (20      RBF C=1 gamma='scale' (numeric); linear C=1
               informative), standardised, test 667 (seed 0); hard
               for SMO with the linear kernel (LIBSVM: some 40 s a
               fit); not in the default run
ijcnn1-like    the issue's anchor setting without the file: make_classi-  RBF C=32 gamma=2
               fication, 50,000 x 22 (8 informative, 4 redundant),
               10% positive, 1% of labels flipped, each feature
               mapped to [-1, 1] as svm-scale does; test 10,000 (seed
               0); not in the default run
mnist-like     MNIST's kind without the file: make_classification,  RBF C=1 gamma='scale' (numeric); linear C=1
               18,000 x 784, 10 classes (60 informative, 40 redun-
               dant, two clusters a class), values cut to 23% non-
               zeros in [0, 1], CSR; test 3,000 (seed 0); not in the
               default run (LIBSVM: some 5 minutes a fit)
small-shapes   seven noisy two-class problems of make_classification  RBF C=1 gamma='scale' (numeric); linear C=1
               in the shapes of LIBSVM's small binary datasets, 145 x
               5 ... 1243 x 21 (SMALL_SHAPES), standardised, 10% of
               labels flipped, test a third of n (seed 0); not in
               the default run
w8a-like       w8a's shape without the file: 49,749 x 300 binary     RBF C=1 gamma='scale' (numeric); linear C=1
               CSR, 12 nonzeros a row (4%) with Zipf-like feature
               frequencies, 3% positive by a sparse linear rule, 1%
               of labels flipped; test 14,951 (seed 0); not in the
               default run
covtype-like   covtype.binary's kind without the file: make_classi-  RBF C=1 gamma='scale' (numeric); linear C=1
               fication, 50,000 x 54 (12 informative), 5% of labels
               flipped, mapped to [-1, 1] as svm-scale does; test
               10,000 (seed 0); not in the default run
synthetic      make_classification, 20 features, flip_y=0.05,        RBF C=1 gamma=0.05
               standardised; n = --synthetic-sizes, test 10% of n
               (at most 10,000 rows); fit time ~ a n^b is fitted
=============  ===================================================  ===========================

Any other name is read as a LIBSVM file: ``--data-dir``/NAME (or NAME as a path; ``.bz2`` and
``.gz`` are read too), with its test split from NAME.t beside it (``x.bz2``: ``x.t.bz2``) or,
without one, a stratified quarter held out (seed 0). It is kept as CSR when at most a quarter of
its values are nonzero, dense otherwise; ``--svm-scale`` maps its features to [-1, 1] first (for
files that are not scaled already). Its settings are ``--C`` (default 1) and ``--gamma`` (default
'scale') for RBF, ``--C`` for linear: the same targets checked on other real datasets, e.g.
``--datasets ijcnn1 --C 32 --gamma 2``.

heart, digits, cancer, iris and wine are small problems, where per-problem overheads count (digits
has 45 one-vs-one problems of some 270 rows, iris and wine three of under 100); digits, cancer, iris
and wine ship with scikit-learn (no files needed).

A last line times a small problem (200 x 10, median of 50 fits in a warm process).

Usage::

    python benchmarks/svc.py [--data-dir ../shared/data] [--datasets a9a,usps,...]
        [--repeats 3] [--kernels rbf,linear] [--synthetic-sizes 2000,5000,...]
        [--skip-anchors] [--max-seconds 300] [--markdown out.md]
"""

from __future__ import annotations

import argparse
import datetime
import gc
import shlex
import sys
import time
import traceback
import warnings
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import scipy.sparse as sp

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import (  # noqa: E402
    DEFAULT_DATA_DIR,
    write_json,
    SklearnexDispatch,
    crossed_features,
    dual_objective,
    fmt,
    library_versions,
    load_split,
    markdown_table,
    numeric_gamma,
    power_law,
    prefault,
    scale_like_svm_scale,
    text_table,
    thread_settings,
    timed,
    timed_with_memory,
    with_int32_indices,
)

LIBRARIES = ("svmkit", "baseline", "sklearn", "sklearnex")
ALL_DATASETS = ("a9a", "a9a-dense", "usps", "splice", "svmguide1", "heart", "digits", "cancer", "iris", "wine",
                "sparse-text", "synthetic")
KNOWN_DATASETS = ALL_DATASETS + ("many-classes", "wide-linear", "small-shapes", "ijcnn1-like", "mnist-like",
                                  "w8a-like", "covtype-like", "a9a-crossed")  # only when named
SPARSE_DENSITY = 0.25  # a LIBSVM file of other data is kept as CSR up to this fraction of nonzero values
# (rows, features) of LIBSVM's small binary datasets: liver-disorders, sonar, ionosphere, australian,
# diabetes, german.numer, svmguide3
SMALL_SHAPES = ((145, 5), (208, 60), (351, 34), (690, 14), (768, 8), (1000, 24), (1243, 21))
DEFAULT_SIZES = (2000, 5000, 10000, 20000, 50000, 100000, 200000)
SYNTHETIC_TOTAL = 200_000 + 10_000  # rows generated once; every size takes a prefix (nested series)


# -- estimators ------------------------------------------------------------------
def estimator_classes(libraries, baseline=None):
    """``{library: SVC class}`` for the libraries that import; messages for the others
    (``baseline``: the worker of another svmkit install, see ``_baseline.py``)."""
    classes = {}
    for library in libraries:
        try:
            if library == "baseline":
                if baseline is None:
                    continue
                from _baseline import estimator_class

                SVC = estimator_class(baseline, "SVC")
            elif library == "svmkit":
                from svmkit import SVC
            elif library == "sklearn":
                from sklearn.svm import SVC
            elif library == "sklearnex":
                from sklearnex.svm import SVC
            else:
                raise ValueError(f"unknown library {library!r}")
            classes[library] = SVC
        except Exception as error:  # noqa: BLE001 - report and go on without it
            print(f"cannot import {library}'s SVC ({type(error).__name__}: {error}): skipped")
    return classes


# -- cases -----------------------------------------------------------------------
@dataclass
class Case:
    dataset: str
    X_train: object
    y_train: np.ndarray
    X_test: object
    y_test: np.ndarray
    kernel: str
    C: float
    gamma: float | None
    gamma_note: str = ""
    results: dict = field(default_factory=dict)
    warm_up_rounds: int = 0  # untimed interleaved rounds before the timed repetitions

    @property
    def shape_text(self):
        n, d = self.X_train.shape
        text = f"{n}x{d}"
        if sp.issparse(self.X_train):
            text += f" csr({self.X_train.nnz / (n * d):.0%})"
        return text

    @property
    def params_text(self):
        text = f"{self.kernel} C={self.C:g}"
        if self.kernel != "linear":
            text += f" g={self.gamma:.4g}{self.gamma_note}"
        return text


def _cases_for(dataset, X_train, y_train, X_test, y_test, settings, kernels):
    cases = []
    for kernel, C, gamma in settings:
        if kernel not in kernels:
            continue
        note = ""
        if isinstance(gamma, str):
            note = f" ({gamma})"
            gamma = numeric_gamma(gamma, X_train)
        cases.append(Case(dataset, X_train, y_train, X_test, y_test, kernel, C,
                          None if kernel == "linear" else float(gamma), note))
    return cases


def real_cases(name, data_dir, kernels, cache, file_settings=None):
    """The cases of one real dataset (empty when its files are missing). A name that is not
    one of ``KNOWN_DATASETS`` is a LIBSVM file (:func:`file_cases`, with ``file_settings``)."""
    if name == "a9a-crossed":
        if "a9a" not in cache:
            cache["a9a"] = load_split(data_dir, "a9a", "a9a.t", n_features=123)
        if cache["a9a"] is None:
            return []
        X_train, y_train, X_test, y_test = cache["a9a"]
        X_train, X_test = crossed_features(X_train[:10_000]), crossed_features(X_test[:5_000])
        return _cases_for(name, X_train, y_train[:10_000], X_test, y_test[:5_000],
                          [("rbf", 1.0, 0.01), ("linear", 1.0, None)], kernels)
    if name in ("a9a", "a9a-dense"):
        if "a9a" not in cache:
            cache["a9a"] = load_split(data_dir, "a9a", "a9a.t", n_features=123)
        split = cache["a9a"]
        if split is None:
            return []
        X_train, y_train, X_test, y_test = split
        if name == "a9a-dense":
            X_train, X_test = X_train.toarray(), X_test.toarray()
        return _cases_for(name, X_train, y_train, X_test, y_test, [("rbf", 1.0, 0.05), ("linear", 1.0, None)], kernels)
    if name == "usps":
        split = load_split(data_dir, "usps.bz2", "usps.t.bz2", n_features=256)
        if split is None:
            return []
        X_train, y_train, X_test, y_test = split
        cases = [("rbf", 10.0, "scale"), ("linear", 1.0, None)]
        return _cases_for(name, X_train.toarray(), y_train, X_test.toarray(), y_test, cases, kernels)
    if name == "splice":
        split = load_split(data_dir, "splice", "splice.t", n_features=60)
        if split is None:
            return []
        X_train, y_train, X_test, y_test = split
        cases = [("rbf", 1.0, "scale"), ("linear", 1.0, None)]
        return _cases_for(name, X_train.toarray(), y_train, X_test.toarray(), y_test, cases, kernels)
    if name == "svmguide1":
        split = load_split(data_dir, "svmguide1", "svmguide1.t", n_features=4)
        if split is None:
            return []
        X_train, y_train, X_test, y_test = split
        X_train, X_test = scale_like_svm_scale(X_train, X_test)
        return _cases_for(name, X_train, y_train, X_test, y_test, [("rbf", 2.0, 2.0), ("linear", 2.0, None)], kernels)
    if name == "heart":
        from sklearn.datasets import load_svmlight_file

        path = Path(data_dir) / "heart_scale"
        if not path.exists():
            print(f"  missing {path}: skipped")
            return []
        X, y = load_svmlight_file(str(path), n_features=13)
        X_train, X_test, y_train, y_test = _quarter_held_out(X.toarray(), y)  # (scaled to [-1, 1] already)
        return _cases_for(name, X_train, y_train, X_test, y_test, [("rbf", 1.0, "scale"), ("linear", 1.0, None)], kernels)
    if name in ("digits", "cancer", "iris", "wine"):
        from sklearn.datasets import load_breast_cancer, load_digits, load_iris, load_wine

        loader = {"digits": load_digits, "cancer": load_breast_cancer, "iris": load_iris, "wine": load_wine}[name]
        X, y = loader(return_X_y=True)
        X_train, X_test, y_train, y_test = _quarter_held_out(X, y)
        X_train, X_test = _standardised(X_train, X_test)
        return _cases_for(name, X_train, y_train, X_test, y_test, [("rbf", 1.0, "scale"), ("linear", 1.0, None)], kernels)
    if name == "small-shapes":
        cases = []
        for n_train, n_features in SMALL_SHAPES:
            X_train, y_train, X_test, y_test = small_shape_split(n_train, n_features)
            settings = [("rbf", 1.0, "scale"), ("linear", 1.0, None)]
            cases += _cases_for(f"{n_train}x{n_features}", X_train, y_train, X_test, y_test, settings, kernels)
        return cases
    if name in GENERATED_SPLITS:
        X_train, y_train, X_test, y_test = GENERATED_SPLITS[name]()
        return _cases_for(name, X_train, y_train, X_test, y_test, [("rbf", 1.0, "scale"), ("linear", 1.0, None)], kernels)
    if name == "ijcnn1-like":
        X_train, y_train, X_test, y_test = ijcnn1_like_split()
        return _cases_for(name, X_train, y_train, X_test, y_test, [("rbf", 32.0, 2.0), ("linear", 32.0, None)], kernels)
    return file_cases(name, data_dir, kernels, **(file_settings or {}))


def file_cases(name, data_dir, kernels, C=1.0, gamma="scale", svm_scale=False, train_rows=None):
    """The cases of a LIBSVM file that is not one of ``KNOWN_DATASETS``: ``data_dir/name`` (or
    ``name`` as a path), its test split ``name.t`` beside it (before a ``.bz2`` or ``.gz``
    suffix) or a stratified quarter held out; CSR when at most ``SPARSE_DENSITY`` of its values
    are nonzero, else dense; features mapped to [-1, 1] first with ``svm_scale``; with
    ``train_rows``, that many random training rows and a quarter as many test rows (seed 0)."""
    path = data_file(name, data_dir)
    if path is None:
        raise ValueError(f"unknown dataset {name!r}: no file {Path(data_dir) / name}; the named datasets are "
                         f"{', '.join(KNOWN_DATASETS)}")
    suffix = path.suffix if path.suffix in (".bz2", ".gz") else ""
    test_path = path.with_name(path.name[: len(path.name) - len(suffix)] + ".t" + suffix)
    if test_path.exists():
        X_train, y_train, X_test, y_test = load_split(path.parent, path.name, test_path.name)
    else:
        from sklearn.datasets import load_svmlight_file

        X, y = load_svmlight_file(str(path))
        X_train, X_test, y_train, y_test = _quarter_held_out(with_int32_indices(X), y)
    if train_rows is not None and train_rows < X_train.shape[0]:
        rng = np.random.RandomState(0)
        train = np.sort(rng.choice(X_train.shape[0], train_rows, replace=False))
        test = np.sort(rng.choice(X_test.shape[0], min(X_test.shape[0], max(1, train_rows // 4)), replace=False))
        X_train, y_train, X_test, y_test = X_train[train], y_train[train], X_test[test], y_test[test]
        name = f"{path.name}[{train_rows}]"
    else:
        name = path.name
    if svm_scale:
        X_train, X_test = scale_like_svm_scale(X_train, X_test)
    elif sp.issparse(X_train) and X_train.nnz > SPARSE_DENSITY * X_train.shape[0] * X_train.shape[1]:
        X_train, X_test = X_train.toarray(), X_test.toarray()
    settings = [("rbf", C, gamma), ("linear", C, None)]
    return _cases_for(name, X_train, y_train, X_test, y_test, settings, kernels)


def data_file(name, data_dir):
    """The LIBSVM file of a dataset that is not one of ``KNOWN_DATASETS``: ``data_dir/name``,
    else ``name`` as a path; None where neither exists."""
    return next((path for path in (Path(data_dir) / name, Path(name)) if path.exists()), None)


def synthetic_split(name):
    """``many-classes``: letter-like, 26 classes of make_classification (16 features, 12
    informative, one cluster each), 5,000 rows and 2,000 for the test; ``wide-linear``:
    madelon-like, 2,000 x 500 (20 informative features), test 667, hard for SMO with the
    linear kernel (some 500 free multipliers). Both standardised, seed 0."""
    from sklearn.datasets import make_classification

    if name == "many-classes":
        X, y = make_classification(7000, 16, n_informative=12, n_classes=26, n_clusters_per_class=1, random_state=0)
        n_train = 5000
    else:
        X, y = make_classification(2667, 500, n_informative=20, random_state=0)
        n_train = 2000
    X_train, X_test = _standardised(X[:n_train], X[n_train:])
    return X_train, y[:n_train], X_test, y[n_train:]


def ijcnn1_like_split(n_train=50_000, n_test=10_000, seed=0):
    """Data of ijcnn1's shape and setting (the issue's anchor: 50,000 x 22, RBF C = 32, gamma =
    2), made without the file: make_classification with 8 informative and 4 redundant features,
    10% positive, 1% of the labels flipped; each feature mapped to [-1, 1] with the training
    rows' range (svm-scale)."""
    from sklearn.datasets import make_classification

    X, y = make_classification(n_train + n_test, 22, n_informative=8, n_redundant=4, weights=[0.9], flip_y=0.01,
                               random_state=seed)
    X_train, X_test = scale_like_svm_scale(X[:n_train], X[n_train:])
    return X_train, y[:n_train], X_test, y[n_train:]


def mnist_like_split(n_train=15_000, n_test=3_000, seed=0):
    """Data of MNIST's kind without the file: 784 features, 10 classes (make_classification, 60
    informative and 40 redundant features, two clusters a class), each value lowered by 0.85 and
    cut at 0, then divided by the largest (23% nonzeros in [0, 1]), as CSR."""
    from sklearn.datasets import make_classification

    X, y = make_classification(n_train + n_test, 784, n_informative=60, n_redundant=40, n_classes=10,
                               n_clusters_per_class=2, class_sep=1.5, random_state=seed)
    X = np.maximum(X - 0.85, 0.0)
    X /= X.max()
    X = sp.csr_matrix(X)
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def small_shape_split(n_train, n_features):
    """A small noisy two-class problem of the shape of one of LIBSVM's small datasets
    (``SMALL_SHAPES``): make_classification with 5 informative features (fewer where there are
    fewer features), two clusters a class, 10% of the labels flipped, standardised; a third as
    many rows again for the test (seed 0)."""
    from sklearn.datasets import make_classification

    n_test = n_train // 3
    X, y = make_classification(n_train + n_test, n_features, n_informative=min(n_features, 5), n_redundant=0,
                               flip_y=0.1, random_state=0)
    X_train, X_test = _standardised(X[:n_train], X[n_train:])
    return X_train, y[:n_train], X_test, y[n_train:]


def sparse_text_split(n_train=5000, n_test=2500, n_features=20_000, per_row=40, seed=0, binary=False,
                      informative=1000, positive=0.5, flipped=0.05):
    """Synthetic text-like data (no files needed): each row has ``per_row`` distinct features
    drawn with Zipf-like frequencies (feature k with weight 1 / (k + 10)) and values in (0, 1]
    (1 where ``binary``); the label is 1 for the largest ``positive`` fraction of a sparse
    linear rule (``informative`` features), ``flipped`` of the labels flipped."""
    rng = np.random.default_rng(seed)
    n = n_train + n_test
    weights = 1.0 / (np.arange(n_features) + 10.0)
    indices = np.stack([np.sort(rng.choice(n_features, per_row, replace=False, p=weights / weights.sum()))
                        for _ in range(n)])
    data = rng.uniform(1e-3, 1.0, size=indices.shape)
    if binary:
        data[:] = 1.0
    X = sp.csr_matrix((data.ravel(), indices.ravel(), np.arange(0, n * per_row + 1, per_row)), shape=(n, n_features))
    rule = np.zeros(n_features)
    rule[rng.choice(n_features, informative, replace=False)] = rng.standard_normal(informative)
    score = X @ rule
    y = (score > np.quantile(score, 1.0 - positive)).astype(int)
    flip = rng.random(n) < flipped
    y[flip] = 1 - y[flip]
    return X[:n_train], y[:n_train], X[n_train:], y[n_train:]


def w8a_like_split():
    """Data of w8a's shape without the file: 49,749 training and 14,951 test rows of 300 binary
    features, 12 a row (4% nonzeros) with Zipf-like frequencies, as CSR; 3% positive (a sparse
    linear rule of 100 features), 1% of the labels flipped (seed 0)."""
    return sparse_text_split(49_749, 14_951, 300, 12, binary=True, informative=100, positive=0.03, flipped=0.01)


def covtype_like_split(n_train=50_000, n_test=10_000, seed=0):
    """Data of covtype.binary's kind without the file: 54 features (make_classification, 12
    informative, two clusters a class, 5% of labels flipped), each mapped to [-1, 1] with the
    training rows' range (svm-scale)."""
    from sklearn.datasets import make_classification

    X, y = make_classification(n_train + n_test, 54, n_informative=12, n_redundant=0, flip_y=0.05,
                               random_state=seed)
    X_train, X_test = scale_like_svm_scale(X[:n_train], X[n_train:])
    return X_train, y[:n_train], X_test, y[n_train:]


# the generated datasets (no files) fitted with RBF C=1 gamma='scale' and linear C=1
GENERATED_SPLITS = {
    "sparse-text": sparse_text_split,
    "many-classes": lambda: synthetic_split("many-classes"),
    "wide-linear": lambda: synthetic_split("wide-linear"),
    "mnist-like": mnist_like_split,
    "w8a-like": w8a_like_split,
    "covtype-like": covtype_like_split,
}


def synthetic_pool(seed=0):
    from sklearn.datasets import make_classification

    return make_classification(n_samples=SYNTHETIC_TOTAL, n_features=20, n_informative=10, n_redundant=5,
                               flip_y=0.05, random_state=seed)


def synthetic_case(pool, n):
    """Training rows: the first n of the pool; test rows: 10% of n (at most 10,000) from its tail."""
    X, y = pool
    n_test = max(1, min(n // 10, 10_000))
    if n + n_test > X.shape[0]:
        raise ValueError(f"synthetic size {n} exceeds the generated pool ({X.shape[0] - 10_000} rows)")
    X_train, X_test = _standardised(X[:n], X[-n_test:])
    return Case("synthetic", X_train, y[:n], X_test, y[-n_test:], "rbf", 1.0, 0.05)


def _quarter_held_out(X, y):
    """``(X_train, X_test, y_train, y_test)`` with a stratified quarter (seed 0) held out."""
    from sklearn.model_selection import train_test_split

    return train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)


def _standardised(X_train, X_test):
    """Both scaled with the training columns' mean and standard deviation (constant columns: 1)."""
    mean, std = X_train.mean(axis=0), X_train.std(axis=0)
    std[std == 0] = 1.0
    return (X_train - mean) / std, (X_test - mean) / std


# -- running -----------------------------------------------------------------------
def make_estimator(cls, case, args, **overrides):
    params = dict(C=case.C, kernel=case.kernel, tol=args.tol, cache_size=args.cache_size)
    if case.kernel != "linear":
        params["gamma"] = case.gamma
    if args.probability:  # LIBSVM's Platt scaling, the same folds (random_state)
        params.update(probability=True, random_state=0)
    params.update(overrides)
    return cls(**params)


def warm_up(classes, case, args):
    """Untimed fits of each library on small subsets, each followed by predictions on the
    first 50 test rows and on all of them: for svmkit also a subset whose Gram matrix the
    solver keeps in float32 and a blocked-solver fit, so that every compiled variant a timed
    fit or prediction uses is loaded from numba's cache beforehand (loading one takes
    0.005-0.1 s in a fresh process; small and large predictions take different ones)."""
    labels = np.unique(case.y_train)

    def subset(per_class):
        rows = np.concatenate([np.flatnonzero(case.y_train == label)[:per_class] for label in labels])
        return case.X_train[rows], case.y_train[rows]

    X_test = case.X_test[:50]
    for library, cls in classes.items():
        runs = [(subset(60), {})]
        if library in ("svmkit", "baseline"):
            runs.append((subset(60), {"cache_size": 0.05}))  # too small for the Gram matrix: blocked decomposition
            runs.append((subset(400), {}))  # (two classes over 724 rows: a float32 Gram matrix)
        for (X, y), overrides in runs:
            try:
                model = make_estimator(cls, case, args, **overrides).fit(X, y)
                model.decision_function(X_test)
                model.decision_function(case.X_test)
            except Exception as error:  # noqa: BLE001
                print(f"    warm-up of {library} {overrides or ''} failed: {type(error).__name__}: {error}")


def accuracy(model, decision, X_test, y_test):
    classes = model.classes_
    if len(classes) == 2 and np.ndim(decision) == 1:
        predicted = classes[(np.asarray(decision) > 0).astype(int)]
    else:
        predicted = model.predict(X_test)
    return float(np.mean(predicted == y_test))


def run_case(case, classes, args, skip=None):
    """Interleaved repetitions of every library on one case; fills ``case.results``.

    The first rounds (every library once) are untimed warm-up rounds, at most
    ``args.warm_up_rounds`` of them, as long as a round takes less than
    ``args.warm_up_round_seconds``: the fits of a small dataset get faster over the first
    rounds with every library (see the module's docstring); a round of a larger dataset is
    timed from the first one, as before. The peak memory is the largest of all rounds.
    """
    skip = skip or {}
    libraries = [library for library in classes if library not in skip]
    for library, reason in dict(skip).items():
        case.results[library] = {"error": f"skipped ({reason})"}
    gc.collect()
    prefault(args.prefault_mb)
    warm_up({library: classes[library] for library in libraries}, case, args)
    times = {library: {"fit": [], "predict": [], "memory": []} for library in libraries}
    last = {}
    active = list(libraries)
    errors = {}
    dispatch = None
    warming = args.warm_up_rounds > 0
    case.warm_up_rounds = 0
    round_index = 0
    while round_index - case.warm_up_rounds < args.repeats and active:
        # (with three libraries a b c: a b c | a c b | a b c ..., every ordered pair adjacent once in two rounds)
        measured = []
        round_start = time.perf_counter()
        for library in list(active) if round_index % 2 == 0 else active[:1] + active[:0:-1]:
            model = make_estimator(classes[library], case, args)
            try:
                if library == "sklearnex" and round_index == 0:
                    with SklearnexDispatch() as handler:
                        fit_s, memory, _ = timed_with_memory(model.fit, case.X_train, case.y_train)
                        predict_s, decision = timed(model.decision_function, case.X_test)
                    dispatch = handler.summary
                else:
                    fit_s, memory, _ = timed_with_memory(model.fit, case.X_train, case.y_train)
                    predict_s, decision = timed(model.decision_function, case.X_test)
                if library == "baseline":  # (the worker's own times, without the pipe)
                    fit_s, memory, predict_s = model.fit_seconds, model.peak_mb, model.predict_seconds
            except Exception as error:  # noqa: BLE001
                errors[library] = f"{type(error).__name__}: {error}"
                print(f"    {library} failed: {errors[library]}")
                if args.traceback:
                    traceback.print_exc()
                active.remove(library)
                continue
            measured.append((library, fit_s, predict_s, memory))
            last[library] = (model, decision)
            del model
            if round_index == 0 and args.repeats > 1 and fit_s > args.max_seconds:
                print(f"    {library}: first fit took {fit_s:.1f} s > --max-seconds {args.max_seconds:g}: "
                      "its other repetitions are skipped")
                active.remove(library)
        warming = (warming and case.warm_up_rounds < args.warm_up_rounds
                   and time.perf_counter() - round_start < args.warm_up_round_seconds)
        round_index += 1
        if warming:
            case.warm_up_rounds += 1
        for library, fit_s, predict_s, memory in measured:
            times[library]["memory"].append(memory)  # (the peak over all rounds: the first fits grow the heap)
            if not warming:
                times[library]["fit"].append(fit_s)
                times[library]["predict"].append(predict_s)
            if args.verbose:
                print(f"    round {round_index}{' (untimed)' if warming else ''} {library:9s} "
                      f"fit {fit_s:10.6f} s  predict {predict_s:10.6f} s  peak {memory:7.1f} MB")
    if case.warm_up_rounds:
        print(f"    ({case.warm_up_rounds} untimed warm-up rounds before the timed ones)")

    for library in libraries:
        if library in errors and library not in last:
            case.results[library] = {"error": errors[library]}
            continue
        model, decision = last[library]
        result = {
            "fits": len(times[library]["fit"]),
            "fit": float(np.median(times[library]["fit"])),
            "predict": float(np.median(times[library]["predict"])),
            "memory": float(np.nanmax(times[library]["memory"])),
            "n_sv": int(np.sum(model.n_support_)),
            "accuracy": accuracy(model, decision, case.X_test, case.y_test),
            "objective": dual_objective(model, case.kernel, case.gamma),
        }
        if library == "sklearnex":
            result["dispatch"] = dispatch
        if library in errors:
            result["error"] = errors[library]
        case.results[library] = result
    return case


# -- reporting -----------------------------------------------------------------------
HEADER = ["dataset", "n x d", "params", "library", "fits", "fit s", "/sklearn", "/sklearnex",
          "predict s", "/sklearn", "/sklearnex", "dual objective", "rel. to sklearn", "nSV", "acc %", "peak MB"]


def _ratio(result, reference, key):
    if not reference or "fit" not in reference or "fit" not in result or reference[key] <= 0:
        return "-"
    return f"{result[key] / reference[key]:.2f}"


def case_rows(case):
    rows = []
    reference = case.results.get("sklearn")
    onedal = case.results.get("sklearnex")
    for library in [name for name in LIBRARIES if name in case.results]:
        result = case.results[library]
        name = library
        if result.get("dispatch") not in (None, "oneDAL"):
            name += f" ({result['dispatch']})"
        if "fit" not in result:
            name += " (skipped)" if result["error"].startswith("skipped") else " (failed)"
            rows.append([case.dataset, case.shape_text, case.params_text, name, 0] + ["-"] * 11)
            continue
        relative = "-"
        if reference and "objective" in reference:
            relative = f"{(result['objective'] - reference['objective']) / abs(reference['objective']):+.1e}"
        rows.append([
            case.dataset, case.shape_text, case.params_text, name, result["fits"],
            fmt(result["fit"], ".3g"), _ratio(result, reference, "fit"), _ratio(result, onedal, "fit"),
            fmt(result["predict"], ".3g"), _ratio(result, reference, "predict"), _ratio(result, onedal, "predict"),
            f"{result['objective']:.8g}", relative, result["n_sv"], f"{100 * result['accuracy']:.2f}",
            fmt(result["memory"], ".1f"),
        ])
    return rows


def synthetic_summary(cases, libraries, repeats):
    """Rows of fit times against n and the fitted power laws."""
    header = ["n"] + [f"{library} fit s" for library in libraries]
    rows = []
    for case in cases:
        row = [case.X_train.shape[0]]
        for library in libraries:
            result = case.results.get(library, {})
            row.append(fmt(result.get("fit")) + ("*" if repeats > 1 and result.get("fits") == 1 else ""))
        rows.append(row)
    laws = {}
    for library in libraries:
        sizes = [c.X_train.shape[0] for c in cases if "fit" in c.results.get(library, {})]
        seconds = [c.results[library]["fit"] for c in cases if "fit" in c.results.get(library, {})]
        laws[library] = power_law(sizes, seconds)
    return header, rows, laws


def law_text(laws):
    parts = []
    for library, law in laws.items():
        parts.append(f"{library}: b = {law[1]:.2f} (a = {law[0]:.3g})" if law else f"{library}: b = - (fewer than 2 sizes)")
    return "fit time ~ a n^b: " + "; ".join(parts)


def predicted_seconds(cases, library, n):
    """Extrapolated fit time at n from the earlier sizes (power law, or exponent 2 from one point)."""
    points = [(c.X_train.shape[0], c.results[library]["fit"]) for c in cases if "fit" in c.results.get(library, {})]
    if not points:
        return None
    if len(points) == 1:
        n0, t0 = points[0]
        return t0 * (n / n0) ** 2
    a, b = power_law(*zip(*points))
    return a * n**b


def small_problem(classes, args, n_fits=50):
    """Median fit time of a 200 x 10 RBF problem in a warm process."""
    from sklearn.datasets import make_classification

    X, y = make_classification(n_samples=200, n_features=10, random_state=1)
    X = (X - X.mean(axis=0)) / X.std(axis=0)
    gamma = numeric_gamma("scale", X)
    case = Case("small", X, y, X, y, "rbf", 1.0, gamma)
    models = {library: make_estimator(cls, case, args) for library, cls in classes.items()}
    for _ in range(5):
        for model in models.values():
            model.fit(X, y)
    times = {library: [] for library in models}
    for _ in range(n_fits):
        for library, model in models.items():
            times[library].append(timed(model.fit, X, y)[0])
    medians = {library: float(np.median(values)) for library, values in times.items()}
    parts = [f"{library} {1000 * seconds:.2f} ms" for library, seconds in medians.items()]
    if "sklearn" in medians and "svmkit" in medians:
        parts.append(f"svmkit/sklearn {medians['svmkit'] / medians['sklearn']:.2f}")
    return f"small problem (200 x 10, RBF C=1 gamma={gamma:.3g}, median of {n_fits} warm fits): " + ", ".join(parts)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR))
    parser.add_argument("--datasets", default=",".join(ALL_DATASETS))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--kernels", default="rbf,linear")
    parser.add_argument("--synthetic-sizes", default=",".join(str(n) for n in DEFAULT_SIZES))
    parser.add_argument("--libraries", default=",".join(LIBRARIES), help="subset of svmkit,sklearn,sklearnex")
    parser.add_argument("--skip-anchors", action="store_true",
                        help="run svmkit only (no scikit-learn / sklearnex reference fits)")
    parser.add_argument("--max-seconds", type=float, default=300.0,
                        help="a library whose first fit of a dataset takes longer runs no more repetitions of it")
    parser.add_argument("--max-predicted-seconds", type=float, default=None,
                        help="synthetic series: skip a library at a size whose extrapolated fit time exceeds this")
    parser.add_argument("--C", type=float, default=1.0, help="C of the datasets read from other LIBSVM files")
    parser.add_argument("--gamma", default="scale",
                        help="RBF gamma of the datasets read from other LIBSVM files: a number or 'scale'")
    parser.add_argument("--train-rows", type=int, default=None,
                        help="files not named in KNOWN_DATASETS: that many random training rows and a quarter as "
                             "many test rows (seed 0), e.g. covtype.binary.bz2")
    parser.add_argument("--svm-scale", action="store_true",
                        help="map the features of other LIBSVM files to [-1, 1] (svm-scale) before the fits")
    parser.add_argument("--tol", type=float, default=1e-3)
    parser.add_argument("--cache-size", type=float, default=200.0, help="MB, for all three libraries")
    parser.add_argument("--skip-small", action="store_true", help="do not time the 200 x 10 problem")
    parser.add_argument("--warm-up-rounds", type=int, default=8,
                        help="untimed interleaved rounds of all libraries before the timed repetitions, "
                             "while a round takes less than --warm-up-round-seconds (0: none)")
    parser.add_argument("--warm-up-round-seconds", type=float, default=0.25,
                        help="a round that takes longer is timed, and so is every round after it")
    parser.add_argument("--prefault-mb", type=float, default=1024.0,
                        help="MB of fresh memory written and freed before each dataset's warm-up (0: none)")
    parser.add_argument("--probability", action="store_true",
                        help="fit with probability=True (Platt scaling on 5-fold cross-validation) for all three")
    parser.add_argument("--baseline", metavar="PYTHON",
                        help="also time the svmkit installed for this interpreter (another venv), side by side")
    parser.add_argument("--json", help="also write the results to this JSON file (benchmarks/results/)")
    parser.add_argument("--markdown", help="also write the tables to this Markdown file")
    parser.add_argument("--verbose", action="store_true", help="print every repetition")
    parser.add_argument("--traceback", action="store_true", help="print tracebacks of failed fits")
    args = parser.parse_args(argv)

    libraries = [name.strip() for name in args.libraries.split(",") if name.strip()]
    if args.skip_anchors:
        libraries = [name for name in libraries if name == "svmkit"]
    kernels = {name.strip() for name in args.kernels.split(",") if name.strip()}
    datasets = [name.strip() for name in args.datasets.split(",") if name.strip()]
    unknown = [name for name in datasets if name not in KNOWN_DATASETS and data_file(name, args.data_dir) is None]
    if unknown:
        parser.error(f"unknown dataset(s) {unknown}: neither {', '.join(KNOWN_DATASETS)} nor a file in "
                     f"{args.data_dir}")
    try:
        gamma = args.gamma if args.gamma == "scale" else float(args.gamma)
    except ValueError:
        parser.error(f"--gamma must be a number or 'scale', not {args.gamma!r}")
    if args.warm_up_rounds < 0:
        parser.error(f"--warm-up-rounds must be 0 or more, not {args.warm_up_rounds}")
    if args.prefault_mb < 0:
        parser.error(f"--prefault-mb must be 0 or more, not {args.prefault_mb:g}")
    file_settings = dict(C=args.C, gamma=gamma, svm_scale=args.svm_scale, train_rows=args.train_rows)
    sizes = [int(float(n)) for n in args.synthetic_sizes.split(",") if n.strip()]
    warnings.filterwarnings("ignore", message=".*[Cc]onverge.*")
    warnings.filterwarnings("ignore", message=".*probability.*deprecated.*", category=FutureWarning)

    baseline = None
    if args.baseline:
        from _baseline import BaselineWorker

        baseline = BaselineWorker(args.baseline)
        print(f"baseline: svmkit {baseline.version} under {args.baseline}")
    classes = estimator_classes(libraries, baseline)
    if not classes:
        sys.exit("no library to run")
    command = "python benchmarks/svc.py " + " ".join(shlex.quote(a) for a in (sys.argv[1:] if argv is None else argv))
    versions = library_versions()
    header_lines = [
        f"command: {command}",
        f"date: {datetime.datetime.now().isoformat(timespec='seconds')}",
        "versions: " + ", ".join(f"{k} {v}" for k, v in versions.items()),
        f"settings: tol={args.tol:g}, cache_size={args.cache_size:g} MB, "
        f"{'probability=True (random_state=0), ' if args.probability else ''}median of {args.repeats} interleaved "
        f"repetitions after an untimed warm-up and up to {args.warm_up_rounds} untimed interleaved rounds "
        f"(while a round takes < {args.warm_up_round_seconds:g} s), --max-seconds {args.max_seconds:g}, "
        f"--prefault-mb {args.prefault_mb:g}",
    ]
    print("\n".join(header_lines))
    print("\n".join(thread_settings()))
    print()

    cases = []
    synthetic_cases = []
    data_cache = {}
    for dataset in datasets:
        if dataset == "synthetic":
            if "rbf" not in kernels:
                continue
            pool = synthetic_pool()
            for n in sizes:
                case = synthetic_case(pool, n)
                skip = {}
                if args.max_predicted_seconds:
                    for library in classes:
                        guess = predicted_seconds(synthetic_cases, library, n)
                        if guess is not None and guess > args.max_predicted_seconds:
                            print(f"  synthetic n={n}: {library} skipped (extrapolated fit {guess:.3g} s)")
                            skip[library] = f"extrapolated fit {guess:.3g} s"
                print(f"running synthetic n={n} {case.params_text} ...", flush=True)
                run_case(case, classes, args, skip)
                synthetic_cases.append(case)
                print(text_table(HEADER, case_rows(case)), flush=True)
            continue
        print(f"loading {dataset} ...", flush=True)
        for case in real_cases(dataset, args.data_dir, kernels, data_cache, file_settings):
            print(f"running {case.dataset} {case.shape_text} {case.params_text} ...", flush=True)
            run_case(case, classes, args)
            cases.append(case)
            print(text_table(HEADER, case_rows(case)), flush=True)

    rows = [row for case in cases + synthetic_cases for row in case_rows(case)]
    print("\n== summary ==")
    print(text_table(HEADER, rows))
    notes = [f"{case.dataset} {case.shape_text} {case.params_text}, {library}: {result['error']}"
             for case in cases + synthetic_cases for library, result in case.results.items() if "error" in result]
    if notes:
        print("notes:\n  " + "\n  ".join(notes))
    growth = None
    if synthetic_cases:
        growth = synthetic_summary(synthetic_cases, list(classes), args.repeats)
        print("\nsynthetic series (* = single fit):")
        print(text_table(growth[0], growth[1]))
        print(law_text(growth[2]))
    small = None
    if not args.skip_small:
        small = small_problem(classes, args)
        print("\n" + small)
    final_threads = thread_settings()
    print("\nthread pools at the end:")
    print("\n".join(line for line in final_threads if line.startswith(("threadpoolctl", "numba", "oneDAL"))))

    if args.json:
        if baseline is not None:
            versions["baseline"] = baseline.version
        write_json(args.json, "svc", command, versions, cases + synthetic_cases,
                   extra={"small": small, "settings": header_lines[3].removeprefix("settings: ")})
    if baseline is not None:
        baseline.close()
    if args.markdown:
        parts = ["```", *header_lines, *final_threads, "```", "", markdown_table(HEADER, rows)]
        if notes:
            parts += ["", "Notes:", "", *(f"- {note}" for note in notes)]
        if growth:
            parts += ["", "Synthetic series, fit time (s) against n (* = single fit):", "",
                      markdown_table(growth[0], growth[1]), "", law_text(growth[2])]
        if small:
            parts += ["", small]
        parts += ["", "fit/predict: median seconds; /sklearn, /sklearnex: time ratios (below 1 = faster); "
                  "dual objective: sum over one-vs-one pairs of sum|c| - 1/2 c'Kc, relative difference to "
                  "scikit-learn's (positive = larger dual); peak MB: largest RSS increase during a fit."]
        Path(args.markdown).write_text("\n".join(parts) + "\n")
        print(f"\nMarkdown written to {args.markdown}")


if __name__ == "__main__":
    main()
