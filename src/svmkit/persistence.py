"""Save and load fitted svmkit estimators without pickle.

:func:`save` writes an estimator to one file and :func:`load` reads it back;
the reloaded estimator predicts exactly (bit for bit) what the saved one did.
Loading never runs code from the file: the file holds data only, and the
classes it names must be defined in svmkit.

File format ``svmkit-model``, version 1
--------------------------------------
A ZIP archive as written by :func:`numpy.savez_compressed`; every member is
a ``.npy`` array that :func:`numpy.load` reads with ``allow_pickle=False``:

* ``metadata.npy``: a ``uint8`` array holding UTF-8 JSON::

      {"format": "svmkit-model", "format_version": 1, "svmkit_version": "0.1.0",
       "estimator": "svmkit.SVC", "params": {...}, "state": {...}}

  ``params`` are the constructor parameters (``get_params(deep=False)``) and
  ``state`` every other instance attribute (``vars(estimator)``): the fitted
  attributes such as ``dual_coef_`` and the private ones prediction needs.
* ``a0.npy``, ``a1.npy``, ...: the arrays the metadata refers to.

Values in ``params`` and ``state`` are JSON: ``null``, booleans, integers,
strings, finite floats and lists stand for themselves; every other value is
an object with a ``"type"``:

================  ==========================================================
``float``         ``{"value": "nan" | "inf" | "-inf"}``
``tuple``         ``{"items": [...]}``
``dict``          ``{"items": [[key, value], ...]}``
``ndarray``       ``{"array": "a3"}``: an array of a non-object dtype
``object_array``  ``{"shape": [...], "items": [...]}``: str, int, float, bool,
                  None (NumPy scalars among them become Python scalars)
``scalar``        ``{"dtype": "float64", "value": ...}`` or ``{"array": ...}``
                  (a 0-d array): a NumPy scalar
``csr_matrix``    ``{"shape": [m, n], "data": ..., "indices": ..., "indptr": ...}``
                  (also ``csr_array``)
``random_state``  ``{"state": ...}``: a ``numpy.random.RandomState``
``object``        ``{"class": "svmkit.kernels.RBFKernel", "state": {...}}``: an
                  instance of a svmkit class (kernels, dataclasses such as
                  :class:`svmkit.BinaryModel`) and its attributes; also
                  scikit-learn's ``Pipeline`` and ``StandardScaler`` (the
                  ``best_estimator_`` of a grid search)
``namedtuple``    ``{"class": ..., "items": [...]}``: a svmkit named tuple
================  ==========================================================

Functions (a callable kernel, ``CallableKernel``, a ``callback``) and
other objects of other libraries cannot be saved: :func:`save` raises
``TypeError`` naming the attribute. :func:`load` imports nothing but svmkit
modules, and creates objects without calling their constructors, except the
estimator itself (``Estimator(**params)``) and named tuples.

Examples
--------
>>> import io
>>> import numpy as np
>>> from svmkit import SVC
>>> from svmkit.persistence import load, save
>>> X = np.array([[0.0, 0.0], [1.0, 1.0], [0.0, 1.0], [1.0, 0.0]])
>>> model = SVC(kernel="rbf", gamma=2.0).fit(X, ["a", "a", "b", "b"])
>>> buffer = io.BytesIO()
>>> save(model, buffer)
>>> reloaded = load(io.BytesIO(buffer.getvalue()))
>>> reloaded.predict(X)
array(['a', 'a', 'b', 'b'], dtype='<U1')
>>> bool(np.array_equal(reloaded.decision_function(X), model.decision_function(X)))
True
"""

from __future__ import annotations

import importlib
import io
import json
import math
import os
import re
import zipfile
import zlib

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator
from sklearn.pipeline import Pipeline
from sklearn.preprocessing import StandardScaler

__all__ = ["ModelFileError", "save", "load", "FORMAT_NAME", "FORMAT_VERSION"]

FORMAT_NAME = "svmkit-model"
FORMAT_VERSION = 1

