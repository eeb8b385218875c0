"""Writing: an estimator's parameters and fields as the JSON of the metadata and the arrays of
the archive."""

from __future__ import annotations

import math
import warnings

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator

from .. import kernels as kernel_module
from ._archive import _MEMBER_KINDS
from ._errors import _join
from ._kernels import _FUNCTION_KERNELS, _KERNELS
from ._registry import _schema_of_instance
from ._version2 import _DTYPE_NAMES, _SCALAR_KINDS

_PLAIN_TYPES = (type(None), bool, int, str)


class _Writer:
    """Turns values into JSON, collecting the arrays under the names of their fields; errors
    name the parameter."""

    def __init__(self, owner):
        self.owner = owner
        self.arrays = {}

    def estimator(self, estimator, path, schema):
        params = estimator.get_params(deep=False)
        if callable(params.get("callback")):
            where = f"{self.owner}.{path}" if path else self.owner
            warnings.warn(f"{where}.callback is not saved (a function; no pickle): the loaded model has "
                          "callback=None.", UserWarning, stacklevel=4)
            params["callback"] = None
        try:
            fields = schema.collect(estimator)
        except TypeError as error:
            raise TypeError(f"{error} (at {self.owner}.{path})" if path else str(error)) from None
        return {
            "type": "estimator",
            "class": schema.name,
            "params": {name: self.value(value, _join(path, name)) for name, value in params.items()},
            "fields": {name: self.value(value, _join(path, name)) for name, value in fields.items()},
        }

    def value(self, value, path):
        if type(value) in _PLAIN_TYPES:
            return value
        if type(value) is float:
            return value if math.isfinite(value) else {"type": "float", "value": repr(value)}
        if type(value) is list:
            return [self.value(item, f"{path}[{i}]") for i, item in enumerate(value)]
        if type(value) is tuple:
            return {"type": "tuple", "items": [self.value(item, f"{path}[{i}]") for i, item in enumerate(value)]}
        if type(value) is dict:
            items = [[self.key(key, path), self.value(item, f"{path}[{key!r}]")] for key, item in value.items()]
            return {"type": "dict", "items": items}
        if type(value) is np.ndarray:
            return self.ndarray(value, path)
        if type(value) is slice:
            ends = {name: getattr(value, name) for name in ("start", "stop", "step")}
            return {"type": "slice", **{name: self.value(end, f"{path}.{name}") for name, end in ends.items()}}
        if isinstance(value, np.generic):
            return self.scalar(value, path)
        if type(value) in (sp.csr_matrix, sp.csr_array):
            parts = {name: self.ndarray(getattr(value, name), f"{path}.{name}") for name in ("data", "indices", "indptr")}
            return {"type": type(value).__name__, "shape": list(value.shape), **parts}
        if type(value) is np.random.RandomState:
            _, keys, pos, has_gauss, cached_gaussian = value.get_state(legacy=True)
            return {"type": "random_state", "keys": self.ndarray(keys, f"{path}.keys"), "pos": int(pos),
                    "has_gauss": int(has_gauss), "cached_gaussian": self.value(float(cached_gaussian), path)}
        if isinstance(value, kernel_module.Kernel):
            return self.kernel(value, path)
        if isinstance(value, type) and issubclass(value, np.generic) and np.dtype(value).name in _DTYPE_NAMES:
            return {"type": "dtype", "name": np.dtype(value).name}
        if isinstance(value, BaseEstimator):
            schema = _schema_of_instance(value, nested=True)
            if schema is not None:
                return self.estimator(value, path, schema)
        self.refuse(value, path)

    def key(self, key, path):
        if type(key) in _PLAIN_TYPES or type(key) is float or isinstance(key, np.generic):
            return self.value(key, f"{path} key")
        self.refuse(key, f"{path} key")

    def ndarray(self, array, path):
        if array.dtype.kind == "O":
            items = [self.label(item, f"{path}[{i}]") for i, item in enumerate(array.ravel(order="C").tolist())]
            return {"type": "labels", "shape": list(array.shape), "items": items}
        if array.dtype.kind not in _MEMBER_KINDS or array.dtype.names is not None:
            raise TypeError(f"Cannot save {self.owner}.{path}: arrays of dtype {array.dtype} are not supported.")
        if path in self.arrays:
            raise TypeError(f"Cannot save {self.owner}.{path}: two arrays would have the name {path!r}.")
        self.arrays[path] = array
        return {"type": "ndarray", "array": path}

    def label(self, item, path):
        if isinstance(item, np.generic):
            item = item.item()
        if type(item) in _PLAIN_TYPES or type(item) is float:
            return self.value(item, path)
        raise TypeError(
            f"Cannot save {self.owner}.{path}: object arrays may hold str, int, float, bool and None, "
            f"not {type(item).__name__}."
        )

    def scalar(self, value, path):
        if value.dtype.kind not in _SCALAR_KINDS:
            raise TypeError(f"Cannot save {self.owner}.{path}: NumPy scalars of dtype {value.dtype} are not supported.")
        return {"type": "scalar", "dtype": value.dtype.str, "value": self.value(value.item(), path)}

    def kernel(self, kernel, path):
        name = type(kernel).__name__
        if name in _FUNCTION_KERNELS and type(kernel) is getattr(kernel_module, name):
            self.refuse(kernel.func, f"{path}.func")
        arguments = _KERNELS.get(name)
        if arguments is None or type(kernel) is not getattr(kernel_module, name):
            self.refuse(kernel, path)
        params = {argument: self.value(getattr(kernel, argument), f"{path}.{argument}") for argument in arguments}
        return {"type": "kernel", "class": name, "params": params}

    def refuse(self, value, path):
        where = f"{self.owner}.{path}" if path else self.owner
        if callable(value) and not isinstance(value, type) and not isinstance(value, (kernel_module.Kernel, BaseEstimator)):
            raise TypeError(
                f"Cannot save {where}: it is a function ({value!r}). Functions are not saved "
                "(no pickle): use a svmkit.kernels kernel instead of a callable kernel."
            )
        kind = type(value)
        if isinstance(value, BaseEstimator):
            from ._registry import _SCHEMAS

            known = ", ".join(schema.class_name for schema in _SCHEMAS)
            raise TypeError(
                f"Cannot save {where}: {kind.__qualname__} is not an estimator class that svmkit model files "
                f"hold ({known}). Files never hold code (no pickle), so steps that run functions, such as "
                "FunctionTransformer, cannot be saved."
            )
        raise TypeError(f"Cannot save {where}: objects of type {kind.__module__}.{kind.__qualname__} are not supported.")
