"""Fit a checked request and answer with what the page draws: decision values on a grid,
the KKT picture of every point and the panel's figures, all read from the fitted model."""

from __future__ import annotations

import base64
import math
import threading
import time
import warnings

import numpy as np

from ..svm import NotSeparableError
from ._request import REGRESSORS, ONE_CLASS

#: One fit at a time: the page's requests queue rather than share the cores.
FIT_LOCK = threading.RLock()


def _number(value):
    """A float for JSON: infinities and NaN as the strings 'inf', '-inf' and 'nan'."""
    value = float(value)
    return value if math.isfinite(value) else ("nan" if math.isnan(value) else ("inf" if value > 0 else "-inf"))


def _packed(values):
    """Decision values for drawing, as base64 of little-endian float32: a pixel needs no more
    precision, and the page decodes them without parsing a number each."""
    return base64.b64encode(np.asarray(values, dtype="<f4").tobytes()).decode("ascii")


def _grid(request):
    """The grid points where the decision values are drawn: rows of ``nx`` from ``ymin`` up."""
    xmin, xmax, ymin, ymax = request.view
    nx, ny = request.resolution
    xs = np.linspace(xmin, xmax, nx)
    if request.dim == 1:
        return xs[:, np.newaxis], (nx, 1)
    ys = np.linspace(ymin, ymax, ny)
    gx, gy = np.meshgrid(xs, ys)
    return np.column_stack([gx.ravel(), gy.ravel()]), (nx, ny)


def _kkt_entries(report, n, name):
    """Per training row: the KKT figures of ``report`` (None for rows outside it)."""
    entries = [None] * n
    for i, row in enumerate(report.index.tolist()):
        entries[row] = {
            "problem": name,
            "alpha": _number(report.alpha[i]),
            "mu": _number(report.mu[i]),
            "xi": _number(report.slack[i]),
            report.value_name: _number(report.yf[i]),
            "category": str(report.category[i]),
            "rank": report.categories.index(report.category[i]),
        }
    return entries


def _classifier_answer(model, grid, n):
    """Two or three classes: one panel row and one KKT entry per two-class problem."""
    classes = model.classes_.tolist()
    problems, points = [], [[] for _ in range(n)]
    for p, (binary, pair) in enumerate(zip(model.binary_models_, model.problem_classes_)):
        name = f"{pair[0]} vs {pair[1]}"
        margin, dual, primal, gap = binary.objectives()
        row = {"problem": name, "margin": _number(margin), "dual": _number(dual), "primal": _number(primal),
               "gap": _number(gap), "n_sv": int(binary.support.shape[0]), "n_iter": int(binary.n_iter),
               "b": _number(binary.intercept)}
        if model.kernel == "linear":
            row["w"] = [_number(v) for v in model.coef_[p]]
        problems.append(row)
        for i, entry in enumerate(_kkt_entries(binary.kkt_report(), n, name)):
            if entry is not None:
                points[i].append(entry)
    answer = {"classes": classes, "problems": problems, "points": points,
              "n_sv": int(model.support_.shape[0]), "loo_bound": _number(model.loo_bound_),
              "categories": list(model.binary_models_[0].kkt_report().categories)}
    if len(classes) == 2:
        answer["f"] = _packed(model.decision_function(grid))
    else:
        answer["label"] = np.searchsorted(model.classes_, model.predict(grid)).tolist()
    return answer


def _single_problem_answer(model, grid, svm_type):
    """One-class and regression: one problem, its KKT report and objectives."""
    report = model.kkt_report()
    n = model.shape_fit_[0]
    row = {"problem": type(model).__name__, "dual": _number(model.dual_objective_),
           "primal": _number(model.primal_objective_), "gap": _number(model.duality_gap_),
           "n_sv": int(model.support_.shape[0]), "n_iter": int(model.n_iter_),
           "b": _number(model.intercept_[0])}
    if model.kernel == "linear":
        row["w"] = [_number(v) for v in model.coef_[0]]
    points = [[entry] if entry else [] for entry in _kkt_entries(report, n, row["problem"])]
    answer = {"problems": [row], "points": points, "n_sv": row["n_sv"], "categories": list(report.categories)}
    if svm_type in REGRESSORS:
        answer["f"] = _packed(model.predict(grid))
        answer["epsilon"] = _number(model.epsilon_ if hasattr(model, "epsilon_") else model.epsilon)
    else:
        answer["f"] = _packed(model.decision_function(grid))
    return answer


def answer(request):
    """Fit ``request.estimator`` and the JSON-ready answer for the page.

    A hard margin on non-separable points answers ``{"not_separable": message}``;
    solver warnings (a step limit reached) come back in ``warnings``.
    """
    grid, shape = _grid(request)
    model = request.estimator
    with FIT_LOCK, warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        start = time.perf_counter()
        try:
            model.fit(request.X) if request.svm_type in ONE_CLASS else model.fit(request.X, request.y)
        except NotSeparableError as error:
            return {"not_separable": str(error)}
        fit_time = time.perf_counter() - start
        if request.svm_type in ONE_CLASS + REGRESSORS:
            result = _single_problem_answer(model, grid, request.svm_type)
        else:
            result = _classifier_answer(model, grid, request.X.shape[0])
    result.update(grid=list(shape), fit_ms=fit_time * 1000.0, n_points=int(request.X.shape[0]),
                  warnings=sorted({str(w.message) for w in caught}))
    return result