_METADATA = "metadata"
_MODULE_PATH = re.compile(r"svmkit(\.(?!__)[A-Za-z_][A-Za-z0-9_]*)*")
_CLASS_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_SPARSE_TYPES = {"csr_matrix": sp.csr_matrix, "csr_array": sp.csr_array}
_PLAIN_TYPES = (type(None), bool, int, str)
#: The classes of other libraries that svmkit estimators hold, by their path in files.
_FOREIGN_CLASSES = {"sklearn.pipeline.Pipeline": Pipeline, "sklearn.preprocessing.StandardScaler": StandardScaler}
_INLINE_SCALAR_KINDS = "biuf"
#: What reading a damaged archive can raise; all of it means a damaged file.
_ARCHIVE_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, KeyError, NotImplementedError, RuntimeError)


class ModelFileError(ValueError):
    """A file that :func:`load` cannot read as an svmkit model.

    Raised for files that are truncated or corrupted, that are not in the
    ``svmkit-model`` format, that come from a newer svmkit (a format version
    this one does not know) or that name a class outside svmkit.

    Examples
    --------
    >>> import io
    >>> from svmkit.persistence import load
    >>> try:
    ...     load(io.BytesIO(b"not a model"))
    ... except ModelFileError as error:
    ...     print(error)
    not an svmkit model file: not a ZIP archive
    """


def save(estimator, target):
    """Save an svmkit estimator, fitted or not, to a file.

    Parameters
    ----------
    estimator : svmkit estimator
        Any estimator of svmkit (``SVC``, ``GaussianNB``, ...).
    target : str, os.PathLike or binary file object
        Where to write. The name is used as given (no ``.npz`` is added).

    Raises
    ------
    TypeError
        If the estimator is not an svmkit estimator, or holds something the
        format cannot represent (a function such as a callable kernel or a
        callback, an object of another library); the message names the
        attribute.

    Examples
    --------
    >>> import io
    >>> import numpy as np
    >>> from svmkit import GaussianNB
    >>> model = GaussianNB().fit(np.array([[0.0], [0.2], [1.0], [1.3]]), [0, 0, 1, 1])
    >>> buffer = io.BytesIO()
    >>> save(model, buffer)
    >>> buffer.getvalue()[:2]
    b'PK'
    """
    from . import __version__

    if not isinstance(estimator, BaseEstimator) or not _is_svmkit_class(type(estimator)):
        raise TypeError(f"save() takes an svmkit estimator, got {type(estimator).__name__}.")
    encoder = _Encoder(type(estimator).__name__)
    class_path = encoder.class_path(type(estimator), "")
    params = estimator.get_params(deep=False)
    state = {name: value for name, value in vars(estimator).items() if name not in params}
    metadata = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "svmkit_version": __version__,
        "estimator": class_path,
        "params": encoder.attributes(params, ""),
        "state": encoder.attributes(state, ""),
    }
    text = json.dumps(metadata, allow_nan=False, separators=(",", ":"))
    arrays = {_METADATA: np.frombuffer(text.encode("utf-8"), dtype=np.uint8), **encoder.arrays}
    if isinstance(target, (str, os.PathLike)):
        with open(target, "wb") as file:
            np.savez_compressed(file, **arrays)
    else:
        np.savez_compressed(target, **arrays)


def load(source):
    """Load an estimator saved by :func:`save`.

    Parameters
    ----------
    source : str, os.PathLike or binary file object

    Returns
    -------
    estimator
        The estimator, of the class it was saved from, with its parameters
        and fitted attributes.

    Raises
    ------
    ModelFileError
        If the file is not an svmkit model file, is truncated or corrupted
        (the ZIP checksums are verified), has a newer format version, or
        names a class that is not an svmkit class.
    OSError
        If the file cannot be read.

    Examples
    --------
    >>> import io
    >>> import numpy as np
    >>> from svmkit import GaussianNB
    >>> X = np.array([[0.0], [0.2], [1.0], [1.3]])
    >>> buffer = io.BytesIO()
    >>> save(GaussianNB().fit(X, [0, 0, 1, 1]), buffer)
    >>> model = load(io.BytesIO(buffer.getvalue()))
    >>> model
    GaussianNB()
    >>> model.predict([[0.1], [1.2]])
    array([0, 1])
    """
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as file:
            raw = file.read()
    else:
        raw = source.read()
    arrays = _read_archive(bytes(raw))
    metadata = _read_metadata(arrays)
    decoder = _Decoder(arrays)
    try:
        cls = _svmkit_class(metadata["estimator"], BaseEstimator, foreign=False)
        params = decoder.attributes(metadata["params"])
        state = decoder.attributes(metadata["state"])
        estimator = cls(**params)
    except ModelFileError:
        raise
    except (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError, RecursionError) as error:
        raise ModelFileError(f"malformed svmkit model file: {type(error).__name__}: {error}") from None
    vars(estimator).update(state)
    return estimator


