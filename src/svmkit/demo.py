"""The demo: a soft-margin RBF SVM on the Statlog heart data, with its theory."""

import time

import numpy as np
from sklearn.model_selection import train_test_split

from .datasets import load_heart_scale
from .svm import SVC
from .svm._vc_bound import feature_space_dimension


def run_demo(C=1.0, gamma="scale", test_size=0.3, random_state=0):
    """Train an SVC on heart_scale and return the report as a string.

    Examples
    --------
    >>> report = run_demo()
    >>> "held-out accuracy" in report
    True
    """
    X, y = load_heart_scale()
    X_train, X_test, y_train, y_test = train_test_split(
        X, y, test_size=test_size, random_state=random_state, stratify=y
    )
    start = time.perf_counter()
    SVC(C=C, kernel="rbf", gamma=gamma).fit(X_train, y_train)
    warm_up = time.perf_counter() - start  # compiles the solver on a fresh install (cached on disk afterwards)
    model = SVC(C=C, kernel="rbf", gamma=gamma)
    start = time.perf_counter()
    model.fit(X_train, y_train)
    fit_time = time.perf_counter() - start
    accuracy = float(np.mean(model.predict(X_test) == y_test))
    lines = [
        f"svmkit demo: C-SVC, RBF kernel (gamma={model.kernel_.gamma:.4g}), C={C:g} on heart_scale "
        f"({X_train.shape[0]} training / {X_test.shape[0]} held-out samples, {X.shape[1]} features)",
        f"  held-out accuracy      {accuracy:.4f}",
        f"  support vectors        {model.support_.shape[0]} (per class {model.n_support_.tolist()})",
        f"  margin 2/||w||         {model.margin_:.4f}",
        f"  leave-one-out bound    {model.loo_bound_:.4f} (support vectors / N)",
        f"  VC bound (fat margin)  {model.vc_bound_} = min(ceil(R^2 / rho^2), d) + 1 with",
        f"                         R = {model.radius_:.4f} (radius of the data), rho = 1/||w|| = {model.rho_:.4f},",
        f"                         d = {_dimension(model)} (dimension of the feature space)",
        f"  dual objective         {model.dual_objective_:.6f}",
        f"  primal objective       {model.primal_objective_:.6f}",
        f"  duality gap            {model.duality_gap_:.3e}",
        f"  solver iterations      {int(model.n_iter_[0])}",
        f"  fit time               {fit_time * 1000:.1f} ms (a first fit took {warm_up:.2f} s: "
        "loading, or on a fresh install compiling, the solver)",
        model.kkt_report().to_string(max_rows=5),
    ]
    return "\n".join(lines)


def _dimension(model):
    """The feature space's dimension, in words where it is infinite."""
    d = feature_space_dimension(model.kernel_, model.n_features_in_)
    return "infinite (RBF)" if d == float("inf") else str(d)
