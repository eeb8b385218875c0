"""Save and load fitted svmkit estimators as files of named, documented fields.

:func:`save` writes an estimator to one file and :func:`load` reads it back; the reloaded
estimator predicts exactly (bit for bit) what the saved one did. A file holds, for its
estimator class, the constructor parameters and a fixed list of public fields (the fitted
attributes that define the model, and named data such as the multipliers of every
two-class problem); no private attribute is written, so the format does not change when
the internals of an estimator do. :func:`saved_fields` lists the fields of a class, and
``docs/model-files.md`` describes them all.

Loading never unpickles, never runs code from the file and imports nothing but svmkit: the
file names its estimator class, which must be one of an explicit list of svmkit estimator
classes. Every value is checked before the estimator is built (dtype, shape, finiteness and
agreement with the other fields), so that a damaged or crafted file raises
:class:`ModelFileError`, naming the field and the problem, instead of reaching compiled code.

File format ``svmkit-model``, version 2
---------------------------------------
A ZIP archive of ``.npy`` members (NumPy's array format, read with ``allow_pickle=False``):

* ``metadata.npy``: a ``uint8`` array holding UTF-8 JSON::

      {"format": "svmkit-model", "format_version": 2, "svmkit_version": "0.1.0",
       "estimator": "svmkit.SVC", "params": {...}, "fields": {...}}

* one member per array, named after its field: ``dual_coef_.npy``, ``problems.alpha.npy``,
  ``support_vectors_.indices.npy``, ...

Values in ``params`` and ``fields`` are JSON: ``null``, booleans, integers, strings, finite
floats and lists stand for themselves; every other value is an object with a ``"type"``:
``float`` (NaN and infinities), ``tuple``, ``dict``, ``ndarray`` (an array member),
``labels`` (an array of str, int, float, bool and None written as JSON items), ``scalar``
(a NumPy scalar), ``csr_matrix`` / ``csr_array``, ``random_state``, ``kernel`` (a kernel
of :mod:`svmkit.kernels` and its constructor arguments) and ``estimator`` (an estimator
inside another, such as the best estimator of a grid search).

Files of format version 1, written by earlier svmkit, still load where they hold what the
fields of version 2 need; others are refused with a message naming their version.

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
>>> [field.name for field in saved_fields(SVC)][:4]
['n_features_in_', 'feature_names_in_', 'classes_', 'shape_fit_']
"""

from __future__ import annotations

import importlib
import io
import json
import math
import numbers
import os
import zipfile
import zlib
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import scipy.sparse as sp
from sklearn.base import BaseEstimator

from . import kernels as kernel_module

__all__ = [
    "ModelFileError",
    "SavedField",
    "save",
    "load",
    "saved_fields",
    "FORMAT_NAME",
    "FORMAT_VERSION",
    "READABLE_VERSIONS",
    "DECOMPRESSION_RATIO",
    "DECOMPRESSION_ALLOWANCE",
    "MAX_DECOMPRESSED_BYTES",
]

FORMAT_NAME = "svmkit-model"
FORMAT_VERSION = 2
#: The format versions :func:`load` reads. Version 1 wrote every instance attribute of the
#: estimator; its files load where they hold what the fields of version 2 need.
READABLE_VERSIONS = (1, 2)
#: By default an archive may decompress to this many times its own size: the arrays of a
#: model (floats, indices) compress far less, while a decompression bomb's runs of equal
#: bytes expand about a thousand times.
DECOMPRESSION_RATIO = 64
#: Any archive, however small, may decompress to this many bytes: a small model's arrays of
#: zeros (multipliers of the rows that are not support vectors) compress beyond the ratio, and
#: this much memory is harmless.
DECOMPRESSION_ALLOWANCE = 64 * 2**20
#: Without ``load(..., max_decompressed_bytes=)``, no archive may decompress to more bytes
#: than this, whatever its size.
MAX_DECOMPRESSED_BYTES = 4 * 2**30
#: How deep values may nest in a file's metadata (kernels of kernels, the steps of a pipeline
#: in a grid search): far beyond any model, and well within Python's recursion limit.
MAX_NESTING = 100

_METADATA = "metadata"
#: The timestamp of every member (the earliest a ZIP archive can hold): the same model gives
#: the same bytes.
_MEMBER_TIMESTAMP = (1980, 1, 1, 0, 0, 0)
#: Words of state of NumPy's Mersenne Twister (``RandomState.get_state()[1]``).
_MT19937_WORDS = 624
#: Per Pegasos problem: scale, sum of scales, step t and ||direction||^2.
_PEGASOS_STATE_COLUMNS = 4
#: What reading a damaged archive can raise; all of it means a damaged file.
_ARCHIVE_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, KeyError, NotImplementedError, RuntimeError)
#: What building an estimator from malformed values can raise beyond the checks made.
_MALFORMED_ERRORS = (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError, RecursionError)
#: The dtype kinds an array member may have: booleans, integers, floats, bytes and str.
_MEMBER_KINDS = "biufSU"
#: The dtype kinds a NumPy scalar may have in metadata.
_SCALAR_KINDS = "biufU"


class ModelFileError(ValueError):
    """A file that :func:`load` cannot read as an svmkit model.

    Raised for files that are truncated or corrupted, that are not in the
    ``svmkit-model`` format, that come from a newer svmkit (a format version this one does
    not know), that name a class which is not a saveable svmkit estimator, that would
    decompress to more than allowed, or whose values fail a check (the message names the
    field and the problem).

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


class SavedField(NamedTuple):
    """One field of a model file, as :func:`saved_fields` lists it.

    Attributes
    ----------
    name : str
        The field's name in the file (an attribute name such as ``dual_coef_``, or a named
        datum such as ``problems.alpha``).
    type : str
        What values it holds.
    meaning : str
        What it is.
    presence : str
        When a file has it: ``'fitted'`` (every file of a fitted estimator), or the
        condition under which it is present.
    """

    name: str
    type: str
    meaning: str
    presence: str


def save(estimator, target):
    """Save an svmkit estimator, fitted or not, to a file.

    Parameters
    ----------
    estimator : svmkit estimator
        An estimator of one of the classes :func:`saved_fields` knows (``SVC``,
        ``GaussianNB``, ``SVCGridSearch``, ...). Other attributes than its parameters and
        the fields of its class are not saved.
    target : str, os.PathLike or binary file object
        Where to write. The name is used as given (no ``.npz`` is added).

    Raises
    ------
    TypeError
        If the estimator is not a saveable svmkit estimator, or a parameter holds
        something the format cannot represent (a function such as a callable kernel or a
        callback, an object of another library); the message names the parameter.

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

    schema = _schema_of_instance(estimator, nested=False)
    if schema is None:
        raise TypeError(f"save() takes an svmkit estimator, got {type(estimator).__name__}.")
    writer = _Writer(type(estimator).__name__)
    entry = writer.estimator(estimator, "", schema)
    metadata = {
        "format": FORMAT_NAME,
        "format_version": FORMAT_VERSION,
        "svmkit_version": __version__,
        "estimator": entry["class"],
        "params": entry["params"],
        "fields": entry["fields"],
    }
    text = json.dumps(metadata, allow_nan=False, separators=(",", ":"))
    members = {_METADATA: np.frombuffer(text.encode("utf-8"), dtype=np.uint8), **writer.arrays}
    if isinstance(target, (str, os.PathLike)):
        with open(target, "wb") as file:
            _write_archive(file, members)
    else:
        _write_archive(target, members)