# -- encoding ---------------------------------------------------------------------------------


class _Encoder:
    """Turns values into JSON, collecting the arrays; errors name the attribute."""

    def __init__(self, owner):
        self.owner = owner
        self.arrays = {}

    def attributes(self, mapping, path):
        return {name: self.value(value, f"{path}.{name}" if path else name) for name, value in mapping.items()}

    def value(self, value, path):
        if type(value) in _PLAIN_TYPES:
            return value
        if type(value) is float:
            return value if math.isfinite(value) else {"type": "float", "value": repr(value)}
        if type(value) is list:
            return [self.value(item, f"{path}[{i}]") for i, item in enumerate(value)]
        if type(value) is dict:
            return {"type": "dict", "items": [[self.value(k, f"{path} key"), self.value(v, f"{path}[{k!r}]")] for k, v in value.items()]}
        if type(value) is np.ndarray:
            return self.ndarray(value, path)
        if isinstance(value, np.generic):
            return self.scalar(value, path)
        if type(value) in (sp.csr_matrix, sp.csr_array):
            return self.sparse(value, path)
        if type(value) is np.random.RandomState:
            return {"type": "random_state", "state": self.value(value.get_state(legacy=True), f"{path} state")}
        if _is_saved_object(value):
            return self.saved_object(value, path)
        if type(value) is tuple:
            return {"type": "tuple", "items": [self.value(item, f"{path}[{i}]") for i, item in enumerate(value)]}
        self.refuse(value, path)

    def ndarray(self, array, path):
        if array.dtype.kind == "O":
            items = [self.element(item, f"{path}[{i}]") for i, item in enumerate(array.ravel(order="C").tolist())]
            return {"type": "object_array", "shape": list(array.shape), "items": items}
        if array.dtype.kind not in "biufcSUmM":
            raise TypeError(f"Cannot save {self.owner}.{path}: arrays of dtype {array.dtype} are not supported.")
        return {"type": "ndarray", "array": self.store(array)}

    def element(self, item, path):
        if isinstance(item, np.generic):
            item = item.item()
        if type(item) in _PLAIN_TYPES or type(item) is float:
            return self.value(item, path)
        raise TypeError(
            f"Cannot save {self.owner}.{path}: object arrays may hold str, int, float, bool and None, "
            f"not {type(item).__name__}."
        )

    def scalar(self, value, path):
        if value.dtype.kind in _INLINE_SCALAR_KINDS and value.dtype.itemsize <= 8:
            return {"type": "scalar", "dtype": value.dtype.str, "value": self.value(value.item(), path)}
        return {"type": "scalar", "array": self.ndarray(np.asarray(value), path)["array"]}

    def sparse(self, matrix, path):
        parts = {name: self.ndarray(getattr(matrix, name), f"{path}.{name}") for name in ("data", "indices", "indptr")}
        return {"type": type(matrix).__name__, "shape": list(matrix.shape), **parts}

    def saved_object(self, value, path):
        cls = type(value)
        if isinstance(value, tuple):
            items = [self.value(item, f"{path}.{name}") for name, item in zip(cls._fields, value)]
            return {"type": "namedtuple", "class": self.class_path(cls, path), "items": items}
        return {"type": "object", "class": self.class_path(cls, path), "state": self.attributes(vars(value), path)}

    def class_path(self, cls, path):
        """The shortest ``module.Name`` under svmkit that names ``cls`` (or its path in _FOREIGN_CLASSES)."""
        for foreign_path, foreign in _FOREIGN_CLASSES.items():
            if cls is foreign:
                return foreign_path
        if not _is_svmkit_class(cls) or "." in cls.__qualname__:
            self.refuse(cls, path)
        parts = cls.__module__.split(".")
        for end in range(1, len(parts) + 1):
            module = ".".join(parts[:end])
            if getattr(importlib.import_module(module), cls.__name__, None) is cls:
                return f"{module}.{cls.__name__}"
        self.refuse(cls, path)

    def store(self, array):
        key = f"a{len(self.arrays)}"
        self.arrays[key] = array
        return key

    def refuse(self, value, path):
        where = f"{self.owner}.{path}" if path else self.owner
        if callable(value) and not isinstance(value, type):
            raise TypeError(
                f"Cannot save {where}: it is a function ({value!r}). Functions are not saved "
                "(no pickle): use a svmkit.kernels kernel instead of a callable kernel, and set "
                "callbacks to None (set_params) before saving."
            )
        kind = value.__qualname__ if isinstance(value, type) else type(value).__qualname__
        module = value.__module__ if isinstance(value, type) else type(value).__module__
        raise TypeError(f"Cannot save {where}: objects of type {module}.{kind} are not supported.")


