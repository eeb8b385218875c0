"""A second svmkit install timed side by side with this one, in the same run.

``--baseline PYTHON`` (the interpreter of another virtual environment, with another svmkit
installed, say an earlier commit's) starts this file as a worker process under that
interpreter. The benchmark then has one more library, ``baseline``, whose estimators are
proxies of any svmkit estimator class (``SVC``, ``NuSVC``, ``OneClassSVM``, ``SVR``, ``NuSVR``,
``LinearSVC``, ...): each ``fit``, ``decision_function``, ``predict`` or ``score_samples`` runs
in the worker, on data sent there once per dataset, and is timed there (the proxy reports the
worker's own times, which exclude the pipe). The worker imports ``_common`` from this folder,
which imports no svmkit, so the baseline's svmkit is the one its interpreter finds. Its version
string names the commit of that svmkit's work tree.

Example::

    git worktree add ../baseline 3b4a6cb && python3.11 -m venv ../baseline/.venv
    ../baseline/.venv/bin/pip install -e ../baseline
    python benchmarks/svc.py --baseline ../baseline/.venv/bin/python
    python benchmarks/svm_family.py --baseline ../baseline/.venv/bin/python
    python benchmarks/linear.py --baseline ../baseline/.venv/bin/python
"""

from __future__ import annotations

import os
import pickle
import subprocess
import sys
import time
import warnings
from pathlib import Path

import numpy as np

_HERE = Path(__file__).resolve().parent


class BaselineWorker:
    """The worker process: commands and their answers pickled over its standard streams."""

    def __init__(self, python):
        # (a relative interpreter path is the caller's: the worker runs in this folder)
        python = os.path.abspath(python) if os.sep in python else python
        self.process = subprocess.Popen([python, str(Path(__file__).resolve()), "--worker"], stdin=subprocess.PIPE,
                                        stdout=subprocess.PIPE, cwd=str(_HERE))
        self.sent = {}  # id of an array -> key in the worker (the array kept alive here)
        self.version = self.call("version")

    def call(self, command, *args):
        pickle.dump((command, args), self.process.stdin, protocol=pickle.HIGHEST_PROTOCOL)
        self.process.stdin.flush()
        ok, value = pickle.load(self.process.stdout)
        if not ok:
            raise RuntimeError(f"baseline worker: {value}")
        return value

    def key_of(self, array):
        """The worker's key of ``array``, sending it the first time."""
        entry = self.sent.get(id(array))
        if entry is None or entry[0] is not array:
            key = len(self.sent)
            self.call("store", key, array)
            entry = self.sent[id(array)] = (array, key)
        return entry[1]

    def close(self):
        if self.process.poll() is None:
            self.process.stdin.close()
            self.process.wait(timeout=30)


def estimator_class(worker, name):
    """A proxy class for the baseline's ``svmkit.<name>``: ``fit_seconds``, ``fit_cpu_seconds``
    (the worker's CPU time), ``peak_mb`` and ``predict_seconds`` hold the worker's figures of the
    last calls."""

    class Remote:
        _worker = worker
        _name = name

        def __init__(self, **params):
            self.params = params
            self.model_key = None

        def get_params(self, deep=True):
            return dict(self.params)

        def set_params(self, **params):
            self.params.update(params)
            return self

        def fit(self, X, y, sample_weight=None):
            keys = (self._worker.key_of(X), self._worker.key_of(y))
            self.fit_seconds, self.fit_cpu_seconds, self.peak_mb, self.model_key, attributes = self._worker.call(
                "fit", self._name, self.params, *keys)
            for attribute, value in attributes.items():
                setattr(self, attribute, value)
            return self

        def _predicting(self, method, X):
            self.predict_seconds, values = self._worker.call(method, self.model_key, self._worker.key_of(X))
            return values

        def decision_function(self, X):
            return self._predicting("decision_function", X)

        def predict(self, X):
            return self._predicting("predict", X)

        def score_samples(self, X):
            return self._predicting("score_samples", X)

    Remote.__name__ = f"Baseline{name}"
    return Remote


_ATTRIBUTES = ("classes_", "n_support_", "support_", "support_vectors_", "dual_coef_", "intercept_", "coef_",
               "n_iter_")


def _serve():
    """The worker's loop (run by the baseline's interpreter). Convergence warnings are not
    shown: the benchmarks time fits capped by max_iter on purpose and silence them in their own
    process too."""
    sys.path.insert(0, str(_HERE))
    warnings.filterwarnings("ignore", message=".*[Cc]onverge.*")
    from _common import PeakRSS, source_commit

    import svmkit

    data, models = {}, {}
    stdin, stdout = sys.stdin.buffer, sys.stdout.buffer
    while True:
        try:
            command, args = pickle.load(stdin)
        except EOFError:
            return
        try:
            if command == "version":
                source = Path(svmkit.__file__).parent
                commit = source_commit(source)
                result = f"{svmkit.__version__} ({source}{f', commit {commit}' if commit else ''})"
            elif command == "store":
                key, array = args
                data[key] = array
                result = None
            elif command == "fit":
                name, params, x_key, y_key = args
                model = getattr(svmkit, name)(**params)
                with PeakRSS() as peak:
                    started, cpu_started = time.perf_counter(), time.process_time()
                    model.fit(data[x_key], data[y_key])
                    seconds, cpu_seconds = time.perf_counter() - started, time.process_time() - cpu_started
                models.clear()  # (one fitted model at a time: the benchmark's last one)
                models[id(model)] = model
                attributes = {}
                for attribute in _ATTRIBUTES:
                    try:
                        attributes[attribute] = getattr(model, attribute)
                    except AttributeError:
                        pass
                result = (seconds, cpu_seconds, peak.peak_mb, id(model), attributes)
            else:  # decision_function, predict, score_samples
                model_key, x_key = args
                method = getattr(models[model_key], command)
                started = time.perf_counter()
                values = np.asarray(method(data[x_key]))
                result = (time.perf_counter() - started, values)
            reply = (True, result)
        except Exception as error:  # noqa: BLE001 - reported to the benchmark
            reply = (False, f"{type(error).__name__}: {error}")
        pickle.dump(reply, stdout, protocol=pickle.HIGHEST_PROTOCOL)
        stdout.flush()


if __name__ == "__main__" and "--worker" in sys.argv:
    _serve()
