"""Reading the metadata of format version 1 (written by earlier svmkit) as version 2 gives it."""

from __future__ import annotations

from ._errors import ModelFileError, _fail, _join
from ._kernels import _FUNCTION_KERNELS, _KERNELS
from ._raw import _RawCSR, _RawEstimator, _RawKernel, _RawRandomState, _V1Object
from ._registry import _refuse_class, _schema_named
from ._version2 import MAX_NESTING, _decode, _decode_labels, _decode_scalar, _is_key, _name


def _read_version_1(metadata, members):
    """A version-1 file as the description a version-2 file gives: its public attributes as
    the fields, private ones mapped to the named fields that replace them (or compared with
    what is rebuilt). Classes named in the file are never imported from their path."""
    name = metadata.get("estimator")
    schema = _schema_named(name, nested=False) if isinstance(name, str) else None
    if schema is None:
        _refuse_class(name, "", nested=False)
    params = _v1_value(metadata.get("params"), "params", members, 0)
    state = _v1_value(metadata.get("state"), "state", members, 0)
    if type(params) is not dict or type(state) is not dict:
        raise ModelFileError("malformed svmkit model file: params and state are JSON objects")
    return _v1_estimator(schema, {key: _v1_raw(value) for key, value in params.items()}, state)


def _v1_value(value, where, members, depth):
    """A value of the version-1 metadata, objects kept as :class:`_V1Object`."""
    if depth > MAX_NESTING:
        _fail(where, f"values nest deeper than {MAX_NESTING} levels")
    if value is None or type(value) in (bool, int, str, float):
        return value
    if type(value) is list:
        return [_v1_value(item, f"{where}[{i}]", members, depth + 1) for i, item in enumerate(value)]
    if type(value) is not dict:
        _fail(where, f"unexpected value {value!r}")
    kind = value.get("type")
    if kind is None:
        if not all(isinstance(name, str) for name in value):
            _fail(where, "attributes are a JSON object")
        return {name: _v1_value(item, _join(where, name), members, depth + 1) for name, item in value.items()}
    if kind == "float":
        return _decode({"type": "float", "value": value.get("value")}, where, members, depth)
    if kind == "tuple":
        return tuple(_v1_value(value["items"], where, members, depth + 1))
    if kind == "dict":
        items = _v1_value(value["items"], where, members, depth + 1)
        if not all(type(pair) is list and len(pair) == 2 and _is_key(pair[0]) for pair in items):
            _fail(where, "the items of a dict are [key, value] pairs")
        return {key: item for key, item in items}
    if kind == "ndarray":
        return members.take(value["array"], where)
    if kind == "object_array":
        return _decode_labels({"type": "labels", "shape": value["shape"], "items": value["items"]}, where)
    if kind == "scalar":
        if "array" in value:
            array = members.take(value["array"], where)
            if array.ndim != 0:
                _fail(where, "a scalar is a 0-d array")
            return array[()]
        return _decode_scalar(value["dtype"], value["value"], where)
    if kind in ("csr_matrix", "csr_array"):
        parts = [_v1_value(value[name], f"{where}.{name}", members, depth + 1) for name in ("data", "indices", "indptr")]
        return _RawCSR(kind, value["shape"], *parts)
    if kind == "random_state":
        state = _v1_value(value["state"], where, members, depth + 1)
        if type(state) is not tuple or len(state) != 5 or state[0] != "MT19937":
            _fail(where, "a random state is ('MT19937', keys, pos, has_gauss, cached_gaussian)")
        return _RawRandomState(*state[1:])
    if kind in ("object", "namedtuple"):
        path = _name(value.get("class"), where)
        content = value["state"] if kind == "object" else value["items"]
        return _V1Object(path, _v1_value(content, where, members, depth + 1))
    _fail(where, f"unknown value type {kind!r}")


def _v1_raw(value):
    """Kernels and estimators of version-1 values as :class:`_RawKernel` and
    :class:`_RawEstimator`; other objects stay :class:`_V1Object` for the mapping of their
    estimator class (or are refused by the checks)."""
    if isinstance(value, _V1Object):
        module, _, name = value.path.rpartition(".")
        if module == "svmkit.kernels" and name in _KERNELS and type(value.content) is dict:
            arguments = {key: _v1_raw(item) for key, item in value.content.items() if key != "is_mercer"}
            return _RawKernel(name, arguments)
        if module == "svmkit.kernels" and name in _FUNCTION_KERNELS:
            _fail("", f"the file holds a {name}, whose function cannot be loaded")
        schema = _schema_named(value.path, nested=True)
        if schema is not None and type(value.content) is dict:
            names = set(schema.estimator_class()._get_param_names())
            params = {key: _v1_raw(item) for key, item in value.content.items() if key in names}
            state = {key: item for key, item in value.content.items() if key not in names}
            return _v1_estimator(schema, params, state)
        return value
    if type(value) is list:
        return [_v1_raw(item) for item in value]
    if type(value) is tuple:
        return tuple(_v1_raw(item) for item in value)
    if type(value) is dict:
        return {key: _v1_raw(item) for key, item in value.items()}
    return value


def _v1_estimator(schema, params, state):
    fields, private = schema.from_version_1(state)
    return _RawEstimator(schema.name, params, fields, private)