def load(source, *, max_decompressed_bytes=None):
    """Load an estimator saved by :func:`save`.

    Parameters
    ----------
    source : str, os.PathLike or binary file object
    max_decompressed_bytes : int, optional
        The most bytes the archive's members may decompress to. By default
        :data:`DECOMPRESSION_RATIO` times the file's size, at least
        :data:`DECOMPRESSION_ALLOWANCE` and at most :data:`MAX_DECOMPRESSED_BYTES`; give
        more for a large file you trust.

    Returns
    -------
    estimator
        The estimator, of the class it was saved from, with its parameters and fitted
        attributes.

    Raises
    ------
    ModelFileError
        If the file is not an svmkit model file, is truncated or corrupted (the ZIP
        checksums are verified), would decompress beyond the limit, has a newer format
        version, names a class that is not a saveable svmkit estimator, or holds a value
        that fails a check (the message names the field).
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
    if max_decompressed_bytes is not None and (
        not isinstance(max_decompressed_bytes, numbers.Integral) or max_decompressed_bytes < 0
    ):
        raise ValueError(f"max_decompressed_bytes must be a non-negative integer, got {max_decompressed_bytes!r}.")
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as file:
            raw = file.read()
    else:
        raw = source.read()
    raw = bytes(raw)
    members = _Members(_read_archive(raw, max_decompressed_bytes))
    metadata = _read_metadata(members.arrays)
    version = metadata["format_version"]
    try:
        if version == 1:
            description = _read_version_1(metadata, members)
        else:
            description = _read_version_2(metadata, members)
        estimator = _build_estimator(description, "", nested=False)
    except ModelFileError as error:
        if version == 1:
            raise ModelFileError(
                f"cannot load this version-1 svmkit model file (written by svmkit {metadata.get('svmkit_version')}): "
                f"{error}"
            ) from None
        raise
    except _MALFORMED_ERRORS as error:
        raise ModelFileError(
            f"malformed svmkit model file (format version {version}): {type(error).__name__}: {error}"
        ) from None
    return estimator


def saved_fields(estimator_class):
    """The fields a model file holds for an estimator class.

    Parameters
    ----------
    estimator_class : type
        A saveable estimator class: every estimator of svmkit, and scikit-learn's
        ``Pipeline`` and ``StandardScaler`` (inside :class:`svmkit.SVCGridSearch`).

    Returns
    -------
    list of SavedField

    Examples
    --------
    >>> from svmkit import LibsvmScaler
    >>> for field in saved_fields(LibsvmScaler):
    ...     print(field.name, "-", field.presence)
    n_features_in_ - fitted
    feature_names_in_ - when fitted on a DataFrame with string column names
    data_min_ - fitted
    data_max_ - fitted
    """
    for schema in _SCHEMAS:
        if schema.class_name == getattr(estimator_class, "__name__", None) and schema.estimator_class() is estimator_class:
            return [
                SavedField(field.name, field.kind.description, field.meaning, field.presence)
                for field in schema.fields
            ]
    raise TypeError(f"{estimator_class!r} is not an estimator class that svmkit model files hold.")


# -- the archive ------------------------------------------------------------------------------


def _write_archive(file, members):
    """A ZIP archive of one ``.npy`` member per array, as :func:`numpy.savez_compressed`
    writes them, with a fixed timestamp (the same model gives the same bytes)."""
    with zipfile.ZipFile(file, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, array in members.items():
            info = zipfile.ZipInfo(name + ".npy", date_time=_MEMBER_TIMESTAMP)
            info.compress_type = zipfile.ZIP_DEFLATED
            with archive.open(info, "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asanyarray(array), allow_pickle=False)


def _decompression_limit(archive_size, max_decompressed_bytes):
    if max_decompressed_bytes is not None:
        return int(max_decompressed_bytes)
    return min(MAX_DECOMPRESSED_BYTES, max(DECOMPRESSION_ALLOWANCE, DECOMPRESSION_RATIO * archive_size))


def _read_archive(raw, max_decompressed_bytes):
    """Every member of the ZIP archive as an array, sizes bounded and checksums verified."""
    if not raw.startswith(b"PK\x03\x04"):
        raise ModelFileError("not an svmkit model file: not a ZIP archive")
    arrays = {}
    try:
        with zipfile.ZipFile(io.BytesIO(raw)) as archive:
            infos = archive.infolist()
            names = [info.filename for info in infos]
            if len(set(names)) != len(names):
                raise ModelFileError("corrupted svmkit model file: a member name appears twice")
            expanded = sum(info.file_size for info in infos)
            limit = _decompression_limit(len(raw), max_decompressed_bytes)
            if expanded > limit:
                raise ModelFileError(
                    f"refusing to decompress the svmkit model file: its members would expand to {expanded} bytes, "
                    f"more than the {limit} allowed for a file of {len(raw)} bytes (pass max_decompressed_bytes= "
                    "to load a file you trust)"
                )
            for info in infos:
                if not info.filename.endswith(".npy"):
                    raise ModelFileError(f"not an svmkit model file: unexpected member {info.filename!r}")
                # (zipfile stops at the size the member declares, which the sum above bounds)
                arrays[info.filename[: -len(".npy")]] = _read_npy(archive.read(info), info.filename)
    except ModelFileError:
        raise
    except _ARCHIVE_ERRORS as error:
        raise ModelFileError(f"truncated or corrupted svmkit model file: {type(error).__name__}: {error}") from None
    return arrays


def _read_npy(data, name):
    """An array from ``.npy`` bytes, after checking its dtype and that the header matches the size."""
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
    if dtype.kind not in _MEMBER_KINDS or dtype.names is not None or dtype.subdtype is not None:
        raise ModelFileError(f"refusing member {name!r}: arrays of dtype {dtype} are not part of svmkit model files")
    if buffer.tell() + math.prod(shape) * dtype.itemsize != len(data):
        raise ModelFileError(f"corrupted svmkit model file: member {name!r} does not hold the array its header announces")
    buffer.seek(0)
    return np.lib.format.read_array(buffer, allow_pickle=False)


def _read_metadata(arrays):
    if _METADATA not in arrays:
        raise ModelFileError("not an svmkit model file: no metadata")
    try:
        metadata = json.loads(
            arrays[_METADATA].tobytes().decode("utf-8"), parse_constant=_refuse_constant, parse_float=_finite_float
        )
    except (ValueError, RecursionError) as error:
        raise ModelFileError(f"corrupted svmkit model file: unreadable metadata ({error})") from None
    if not isinstance(metadata, dict) or metadata.get("format") != FORMAT_NAME:
        raise ModelFileError(f"not an svmkit model file: the format is not {FORMAT_NAME!r}")
    version = metadata.get("format_version")
    if type(version) is not int or version < 1:
        raise ModelFileError(f"corrupted svmkit model file: format_version {version!r}")
    if version not in READABLE_VERSIONS:
        raise ModelFileError(
            f"the file has format version {version}, written by svmkit {metadata.get('svmkit_version')}; "
            f"this svmkit reads versions {', '.join(map(str, READABLE_VERSIONS))}: upgrade svmkit"
        )
    return metadata


def _refuse_constant(name):
    raise ValueError(f"{name} is not valid JSON")


def _finite_float(text):
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} is out of the range of floats")
    return value


class _Members:
    """The archive's arrays, each taken by at most one value of the metadata."""

    def __init__(self, arrays):
        self.arrays = arrays
        self.used = set()

    def take(self, key, where):
        if not isinstance(key, str) or key == _METADATA or key not in self.arrays:
            _fail(where, f"the file has no array {key!r}")
        if key in self.used:
            _fail(where, f"array {key!r} is used twice")
        self.used.add(key)
        return self.arrays[key]

    def check_all_used(self):
        unused = sorted(set(self.arrays) - self.used - {_METADATA})
        if unused:
            raise ModelFileError(f"malformed svmkit model file: members {unused} belong to no field")


# -- values between the metadata and the checks -----------------------------------------------


class _RawCSR(NamedTuple):
    """A CSR matrix as the file gives it, not yet checked."""

    format: str
    shape: object
    data: object
    indices: object
    indptr: object


class _RawRandomState(NamedTuple):
    """A ``numpy.random.RandomState`` as the file gives it (Mersenne Twister state)."""

    keys: object
    pos: object
    has_gauss: object
    cached_gaussian: object


class _RawKernel(NamedTuple):
    """A kernel as the file gives it: its class name and constructor arguments."""

    name: str
    params: dict


class _RawEstimator(NamedTuple):
    """An estimator as the file gives it: its class name, parameters and fields, and (from a
    version-1 file) private values to compare with those rebuilt."""

    name: str
    params: dict
    fields: dict
    private: dict


class _V1Object(NamedTuple):
    """An object of a version-1 file (``object`` or ``namedtuple``): its class path and its
    attributes (a dict) or items (a list). Never instantiated from the path."""

    path: str
    content: object


def _fail(where, problem):
    raise ModelFileError(f"{where}: {problem}" if where else problem)


def _describe(value):
    if isinstance(value, np.ndarray):
        return f"an array of dtype {value.dtype} and shape {value.shape}"
    if isinstance(value, (_RawKernel, _RawEstimator)):
        return f"{type(value).__name__[4:].lower()} {value.name!r}"
    if isinstance(value, _V1Object):
        return f"an object of class {value.path!r}"
    return f"{type(value).__name__} {value!r}"[:120]


def _join(path, name):
    return f"{path}.{name}" if path else str(name)


# -- writing ----------------------------------------------------------------------------------

_PLAIN_TYPES = (type(None), bool, int, str)


class _Writer:
    """Turns values into JSON, collecting the arrays under the names of their fields; errors
    name the parameter."""

    def __init__(self, owner):
        self.owner = owner
        self.arrays = {}

    def estimator(self, estimator, path, schema):
        params = estimator.get_params(deep=False)
        fields = schema.collect(estimator)
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
                "(no pickle): use a svmkit.kernels kernel instead of a callable kernel, and set "
                "callbacks to None (set_params) before saving."
            )
        kind = type(value)
        raise TypeError(f"Cannot save {where}: objects of type {kind.__module__}.{kind.__qualname__} are not supported.")


