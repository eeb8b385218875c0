"""Reading the metadata of format version 2: its JSON values decoded into raw values, nothing built."""

from __future__ import annotations

import math

import numpy as np

from ._errors import ModelFileError, _fail, _join
from ._raw import _RawCSR, _RawEstimator, _RawKernel, _RawRandomState

#: How deep values may nest in a file's metadata (kernels of kernels, the steps of a pipeline
#: in a grid search): far beyond any model, and well within Python's recursion limit.
MAX_NESTING = 100
#: The dtype kinds a NumPy scalar may have in metadata.
_SCALAR_KINDS = "biufU"
#: NumPy scalar types that a parameter may name (such as OneHotEncoder's ``dtype``).
_DTYPE_NAMES = ("float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint64", "uint32", "uint16",
                "uint8", "bool")


def _read_version_2(metadata, members):
    extra = set(metadata) - {"format", "format_version", "svmkit_version", "estimator", "params", "fields"}
    if extra:
        raise ModelFileError(f"malformed svmkit model file: unknown metadata entries {sorted(extra)}")
    description = _decode(
        {"type": "estimator", "class": metadata.get("estimator"), "params": metadata.get("params"),
         "fields": metadata.get("fields")},
        "", members, 0,
    )
    members.check_all_used()
    return description


def _keys(value, expected, where):
    if set(value) != set(expected):
        _fail(where, f"a {value.get('type')!r} value needs the entries {sorted(expected)}, got {sorted(value)}")


def _decode(value, where, members, depth):
    """A JSON value of the metadata as the values of :class:`_RawEstimator` and the other
    raw types: nothing is built or instantiated here."""
    if depth > MAX_NESTING:
        _fail(where, f"values nest deeper than {MAX_NESTING} levels")
    if value is None or type(value) in (bool, int, str, float):
        return value
    if type(value) is list:
        return [_decode(item, f"{where}[{i}]", members, depth + 1) for i, item in enumerate(value)]
    if type(value) is not dict:
        _fail(where, f"unexpected value {value!r}")
    kind = value.get("type")
    if kind == "float":
        _keys(value, ("type", "value"), where)
        if value["value"] not in ("nan", "inf", "-inf"):
            _fail(where, f"a float is a finite number or 'nan', 'inf', '-inf', not {value['value']!r}")
        return float(value["value"])
    if kind in ("tuple", "dict"):
        _keys(value, ("type", "items"), where)
        items = _decode(value["items"], where, members, depth + 1)
        if type(items) is not list:
            _fail(where, f"the items of a {kind} are a list")
        if kind == "tuple":
            return tuple(items)
        if not all(type(pair) is list and len(pair) == 2 and _is_key(pair[0]) for pair in items):
            _fail(where, "the items of a dict are [key, value] pairs with keys of str, int, float, bool or None")
        return {key: item for key, item in items}
    if kind == "ndarray":
        _keys(value, ("type", "array"), where)
        return members.take(value["array"], where)
    if kind == "labels":
        return _decode_labels(value, where)
    if kind == "scalar":
        _keys(value, ("type", "dtype", "value"), where)
        return _decode_scalar(value["dtype"], value["value"], where)
    if kind in ("csr_matrix", "csr_array"):
        _keys(value, ("type", "shape", "data", "indices", "indptr"), where)
        parts = [_decode(value[name], f"{where}.{name}", members, depth + 1) for name in ("data", "indices", "indptr")]
        return _RawCSR(kind, value["shape"], *parts)
    if kind == "slice":
        _keys(value, ("type", "start", "stop", "step"), where)
        ends = [_decode(value[name], f"{where}.{name}", members, depth + 1) for name in ("start", "stop", "step")]
        if not all(end is None or type(end) in (int, str) or isinstance(end, (np.integer, np.str_)) for end in ends):
            _fail(where, f"a slice's start, stop and step are null, int or str, got {ends!r}")
        return slice(*ends)
    if kind == "random_state":
        _keys(value, ("type", "keys", "pos", "has_gauss", "cached_gaussian"), where)
        keys = _decode(value["keys"], f"{where}.keys", members, depth + 1)
        cached = _decode(value["cached_gaussian"], f"{where}.cached_gaussian", members, depth + 1)
        return _RawRandomState(keys, value["pos"], value["has_gauss"], cached)
    if kind == "kernel":
        _keys(value, ("type", "class", "params"), where)
        return _RawKernel(_name(value["class"], where), _decode_mapping(value["params"], where, members, depth))
    if kind == "dtype":
        _keys(value, ("type", "name"), where)
        if value["name"] not in _DTYPE_NAMES:
            _fail(where, f"a dtype is one of {list(_DTYPE_NAMES)}, not {value['name']!r}")
        return getattr(np, value["name"])
    if kind == "estimator":
        _keys(value, ("type", "class", "params", "fields"), where)
        name = _name(value["class"], where)
        return _RawEstimator(name, _decode_mapping(value["params"], where, members, depth),
                             _decode_mapping(value["fields"], where, members, depth), {})
    _fail(where, f"unknown value type {kind!r}")


def _name(value, where):
    if not isinstance(value, str):
        _fail(where, f"a class name is a string, got {value!r}")
    return value


def _decode_mapping(mapping, where, members, depth):
    if type(mapping) is not dict:
        _fail(where, "parameters and fields are a JSON object")
    return {name: _decode(item, _join(where, name), members, depth + 1) for name, item in mapping.items()}


def _is_key(value):
    return value is None or type(value) in (bool, int, str, float) or isinstance(value, np.generic)


def _decode_labels(value, where):
    _keys(value, ("type", "shape", "items"), where)
    shape, items = value["shape"], value["items"]
    if type(shape) is not list or not all(type(n) is int and n >= 0 for n in shape):
        _fail(where, f"the shape of labels is a list of non-negative integers, got {shape!r}")
    if type(items) is not list or len(items) != math.prod(shape):
        _fail(where, f"labels of shape {tuple(shape)} need {math.prod(shape)} items")
    decoded = []
    for item in items:
        if type(item) is dict and set(item) == {"type", "value"} and item["type"] == "float" and \
                item["value"] in ("nan", "inf", "-inf"):
            item = float(item["value"])
        elif not (item is None or type(item) in (bool, int, str, float)):
            _fail(where, f"labels are str, int, float, bool or None, not {item!r}")
        decoded.append(item)
    array = np.empty(len(decoded), dtype=object)
    array[:] = decoded
    return array.reshape(shape)


def _decode_scalar(dtype_text, number, where):
    try:
        dtype = np.dtype(dtype_text) if isinstance(dtype_text, str) else None
    except TypeError:
        dtype = None
    if dtype is None or dtype.kind not in _SCALAR_KINDS or dtype.names is not None or dtype.subdtype is not None:
        _fail(where, f"a NumPy scalar of dtype {dtype_text!r} is not part of svmkit model files")
    if isinstance(number, dict) and number.get("type") == "float" and number.get("value") in ("nan", "inf", "-inf"):
        number = float(number["value"])
    expected = str if dtype.kind == "U" else (bool, int, float)
    if type(number) not in (expected if isinstance(expected, tuple) else (expected,)):
        _fail(where, f"scalar {number!r} of dtype {dtype}")
    try:
        return dtype.type(number)
    except (OverflowError, ValueError) as error:
        _fail(where, f"scalar {number!r} of dtype {dtype}: {error}")