def _is_svmkit_class(cls):
    return cls.__module__ == "svmkit" or cls.__module__.startswith("svmkit.")


def _is_saved_object(value):
    cls = type(value)
    if not _is_svmkit_class(cls) and cls not in _FOREIGN_CLASSES.values():
        return False
    if isinstance(value, tuple):
        return hasattr(cls, "_fields")
    return hasattr(value, "__dict__")


# -- reading the archive ----------------------------------------------------------------------


def _read_archive(raw):
    """Every member of the ZIP archive as an array, checksums verified."""
    if not raw.startswith(b"PK\x03\x04"):
        raise ModelFileError("not an svmkit model file: not a ZIP archive")
    arrays = {}
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            for name in archive.namelist():
                if not name.endswith(".npy"):
                    raise ModelFileError(f"not an svmkit model file: unexpected member {name!r}")
                arrays[name[: -len(".npy")]] = _read_npy(archive.read(name), name)
    except ModelFileError:
        raise
    except _ARCHIVE_ERRORS as error:
        raise ModelFileError(f"truncated or corrupted svmkit model file: {type(error).__name__}: {error}") from None
    return arrays


def _read_npy(data, name):
    """An array from ``.npy`` bytes, after checking that the header matches the size."""
    buffer = io.BytesIO(data)
    version = np.lib.format.read_magic(buffer)
    if version == (1, 0):
        shape, fortran_order, dtype = np.lib.format.read_array_header_1_0(buffer)
    elif version == (2, 0):
        shape, fortran_order, dtype = np.lib.format.read_array_header_2_0(buffer)
    else:
        raise ModelFileError(f"corrupted svmkit model file: member {name!r} has .npy version {version}")
    if dtype.hasobject:
        raise ModelFileError(f"refusing member {name!r}: it holds pickled Python objects, which svmkit model files never do")
    if buffer.tell() + math.prod(shape) * dtype.itemsize != len(data):
        raise ModelFileError(f"corrupted svmkit model file: member {name!r} does not hold the array its header announces")
    buffer.seek(0)
    return np.lib.format.read_array(buffer, allow_pickle=False)


def _read_metadata(arrays):
    if _METADATA not in arrays:
        raise ModelFileError("not an svmkit model file: no metadata")
    try:
        metadata = json.loads(arrays[_METADATA].tobytes().decode("utf-8"), parse_constant=_refuse_constant)
    except (ValueError, RecursionError) as error:
        raise ModelFileError(f"corrupted svmkit model file: unreadable metadata ({error})") from None
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT_NAME:
        raise ModelFileError(f"not an svmkit model file: the format is not {FORMAT_NAME!r}")
    version = metadata.get("format_version")
    if type(version) is not int or version < 1:
        raise ModelFileError(f"corrupted svmkit model file: format_version {version!r}")
    if version > FORMAT_VERSION:
        raise ModelFileError(
            f"the file has format version {version}, written by svmkit {metadata.get('svmkit_version')}; "
            f"this svmkit reads versions up to {FORMAT_VERSION}: upgrade svmkit"
        )
    return metadata


def _refuse_constant(name):
    raise ValueError(f"{name} is not valid JSON")


# -- decoding ---------------------------------------------------------------------------------