# -- reading the metadata of version 2 --------------------------------------------------------


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
    if kind == "random_state":
        _keys(value, ("type", "keys", "pos", "has_gauss", "cached_gaussian"), where)
        keys = _decode(value["keys"], f"{where}.keys", members, depth + 1)
        cached = _decode(value["cached_gaussian"], f"{where}.cached_gaussian", members, depth + 1)
        return _RawRandomState(keys, value["pos"], value["has_gauss"], cached)
    if kind == "kernel":
        _keys(value, ("type", "class", "params"), where)
        return _RawKernel(_name(value["class"], where), _decode_mapping(value["params"], where, members, depth))
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


# -- reading the metadata of version 1 --------------------------------------------------------


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


# -- building estimators and kernels ----------------------------------------------------------


def _refuse_class(name, where, nested):
    known = ", ".join(schema.name for schema in _SCHEMAS if nested or not schema.nested_only)
    at = f" (at {where})" if where else ""
    raise ModelFileError(
        f"refusing to load {name!r}{at}: it is not an estimator class that svmkit model files hold ({known})"
    )


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


def _build_kernel(raw, where):
    if not isinstance(raw, _RawKernel):
        _fail(where, f"expected a kernel, got {_describe(raw)}")
    arguments = _KERNELS.get(raw.name)
    if arguments is None:
        _fail(where, f"refusing kernel class {raw.name!r}: files hold the kernels {sorted(_KERNELS)} of svmkit.kernels")
    if set(raw.params) != set(arguments):
        _fail(where, f"{raw.name} takes {sorted(arguments)}, the file gives {sorted(raw.params)}")
    values = {}
    for argument, kind in arguments.items():
        value = raw.params[argument]
        path = f"{where}.{argument}"
        values[argument] = _build_kernel(value, path) if kind is _KERNEL else kind.check(value, path)
    try:
        return getattr(kernel_module, raw.name)(**values)
    except (ValueError, TypeError) as error:
        _fail(where, f"{raw.name}: {error}")


# -- kinds of values: what each field may hold ------------------------------------------------


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


class _Floats(_Kind):
    """float64 arrays; ``values``: 'finite', 'no nan' (infinities allowed) or 'any'."""

    def __init__(self, *ndim, values="finite"):
        self.ndim = ndim
        self.values = values
        extra = {"finite": "", "no nan": ", inf allowed", "any": ", NaN and inf allowed"}[values]
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
    """A 1-D array of labels: booleans, numbers or strings, or an object array of str, int,
    float, bool and None (written as JSON items). Distinct labels (classes, categories) are
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
    n_rows, n_columns = shape
    data = _Floats(1).check(raw.data, f"{where}.data")
    for name, part in (("indices", raw.indices), ("indptr", raw.indptr)):
        if not isinstance(part, np.ndarray) or part.dtype not in (np.int32, np.int64) or part.ndim != 1:
            _fail(f"{where}.{name}", f"expected a 1-D int32 or int64 array, got {_describe(part)}")
    indices, indptr = raw.indices, raw.indptr
    if indptr.shape[0] != n_rows + 1:
        _fail(f"{where}.indptr", f"expected {n_rows + 1} entries (rows + 1), got {indptr.shape[0]}")
    nnz = indices.shape[0]
    if data.shape[0] != nnz:
        _fail(f"{where}.data", f"has {data.shape[0]} values for {nnz} indices")
    if indptr[0] != 0 or indptr[-1] != nnz or np.any(np.diff(indptr) < 0):
        _fail(f"{where}.indptr", f"must rise from 0 to the number of values ({nnz})")
    if nnz and (indices.min() < 0 or indices.max() >= n_columns):
        _fail(f"{where}.indices", f"holds column indices outside [0, {n_columns})")
    starts_row = np.zeros(nnz, dtype=bool)
    starts_row[indptr[:-1][indptr[:-1] < nnz]] = True
    if np.any((np.diff(indices) <= 0) & ~starts_row[1:]):
        _fail(f"{where}.indices", "the column indices of a row are not strictly increasing (not canonical CSR)")
    matrix_type = sp.csr_matrix if raw.format == "csr_matrix" else sp.csr_array
    matrix = matrix_type((data, indices, indptr), shape=shape, copy=False)
    matrix.check_format(full_check=True)
    return matrix


class _KernelKind(_Kind):
    """A kernel of :mod:`svmkit.kernels`; with ``allow_none``, null (kernel='precomputed')."""

    def __init__(self, allow_none):
        self.allow_none = allow_none
        self.description = "kernel (null with kernel='precomputed')" if allow_none else "kernel"

    def check(self, raw, where):
        if raw is None and self.allow_none:
            return None
        return _build_kernel(raw, where)


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


#: Kernel arguments that are kernels themselves.
_KERNEL = object()
#: The kernels of :mod:`svmkit.kernels` that files hold: the arguments of each constructor,
#: read from the attributes of the same names.
_KERNELS = {
    "LinearKernel": {},
    "PolynomialKernel": {"degree": _Int(low=1), "gamma": _Real(), "coef0": _Real()},
    "RBFKernel": {"gamma": _Real()},
    "SigmoidKernel": {"gamma": _Real(), "coef0": _Real()},
    "SumKernel": {"k1": _KERNEL, "k2": _KERNEL},
    "ProductKernel": {"k1": _KERNEL, "k2": _KERNEL},
    "ScaledKernel": {"c": _Real(), "kernel": _KERNEL},
    "PowerKernel": {"kernel": _KERNEL, "degree": _Int(low=1)},
    "ExpKernel": {"kernel": _KERNEL},
    "KernelPolynomial": {"kernel": _KERNEL, "coefficients": _Floats(1)},
    "NormalizedKernel": {"kernel": _KERNEL},
    "QuadraticFormKernel": {"matrix": _Floats(2)},
    "ColumnSubsetKernel": {"kernel": _KERNEL, "columns": _Integers(1, low=0)},
}
#: Kernels that hold a user function, which files cannot.
_FUNCTION_KERNELS = ("CallableKernel", "FeatureScaledKernel")
#: The kernel class of each kernel name of scikit-learn.
_NAMED_KERNELS = {"linear": "LinearKernel", "poly": "PolynomialKernel", "rbf": "RBFKernel", "sigmoid": "SigmoidKernel"}


# -- fields and estimator classes -------------------------------------------------------------


@dataclass(frozen=True)
class _Field:
    """A field of a model file. ``group``: fields a file has all of or none of;
    ``required=False``: a field a fitted model may lack (``condition`` says when it has it)."""

    name: str
    kind: _Kind
    meaning: str
    required: bool = True
    group: str = ""
    condition: str = ""

    @property
    def presence(self):
        if self.group:
            return self.condition or f"with the other {self.group}.* fields"
        return "fitted" if self.required else self.condition


_FEATURE_FIELDS = (
    _Field("n_features_in_", _Int(low=1), "number of features (columns) of the training data"),
    _Field("feature_names_in_", _Names(), "column names of the training data", required=False,
           condition="when fitted on a DataFrame with string column names"),
)


def _check_features(values, where):
    names = values.get("feature_names_in_")
    if names is not None and names.shape[0] != values["n_features_in_"]:
        _fail(f"{where}.feature_names_in_", f"has {names.shape[0]} names for n_features_in_={values['n_features_in_']}")


def _expect_shape(values, name, shape, where, why=""):
    actual = values[name].shape
    if actual != shape:
        _fail(f"{where}.{name}", f"expected shape {shape}{why}, got {actual}")


def _check_indices(array, limit, where, what):
    if array.size and (array.min() < 0 or (limit is not None and array.max() >= limit)):
        bound = f"[0, {limit})" if limit is not None else "[0, inf)"
        _fail(where, f"holds indices outside {bound} ({what})")


def _present(estimator, names):
    state = vars(estimator)
    return {name: state[name] for name in names if name in state}


class _Schema:
    """The fields of one estimator class: how they are collected from an estimator, checked
    against each other and restored, and how a version-1 file gives them."""

    #: How files name the class.
    name = ""
    #: Where the class is defined: load imports this module, never a name from the file.
    module = ""
    class_name = ""
    #: Other names of the class in version-1 files.
    aliases = ()
    #: Whether the class may only appear inside another estimator (scikit-learn's).
    nested_only = False
    fields = ()

    def __init__(self):
        self.names = [field.name for field in self.fields]
        self.kinds = {field.name: field.kind for field in self.fields}

    def estimator_class(self):
        return getattr(importlib.import_module(self.module), self.class_name)

    def check_presence(self, fields, where):
        """The file's fields, after checking that they are known and complete."""
        if type(fields) is not dict:
            _fail(where, "fields are a JSON object")
        unknown = sorted(set(fields) - set(self.names))
        if unknown:
            _fail(where, f"unknown fields {unknown} for {self.class_name}")
        if not fields:
            return fields
        missing = [field.name for field in self.fields if field.required and not field.group and field.name not in fields]
        if missing:
            _fail(where, f"a fitted {self.class_name} needs the fields {missing}, which the file lacks")
        for group in dict.fromkeys(field.group for field in self.fields if field.group):
            members = [field.name for field in self.fields if field.group == group]
            present = [name for name in members if name in fields]
            if present and len(present) != len(members):
                _fail(where, f"the {group}.* fields come together: the file lacks {sorted(set(members) - set(present))}")
        return fields

    def collect(self, estimator):
        """The fields of ``estimator`` (none when it is not fitted)."""
        return _present(estimator, self.names)

    def check_params(self, estimator, fitted):
        """Raise ValueError for a parameter that prediction cannot use (only checked once
        fitted: an unfitted estimator keeps whatever parameters it was given)."""

    def check(self, estimator, values, where):
        """Raise ModelFileError where fields disagree with each other or with the parameters."""

    def restore(self, estimator, values):
        for name, value in values.items():
            setattr(estimator, name, value)

    def from_version_1(self, state):
        """``(fields, private)`` from the attributes of a version-1 file."""
        fields = {name: _v1_raw(state[name]) for name in self.names if name in state}
        return fields, {}

    def verify_version_1(self, estimator, private, where):
        """Compare private values of a version-1 file with those rebuilt from the fields."""


