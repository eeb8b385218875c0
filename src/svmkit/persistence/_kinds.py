"""Kinds of values: what each field of a model file may hold, and how it is checked."""

from __future__ import annotations

import math

import numpy as np
import scipy.sparse as sp

from .._validation import csr_structure_problem
from ._errors import _fail
from ._raw import _describe, _RawCSR, _RawRandomState

#: Words of state of NumPy's Mersenne Twister (``RandomState.get_state()[1]``).
_MT19937_WORDS = 624


def _is_integer(value):
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


def _is_real(value):
    return isinstance(value, (int, float, np.integer, np.floating)) and not isinstance(value, (bool, np.bool_))


class _Kind:
    """What a field may hold; :meth:`check` returns the value or raises ModelFileError."""

    #: How ``docs/model-files.md`` and :func:`saved_fields` name the values.
    description = ""

    def check(self, raw, where):
        raise NotImplementedError


class _Int(_Kind):
    def __init__(self, low=0):
        self.low = low
        self.description = f"int >= {low}"

    def check(self, raw, where):
        if not _is_integer(raw):
            _fail(where, f"expected an integer, got {_describe(raw)}")
        if raw < self.low:
            _fail(where, f"must be >= {self.low}, got {raw}")
        return int(raw)


class _Real(_Kind):
    def __init__(self, values="finite"):
        self.values = values
        self.description = "float" if values == "finite" else "float (inf allowed)"

    def check(self, raw, where):
        if not _is_real(raw):
            _fail(where, f"expected a number, got {_describe(raw)}")
        value = float(raw)
        if math.isnan(value) or (self.values == "finite" and math.isinf(value)):
            _fail(where, f"must be finite, got {value}")
        return raw if isinstance(raw, (float, np.floating)) else value


class _Text(_Kind):
    def __init__(self, choices):
        self.choices = choices
        self.description = " or ".join(repr(choice) for choice in choices)

    def check(self, raw, where):
        if raw not in self.choices or type(raw) is not str:
            _fail(where, f"must be one of {self.choices}, got {_describe(raw)}")
        return raw


class _Shape(_Kind):
    description = "(int, int)"

    def check(self, raw, where):
        if type(raw) not in (tuple, list) or len(raw) != 2 or not all(_is_integer(n) and n >= 0 for n in raw):
            _fail(where, f"expected two non-negative integers, got {_describe(raw)}")
        return tuple(int(n) for n in raw)


def _ndim_text(ndim):
    return " or ".join(f"{n}-D" for n in ndim)


#: How far above 0 a stored log-probability may lie (the round-off of a log of 1).
_LOG_ONE_SLACK = 1e-12


class _Floats(_Kind):
    """float64 arrays; ``values``: 'finite', 'no nan' (infinities allowed), 'any', or 'log
    probability' (at most 0, -inf allowed; round-off of ``_LOG_ONE_SLACK`` above 0 kept)."""

    def __init__(self, *ndim, values="finite"):
        self.ndim = ndim
        self.values = values
        extra = {"finite": "", "no nan": ", inf allowed", "any": ", NaN and inf allowed",
                 "log probability": ", at most 0, -inf allowed"}[values]
        self.description = f"float64 {_ndim_text(ndim)}{extra}"

    def check(self, raw, where):
        if not isinstance(raw, np.ndarray) or raw.dtype != np.float64:
            _fail(where, f"expected a float64 array, got {_describe(raw)}")
        if raw.ndim not in self.ndim:
            _fail(where, f"expected a {_ndim_text(self.ndim)} array, got shape {raw.shape}")
        if self.values == "finite" and not np.isfinite(raw).all():
            _fail(where, "holds NaN or infinite values")
        if self.values == "no nan" and np.isnan(raw).any():
            _fail(where, "holds NaN")
        if self.values == "log probability" and not (raw <= _LOG_ONE_SLACK).all():
            _fail(where, "holds NaN or log-probabilities above 0")
        return raw


