"""Save and load fitted svmkit estimators as files of named, documented fields.

:func:`save` writes an estimator to one file and :func:`load` reads it back; the reloaded
estimator predicts exactly (bit for bit) what the saved one did. A file holds, for its
estimator class, the constructor parameters and a fixed list of public fields (the fitted
attributes that define the model, and named data such as the multipliers of every
two-class problem); no private attribute is written, so the format does not change when
the internals of an estimator do. :func:`saved_fields` lists the fields of a class, and
``docs/model-files.md`` describes them all.

Loading never unpickles, never runs code from the file and imports nothing but svmkit and
scikit-learn: the file names its estimator class, which must be one of an explicit list of
svmkit estimator classes (or a scikit-learn Pipeline or ColumnTransformer of them and of the
preprocessing steps listed in :func:`save`). Every value is checked before the estimator is built (dtype, shape, finiteness and
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
(a NumPy scalar), ``slice``, ``csr_matrix`` / ``csr_array``, ``random_state``, ``kernel`` (a kernel
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

import json
import numbers
import os
from typing import NamedTuple

import numpy as np

from ._archive import (
    DECOMPRESSION_ALLOWANCE,
    DECOMPRESSION_RATIO,
    FORMAT_NAME,
    FORMAT_VERSION,
    MAX_DECOMPRESSED_BYTES,
    READABLE_VERSIONS,
    _METADATA,
    _Members,
    _read_archive,
    _read_metadata,
    _write_archive,
)
from ._build import _build_estimator
from ._errors import ModelFileError
from ._registry import _SCHEMAS, _schema_of_instance
from ._version1 import _read_version_1
from ._version2 import MAX_NESTING
from ._version2 import _read_version_2
from ._writer import _Writer

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
    "MAX_NESTING",
]

#: What building an estimator from malformed values can raise beyond the checks made.
_MALFORMED_ERRORS = (KeyError, TypeError, ValueError, IndexError, AttributeError, OverflowError, RecursionError)


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
    estimator : svmkit estimator, scikit-learn Pipeline or ColumnTransformer
        An estimator of one of the classes :func:`saved_fields` knows (``SVC``,
        ``GaussianNB``, ``SVCGridSearch``, ...), or a scikit-learn ``Pipeline`` whose steps
        are such estimators and scikit-learn's ``StandardScaler``, ``MinMaxScaler``,
        ``MaxAbsScaler``, ``SimpleImputer`` (without ``add_indicator``) or ``OneHotEncoder``
        (without infrequent categories), or a ``ColumnTransformer`` of these steps (its
        columns given as indices, names, a boolean mask or a slice, not chosen by a
        function such as ``make_column_selector``). Other attributes than its parameters and the
        fields of its class are not saved. A ``callback`` is not saved: it is dropped with
        a warning, and the loaded estimator has ``callback=None``.
    target : str, os.PathLike or binary file object
        Where to write. The name is used as given (no ``.npz`` is added).

    Raises
    ------
    TypeError
        If the estimator is not a saveable estimator, or a parameter holds something the
        format cannot represent (a function such as a callable kernel, a step such as
        ``FunctionTransformer``, columns chosen by ``make_column_selector``, an object of
        another library); the message names the parameter.

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
    from .. import __version__

    schema = _schema_of_instance(estimator, nested=False)
    if schema is None:
        raise TypeError(
            "save() takes an svmkit estimator or a scikit-learn Pipeline or ColumnTransformer of saveable "
            f"steps, got {type(estimator).__name__}."
        )
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
        ``Pipeline``, ``ColumnTransformer``, ``StandardScaler``, ``MinMaxScaler``,
        ``MaxAbsScaler``, ``SimpleImputer`` and ``OneHotEncoder`` (the last five as steps of
        a Pipeline or ColumnTransformer).

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