def _same_array(a, b):
    return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape and np.array_equal(a, b)


# -- kernel SVMs ------------------------------------------------------------------------------

_KERNEL_SVM_FIELDS = (
    _Field("shape_fit_", _Shape(), "shape of the training data (the Gram matrix with kernel='precomputed')"),
    _Field("kernel_", _KernelKind(allow_none=True), "the kernel the fit used, gamma resolved to the number 'scale' "
           "or 'auto' gave"),
    _Field("support_", _Integers(1), "training row of each support vector"),
    _Field("support_vectors_", _Matrix(), "the support vectors, dense or CSR; (0, n_features_in_) with kernel='precomputed'"),
    _Field("n_support_", _Integers(1, low=0), "number of support vectors of each class (one entry for one problem)"),
    _Field("dual_coef_", _Floats(2), "coefficient of each support vector in the decision functions"),
    _Field("intercept_", _Floats(1), "bias b of each decision function"),
)


def _check_fitted_kernel(estimator, kernel, where):
    """``kernel_`` against the ``kernel`` parameter: the object itself for a Kernel parameter
    (which the fit uses as it is), None with 'precomputed', else the named kernel's class."""
    parameter = estimator.kernel
    if isinstance(parameter, kernel_module.Kernel):
        if kernel != parameter:
            _fail(where, "differs from the kernel parameter, which the fit uses as it is")
        return parameter
    if isinstance(parameter, str) and parameter == "precomputed":
        if kernel is not None:
            _fail(where, "must be null with kernel='precomputed'")
        return None
    expected = _NAMED_KERNELS.get(parameter) if isinstance(parameter, str) else None
    if expected is None:
        _fail(where, f"the kernel parameter {parameter!r} is not a kernel name or a kernel")
    if type(kernel).__name__ != expected:
        _fail(where, f"expected a {expected} for kernel={parameter!r}, got {_describe(kernel)}")
    return kernel


def _check_support(estimator, values, where):
    """The fields every kernel SVM has, against each other; returns the number of support vectors."""
    _check_features(values, where)
    n_features = values["n_features_in_"]
    shape_fit = values.get("shape_fit_")
    if shape_fit is not None and shape_fit[1] != n_features:
        _fail(f"{where}.shape_fit_", f"has {shape_fit[1]} columns, n_features_in_ is {n_features}")
    vectors, support = values["support_vectors_"], values["support_"]
    if vectors.shape[1] != n_features:
        _fail(f"{where}.support_vectors_", f"has {vectors.shape[1]} columns, n_features_in_ is {n_features}")
    values["kernel_"] = _check_fitted_kernel(estimator, values["kernel_"], f"{where}.kernel_")
    if estimator._precomputed:
        if vectors.shape[0] != 0:
            _fail(f"{where}.support_vectors_", "must have no rows with kernel='precomputed'")
        if shape_fit is None:
            _fail(f"{where}.shape_fit_", "is needed with kernel='precomputed'")
        n_support_vectors = support.shape[0]
    else:
        n_support_vectors = vectors.shape[0]
        _expect_shape(values, "support_", (n_support_vectors,), where, " (one per support vector)")
    _check_indices(support, shape_fit[0] if shape_fit is not None else None, f"{where}.support_", "rows of the training data")
    if values["dual_coef_"].shape[1:] != (n_support_vectors,):
        _fail(f"{where}.dual_coef_", f"expected {n_support_vectors} columns (one per support vector), "
                                     f"got shape {values['dual_coef_'].shape}")
    return n_support_vectors


_PROBLEM_FIELDS = (
    _Field("problems.indexing", _Text(("training rows", "support vectors")),
           "what problems.indices number: 'training rows' for a fitted model; 'support vectors' (rows of "
           "support_vectors_) for a model read from a LIBSVM model file, which has no training set, so that "
           "alpha_, slack_ and the objectives are not available", group="problems",
           condition="fitted, with the other problems.* fields"),
    _Field("problems.bounds", _Integers(1), "problem p's variables are entries bounds[p]:bounds[p + 1] of the "
           "problems.* arrays (n_problems + 1 entries)", group="problems"),
    _Field("problems.indices", _Integers(1), "row of each variable (BinaryModel.indices)", group="problems"),
    _Field("problems.y", _Floats(1), "its label, +1 or -1 (BinaryModel.y)", group="problems"),
    _Field("problems.alpha", _Floats(1), "its multiplier alpha_i (BinaryModel.alpha)", group="problems"),
    _Field("problems.upper", _Floats(1, values="any"), "its upper bound C_i (BinaryModel.upper; inf for a hard margin, "
           "NaN where unknown)", group="problems"),
    _Field("problems.yf", _Floats(1, values="any"), "y_i f(x_i) at the solution (BinaryModel.yf; NaN where unknown)",
           group="problems"),
    _Field("problems.gap", _Floats(1, values="any"), "maximal violating-pair gap each problem reached "
           "(BinaryModel.gap)", group="problems"),
    _Field("problems.status", _Integers(1), "solver status of each problem, 0 converged (BinaryModel.status)",
           group="problems"),
)
_SVC_PUBLIC = (
    "n_features_in_", "feature_names_in_", "classes_", "shape_fit_", "kernel_", "support_", "support_vectors_",
    "n_support_", "dual_coef_", "intercept_", "probA_", "probB_", "n_iter_", "fit_status_", "loo_bound_",
)


def _problem_coefficients(dual_coef, n_support, pairs, one_vs_one):
    """The coefficient of each support vector in each problem (n_SV, n_problems): ``dual_coef_``
    transposed, or for one-vs-one problems read from LIBSVM's layout (a support vector of
    class ``i`` has its coefficient of pair ``(i, j)`` in row ``j - 1`` if ``i < j``, else ``i``)."""
    if not one_vs_one:
        return np.ascontiguousarray(dual_coef.T)
    pairs = np.array(pairs, dtype=np.int64)
    first, second = pairs[:, 0], pairs[:, 1]
    support_class = np.repeat(np.arange(n_support.shape[0]), n_support)[:, np.newaxis]
    by_vector = dual_coef.T
    return np.where(support_class == first, by_vector[:, second - 1],
                    np.where(support_class == second, by_vector[:, first], 0.0))


