"""A training request of the toy page, checked: its points, LIBSVM options and drawing grid.

Every field of the JSON body is validated before anything is fitted, and every
problem is a :class:`RequestError` whose message the page shows; the limits
below keep one request small and its fit short.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from ..cli._options import UsageError, _number, _Option, _parse
from ..cli._train import _SVM_OPTIONS, _check_svm_options, _estimator

#: Largest request body in bytes: room for MAX_POINTS points of three numbers in full precision, several times over.
MAX_BODY_BYTES = 1 << 20
#: Most points a request may hold: more than anyone clicks, few enough for a fit to stay interactive.
MAX_POINTS = 2000
#: Most classes the page draws (svm-toy's three colours).
MAX_CLASSES = 3
#: Largest drawing grid per side.
MAX_GRID = 300
#: Longest option string.
MAX_OPTIONS_CHARS = 400
#: Two-variable updates per problem before a fit stops (and warns): a bound on the time
#: of a fit whatever its options (a tiny -e, a huge -c).
MAX_ITER = 200_000
#: Largest kernel cache the page may ask for, in MB.
MAX_CACHE_MB = 1024.0

#: The LIBSVM svm types that fit each kind of drawing.
CLASSIFIERS, ONE_CLASS, REGRESSORS = (0, 1), (2,), (3, 4)


class RequestError(ValueError):
    """A request the toy cannot serve; the message says why and is shown on the page."""


def _cost(text):
    """svm-train's -c, and ``inf`` for the hard margin (the toy's one addition)."""
    if text.strip().lower() in ("inf", "infinity"):
        return math.inf
    return _number(text)


TOY_OPTIONS = {**{k: v for k, v in _SVM_OPTIONS.items() if k != "b"}, "c": _Option("C", _cost)}

TOY_USAGE = (
    "options as svm-train's (svmkit train --help): -s svm_type (0 C-SVC, 1 nu-SVC, 2 one-class, "
    "3 epsilon-SVR, 4 nu-SVR), -t kernel (0 linear, 1 polynomial, 2 RBF, 3 sigmoid), -d degree, "
    "-g gamma, -r coef0, -c cost (inf: hard margin), -n nu, -p epsilon, -e tolerance, -h shrinking, "
    "-wi weight, -m cache MB"
)


@dataclass(frozen=True)
class TrainRequest:
    """A checked request: the estimator to fit, its data and where to draw its decision values."""

    estimator: object
    svm_type: int
    X: np.ndarray
    y: np.ndarray
    dim: int
    view: tuple
    resolution: tuple


def parse_options(text):
    """The svm-train options of an option string, checked as svm-train checks them.

    Returns the options dict; raises :class:`RequestError` with the reason.

    Examples
    --------
    >>> parse_options("-t 0 -c inf")
    {'kernel_type': 0, 'C': inf}
    """
    if not isinstance(text, str):
        raise RequestError("options must be a string such as '-t 2 -c 10'")
    if len(text) > MAX_OPTIONS_CHARS:
        raise RequestError(f"the option string is longer than {MAX_OPTIONS_CHARS} characters")
    words = text.split()
    if any(word in ("--help", "-?") for word in words):
        raise RequestError(TOY_USAGE)
    if "-b" in words:
        raise RequestError("-b (probability estimates) is not drawn by the toy; leave it out")
    try:
        options, rest = _parse("train", words, TOY_OPTIONS, (0, len(words)), TOY_USAGE)
        if rest:
            raise UsageError(f"unexpected {rest[0]!r} in the options (options are -x value pairs; {TOY_USAGE})")
        _check_svm_options(options)
    except UsageError as error:
        raise RequestError(str(error)) from None
    if options.get("kernel_type") == 4:
        raise RequestError("-t 4 (precomputed kernel) takes a kernel matrix, not points; choose -t 0 to 3")
    if not options.get("cache_size", 1.0) <= MAX_CACHE_MB:
        raise RequestError(f"bad value for -m: the toy's cache is at most {MAX_CACHE_MB:g} MB")
    if math.isinf(options.get("C", 1.0)) and options.get("svm_type", 0) != 0:
        raise RequestError("-c inf (hard margin) is for C-SVC (-s 0); the other types take a finite -c")
    options.pop("quiet", None)
    return options


def _finite_numbers(values, count, name):
    if not isinstance(values, list) or len(values) != count:
        raise RequestError(f"{name} must be a list of {count} numbers")
    if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values):
        raise RequestError(f"{name} must hold finite numbers, got {values!r}"[:200])
    return tuple(float(v) for v in values)


def _points(points):
    """The (x, y, label) rows as an (n, 3) array."""
    if not isinstance(points, list):
        raise RequestError("points must be a list of [x, y, label] triples")
    if len(points) > MAX_POINTS:
        raise RequestError(f"{len(points)} points: the toy trains on at most {MAX_POINTS}")
    if not points:
        raise RequestError("there are no points: click on the drawing to add some")
    rows = [_finite_numbers(point, 3, f"point {i + 1}") for i, point in enumerate(points)]
    return np.array(rows, dtype=np.float64)


def _labels(labels, svm_type):
    if svm_type in REGRESSORS:
        return labels
    if svm_type in ONE_CLASS:
        return None
    if np.any(labels != np.trunc(labels)):
        raise RequestError("class labels must be integers")
    n_classes = np.unique(labels).shape[0]
    if n_classes > MAX_CLASSES:
        raise RequestError(f"{n_classes} classes: the toy draws at most {MAX_CLASSES}")
    if n_classes < 2:
        raise RequestError("classification needs points of two classes at least")
    return labels.astype(np.int64)


def parse_request(body):
    """The :class:`TrainRequest` of a decoded JSON body, or :class:`RequestError`.

    The body holds ``options`` (an svm-train option string), ``points``
    (``[x, y, label]`` each; for regression ``y`` is the target),
    ``dim`` (1: points on a line, their feature is ``x``; 2: the feature
    vector is ``(x, y)``), ``view`` (``[xmin, xmax, ymin, ymax]``) and
    ``resolution`` (``[nx, ny]`` grid points).

    Examples
    --------
    >>> request = parse_request({"options": "-t 0 -c inf", "points": [[-1, 0, 1], [0, 0, -1], [1, 0, -1]],
    ...                          "dim": 1, "view": [-2, 2, -1, 1], "resolution": [50, 2]})
    >>> request.X.ravel(), request.y, request.estimator.C
    (array([-1.,  0.,  1.]), array([ 1, -1, -1]), inf)
    """
    if not isinstance(body, dict):
        raise RequestError("the request must be a JSON object")
    unknown = sorted(set(body) - {"options", "points", "dim", "view", "resolution"})
    if unknown:
        raise RequestError(f"unknown request fields: {', '.join(unknown)}"[:200])
    options = parse_options(body.get("options", ""))
    svm_type = options.get("svm_type", 0)
    points = _points(body.get("points"))
    dim = body.get("dim", 2)
    if dim not in (1, 2) or isinstance(dim, bool):
        raise RequestError("dim must be 1 (points on a line) or 2 (points in the plane)")
    if svm_type in REGRESSORS:
        dim = 1  # (the feature is x, the target y)
    view = _finite_numbers(body.get("view"), 4, "view")
    if not (view[0] < view[1] and view[2] < view[3]):
        raise RequestError("view must be [xmin, xmax, ymin, ymax] with xmin < xmax and ymin < ymax")
    resolution = body.get("resolution")
    if (not isinstance(resolution, list) or len(resolution) != 2
            or not all(type(n) is int and 2 <= n <= MAX_GRID for n in resolution)):
        raise RequestError(f"resolution must be [nx, ny], integers from 2 to {MAX_GRID}")
    X = points[:, :dim]
    y = _labels(points[:, 1] if svm_type in REGRESSORS else points[:, 2], svm_type)
    estimator = _estimator(options, dim)
    estimator.set_params(max_iter=MAX_ITER)
    return TrainRequest(estimator, svm_type, X, y, dim, view, tuple(resolution))