class _Integers(_Kind):
    """Integer arrays (any width), all ``>= low`` when given."""

    def __init__(self, *ndim, low=None):
        self.ndim = ndim
        self.low = low
        self.description = f"int {_ndim_text(ndim)}" + (f", >= {low}" if low is not None else "")

    def check(self, raw, where):
        if not isinstance(raw, np.ndarray) or raw.dtype.kind not in "iu":
            _fail(where, f"expected an integer array, got {_describe(raw)}")
        if raw.ndim not in self.ndim:
            _fail(where, f"expected a {_ndim_text(self.ndim)} array, got shape {raw.shape}")
        if self.low is not None and raw.size and raw.min() < self.low:
            _fail(where, f"holds {raw.min()}, below {self.low}")
        return raw


class _Labels(_Kind):
    """A 1-D array of labels: booleans, finite numbers or strings, or an object array of str,
    int, finite float, bool and None (written as JSON items). Distinct labels (classes, categories) are
    strictly increasing, as ``np.unique`` gives them, or for an object array of labels that do
    not all compare, distinct."""

    description = "labels 1-D, distinct"

    def check(self, raw, where):
        if not isinstance(raw, np.ndarray) or raw.dtype.kind not in "biufUSO":
            _fail(where, f"expected an array of labels, got {_describe(raw)}")
        if raw.ndim != 1:
            _fail(where, f"expected a 1-D array, got shape {raw.shape}")
        if raw.dtype.kind == "O":
            if not all(item is None or type(item) in (bool, int, str, float) for item in raw):
                _fail(where, "object arrays of labels hold str, int, float, bool and None only")
            if len(set(raw.tolist())) != raw.shape[0]:
                _fail(where, "labels repeat")
            if any(type(item) is float and not math.isfinite(item) for item in raw):
                _fail(where, "labels must be finite (no NaN or infinity)")
        elif raw.dtype.kind == "f" and not np.isfinite(raw).all():
            _fail(where, "labels must be finite (no NaN or infinity)")
        elif np.any(raw[1:] <= raw[:-1]):
            _fail(where, "labels must be strictly increasing (sorted, each once)")
        return raw


class _Names(_Kind):
    description = "str 1-D"

    def check(self, raw, where):
        if not isinstance(raw, np.ndarray) or raw.ndim != 1 or raw.dtype.kind not in "UO":
            _fail(where, f"expected a 1-D array of strings, got {_describe(raw)}")
        if raw.dtype.kind == "O" and not all(type(item) is str for item in raw):
            _fail(where, "holds values that are not strings")
        return raw


class _PerProblem(_Kind):
    """One number for a single problem, else a float64 array of one per problem."""

    description = "float, or float64 1-D (one per problem); inf allowed"

    def check(self, raw, where):
        if isinstance(raw, np.ndarray):
            return _Floats(1, values="no nan").check(raw, where)
        return _Real(values="no nan").check(raw, where)


class _Matrix(_Kind):
    """Dense float64 rows, or a canonical CSR matrix (sorted indices, no duplicates) of
    finite float64 values and indices in range."""

    description = "float64 2-D or CSR"

    def check(self, raw, where):
        if isinstance(raw, _RawCSR):
            return _checked_csr(raw, where)
        return np.ascontiguousarray(_Floats(2).check(raw, where))


def _checked_csr(raw, where):
    shape = _Shape().check(raw.shape, f"{where} shape")
    data = _Floats(1).check(raw.data, f"{where}.data")
    for name, part in (("indices", raw.indices), ("indptr", raw.indptr)):
        if not isinstance(part, np.ndarray) or part.dtype not in (np.int32, np.int64) or part.ndim != 1:
            _fail(f"{where}.{name}", f"expected a 1-D int32 or int64 array, got {_describe(part)}")
    indices, indptr = raw.indices, raw.indptr
    problem = csr_structure_problem(data, indices, indptr, shape)
    if problem is not None:
        _fail(f"{where}.{problem[0]}", problem[1])
    nnz = indices.shape[0]
    starts_row = np.zeros(nnz, dtype=bool)
    starts_row[indptr[:-1][indptr[:-1] < nnz]] = True
    if np.any((np.diff(indices) <= 0) & ~starts_row[1:]):
        _fail(f"{where}.indices", "the column indices of a row are not strictly increasing (not canonical CSR)")
    matrix_type = sp.csr_matrix if raw.format == "csr_matrix" else sp.csr_array
    matrix = matrix_type((data, indices, indptr), shape=shape, copy=False)
    matrix.check_format(full_check=True)
    return matrix