class _SVCSchema(_Schema):
    name = "svmkit.SVC"
    module = "svmkit.svm"
    class_name = "SVC"
    aliases = ("svmkit.svm.SVC",)
    fields = (
        *_FEATURE_FIELDS,
        _Field("classes_", _Labels(), "the class labels, sorted"),
        _Field("shape_fit_", _Shape(), "shape of the training data (the Gram matrix with kernel='precomputed')",
               required=False, condition="fitted on training data, or read from a LIBSVM model file with "
               "kernel='precomputed'"),
        *_KERNEL_SVM_FIELDS[1:4],
        _Field("n_support_", _Integers(1, low=0), "number of support vectors of each class (support_vectors_ are "
               "grouped by class)"),
        _Field("dual_coef_", _Floats(2), "alpha_i y_i of each support vector: (n_classes - 1, n_SV) in LIBSVM's "
               "one-vs-one layout, else (n_problems, n_SV)"),
        _Field("intercept_", _Floats(1), "bias b of each two-class problem"),
        _Field("probA_", _Floats(1), "Platt parameter A of each one-vs-one pair (empty without probability=True)"),
        _Field("probB_", _Floats(1), "Platt parameter B of each one-vs-one pair (empty without probability=True)"),
        _Field("n_iter_", _Integers(1, low=0), "two-variable updates of each problem", required=False,
               condition="fitted (not read from a LIBSVM model file)"),
        _Field("fit_status_", _Int(), "0 if every problem converged, else 1", required=False,
               condition="fitted (not read from a LIBSVM model file)"),
        _Field("loo_bound_", _Real(), "leave-one-out error bound: support vectors / training rows", required=False,
               condition="fitted (not read from a LIBSVM model file)"),
        *_PROBLEM_FIELDS,
    )

    def collect(self, estimator):
        values = _present(estimator, _SVC_PUBLIC)
        if not values:
            return values
        state = vars(estimator)
        variables = state.get("_variables")
        if variables is not None:
            indexing = "training rows"
            problems = {name: getattr(variables, name) for name in ("bounds", "indices", "y", "alpha", "upper", "yf",
                                                                     "gap", "status", "r")}
        elif isinstance(state.get("binary_models_"), list) and state["binary_models_"]:
            indexing = "training rows" if "_n_training_rows" in state else "support vectors"
            problems = _stack_models(state["binary_models_"])
        else:
            return values
        values["problems.indexing"] = indexing
        values.update({f"problems.{name}": value for name, value in problems.items()
                       if f"problems.{name}" in self.kinds})
        return values

    def check_params(self, estimator, fitted):
        if fitted:
            estimator._check_classifier_params()

    def check(self, estimator, values, where):
        n_support_vectors = _check_support(estimator, values, where)
        n_classes = values["classes_"].shape[0]
        if n_classes < 2:
            _fail(f"{where}.classes_", f"needs at least two classes, got {n_classes}")
        pairs = estimator._problems(n_classes)
        one_vs_one = n_classes > 2 and estimator.multiclass == "ovo"
        n_problems = len(pairs)
        _expect_shape(values, "n_support_", (n_classes,), where, " (one per class)")
        if int(values["n_support_"].sum()) != n_support_vectors:
            _fail(f"{where}.n_support_", f"counts {int(values['n_support_'].sum())} support vectors, "
                                         f"support_ has {n_support_vectors}")
        if one_vs_one:
            _expect_shape(values, "dual_coef_", (n_classes - 1, n_support_vectors), where,
                          " (n_classes - 1, n_SV) for one-vs-one")
        else:
            _expect_shape(values, "dual_coef_", (n_problems, n_support_vectors), where, " (n_problems, n_SV)")
        _expect_shape(values, "intercept_", (n_problems,), where, " (one per problem)")
        n_pairs = n_classes * (n_classes - 1) // 2
        for name in ("probA_", "probB_"):
            if values[name].shape not in ((0,), (n_pairs,)):
                _fail(f"{where}.{name}", f"expected shape (0,) or ({n_pairs},) (one per pair), got {values[name].shape}")
        if values["probA_"].shape != values["probB_"].shape:
            _fail(f"{where}.probB_", "has not as many entries as probA_")
        if values["probA_"].shape[0] and not (n_classes == 2 or one_vs_one):
            _fail(f"{where}.probA_", "probabilities need one-vs-one problems")
        if "n_iter_" in values:
            _expect_shape(values, "n_iter_", (n_problems,), where, " (one per problem)")
        if "problems.bounds" in values:
            self._check_problems(values, where, n_problems, n_support_vectors)

    def _check_problems(self, values, where, n_problems, n_support_vectors):
        training = values["problems.indexing"] == "training rows"
        if training:
            for name in ("shape_fit_", "n_iter_"):
                if name not in values:
                    _fail(f"{where}.{name}", "is needed with problems on training rows")
        n_rows = values["shape_fit_"][0] if training else n_support_vectors
        bounds = values["problems.bounds"]
        n_variables = values["problems.indices"].shape[0]
        _expect_shape(values, "problems.bounds", (n_problems + 1,), where, " (n_problems + 1)")
        if bounds[0] != 0 or bounds[-1] != n_variables or np.any(np.diff(bounds) < 0):
            _fail(f"{where}.problems.bounds", f"must rise from 0 to the number of variables ({n_variables})")
        _check_indices(values["problems.indices"], n_rows, f"{where}.problems.indices", values["problems.indexing"])
        for name in ("y", "alpha", "upper", "yf"):
            _expect_shape(values, f"problems.{name}", (n_variables,), where, " (one per variable)")
        if not np.all(np.abs(values["problems.y"]) == 1.0):
            _fail(f"{where}.problems.y", "labels are +1 or -1")
        for name in ("gap", "status", "r"):
            if f"problems.{name}" in values:
                _expect_shape(values, f"problems.{name}", (n_problems,), where, " (one per problem)")

    def restore(self, estimator, values):
        from .svm._binary import StackedVariables

        problems = {name[len("problems."):]: values.pop(name) for name in list(values) if name.startswith("problems.")}
        super().restore(estimator, values)
        classes = values["classes_"]
        pairs = estimator._problems(classes.shape[0])
        one_vs_one = classes.shape[0] > 2 and estimator.multiclass == "ovo"
        estimator._problem_pairs = pairs
        estimator._problem_coef = _problem_coefficients(values["dual_coef_"], values["n_support_"], pairs, one_vs_one)
        estimator.problem_classes_ = [(classes[a], classes[b] if b is not None else "rest") for a, b in pairs]
        if problems:
            training = problems.pop("indexing") == "training rows"
            n_iter = values["n_iter_"] if training else np.zeros(len(pairs), dtype=np.int64)
            variables = StackedVariables(problems["bounds"], problems["indices"], problems["y"], problems["alpha"],
                                         problems["upper"], problems["yf"], values["intercept_"], n_iter,
                                         problems["gap"], problems["status"], problems.get("r"))
            if training:
                estimator._variables = variables
                estimator._n_training_rows = values["shape_fit_"][0]
            else:
                estimator.binary_models_ = variables.models(pairs)
        estimator._keep_prediction_model()

    def from_version_1(self, state):
        fields = {name: _v1_raw(state[name]) for name in _SVC_PUBLIC if name in state}
        if not fields:
            return fields, {}
        variables = state.get("_variables")
        problems = None
        if isinstance(variables, _V1Object) and variables.path.endswith(".StackedVariables"):
            items = variables.content
            names = ("bounds", "indices", "y", "alpha", "upper", "yf", "intercept", "n_iter", "gap", "status", "r")
            if type(items) is not list or len(items) not in (10, 11):
                _fail("_variables", "is not the StackedVariables of svmkit")
            problems = dict(zip(names, items))
            indexing = "training rows"
        elif type(state.get("binary_models_")) is list and state["binary_models_"]:
            models = state["binary_models_"]
            if not all(isinstance(m, _V1Object) and m.path.rpartition(".")[2] in ("BinaryModel", "NuBinaryModel")
                       and type(m.content) is dict for m in models):
                _fail("binary_models_", "are not BinaryModel objects of svmkit")
            problems = _stack_models([_AttributeView(model.content) for model in models])
            indexing = "training rows" if "_n_training_rows" in state else "support vectors"
        if problems is not None:
            fields["problems.indexing"] = indexing
            fields.update({f"problems.{name}": value for name, value in problems.items()
                           if f"problems.{name}" in self.kinds and value is not None})
        private = {name: state[name] for name in ("_problem_coef", "_problem_pairs") if name in state}
        return fields, private

    def verify_version_1(self, estimator, private, where):
        if "_problem_coef" in private and not _same_array(private["_problem_coef"], estimator._problem_coef):
            _fail(f"{where}._problem_coef", "differs from the coefficients rebuilt from dual_coef_ and n_support_")
        if "_problem_pairs" in private:
            pairs = [tuple(pair) if type(pair) in (list, tuple) else pair for pair in private["_problem_pairs"]]
            if pairs != list(estimator._problem_pairs):
                _fail(f"{where}._problem_pairs", "differs from the problems of the classes and multiclass")


class _AttributeView:
    """The attributes of a version-1 object, read as attributes."""

    def __init__(self, attributes):
        self.__dict__.update(attributes)


def _stack_models(models):
    """The problems.* arrays of a list of BinaryModel (one after another)."""
    sizes = [np.asarray(model.indices).shape[0] for model in models]
    stacked = {
        "bounds": np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
        **{name: np.concatenate([np.asarray(getattr(model, name)) for model in models])
           for name in ("indices", "y", "alpha", "upper", "yf")},
        "gap": np.array([model.gap for model in models], dtype=np.float64),
        "status": np.array([model.status for model in models], dtype=np.int64),
    }
    if all(hasattr(model, "r") for model in models):
        stacked["r"] = np.array([model.r for model in models], dtype=np.float64)
    return stacked


class _NuSVCSchema(_SVCSchema):
    name = "svmkit.NuSVC"
    class_name = "NuSVC"
    aliases = ("svmkit.svm.NuSVC",)
    fields = (
        *_SVCSchema.fields,
        _Field("problems.r", _Floats(1), "nu-SVC's margin parameter r of each problem (1 / effective_C_)",
               group="problems"),
    )


