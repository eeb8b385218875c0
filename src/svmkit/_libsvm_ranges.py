"""svm-scale's arithmetic and range files, with NumPy alone.

:mod:`svmkit.preprocessing` builds its scikit-learn transformer on these, and
``svmkit scale`` uses them directly so that it starts without scikit-learn.
"""

import numbers
import os
from typing import NamedTuple

import numpy as np


def _scale_linearly(values, low, high, lower, upper):
    """svm-scale's map of ``values`` from ``[low, high]`` to ``[lower, upper]``.

    The ends map exactly to ``lower`` and ``upper``; where ``low == high`` the
    result is 0 (svm-scale leaves single-valued features out of its output).
    """
    constant = low == high
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = lower + (upper - lower) * (values - low) / (high - low)
    scaled = np.where(values == low, lower, scaled)
    scaled = np.where(values == high, upper, scaled)
    return np.where(constant, 0.0, scaled)


def _check_limits(lower, upper, what):
    for value in (lower, upper):
        if not isinstance(value, numbers.Real) or isinstance(value, bool) or not np.isfinite(value):
            raise ValueError(f"{what} limits must be finite numbers, got {lower!r} and {upper!r}.")
    if not upper > lower:
        raise ValueError(
            f"inconsistent {what} lower/upper specification: upper ({upper:g}) must exceed lower ({lower:g})."
        )


class TargetRange(NamedTuple):
    """svm-scale's linear map of the labels from ``[min, max]`` to ``[lower, upper]`` (its ``-y``).

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit.preprocessing import TargetRange
    >>> TargetRange.fit(np.array([2.0, 4.0, 3.0]), 0, 1).transform(np.array([2.0, 3.0, 6.0]))
    array([0. , 0.5, 2. ])
    """

    lower: float
    upper: float
    min: float
    max: float

    @classmethod
    def fit(cls, y, lower, upper):
        """The range of the labels ``y``, to be mapped to ``[lower, upper]``."""
        _check_limits(lower, upper, "y")
        y = np.asarray(y, dtype=np.float64)
        return cls(float(lower), float(upper), float(y.min()), float(y.max()))

    def transform(self, y):
        """The scaled labels."""
        return _scale_linearly(np.asarray(y, dtype=np.float64), self.min, self.max, self.lower, self.upper)


def feature_ranges(n_samples, n_features, columns, values):
    """The minimum and maximum of every feature of a CSR matrix given by its ``columns`` and
    ``values``; features missing from a row count as 0 (as in svm-scale and scipy's ``min``).

    Examples
    --------
    >>> import numpy as np
    >>> feature_ranges(2, 3, np.array([0, 0, 1]), np.array([2.0, -1.0, 3.0]))
    (array([-1.,  0.,  0.]), array([2., 3., 0.]))
    """
    data_min = np.full(n_features, np.inf)
    data_max = np.full(n_features, -np.inf)
    np.minimum.at(data_min, columns, values)
    np.maximum.at(data_max, columns, values)
    has_zero = np.bincount(columns, minlength=n_features) < n_samples
    data_min[has_zero] = np.minimum(data_min[has_zero], 0.0)
    data_max[has_zero] = np.maximum(data_max[has_zero], 0.0)
    return data_min, data_max


def write_range(target, lower, upper, data_min, data_max, target_range=None):
    """Write svm-scale's range file: numbers with 17 significant digits, constant features left out.

    Examples
    --------
    >>> import io
    >>> import numpy as np
    >>> buffer = io.StringIO()
    >>> write_range(buffer, -1.0, 1.0, np.array([0.0, 5.0]), np.array([2.0, 5.0]))
    >>> print(buffer.getvalue(), end="")
    x
    -1 1
    1 0 2
    """
    lines = []
    if target_range is not None:
        lines += ["y", f"{target_range.lower:.17g} {target_range.upper:.17g}",
                  f"{target_range.min:.17g} {target_range.max:.17g}"]
    lines += ["x", f"{lower:.17g} {upper:.17g}"]
    for index in np.flatnonzero(data_min != data_max):
        lines.append(f"{index + 1} {data_min[index]:.17g} {data_max[index]:.17g}")
    text = "\n".join(lines) + "\n"
    if isinstance(target, (str, os.PathLike)):
        with open(target, "w", encoding="ascii") as file:
            file.write(text)
    else:
        target.write(text)


def read_range(source):
    """Read svm-scale's range file as ``(lower, upper, ranges, target_range)``, ``ranges`` mapping
    each 1-based feature index to its ``(min, max)``; ValueError naming the line if malformed.

    Examples
    --------
    >>> import io
    >>> read_range(io.StringIO("x\\n0 1\\n2 -4 4\\n"))
    (0.0, 1.0, {2: (-4.0, 4.0)}, None)
    """
    if isinstance(source, (str, os.PathLike)):
        with open(source, encoding="ascii", errors="replace") as file:
            lines = file.read().splitlines()
        name = os.fspath(source)
    else:
        lines = source.read().splitlines()
        name = "range file"
    reader = _RangeLines(lines, name)
    target_range = None
    if reader.peek() == "y":
        reader.next_line()
        y_lower, y_upper = reader.numbers(2, "'y_lower y_upper'")
        y_min, y_max = reader.numbers(2, "'y_min y_max'")
        target_range = TargetRange(y_lower, y_upper, y_min, y_max)
    if reader.next_line() != "x":
        reader.fail("expected the line 'x' that starts the feature ranges")
    lower, upper = reader.numbers(2, "'lower upper'")
    ranges = {}
    while reader.peek() is not None:
        index, low, high = reader.numbers(3, "'index min max'")
        if index != int(index) or index < 1 or int(index) in ranges:
            reader.fail(f"feature index must be a new integer >= 1, got {index:g}")
        ranges[int(index)] = (low, high)
    _check_limits(lower, upper, "x")
    return lower, upper, ranges, target_range


class _RangeLines:
    """The non-blank lines of a range file, with their numbers for error messages."""

    def __init__(self, lines, name):
        self._lines = [(number, line.strip()) for number, line in enumerate(lines, 1) if line.strip()]
        self._position = 0
        self._name = name

    def peek(self):
        if self._position == len(self._lines):
            return None
        return self._lines[self._position][1]

    def next_line(self):
        line = self.peek()
        if line is None:
            self.fail("unexpected end of file")
        self._position += 1
        return line

    def numbers(self, count, what):
        line = self.next_line()
        fields = line.split()
        try:
            values = [float(field) for field in fields]
        except ValueError:
            values = []
        if len(values) != count or not all(np.isfinite(values)):
            self._position -= 1
            self.fail(f"expected {what}, got {line!r}")
        return values

    def fail(self, reason):
        number = self._lines[self._position][0] if self._position < len(self._lines) else "end"
        raise ValueError(f"{self._name}, line {number}: {reason}")
