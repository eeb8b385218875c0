"""Small SVC fits of two svmkit revisions against scikit-learn, alternating in one process.

On this machine timings drift by up to a factor of two between minutes, so a change to the
fixed cost of a fit (a few hundred microseconds) shows only when the revisions run side by
side: each revision's ``src/svmkit`` is copied out of git (``git archive``) as a package of
its own name (``svmkit_<label>``, its absolute imports renamed), and every repetition fits
each case with every revision and with scikit-learn's SVC (LIBSVM), in alternating order.
The script prints the median fit time of scikit-learn and each revision's median as a ratio
to it, with the sum of the dual objectives of the revision's first fit (equal solutions).

Cases: two-class problems of make_classification in the shapes of LIBSVM's small datasets
(10% of labels flipped, standardised, seed 0), heart_scale (from ``--data-dir``; skipped
if missing), scikit-learn's breast cancer and digits (a stratified three quarters, seed 0,
standardised); multiclass: iris, wine and make_classification with 4 to 26 classes. RBF
(gamma='scale') and linear kernels, C = 1.

Usage::

    python benchmarks/small_fits.py [--revisions b381963,HEAD] [--repeats 9]
        [--cases binary,multiclass] [--data-dir ../shared/data]

A revision ``worktree`` takes the working tree's ``src/svmkit``.

``--before`` sets what runs before each timed fit, that is, what the caches hold when it starts:
``none`` (the fits back to back, each library finding much of its own code and data from its
previous fit), ``flush`` (``--flush-mb`` MB written: every cache level holds other data) or
``sklearnex`` (a fit of the same case by scikit-learn-intelex's SVC, as in ``benchmarks/svc.py``'s
interleaved repetitions, where a fit of a small dataset follows another library's fit or
prediction). ``--only`` keeps the named cases.
"""

from __future__ import annotations

import argparse
import importlib
import re
import shutil
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent))

from _common import DEFAULT_DATA_DIR  # noqa: E402
from svc import _quarter_held_out  # noqa: E402

REPOSITORY = Path(__file__).resolve().parent.parent
BINARY_SHAPES = ((20, 2), (145, 5), (208, 60), (351, 34), (690, 14), (768, 8), (1000, 24), (1243, 21))
MULTICLASS_SHAPES = ((214, 9, 6), (528, 10, 11), (700, 16, 26), (846, 18, 4), (1000, 20, 5))


def packaged_revision(revision, label, into):
    """Import ``src/svmkit`` of ``revision`` as the package ``svmkit_<label>``."""
    target = Path(into) / f"svmkit_{label}"
    if revision == "worktree":
        shutil.copytree(REPOSITORY / "src" / "svmkit", target, ignore=shutil.ignore_patterns("__pycache__"))
    else:
        archive = subprocess.run(["git", "-C", str(REPOSITORY), "archive", revision, "src/svmkit"],
                                 check=True, capture_output=True).stdout
        subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
        (Path(into) / "src" / "svmkit").rename(target)
    for path in target.rglob("*.py"):
        text = path.read_text()
        text = re.sub(r"\bsvmkit\.", f"svmkit_{label}.", text)
        text = re.sub(r"\bfrom svmkit import\b", f"from svmkit_{label} import", text)
        path.write_text(re.sub(r"^import svmkit$", f"import svmkit_{label}", text, flags=re.M))
    return importlib.import_module(f"svmkit_{label}")