class _SingleProblemSchema(_Schema):
    """OneClassSVM, SVR and NuSVR: one problem, its theory as plain attributes and the data of
    its KKT report under the kkt.* fields."""

    module = "svmkit.svm"
    #: The fitted attributes of the class, and the private attribute of each kkt.* field.
    public = ()
    report = {}

    def collect(self, estimator):
        values = _present(estimator, self.public)
        state = vars(estimator)
        if values:
            values.update({name: state[private] for name, private in self.report.items() if private in state})
        return values

    def check_params(self, estimator, fitted):
        if fitted:
            estimator._check_common_params()

    def check(self, estimator, values, where):
        n_support_vectors = _check_support(estimator, values, where)
        n_rows = values["shape_fit_"][0]
        _expect_shape(values, "n_support_", (1,), where, " (one problem)")
        if int(values["n_support_"][0]) != n_support_vectors:
            _fail(f"{where}.n_support_", f"counts {int(values['n_support_'][0])} support vectors, "
                                         f"support_ has {n_support_vectors}")
        _expect_shape(values, "dual_coef_", (1, n_support_vectors), where)
        _expect_shape(values, "intercept_", (1,), where)
        for name in ("alpha_", "alpha_star_", "slack_"):
            if name in values:
                _expect_shape(values, name, (n_rows,), where, " (one per training row)")
        rows = values["kkt.rows"]
        _check_indices(rows, n_rows, f"{where}.kkt.rows", "rows of the training data")
        if np.any(np.diff(rows) <= 0):
            _fail(f"{where}.kkt.rows", "must be strictly increasing")
        for name in self.report:
            if name != "kkt.epsilon" and name != "kkt.rows":
                _expect_shape(values, name, rows.shape, where, " (one per row of kkt.rows)")

    def restore(self, estimator, values):
        report = {name: values.pop(name) for name in self.report}
        super().restore(estimator, values)
        for name, private in self.report.items():
            setattr(estimator, private, report[name])
        estimator._keep_prediction_model()

    def from_version_1(self, state):
        fields = {name: _v1_raw(state[name]) for name in self.public if name in state}
        if fields:
            fields.update({name: state[private] for name, private in self.report.items() if private in state})
        return fields, {}


_SINGLE_PROBLEM_FIELDS = (
    *_FEATURE_FIELDS,
    *_KERNEL_SVM_FIELDS,
    _Field("n_iter_", _Int(), "two-variable updates of the solver"),
    _Field("fit_status_", _Int(), "0 if the solver converged, else 1"),
)
_REPORT_ROWS = _Field("kkt.rows", _Integers(1), "training rows of positive weight, which kkt_report() reports")
_REPORT_UPPER = _Field("kkt.upper", _Floats(1), "upper bound of the multipliers of each of those rows")


class _OneClassSVMSchema(_SingleProblemSchema):
    name = "svmkit.OneClassSVM"
    class_name = "OneClassSVM"
    aliases = ("svmkit.svm.OneClassSVM",)
    fields = (
        *_SINGLE_PROBLEM_FIELDS,
        _Field("offset_", _Floats(1), "rho = -intercept_"),
        _Field("alpha_", _Floats(1), "the multiplier of each training row"),
        _Field("slack_", _Floats(1), "xi_i = max(0, -f(x_i)) of each training row"),
        _Field("dual_objective_", _Real(), "-1/2 a'Ka"),
        _Field("primal_objective_", _Real(), "1/2 a'Ka - nu sum(w) rho + sum w_i xi_i"),
        _Field("duality_gap_", _Real(), "primal_objective_ - dual_objective_"),
        _REPORT_ROWS,
        _REPORT_UPPER,
        _Field("kkt.f", _Floats(1), "f(x_i) of each of those rows"),
    )
    public = tuple(field.name for field in fields if not field.name.startswith("kkt."))
    report = {"kkt.rows": "_report_rows", "kkt.upper": "_upper", "kkt.f": "_f"}

    def check(self, estimator, values, where):
        super().check(estimator, values, where)
        if not np.array_equal(values["offset_"], -values["intercept_"]):
            _fail(f"{where}.offset_", "must be -intercept_")


class _SVRSchema(_SingleProblemSchema):
    name = "svmkit.SVR"
    class_name = "SVR"
    aliases = ("svmkit.svm.SVR",)
    fields = (
        *_SINGLE_PROBLEM_FIELDS,
        _Field("alpha_", _Floats(1), "multiplier of the upper constraint y - f <= epsilon + xi of each training row"),
        _Field("alpha_star_", _Floats(1), "multiplier of the lower constraint of each training row"),
        _Field("slack_", _Floats(1), "max(0, |y_i - f(x_i)| - epsilon) of each training row"),
        _Field("dual_objective_", _Real(), "the dual objective (to be maximised)"),
        _Field("primal_objective_", _Real(), "the primal objective"),
        _Field("duality_gap_", _Real(), "primal_objective_ - dual_objective_"),
        _REPORT_ROWS,
        _REPORT_UPPER,
        _Field("kkt.residual", _Floats(1), "residual y_i - f(x_i) of each of those rows"),
        _Field("kkt.epsilon", _Real(), "half-width of the tube that the solution reaches"),
    )
    public = tuple(field.name for field in fields if not field.name.startswith("kkt."))
    report = {"kkt.rows": "_report_rows", "kkt.upper": "_upper", "kkt.residual": "_residual", "kkt.epsilon": "_epsilon"}


class _NuSVRSchema(_SVRSchema):
    name = "svmkit.NuSVR"
    class_name = "NuSVR"
    aliases = ("svmkit.svm.NuSVR",)
    fields = (
        *_SVRSchema.fields[:-4],
        _Field("epsilon_", _Real(), "the learned half-width of the tube"),
        *_SVRSchema.fields[-4:],
    )
    public = tuple(field.name for field in fields if not field.name.startswith("kkt."))


# -- linear models and perceptrons ------------------------------------------------------------


def _n_problems(values, where):
    n_classes = values["classes_"].shape[0]
    if n_classes < 2:
        _fail(f"{where}.classes_", f"needs at least two classes, got {n_classes}")
    return 1 if n_classes == 2 else n_classes


def _check_weights(values, where):
    """coef_ and intercept_ of one-vs-rest problems; returns the number of problems."""
    _check_features(values, where)
    n_problems = _n_problems(values, where)
    _expect_shape(values, "coef_", (n_problems, values["n_features_in_"]), where, " (n_problems, n_features_in_)")
    _expect_shape(values, "intercept_", (n_problems,), where, " (one per problem)")
    return n_problems


_LINEAR_FIELDS = (
    *_FEATURE_FIELDS,
    _Field("classes_", _Labels(), "the class labels, sorted"),
    _Field("coef_", _Floats(2), "w of each one-vs-rest problem (one row for two classes)"),
    _Field("intercept_", _Floats(1), "b of each problem"),
)


class _LinearSVCSchema(_Schema):
    name = "svmkit.LinearSVC"
    module = "svmkit.linear"
    class_name = "LinearSVC"
    aliases = ("svmkit.linear.LinearSVC",)
    fields = (
        *_LINEAR_FIELDS,
        _Field("n_iter_", _Int(), "largest number of passes over the data of any problem"),
        _Field("alpha_", _Floats(1, 2), "the dual multipliers: (n_samples,) for two classes, else (n_problems, n_samples)"),
        _Field("slack_", _Floats(1, 2), "the slacks max(0, 1 - y_i f(x_i)), shaped as alpha_"),
        _Field("margin_", _PerProblem(), "2 / ||w|| of each problem"),
        _Field("primal_objective_", _PerProblem(), "the primal objective of each problem"),
        _Field("dual_objective_", _PerProblem(), "the dual objective of each problem"),
        _Field("duality_gap_", _PerProblem(), "primal minus dual objective of each problem"),
    )

    def check(self, estimator, values, where):
        n_problems = _check_weights(values, where)
        alpha = values["alpha_"]
        if alpha.ndim != (1 if n_problems == 1 else 2) or (alpha.ndim == 2 and alpha.shape[0] != n_problems):
            _fail(f"{where}.alpha_", f"expected (n_samples,) for one problem, else (n_problems, n_samples); "
                                     f"got {alpha.shape} for {n_problems} problems")
        _expect_shape(values, "slack_", alpha.shape, where, " (as alpha_)")
        for name in ("margin_", "primal_objective_", "dual_objective_", "duality_gap_"):
            value = values[name]
            if (n_problems == 1) != (not isinstance(value, np.ndarray)) or (n_problems > 1 and value.shape != (n_problems,)):
                _fail(f"{where}.{name}", f"expected a number for one problem, else one per problem ({n_problems})")


