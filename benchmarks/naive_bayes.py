"""svmkit's naive Bayes against scikit-learn's on synthetic data.

Times ``fit`` and ``predict_proba`` of

- ``GaussianNB`` (ddof=0, as scikit-learn) on n x 20 real features,
- ``CategoricalNB`` on n x 20 integer codes with 10 categories each,
- ``MixedNB`` on a DataFrame of 10 real and 10 integer-coded columns, against
  scikit-learn's ``GaussianNB`` and ``CategoricalNB`` run one after the other,

as the median over interleaved repetitions, and prints the ratio
svmkit / scikit-learn next to its target (1.5 for the pure models, 2 for MixedNB).

Run: ``.venv/bin/python benchmarks/naive_bayes.py [--samples 1000000] [--repeats 5]``
"""

import argparse
import time

import numpy as np
import pandas as pd
from sklearn import naive_bayes as sklearn_nb

from svmkit import naive_bayes as svmkit_nb

N_FEATURES = 20
N_CATEGORIES = 10
N_CLASSES = 3


def make_data(n_samples, seed=0):
    """Labels, real features shifted by class, and integer codes whose distribution depends on the class."""
    rng = np.random.default_rng(seed)
    y = rng.integers(N_CLASSES, size=n_samples)
    real = rng.standard_normal((n_samples, N_FEATURES)) + 0.5 * y[:, None]
    codes = (rng.integers(N_CATEGORIES, size=(n_samples, N_FEATURES)) + y[:, None]) % N_CATEGORIES
    return y, real, codes


class SklearnPair:
    """scikit-learn's GaussianNB on the real columns, then its CategoricalNB on the coded ones."""

    def __init__(self, real_columns, coded_columns):
        self.real_columns, self.coded_columns = real_columns, coded_columns
        self.gaussian, self.categorical = sklearn_nb.GaussianNB(), sklearn_nb.CategoricalNB()

    def fit(self, frame, y):
        self.gaussian.fit(frame[self.real_columns].to_numpy(), y)
        self.categorical.fit(frame[self.coded_columns].to_numpy(), y)
        return self

    def predict_proba(self, frame):
        return (
            self.gaussian.predict_proba(frame[self.real_columns].to_numpy()),
            self.categorical.predict_proba(frame[self.coded_columns].to_numpy()),
        )


def seconds(call):
    start = time.perf_counter()
    call()
    return time.perf_counter() - start


def time_pair(make_ours, make_theirs, X, y, repeats):
    """Median fit and predict_proba seconds of both models, runs interleaved."""
    times = {(who, phase): [] for who in ("svmkit", "sklearn") for phase in ("fit", "predict_proba")}
    for _ in range(repeats):
        for who, make in (("svmkit", make_ours), ("sklearn", make_theirs)):
            model = make()
            times[who, "fit"].append(seconds(lambda: model.fit(X, y)))
            times[who, "predict_proba"].append(seconds(lambda: model.predict_proba(X)))
    return {key: float(np.median(values)) for key, values in times.items()}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1_000_000)
    parser.add_argument("--repeats", type=int, default=5)
    arguments = parser.parse_args()
    y, real, codes = make_data(arguments.samples)

    half = N_FEATURES // 2
    frame = pd.DataFrame(
        {**{f"real{j}": real[:, j] for j in range(half)}, **{f"code{j}": codes[:, j] for j in range(half)}}
    )
    real_columns, coded_columns = list(frame.columns[:half]), list(frame.columns[half:])

    cases = [
        ("GaussianNB", lambda: svmkit_nb.GaussianNB(ddof=0), sklearn_nb.GaussianNB, real, 1.5),
        ("CategoricalNB", svmkit_nb.CategoricalNB, sklearn_nb.CategoricalNB, codes, 1.5),
        (
            "MixedNB",
            lambda: svmkit_nb.MixedNB(categorical=coded_columns, ddof=0),
            lambda: SklearnPair(real_columns, coded_columns),
            frame,
            2.0,
        ),
    ]
    print(f"{arguments.samples:,} rows x {N_FEATURES} features, {N_CLASSES} classes, "
          f"median of {arguments.repeats} interleaved runs (seconds)")
    print(f"{'model':<14} {'phase':<14} {'svmkit':>8} {'sklearn':>8} {'ratio':>6} {'target':>7}")
    for name, make_ours, make_theirs, X, target in cases:
        medians = time_pair(make_ours, make_theirs, X, y, arguments.repeats)
        for phase in ("fit", "predict_proba"):
            ours, theirs = medians["svmkit", phase], medians["sklearn", phase]
            ratio = ours / theirs
            verdict = "ok" if ratio <= target else "MISSED"
            print(f"{name:<14} {phase:<14} {ours:8.3f} {theirs:8.3f} {ratio:6.2f} {target:>5.1f}x {verdict}")


if __name__ == "__main__":
    main()