def before_each_fit(kind, flush_mb):
    """The action before each timed fit (``--before``): a function of ``(X, y, settings)``."""
    if kind == "none":
        return lambda X, y, settings: None
    if kind == "flush":
        pages = np.zeros(int(flush_mb * 2**20) // 8)
        return lambda X, y, settings: pages.__iadd__(1.0)
    from svc import estimator_classes

    other = estimator_classes([kind])[kind]
    return lambda X, y, settings: other(**settings).fit(X, y)


def binary_cases(data_dir):
    from sklearn.datasets import load_breast_cancer, load_digits, load_svmlight_file, make_classification

    cases = {}
    heart = Path(data_dir) / "heart_scale"
    if heart.exists():
        X, y = load_svmlight_file(str(heart), n_features=13)
        cases["heart"] = _training_quarters(X.toarray(), y, standardise=False)
    cases["cancer"] = _training_quarters(*load_breast_cancer(return_X_y=True))
    cases["digits"] = _training_quarters(*load_digits(return_X_y=True))
    for n, d in BINARY_SHAPES:
        X, y = make_classification(int(n / 0.75), d, n_informative=max(1, min(d, 5)), n_redundant=0,
                                   n_clusters_per_class=1 if d < 3 else 2, flip_y=0.1, random_state=0)
        cases[f"{n}x{d}"] = (_standardised(X)[:n], y[:n])
    return cases


def multiclass_cases():
    from sklearn.datasets import load_iris, load_wine, make_classification

    cases = {name: (_standardised(X), y) for name, (X, y) in
             (("iris", load_iris(return_X_y=True)), ("wine", load_wine(return_X_y=True)))}
    for n, d, k in MULTICLASS_SHAPES:
        X, y = make_classification(n, d, n_informative=min(d, 8), n_redundant=0, n_classes=k,
                                   n_clusters_per_class=1, flip_y=0.05, random_state=0)
        cases[f"{n}x{d}/{k}"] = (_standardised(X), y)
    return cases


def _training_quarters(X, y, standardise=True):
    X_train, _, y_train, _ = _quarter_held_out(X, y)
    return (_standardised(X_train) if standardise else X_train), y_train


def _standardised(X):
    from sklearn.preprocessing import StandardScaler

    return StandardScaler().fit_transform(X)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--revisions", default="b381963,HEAD")
    parser.add_argument("--repeats", type=int, default=9)
    parser.add_argument("--cases", default="binary,multiclass")
    parser.add_argument("--data-dir", default=str(DEFAULT_DATA_DIR))
    parser.add_argument("--before", choices=("none", "flush", "sklearnex"), default="none")
    parser.add_argument("--flush-mb", type=float, default=64.0)
    parser.add_argument("--only", default="", help="comma-separated case names (default: all)")
    args = parser.parse_args(argv)
    warnings.filterwarnings("ignore")
    from sklearn.svm import SVC as LibsvmSVC

    revisions = args.revisions.split(",")
    labels = [re.sub(r"\W", "_", revision) for revision in revisions]
    cases = {}
    if "binary" in args.cases:
        cases.update(binary_cases(args.data_dir))
    if "multiclass" in args.cases:
        cases.update(multiclass_cases())
    if args.only:
        cases = {name: cases[name] for name in args.only.split(",")}
    before = before_each_fit(args.before, args.flush_mb)
    with tempfile.TemporaryDirectory() as into:
        sys.path.insert(0, into)
        estimators = {label: packaged_revision(revision, label, into).SVC for revision, label in zip(revisions, labels)}
        estimators["sklearn"] = LibsvmSVC
        print(f"command: python benchmarks/small_fits.py {' '.join(argv if argv is not None else sys.argv[1:])}")
        print(f"revisions: {', '.join(f'{label} = {revision}' for revision, label in zip(revisions, labels))}")
        times, objectives = {}, {}
        names = list(estimators)
        for repetition in range(args.repeats + 1):  # (the first repetition warms up: not counted)
            for case, (X, y) in cases.items():
                for kernel in ("rbf", "linear"):
                    settings = dict(kernel=kernel, C=1.0, gamma="scale") if kernel == "rbf" else dict(kernel=kernel, C=1.0)
                    for name in names if repetition % 2 else names[::-1]:
                        before(X, y, settings)
                        start = time.perf_counter()
                        model = estimators[name](**settings).fit(X, y)
                        elapsed = time.perf_counter() - start
                        if repetition:
                            times.setdefault((case, kernel, name), []).append(elapsed)
                        objectives.setdefault((case, kernel, name), float(np.sum(getattr(model, "dual_objective_", np.nan))))
        print("\n| case | n x d | kernel | scikit-learn ms | " + " | ".join(f"{label} / sklearn" for label in labels) + " |")
        print("|---|---|---|---|" + "---|" * len(labels))
        for case, (X, _) in cases.items():
            for kernel in ("rbf", "linear"):
                reference = np.median(times[(case, kernel, "sklearn")])
                ratios = " | ".join(f"{np.median(times[(case, kernel, label)]) / reference:.3f} "
                                    f"({objectives[(case, kernel, label)]:.9g})" for label in labels)
                print(f"| {case} | {X.shape[0]}x{X.shape[1]} | {kernel} | {reference * 1e3:.2f} | {ratios} |")


if __name__ == "__main__":
    main()
