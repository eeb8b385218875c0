"""By hand, not collected by pytest: svmkit.load over structurally valid but mutated model files.

Saves 16 small models (one a Pipeline of a ColumnTransformer and an SVC), mutates one to
three members of each file drawn (transposed, cut short, retyped, a value replaced by NaN, inf,
0, huge or tiny numbers, emptied, repeated, an extra axis), loads it and calls every
prediction method the model has. Prints the outcomes: anything but ModelFileError,
ValueError or finite predictions is a defect, listed after.

    python tests/fuzz_model_files.py SEED COUNT      # e.g. 4 seeds x 25000 files
"""
import collections
import io
import random
import sys
import time
import warnings
from pathlib import Path

import numpy as np
from sklearn.compose import ColumnTransformer
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler

import svmkit
from svmkit import SVC, KernelPerceptron, LinearSVC, NuSVC, NuSVR, OneClassSVM, PegasosSVC, Perceptron, SVR
from svmkit.naive_bayes import CategoricalNB, GaussianNB, MixedNB
from svmkit.persistence import ModelFileError

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_robustness import X, X_CATEGORIES, _members, _mutated, _pack, y, y3  # noqa: E402


def saved_models():
    """(class name, the file's members, data to predict) of each model fuzzed."""
    y_reg = X @ np.array([1.0, -2.0, 0.5])
    models = [
        (SVC().fit(X, y3), X), (SVC(kernel="precomputed").fit(X @ X.T, y), X @ X.T),
        (SVC(probability=True, random_state=0).fit(X, y3), X), (SVC(kernel="linear").fit(X, y), X),
        (NuSVC().fit(X, y3), X), (NuSVR(kernel="poly").fit(X, y_reg), X), (SVR().fit(X, y_reg), X),
        (OneClassSVM().fit(X), X), (LinearSVC().fit(X, y3), X), (PegasosSVC(random_state=0).fit(X, y), X),
        (Perceptron().fit(X, y3), X), (KernelPerceptron().fit(X, y3), X), (MixedNB().fit(X, y), X),
        (GaussianNB().fit(X, y3), X), (CategoricalNB().fit(X_CATEGORIES, y), X_CATEGORIES),
        (make_pipeline(ColumnTransformer([("scaled", StandardScaler(), np.array([0, 2])), ("kept", "passthrough", [1])],
                                         sparse_threshold=0.0), SVC()).fit(X, y3), X),
    ]
    saved = []
    for model, data in models:
        buffer = io.BytesIO()
        svmkit.save(model, buffer)
        saved.append((type(model).__name__, _members(buffer.getvalue()), data))
    return saved


VALUES = [np.nan, np.inf, -np.inf, -1.0, 0.0, 1.0, 1e308, -1e308, 5e-324, 2.0**31 - 1, -2.0**31, 2.0**62, 1e200, 700.0]


def fuzz(seed, count):
    """``(outcomes, defects)`` of ``count`` mutated files drawn with ``seed``."""
    saved = saved_models()
    draw = random.Random(seed)
    outcomes, defects = collections.Counter(), []
    for _ in range(count):
        name, members, data = saved[draw.randrange(len(saved))]
        members, mutations = dict(members), []
        for _ in range(draw.randint(1, 3)):
            member = draw.choice(sorted(key for key in members if key != "metadata"))
            mutation = (member, draw.randrange(7), draw.randrange(1000), draw.choice(VALUES))
            members[member] = _mutated(members[member], *mutation[1:])
            mutations.append(mutation)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            try:
                model = svmkit.load(io.BytesIO(_pack(members)))
                results = [getattr(model, method)(data) for method in ("predict", "decision_function", "predict_proba")
                           if _has(model, method)]
                numeric = [np.asarray(result) for result in results if np.asarray(result).dtype.kind in "fc"]
                if all(np.isfinite(result).all() for result in numeric):
                    outcomes["loaded, finite predictions"] += 1
                else:
                    outcomes["non-finite"] += 1
                    defects.append((name, "non-finite predictions", mutations))
            except (ModelFileError, ValueError) as error:
                outcomes[type(error).__name__] += 1
            except Exception as error:  # (a defect: any other exception)
                outcomes[type(error).__name__] += 1
                defects.append((name, repr(error)[:200], mutations))
    return outcomes, defects


def _has(model, method):
    try:
        return callable(getattr(model, method))
    except AttributeError:  # (predict_proba of a model without probabilities)
        return False


if __name__ == "__main__":
    seed, count = int(sys.argv[1]), int(sys.argv[2])
    warnings.simplefilter("ignore")  # (casts of NaN by the mutations, convergence of the saved models)
    start = time.time()
    outcomes, defects = fuzz(seed, count)
    print(f"{count} inputs in {time.time() - start:.0f} s: {dict(outcomes)}")
    for defect in defects[:30]:
        print(defect)