class _PegasosSVCSchema(_Schema):
    name = "svmkit.PegasosSVC"
    module = "svmkit.linear"
    class_name = "PegasosSVC"
    aliases = ("svmkit.linear.PegasosSVC",)
    fields = (
        *_LINEAR_FIELDS,
        _Field("n_iter_", _Int(), "epochs run by the last fit or partial_fit"),
        _Field("t_", _Int(), "steps taken since the model was started"),
        _Field("lambda_", _Real(), "the regularisation lambda = 1 / (2 C N)"),
        _Field("n_samples_seen_", _Int(), "samples seen so far"),
        _Field("sgd.bias_value", _Real(), "value of the constant feature that carries the intercept (0: none)"),
        _Field("sgd.directions", _Floats(2), "direction of each problem's weights, w = scale * direction "
               "(n_problems, n_features_in_ + 1 with an intercept)"),
        _Field("sgd.average_offsets", _Floats(2), "offsets of the running average of the iterates, shaped as "
               "sgd.directions"),
        _Field("sgd.states", _Floats(2), "per problem: scale, sum of scales, step t and ||direction||^2"),
        _Field("sgd.random_state", _RandomStateKind(), "the random state that draws the visiting orders of the "
               "next epochs"),
    )
    private = {"sgd.bias_value": "_bias_value", "sgd.directions": "_directions",
               "sgd.average_offsets": "_average_offsets", "sgd.states": "_states", "sgd.random_state": "_rng"}

    def collect(self, estimator):
        values = _present(estimator, [name for name in self.names if not name.startswith("sgd.")])
        state = vars(estimator)
        if values:
            values.update({name: state[private] for name, private in self.private.items() if private in state})
        return values

    def check(self, estimator, values, where):
        n_problems = _check_weights(values, where)
        n_weights = values["n_features_in_"] + (values["sgd.bias_value"] != 0.0)
        for name in ("sgd.directions", "sgd.average_offsets"):
            _expect_shape(values, name, (n_problems, n_weights), where, " (n_problems, features + intercept)")
        _expect_shape(values, "sgd.states", (n_problems, _PEGASOS_STATE_COLUMNS), where,
                      " (n_problems; scale, sum of scales, t, ||direction||^2)")

    def restore(self, estimator, values):
        state = {name: values.pop(name) for name in self.private}
        super().restore(estimator, values)
        for name in ("sgd.directions", "sgd.average_offsets", "sgd.states"):
            state[name] = np.require(state[name], dtype=np.float64, requirements=("C", "W"))
        parameter = estimator.random_state
        if type(parameter) is np.random.RandomState and _same_random_state(parameter, state["sgd.random_state"]):
            state["sgd.random_state"] = parameter  # (the fit draws from its parameter itself)
        for name, private in self.private.items():
            setattr(estimator, private, state[name])

    def from_version_1(self, state):
        fields = {name: _v1_raw(state[name]) for name in self.names if name in state}
        if fields:
            fields.update({name: state[private] for name, private in self.private.items() if private in state})
        return fields, {}


def _same_random_state(a, b):
    first, second = a.get_state(legacy=True), b.get_state(legacy=True)
    return np.array_equal(first[1], second[1]) and first[2:] == second[2:]


class _PerceptronSchema(_Schema):
    name = "svmkit.Perceptron"
    module = "svmkit.perceptron"
    class_name = "Perceptron"
    aliases = ("svmkit.perceptron.Perceptron",)
    fields = (
        *_LINEAR_FIELDS,
        _Field("alpha_", _Integers(2, low=0), "mistakes made on each sample, per problem (n_problems, n_samples)"),
        _Field("n_iter_", _Int(), "largest number of sweeps of any problem"),
    )

    def check(self, estimator, values, where):
        n_problems = _check_weights(values, where)
        if values["alpha_"].shape[0] != n_problems:
            _fail(f"{where}.alpha_", f"expected one row per problem ({n_problems}), got shape {values['alpha_'].shape}")


class _KernelPerceptronSchema(_Schema):
    name = "svmkit.KernelPerceptron"
    module = "svmkit.perceptron"
    class_name = "KernelPerceptron"
    aliases = ("svmkit.perceptron.KernelPerceptron",)
    fields = (
        *_FEATURE_FIELDS,
        _Field("classes_", _Labels(), "the class labels, sorted"),
        _Field("kernel_", _KernelKind(allow_none=False), "the kernel the fit used, gamma resolved"),
        _Field("alpha_", _Integers(2, low=0), "mistakes made on each sample, per problem (n_problems, n_samples)"),
        _Field("n_iter_", _Int(), "largest number of sweeps of any problem"),
        _Field("support_", _Integers(1), "training rows with a mistake in some problem"),
        _Field("support_vectors_", _Matrix(), "those rows, dense or CSR"),
        _Field("dual_coef_", _Floats(2), "alpha_i c_i of the support vectors (n_problems, n_SV)"),
        _Field("intercept_", _Floats(1), "sum_i alpha_i c_i of each problem"),
    )

    def check(self, estimator, values, where):
        _check_features(values, where)
        n_problems = _n_problems(values, where)
        values["kernel_"] = _check_fitted_kernel(estimator, values["kernel_"], f"{where}.kernel_")
        vectors = values["support_vectors_"]
        n_support_vectors = vectors.shape[0]
        if vectors.shape[1] != values["n_features_in_"]:
            _fail(f"{where}.support_vectors_", f"has {vectors.shape[1]} columns, n_features_in_ is "
                                               f"{values['n_features_in_']}")
        if values["alpha_"].shape[0] != n_problems:
            _fail(f"{where}.alpha_", f"expected one row per problem ({n_problems}), got shape {values['alpha_'].shape}")
        _expect_shape(values, "support_", (n_support_vectors,), where, " (one per support vector)")
        _check_indices(values["support_"], values["alpha_"].shape[1], f"{where}.support_", "rows of the training data")
        _expect_shape(values, "dual_coef_", (n_problems, n_support_vectors), where, " (n_problems, n_SV)")
        _expect_shape(values, "intercept_", (n_problems,), where, " (one per problem)")


# -- naive Bayes ------------------------------------------------------------------------------

_NAIVE_BAYES_FIELDS = (
    *_FEATURE_FIELDS,
    _Field("categorical_features_", _Integers(1, low=0), "indices of the categorical columns"),
    _Field("gaussian_features_", _Integers(1, low=0), "indices of the Gaussian columns"),
    _Field("classes_", _Labels(), "the class labels, sorted"),
    _Field("class_count_", _Floats(1), "weighted number of training rows of each class"),
    _Field("class_prior_", _Floats(1), "P(C_k) of each class"),
    _Field("class_log_prior_", _Floats(1, values="no nan"), "log P(C_k) of each class"),
    _Field("gaussian_count_", _Floats(2), "weighted number of observed values per class and Gaussian column",
           group="gaussian", condition="when there are Gaussian columns"),
    _Field("theta_", _Floats(2), "mean per class and Gaussian column", group="gaussian",
           condition="when there are Gaussian columns"),
    _Field("var_", _Floats(2), "variance per class and Gaussian column, epsilon_ included", group="gaussian",
           condition="when there are Gaussian columns"),
    _Field("epsilon_", _Real(), "the variance floor", group="gaussian", condition="when there are Gaussian columns"),
    _Field("gaussian.squared_deviations", _Floats(2), "sum of squared deviations from the mean per class and "
           "Gaussian column (what partial_fit merges new batches into)", group="gaussian",
           condition="when there are Gaussian columns"),
    _Field("categories_", _ListOf(_Labels()), "the categories of each categorical column", group="categorical",
           condition="when there are categorical columns"),
    _Field("category_count_", _ListOf(_Floats(2)), "weighted count of each category per class, per categorical "
           "column (n_classes, n_categories)", group="categorical", condition="when there are categorical columns"),
    _Field("n_categories_", _Integers(1, low=0), "number of categories of each categorical column",
           group="categorical", condition="when there are categorical columns"),
    _Field("feature_log_prob_", _ListOf(_Floats(2, values="no nan")), "log P(A_i = b | C_k) per categorical column "
           "(n_classes, n_categories)", group="categorical", condition="when there are categorical columns"),
)


