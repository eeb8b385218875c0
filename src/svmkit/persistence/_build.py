"""Building estimators from the raw values of a file, after every check of their fields."""

from __future__ import annotations

from ._errors import _fail, _join
from ._kernels import _build_kernel
from ._kinds import _RANDOM_STATE
from ._raw import _describe, _RawCSR, _RawEstimator, _RawKernel, _RawRandomState, _V1Object
from ._registry import _refuse_class, _schema_named


def _build_estimator(raw, where, nested):
    """The estimator that ``raw`` describes, after every check of its class's fields."""
    if not isinstance(raw, _RawEstimator):
        _fail(where, f"expected an estimator, got {_describe(raw)}")
    schema = _schema_named(raw.name, nested)
    if schema is None:
        _refuse_class(raw.name, where, nested)
    cls = schema.estimator_class()
    label = where or cls.__name__
    params = {name: _param_value(value, _join(label, name)) for name, value in raw.params.items()}
    try:
        estimator = cls(**params)
    except TypeError as error:
        _fail(label, f"the parameters do not fit {cls.__name__}: {error}")
    fields = schema.check_presence(raw.fields, label)
    values = {name: schema.kinds[name].check(fields[name], _join(label, name)) for name in schema.names if name in fields}
    try:
        if schema.module.startswith("sklearn.") and hasattr(estimator, "_parameter_constraints"):
            estimator._validate_params()  # (scikit-learn's own checks of its parameters, as its fit makes them)
        schema.check_params(estimator, bool(values))
    except ValueError as error:
        _fail(label, f"a parameter is not valid: {error}")
    if values:
        schema.check(estimator, values, label)
        schema.restore(estimator, values)
        schema.verify_version_1(estimator, raw.private, label)
    return estimator


def _param_value(raw, where):
    """A parameter: scalars, arrays, lists, tuples, dicts, random states, kernels and
    estimators (as inside :class:`svmkit.SVCGridSearch`)."""
    if isinstance(raw, _RawKernel):
        return _build_kernel(raw, where)
    if isinstance(raw, _RawEstimator):
        return _build_estimator(raw, where, nested=True)
    if isinstance(raw, _RawRandomState):
        return _RANDOM_STATE.check(raw, where)
    if isinstance(raw, (_RawCSR, _V1Object)):
        _fail(where, f"a parameter cannot be {_describe(raw)}")
    if type(raw) is list:
        return [_param_value(item, f"{where}[{i}]") for i, item in enumerate(raw)]
    if type(raw) is tuple:
        return tuple(_param_value(item, f"{where}[{i}]") for i, item in enumerate(raw))
    if type(raw) is dict:
        return {key: _param_value(item, f"{where}[{key!r}]") for key, item in raw.items()}
    return raw