class _Decoder:
    """The inverse of :class:`_Encoder`; raises ModelFileError for anything unexpected."""

    def __init__(self, arrays):
        self.arrays = arrays

    def attributes(self, mapping):
        if not isinstance(mapping, dict) or not all(isinstance(name, str) for name in mapping):
            raise ModelFileError("malformed svmkit model file: attributes are not a JSON object")
        return {name: self.value(value) for name, value in mapping.items()}

    def value(self, value):
        if type(value) in _PLAIN_TYPES or type(value) is float:
            return value
        if type(value) is list:
            return [self.value(item) for item in value]
        if type(value) is not dict:
            raise ModelFileError(f"malformed svmkit model file: unexpected value {value!r}")
        kind = value.get("type")
        if kind == "float":
            return float(_one_of(value["value"], ("nan", "inf", "-inf")))
        if kind == "tuple":
            return tuple(self.value(item) for item in value["items"])
        if kind == "dict":
            return {self.value(key): self.value(item) for key, item in value["items"]}
        if kind == "ndarray":
            return self.array(value["array"])
        if kind == "object_array":
            items = [self.value(item) for item in value["items"]]
            array = np.empty(len(items), dtype=object)
            array[:] = items
            return array.reshape(value["shape"])
        if kind == "scalar":
            return self.scalar(value)
        if kind in _SPARSE_TYPES:
            parts = [self.value(value[name]) for name in ("data", "indices", "indptr")]
            matrix = _SPARSE_TYPES[kind](tuple(parts), shape=tuple(value["shape"]))
            matrix.check_format(full_check=True)
            return matrix
        if kind == "random_state":
            state = np.random.RandomState()
            state.set_state(self.value(value["state"]))
            return state
        if kind == "object":
            cls = _svmkit_class(value["class"], object)
            instance = object.__new__(cls)
            vars(instance).update(self.attributes(value["state"]))
            return instance
        if kind == "namedtuple":
            cls = _svmkit_class(value["class"], tuple)
            if not hasattr(cls, "_fields"):
                raise ModelFileError(f"refusing to load {value['class']!r}: it is not a named tuple")
            return cls(*(self.value(item) for item in value["items"]))
        raise ModelFileError(f"malformed svmkit model file: unknown value type {kind!r}")

    def array(self, key):
        if not isinstance(key, str) or key == _METADATA or key not in self.arrays:
            raise ModelFileError(f"malformed svmkit model file: no array {key!r}")
        return self.arrays[key]

    def scalar(self, value):
        if "array" in value:
            array = self.array(value["array"])
            if array.ndim != 0:
                raise ModelFileError("malformed svmkit model file: a scalar is not a 0-d array")
            return array[()]
        dtype = np.dtype(value["dtype"])
        number = self.value(value["value"])
        if dtype.kind not in _INLINE_SCALAR_KINDS or type(number) not in (bool, int, float):
            raise ModelFileError(f"malformed svmkit model file: scalar {number!r} of dtype {dtype}")
        return dtype.type(number)


def _one_of(value, allowed):
    if value not in allowed:
        raise ModelFileError(f"malformed svmkit model file: {value!r} is not one of {allowed}")
    return value


def _svmkit_class(path, base, foreign=True):
    """The class at ``path`` (``svmkit....Name``), refused unless svmkit defines it
    (or, with ``foreign``, it is one of _FOREIGN_CLASSES)."""
    if not isinstance(path, str):
        raise ModelFileError(f"malformed svmkit model file: class path {path!r}")
    if foreign and path in _FOREIGN_CLASSES and issubclass(_FOREIGN_CLASSES[path], base):
        return _FOREIGN_CLASSES[path]
    module_name, _, name = path.rpartition(".")
    if not _MODULE_PATH.fullmatch(module_name) or not _CLASS_NAME.fullmatch(name):
        raise ModelFileError(f"refusing to load {path!r}: only classes of svmkit can be loaded")
    try:
        module = importlib.import_module(module_name)
    except ImportError:
        raise ModelFileError(f"the file names {path!r}, which this svmkit does not have") from None
    cls = getattr(module, name, None)
    if not isinstance(cls, type) or not _is_svmkit_class(cls) or not issubclass(cls, base):
        what = {BaseEstimator: "an estimator class", tuple: "a named tuple"}.get(base, "a class")
        raise ModelFileError(f"refusing to load {path!r}: it is not {what} of svmkit")
    return cls
