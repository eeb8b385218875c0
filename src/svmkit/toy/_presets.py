"""The toy's presets: the course's worked example and exercises, and three classic shapes."""

from __future__ import annotations

import numpy as np
from sklearn.datasets import make_circles, make_moons


def _example_1():
    """The course's Example 1: 50 points around (3, 5) and 50 around (-2, -2), seed 100."""
    rng = np.random.RandomState(100)  # (the stream of np.random.seed(100), as the course draws it)
    positive = 2 * rng.randn(50, 2) + [3, 5]
    negative = 1.5 * rng.randn(50, 2) + [-2, -2]
    return np.vstack([positive, negative]), np.r_[np.ones(50), -np.ones(50)]


def _on_a_line(labels):
    """The exercises' points x = -1, 0, 1 with their labels, drawn on the line y = 0."""
    return np.array([[-1.0, 0.0], [0.0, 0.0], [1.0, 0.0]]), np.array(labels, dtype=float)


def _xor():
    rng = np.random.RandomState(0)
    X = rng.uniform(-1, 1, size=(200, 2))
    return X, np.where(X[:, 0] * X[:, 1] > 0, 1.0, -1.0)


def _signed(X, y):
    return X, np.where(y > 0, 1.0, -1.0)


#: name -> (title, data, option string, dim, view [xmin, xmax, ymin, ymax])
_PRESETS = {
    "example1": ("Example 1 (seed 100)", _example_1, "-s 0 -t 0 -c inf", 2, [-7.0, 9.0, -7.0, 11.0]),
    "exercise-separable": ("D = {(-1,+1), (0,-1), (1,-1)}", lambda: _on_a_line([1, -1, -1]),
                           "-s 0 -t 0 -c inf", 1, [-2.0, 2.0, -1.5, 1.5]),
    "exercise-not-separable": ("D = {(-1,+1), (0,-1), (1,+1)}", lambda: _on_a_line([1, -1, 1]),
                               "-s 0 -t 0 -c inf", 1, [-2.0, 2.0, -1.5, 1.5]),
    "xor": ("XOR", _xor, "-s 0 -t 2 -c 10 -g 2", 2, [-1.2, 1.2, -1.2, 1.2]),
    "moons": ("Two moons", lambda: _signed(*make_moons(200, noise=0.15, random_state=0)),
              "-s 0 -t 2 -c 10 -g 2", 2, [-1.6, 2.6, -1.3, 1.8]),
    "circles": ("Circles", lambda: _signed(*make_circles(200, factor=0.5, noise=0.08, random_state=0)),
                "-s 0 -t 2 -c 10 -g 2", 2, [-1.4, 1.4, -1.4, 1.4]),
}


def presets():
    """Every preset as the page loads it: title, points ``[x, y, label]``, options, dim, view.

    Examples
    --------
    >>> example = presets()["exercise-separable"]
    >>> example["points"], example["options"]
    ([[-1.0, 0.0, 1.0], [0.0, 0.0, -1.0], [1.0, 0.0, -1.0]], '-s 0 -t 0 -c inf')
    """
    answer = {}
    for name, (title, data, options, dim, view) in _PRESETS.items():
        X, y = data()
        points = np.column_stack([X, y]).tolist()
        answer[name] = {"title": title, "points": points, "options": options, "dim": dim, "view": view}
    return answer