class _ListOf(_Kind):
    def __init__(self, kind):
        self.kind = kind
        self.description = f"list of {kind.description}"

    def check(self, raw, where):
        if type(raw) is not list:
            _fail(where, f"expected a list, got {_describe(raw)}")
        return [self.kind.check(item, f"{where}[{i}]") for i, item in enumerate(raw)]


class _RandomStateKind(_Kind):
    description = f"random state (Mersenne Twister: {_MT19937_WORDS} uint32 keys, position, cached Gaussian)"

    def check(self, raw, where):
        if not isinstance(raw, _RawRandomState):
            _fail(where, f"expected a random state, got {_describe(raw)}")
        keys = raw.keys
        if not isinstance(keys, np.ndarray) or keys.dtype.kind not in "iu" or keys.shape != (_MT19937_WORDS,):
            _fail(f"{where}.keys", f"expected {_MT19937_WORDS} integers, got {_describe(keys)}")
        pos = _Int().check(raw.pos, f"{where}.pos")
        has_gauss = _Int().check(raw.has_gauss, f"{where}.has_gauss")
        cached = _Real().check(raw.cached_gaussian, f"{where}.cached_gaussian")
        if pos > _MT19937_WORDS or has_gauss > 1 or keys.min() < 0 or keys.max() > np.iinfo(np.uint32).max:
            _fail(where, "is not a Mersenne Twister state")
        state = np.random.RandomState()
        state.set_state(("MT19937", keys.astype(np.uint32), pos, has_gauss, cached))
        return state


_RANDOM_STATE = _RandomStateKind()


class _EstimatorKind(_Kind):
    description = "estimator (its class, parameters and fields)"

    def check(self, raw, where):
        from ._build import _build_estimator  # (imported on use: building an estimator checks its fields here)

        return _build_estimator(raw, where, nested=True)


class _Results(_Kind):
    """:attr:`svmkit.SVCGridSearch.cv_results_`: a dict of 1-D arrays of one length."""

    numbers = ("log2_C", "log2_gamma", "C", "gamma", "mean_accuracy", "std_accuracy", "mean_fit_time")
    texts = ("stage",)
    description = "dict of 1-D arrays: " + ", ".join(numbers + texts)

    def check(self, raw, where):
        if type(raw) is not dict or set(raw) != set(self.numbers + self.texts):
            _fail(where, f"expected a dict of the entries {list(self.numbers + self.texts)}, got {_describe(raw)}")
        results = {}
        for name in raw:
            kind = _Floats(1) if name in self.numbers else _Names()
            results[name] = kind.check(raw[name], f"{where}[{name!r}]")
        if len({value.shape for value in results.values()}) != 1:
            _fail(where, "its arrays differ in length")
        return results


class _BestParams(_Kind):
    description = "dict {'C': float, 'gamma': float}"

    def check(self, raw, where):
        if type(raw) is not dict or set(raw) != {"C", "gamma"}:
            _fail(where, f"expected a dict of C and gamma, got {_describe(raw)}")
        return {name: _Real().check(raw[name], f"{where}[{name!r}]") for name in raw}


class _Count(_Kind):
    """A number (Python or NumPy scalar), or a 1-D array of one per feature."""

    description = "number, or 1-D array (one per feature)"

    def check(self, raw, where):
        if isinstance(raw, np.ndarray):
            if raw.ndim != 1 or raw.dtype.kind not in "iuf" or not np.isfinite(raw).all():
                _fail(where, f"expected a 1-D array of finite counts, got {_describe(raw)}")
            return raw
        if not _is_real(raw) or not math.isfinite(raw):
            _fail(where, f"expected a count, got {_describe(raw)}")
        return raw


class _Optional(_Kind):
    """A value of ``kind``, or None."""

    def __init__(self, kind):
        self.kind = kind
        self.description = f"{kind.description}, or null"

    def check(self, raw, where):
        return None if raw is None else self.kind.check(raw, where)
