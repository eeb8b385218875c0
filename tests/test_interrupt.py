"""Ctrl-C (SIGINT) stops a fit promptly with KeyboardInterrupt and leaves the estimator
unfitted (issue 61): every fit's compiled loops return to Python at bounded intervals.

Each fit runs in a child interpreter that the test interrupts as a user would, with SIGINT
from outside, about a second into a fit that would otherwise run for minutes."""

import json
import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

#: Seconds from SIGINT to the child's end that the tests allow (the child also prints and exits).
ALLOWED_S = 5.0

_CHILD = '''
    import json, signal, sys, time, warnings
    # (Python's handler, as in an interactive session: a parent started in the background passes SIGINT ignored)
    signal.signal(signal.SIGINT, signal.default_int_handler)
    import numpy as np
    from sklearn.exceptions import NotFittedError
    from sklearn.utils.validation import check_is_fitted
    from svmkit import SVC, KernelPerceptron, LinearSVC, PegasosSVC, Perceptron
    warnings.simplefilter("ignore")
    rng = np.random.RandomState(0)
    X, y = rng.randn({n_samples}, {n_features}), rng.randint(0, 2, {n_samples})
    {estimator}.fit(X[:50], y[:50])  # (compiles on first use, before the clock starts)
    model = {estimator}
    print("fitting", flush=True)
    try:
        model.fit(X, y)
        outcome = "finished"
    except KeyboardInterrupt:
        outcome = "KeyboardInterrupt"
    try:
        check_is_fitted(model)
        fitted = True
    except NotFittedError:
        fitted = False
    print(json.dumps({{"outcome": outcome, "fitted": fitted, "attributes": sorted(vars(model)),
                      "at": time.monotonic()}}), flush=True)
'''

CASES = {
    "LinearSVC": ("LinearSVC(max_iter=10**7, tol=1e-12, random_state=0)", 50_000, 50),
    "PegasosSVC": ("PegasosSVC(max_iter=10**5, random_state=0)", 50_000, 50),
    "Perceptron": ("Perceptron(max_iter=10**6)", 50_000, 50),
    "KernelPerceptron": ("KernelPerceptron(max_iter=10**6)", 2_000, 5),
    "SVC": ("SVC(C=1e4, max_iter=10**9)", 2_000, 5),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_sigint_stops_the_fit_and_leaves_the_estimator_unfitted(name):
    estimator, n_samples, n_features = CASES[name]
    code = textwrap.dedent(_CHILD).format(estimator=estimator, n_samples=n_samples, n_features=n_features)
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    child = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=env)
    try:
        assert child.stdout.readline() == "fitting\n"
        time.sleep(1.0)
        child.send_signal(signal.SIGINT)
        sent = time.monotonic()
        stdout, stderr = child.communicate(timeout=60)
    finally:
        child.kill()
    assert child.returncode == 0, stderr
    report = json.loads(stdout)
    assert report["outcome"] == "KeyboardInterrupt"
    assert report["fitted"] is False
    assert [a for a in report["attributes"] if a.endswith("_")] == []
    assert report["at"] - sent < ALLOWED_S