class _NaiveBayesSchema(_Schema):
    module = "svmkit.naive_bayes"
    fields = _NAIVE_BAYES_FIELDS
    #: Whether the class has categorical and Gaussian columns.
    has_categorical = True
    has_gaussian = True

    def collect(self, estimator):
        values = _present(estimator, self.names)
        moments = vars(estimator).get("_gaussian_moments_")
        if values and moments is not None:
            values["gaussian.squared_deviations"] = moments.squared_deviations
        return values

    def check_params(self, estimator, fitted):
        from .naive_bayes._base import check_alpha

        if fitted and self.has_categorical:
            check_alpha(estimator.alpha)

    def check(self, estimator, values, where):
        _check_features(values, where)
        n_features = values["n_features_in_"]
        categorical, gaussian = values["categorical_features_"], values["gaussian_features_"]
        columns = np.sort(np.concatenate([categorical, gaussian]))
        if columns.shape[0] != n_features or not np.array_equal(columns, np.arange(n_features)):
            _fail(f"{where}.categorical_features_", f"with gaussian_features_ must number each of the {n_features} "
                                                   "columns once")
        if categorical.size and not self.has_categorical:
            _fail(f"{where}.categorical_features_", f"{self.class_name} has no categorical columns")
        if gaussian.size and not self.has_gaussian:
            _fail(f"{where}.gaussian_features_", f"{self.class_name} has no Gaussian columns")
        n_classes = values["classes_"].shape[0]
        if n_classes < 2:
            _fail(f"{where}.classes_", f"needs at least two classes, got {n_classes}")
        for name in ("class_count_", "class_prior_", "class_log_prior_"):
            _expect_shape(values, name, (n_classes,), where, " (one per class)")
        if bool(gaussian.size) != ("theta_" in values):
            _fail(f"{where}.theta_", "the gaussian fields are present exactly when there are Gaussian columns")
        if gaussian.size:
            for name in ("gaussian_count_", "theta_", "var_", "gaussian.squared_deviations"):
                _expect_shape(values, name, (n_classes, gaussian.shape[0]), where, " (n_classes, Gaussian columns)")
            if not np.all(values["var_"] > 0):
                _fail(f"{where}.var_", "variances must be positive")
        if bool(categorical.size) != ("categories_" in values):
            _fail(f"{where}.categories_", "the categorical fields are present exactly when there are categorical columns")
        if categorical.size:
            self._check_categories(values, where, n_classes, categorical.shape[0])

    @staticmethod
    def _check_categories(values, where, n_classes, n_columns):
        for name in ("categories_", "category_count_", "feature_log_prob_"):
            if len(values[name]) != n_columns:
                _fail(f"{where}.{name}", f"expected one entry per categorical column ({n_columns}), got {len(values[name])}")
        _expect_shape(values, "n_categories_", (n_columns,), where, " (one per categorical column)")
        for i, categories in enumerate(values["categories_"]):
            n_categories = categories.shape[0]
            if values["n_categories_"][i] != n_categories:
                _fail(f"{where}.n_categories_", f"says {values['n_categories_'][i]} categories for column {i}, "
                                                f"categories_ has {n_categories}")
            for name in ("category_count_", "feature_log_prob_"):
                if values[name][i].shape != (n_classes, n_categories):
                    _fail(f"{where}.{name}[{i}]", f"expected shape {(n_classes, n_categories)}, got {values[name][i].shape}")

    def restore(self, estimator, values):
        from .naive_bayes._categorical import log_probabilities
        from .naive_bayes._gaussian import Moments

        squared_deviations = values.pop("gaussian.squared_deviations", None)
        super().restore(estimator, values)
        if squared_deviations is not None:
            estimator._gaussian_moments_ = Moments(values["gaussian_count_"], values["theta_"], squared_deviations)
        if "category_count_" in values:
            estimator._unseen_log_prob_ = [log_probabilities(counts, estimator.alpha)[1]
                                           for counts in values["category_count_"]]

    def from_version_1(self, state):
        fields = {name: _v1_raw(state[name]) for name in self.names if name in state}
        moments = state.get("_gaussian_moments_")
        if fields and isinstance(moments, _V1Object) and type(moments.content) is list and len(moments.content) == 3:
            fields["gaussian.squared_deviations"] = moments.content[2]
        private = {"_unseen_log_prob_": state["_unseen_log_prob_"]} if "_unseen_log_prob_" in state else {}
        return fields, private

    def verify_version_1(self, estimator, private, where):
        if "_unseen_log_prob_" in private:
            saved, rebuilt = private["_unseen_log_prob_"], estimator._unseen_log_prob_
            if type(saved) is not list or len(saved) != len(rebuilt) or not all(map(_same_array, saved, rebuilt)):
                _fail(f"{where}._unseen_log_prob_", "differs from the log-probabilities rebuilt from category_count_ "
                                                    "and alpha")


class _GaussianNBSchema(_NaiveBayesSchema):
    name = "svmkit.GaussianNB"
    class_name = "GaussianNB"
    aliases = ("svmkit.naive_bayes.GaussianNB",)
    has_categorical = False


class _CategoricalNBSchema(_NaiveBayesSchema):
    name = "svmkit.CategoricalNB"
    class_name = "CategoricalNB"
    aliases = ("svmkit.naive_bayes.CategoricalNB",)
    has_gaussian = False


class _MixedNBSchema(_NaiveBayesSchema):
    name = "svmkit.MixedNB"
    class_name = "MixedNB"
    aliases = ("svmkit.naive_bayes.MixedNB",)


# -- scaling and model selection --------------------------------------------------------------


class _LibsvmScalerSchema(_Schema):
    name = "svmkit.LibsvmScaler"
    module = "svmkit.preprocessing"
    class_name = "LibsvmScaler"
    aliases = ("svmkit.preprocessing.LibsvmScaler",)
    fields = (
        *_FEATURE_FIELDS,
        _Field("data_min_", _Floats(1), "training minimum of each feature"),
        _Field("data_max_", _Floats(1), "training maximum of each feature"),
    )

    def check_params(self, estimator, fitted):
        from .preprocessing import _check_limits

        if fitted:
            _check_limits(estimator.lower, estimator.upper, "x")

    def check(self, estimator, values, where):
        _check_features(values, where)
        for name in ("data_min_", "data_max_"):
            _expect_shape(values, name, (values["n_features_in_"],), where, " (one per feature)")
        if np.any(values["data_min_"] > values["data_max_"]):
            _fail(f"{where}.data_min_", "exceeds data_max_")


class _SVCGridSearchSchema(_Schema):
    name = "svmkit.SVCGridSearch"
    module = "svmkit.model_selection"
    class_name = "SVCGridSearch"
    aliases = ("svmkit.model_selection.SVCGridSearch",)
    fields = (
        _Field("n_splits_", _Int(low=1), "number of cross-validation folds"),
        _Field("cv_results_", _Results(), "one entry per evaluated grid point"),
        _Field("best_index_", _Int(), "row of the best point in cv_results_"),
        _Field("best_params_", _BestParams(), "C and gamma of the best point"),
        _Field("best_score_", _Real(), "its cross-validation accuracy"),
        _Field("best_estimator_", _EstimatorKind(), "the scaling Pipeline (or the estimator without scaling) with the "
               "best parameters, refitted on all the data"),
    )

    def check(self, estimator, values, where):
        n_points = values["cv_results_"]["C"].shape[0]
        if values["best_index_"] >= n_points:
            _fail(f"{where}.best_index_", f"is not a row of cv_results_ ({n_points} rows)")


class _PipelineSchema(_Schema):
    """scikit-learn's Pipeline, as the best estimator of :class:`svmkit.SVCGridSearch`: its
    steps are estimators of the file, its fitted state is theirs."""

    name = "sklearn.pipeline.Pipeline"
    module = "sklearn.pipeline"
    class_name = "Pipeline"
    nested_only = True
    fields = ()

    def check_params(self, estimator, fitted):
        steps = estimator.steps
        if type(steps) is not list or not steps or not all(
            type(step) is tuple and len(step) == 2 and type(step[0]) is str and isinstance(step[1], BaseEstimator)
            for step in steps
        ):
            raise ValueError("steps must be a list of (name, estimator) pairs")
        if estimator.memory is not None or estimator.transform_input is not None:
            raise ValueError("memory and transform_input must be None")
        if type(estimator.verbose) is not bool:
            raise ValueError("verbose must be True or False")


class _StandardScalerSchema(_Schema):
    name = "sklearn.preprocessing.StandardScaler"
    module = "sklearn.preprocessing"
    class_name = "StandardScaler"
    nested_only = True
    fields = (
        *_FEATURE_FIELDS,
        _Field("n_samples_seen_", _Count(), "samples seen (per feature when some were missing)"),
        _Field("mean_", _Optional(_Floats(1)), "mean of each feature"),
        _Field("var_", _Optional(_Floats(1)), "variance of each feature"),
        _Field("scale_", _Optional(_Floats(1)), "scale of each feature"),
    )

    def check(self, estimator, values, where):
        _check_features(values, where)
        for name in ("mean_", "var_", "scale_"):
            if values[name] is not None:
                _expect_shape(values, name, (values["n_features_in_"],), where, " (one per feature)")
        if isinstance(values["n_samples_seen_"], np.ndarray):
            _expect_shape(values, "n_samples_seen_", (values["n_features_in_"],), where, " (one per feature)")


_SCHEMAS = (
    _SVCSchema(),
    _NuSVCSchema(),
    _OneClassSVMSchema(),
    _SVRSchema(),
    _NuSVRSchema(),
    _LinearSVCSchema(),
    _PegasosSVCSchema(),
    _PerceptronSchema(),
    _KernelPerceptronSchema(),
    _GaussianNBSchema(),
    _CategoricalNBSchema(),
    _MixedNBSchema(),
    _LibsvmScalerSchema(),
    _SVCGridSearchSchema(),
    _PipelineSchema(),
    _StandardScalerSchema(),
)


def _schema_named(name, nested):
    """The schema a file names (by its name or, from version 1, an alias); None if the
    class is not one that files hold (at the top of a file: svmkit's only)."""
    for schema in _SCHEMAS:
        if name == schema.name or name in schema.aliases:
            return schema if nested or not schema.nested_only else None
    return None


def _schema_of_instance(estimator, nested):
    for schema in _SCHEMAS:
        if type(estimator).__name__ == schema.class_name and (nested or not schema.nested_only):
            if type(estimator) is schema.estimator_class():
                return schema
    return None
