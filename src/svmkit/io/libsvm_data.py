"""Read and write data files in the LIBSVM (svmlight) text format.

Each line holds one sample, ``label index:value index:value ...``, with
1-based feature indices in strictly ascending order and zero values left
out. The rules this module follows:

* The label and the values are decimal numbers,
  ``[+-]? (digits [. digits?] | . digits) ([eE] [+-]? digits)?``, converted
  with correct rounding (as Python's ``float``). NaN, infinity, hexadecimal
  and numbers that overflow the requested dtype are refused.
* Indices are plain runs of digits (at most ``2**31 - 1``); index 0 is an
  error except in precomputed-kernel files.
* Fields are separated by spaces or tabs (``\\r``, ``\\v`` and ``\\f`` count
  as spaces, so CRLF files read fine).
* ``#`` starts a comment that runs to the end of the line. Blank lines and
  comment-only lines are skipped, as scikit-learn does (LIBSVM's own tools
  refuse blank lines). Line numbers in error messages count every physical
  line of the file, skipped ones included.
* Files compressed with gzip, bzip2 or xz are recognised by their first
  bytes and decompressed on reading; on writing, the suffix of the path
  (``.gz``, ``.bz2``, ``.xz``) chooses the compression.
* Explicit zeros in a file are kept as stored entries of the CSR matrix.

Precomputed-kernel files (LIBSVM's ``-t 4``) hold one row of a kernel matrix
per line, ``label 0:serial 1:K(x, x1) 2:K(x, x2) ...``; see
:func:`load_libsvm_precomputed` and :func:`dump_libsvm_precomputed`.

Examples
--------
>>> import io
>>> import numpy as np
>>> from svmkit.io import dump_libsvm, load_libsvm
>>> buffer = io.BytesIO()
>>> dump_libsvm(np.array([[0.5, 0.0, 2.0], [0.0, 0.0, -1.0]]), np.array([1.0, -1.0]), buffer)
>>> buffer.getvalue()
b'1 1:0.5 3:2\\n-1 3:-1\\n'
>>> X, y = load_libsvm(io.BytesIO(buffer.getvalue()))
>>> X.toarray()
array([[ 0.5,  0. ,  2. ],
       [ 0. ,  0. , -1. ]])
>>> y
array([ 1., -1.])
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import operator
import os
import re
import zlib
from typing import NamedTuple

import numpy as np

__all__ = [
    "LibsvmFormatError",
    "load_libsvm",
    "dump_libsvm",
    "load_libsvm_precomputed",
    "dump_libsvm_precomputed",
]


class LibsvmFormatError(ValueError):
    """A LIBSVM data file that does not follow the format.

    Parameters
    ----------
    reason : str
        What is wrong.
    line : int, optional
        1-based line number of the offending line, if there is one.
    token : str, optional
        The offending token, as found in the file.

    Attributes
    ----------
    line : int or None
    token : str or None

    Examples
    --------
    >>> import io
    >>> from svmkit.io import load_libsvm
    >>> try:
    ...     load_libsvm(io.BytesIO(b"1 1:0.5\\n-1 3:1 2:4\\n"))
    ... except LibsvmFormatError as error:
    ...     print(error)
    line 2: feature index is not greater than the one before it: '2:4'
    """

    def __init__(self, reason, line=None, token=None):
        where = "" if line is None else f"line {line}: "
        what = "" if token is None else f": {token!r}"
        super().__init__(f"{where}{reason}{what}")
        self.line = line
        self.token = token



def _reason(status):
    """What the compiled parser's error ``status`` means."""
    from svmkit._core import libsvm_parse

    return {
        libsvm_parse.BAD_LABEL: "label is not a finite decimal number",
        libsvm_parse.MISSING_LABEL: "line does not start with a label",
        libsvm_parse.BAD_FEATURE_TOKEN: "expected 'index:value'",
        libsvm_parse.BAD_INDEX: f"feature index is not an integer in 0..{libsvm_parse.LARGEST_INDEX}",
        libsvm_parse.BAD_VALUE: "feature value is not a finite decimal number",
        libsvm_parse.INDEX_NOT_ASCENDING: "feature index is not greater than the one before it",
        libsvm_parse.INDEX_ZERO: "feature indices start at 1",
        libsvm_parse.INDEX_ABOVE_LIMIT: "feature index is larger than n_features",
    }[status]


_LONGEST_TOKEN_SHOWN = 60

#: Default limit on the number of columns that the largest feature index of a file may
#: make (``max_features``): 2**24 covers the LIBSVM collection's widest common sets (url,
#: webspam) while a 22-byte file ``1 2147483647:1`` cannot ask for a matrix whose dense
#: rows take gigabytes; a caller who means it raises it.
MAX_FEATURES = 2**24

_DECOMPRESSORS = (
    (b"\x1f\x8b", gzip.decompress),
    (b"BZh", bz2.decompress),
    (b"\xfd7zXZ\x00", lzma.decompress),
)

_COMPRESSORS = {
    ".gz": lambda data: gzip.compress(data, mtime=0),
    ".bz2": bz2.compress,
    ".xz": lzma.compress,
}


class _ParsedRows(NamedTuple):
    labels: np.ndarray
    row_lines: np.ndarray
    indptr: np.ndarray
    columns: np.ndarray
    values: np.ndarray


def load_libsvm(source, n_features=None, dtype=np.float64, max_features=MAX_FEATURES):
    """Load a LIBSVM data file as a CSR matrix and a label vector.

    Parameters
    ----------
    source : str, os.PathLike or binary file object
        The file, possibly compressed with gzip, bzip2 or xz.
    n_features : int, optional
        Number of columns of ``X``. By default the largest index in the file;
        give it when a file (e.g. a test split) does not use the last
        features. An index above ``n_features`` raises
        :class:`LibsvmFormatError`.
    dtype : floating dtype, default float64
        dtype of ``X``. Values are rounded to float64 first, then cast (as
        scikit-learn does). Labels are always float64.
    max_features : int or None, default 2**24
        Largest number of columns that the file's largest feature index may
        make when ``n_features`` is not given (an explicit ``n_features``
        is taken as it is); None for no limit. A larger index raises
        :class:`LibsvmFormatError`.

    Returns
    -------
    X : scipy.sparse.csr_matrix, shape (n_samples, n_features)
        Sorted indices, no duplicates; entries written as zero in the file
        are stored.
    y : ndarray of float64, shape (n_samples,)

    Raises
    ------
    LibsvmFormatError
        If the file is malformed; the message names the line and the token.

    Examples
    --------
    >>> from importlib.resources import files
    >>> from svmkit.io import load_libsvm
    >>> X, y = load_libsvm(files("svmkit.datasets") / "heart_scale")
    >>> X.shape, y[:4]
    ((270, 13), array([ 1., -1.,  1., -1.]))
    >>> X[0, :4].toarray()
    array([[ 0.708333,  1.      ,  1.      , -0.320755]])
    """
    import scipy.sparse as sp

    rows, n_features = _load_rows(source, n_features, dtype, max_features)
    shape = (rows.labels.size, n_features)
    return sp.csr_matrix((rows.values, rows.columns, rows.indptr), shape=shape), rows.labels


def _load_rows(source, n_features, dtype, max_features):
    """:func:`load_libsvm`'s rows (labels, line numbers and CSR arrays) and number of features."""
    dtype = _float_dtype(dtype)
    max_index = -1
    if n_features is not None:
        n_features = operator.index(n_features)
        if n_features < 0:
            raise ValueError(f"n_features must be non-negative, got {n_features}")
        max_index = n_features
    rows = _parse(_read_bytes(source), dtype, first_index=1, max_index=max_index)
    if n_features is None:
        n_features = int(rows.columns.max()) + 1 if rows.columns.size else 0
        if max_features is not None and n_features > operator.index(max_features):
            entry = int(np.argmax(rows.columns))
            row = int(np.searchsorted(rows.indptr, entry, side="right")) - 1
            raise LibsvmFormatError(
                f"feature index {n_features} is larger than max_features={max_features} (pass a larger "
                "max_features, or n_features, to read it)", int(rows.row_lines[row]))
    return rows, n_features


def load_libsvm_precomputed(source, dtype=np.float64, check_serial=True):
    """Load a precomputed-kernel file (LIBSVM ``-t 4``) as a dense matrix.

    Every line is ``label 0:serial 1:K(x, x1) 2:K(x, x2) ... m:K(x, xm)``.
    LIBSVM looks kernel values up by their position in the line, so every
    column from 0 to ``m`` must be present, zeros included, and all lines
    must have the same ``m``.

    Parameters
    ----------
    source : str, os.PathLike or binary file object
        The file, possibly compressed with gzip, bzip2 or xz.
    dtype : floating dtype, default float64
        dtype of the kernel matrix.
    check_serial : bool, default True
        Require the serial number of the ``i``-th row to be ``i`` (1-based),
        as in the kernel of a training set. Set it to False for the kernel
        between a test set and a training set, whose serial numbers LIBSVM
        ignores.

    Returns
    -------
    K : ndarray, shape (n_samples, m)
        ``K[i, j]`` is the value at index ``j + 1`` of row ``i``.
    y : ndarray of float64, shape (n_samples,)

    Raises
    ------
    LibsvmFormatError
        If the file is malformed, a column is missing, the rows differ in
        length or (with ``check_serial``) a serial number is wrong.

    Examples
    --------
    >>> import io
    >>> from svmkit.io import load_libsvm_precomputed
    >>> text = b"1 0:1 1:4 2:1\\n-1 0:2 1:1 2:9\\n"
    >>> K, y = load_libsvm_precomputed(io.BytesIO(text))
    >>> K
    array([[4., 1.],
           [1., 9.]])
    >>> y
    array([ 1., -1.])
    """
    dtype = _float_dtype(dtype)
    rows = _parse(_read_bytes(source), dtype, first_index=0, max_index=-1)
    n_samples = rows.labels.size
    if n_samples == 0:
        return np.empty((0, 0), dtype=dtype), rows.labels
    lengths = np.diff(rows.indptr)
    # Indices ascend strictly, so a row is complete when it starts at
    # column 0 and ends at column (its length - 1).
    nonempty = lengths > 0
    first_columns = np.full(n_samples, -1)
    first_columns[nonempty] = rows.columns[rows.indptr[:-1][nonempty]]
    last_columns = np.full(n_samples, -1)
    last_columns[nonempty] = rows.columns[rows.indptr[1:][nonempty] - 1]
    _raise_at_first(rows, first_columns != 0, "missing the serial number '0:i' that starts a precomputed-kernel row")
    _raise_at_first(rows, last_columns != lengths - 1, "a kernel column is missing; precomputed-kernel rows list every column")
    _raise_at_first(rows, lengths != lengths[0], f"row length differs from the first row's {lengths[0] - 1} kernel columns")
    table = rows.values.reshape(n_samples, lengths[0])
    if check_serial:
        serial_ok = table[:, 0] == np.arange(1, n_samples + 1)
        _raise_at_first(rows, ~serial_ok, "serial number '0:i' of the i-th row is not i")
    return np.ascontiguousarray(table[:, 1:]), rows.labels


def dump_libsvm(X, y, target, comment=None):
    """Write samples and labels as a LIBSVM data file.

    Indices are written 1-based, zeros are left out, and every number is
    written with the shortest decimal text that reads back to the same
    float64 (at most 17 significant digits; integer values without a
    decimal point), so that :func:`load_libsvm` gives back ``X`` and ``y``
    bit for bit (-0.0 in ``X`` becomes an omitted zero).

    Parameters
    ----------
    X : array-like or scipy.sparse matrix, shape (n_samples, n_features)
        Real values; NaN and infinity are refused.
    y : array-like, shape (n_samples,)
        Labels; NaN and infinity are refused.
    target : str, os.PathLike or binary file object
        Where to write. A path ending in ``.gz``, ``.bz2`` or ``.xz`` is
        compressed accordingly; a file object receives plain text.
    comment : str, optional
        Written first, each of its lines preceded by ``# ``.

    Examples
    --------
    >>> import io
    >>> import numpy as np
    >>> from svmkit.io import dump_libsvm
    >>> buffer = io.BytesIO()
    >>> dump_libsvm(np.array([[0.1, 0.0], [0.0, 1e-300]]), [1, 2.5], buffer, comment="demo")
    >>> print(buffer.getvalue().decode())
    # demo
    1 1:0.1
    2.5 2:1e-300
    <BLANKLINE>
    """
    import scipy.sparse as sp

    X = sp.csr_matrix(X, copy=True) if sp.issparse(X) else sp.csr_matrix(_real_array(X, "X", ndim=2))
    _real_array(X.data, "X", ndim=1)
    X.sum_duplicates()
    X.eliminate_zeros()
    y = _real_array(y, "y", ndim=1)
    if y.size != X.shape[0]:
        raise ValueError(f"X has {X.shape[0]} rows but y has {y.size} labels")
    _check_finite(X.data, "X")
    _check_finite(y, "y")
    _write_rows(target, y, X.indptr, X.indices + 1, X.data, comment)


def dump_libsvm_precomputed(K, y, target, comment=None):
    """Write a kernel matrix as a precomputed-kernel file (LIBSVM ``-t 4``).

    Row ``i`` becomes ``y[i] 0:i+1 1:K[i, 0] 2:K[i, 1] ...`` with every
    column written, zeros included, as LIBSVM requires. Numbers are written
    as in :func:`dump_libsvm`, so :func:`load_libsvm_precomputed` gives back
    ``K`` and ``y`` bit for bit.

    Parameters
    ----------
    K : array-like, shape (n_samples, m)
        Kernel values between the samples and ``m`` training samples.
    y : array-like, shape (n_samples,)
        Labels.
    target : str, os.PathLike or binary file object
        Where to write; compression is chosen as in :func:`dump_libsvm`.
    comment : str, optional
        Written first, each of its lines preceded by ``# ``.

    Examples
    --------
    >>> import io
    >>> import numpy as np
    >>> from svmkit.io import dump_libsvm_precomputed
    >>> buffer = io.BytesIO()
    >>> dump_libsvm_precomputed(np.array([[4.0, 0.0], [0.0, 9.5]]), [1, -1], buffer)
    >>> print(buffer.getvalue().decode())
    1 0:1 1:4 2:0
    -1 0:2 1:0 2:9.5
    <BLANKLINE>
    """
    import scipy.sparse as sp

    K = _real_array(K.toarray() if sp.issparse(K) else K, "K", ndim=2)
    y = _real_array(y, "y", ndim=1)
    n_samples, n_columns = K.shape
    if y.size != n_samples:
        raise ValueError(f"K has {n_samples} rows but y has {y.size} labels")
    _check_finite(K, "K")
    _check_finite(y, "y")
    table = np.column_stack([np.arange(1, n_samples + 1, dtype=np.float64), K.astype(np.float64)])
    indptr = np.arange(n_samples + 1) * (n_columns + 1)
    columns = np.tile(np.arange(n_columns + 1), n_samples)
    _write_rows(target, y, indptr, columns, table.ravel(), comment)


def _parse(buf, dtype, first_index, max_index):
    """The rows of ``buf``: small files through Python's own parsing (no compiled code to load),
    others and every file the small-file reader does not accept through the compiled parser."""
    rows = _parse_small(buf, first_index, max_index) if len(buf) <= _SMALL_FILE_BYTES else None
    labels, row_lines, indptr, columns, values = rows if rows is not None else _parse_compiled(buf, first_index, max_index)
    with np.errstate(over="ignore"):
        values = values.astype(dtype, copy=False)
    bad_labels = ~np.isfinite(labels)
    bad_values = ~np.isfinite(values)
    if bad_labels.any() or bad_values.any():
        _raise_overflow(buf, row_lines, indptr, bad_labels, bad_values, dtype)
    return _ParsedRows(labels, row_lines, indptr, columns, values)


#: Files up to this size are read by :func:`_parse_small`: loading the compiled parser from numba's
#: cache takes longer than Python's parsing of a file this size.
_SMALL_FILE_BYTES = 2**19

_DECIMAL = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]{1,5})?")
_INDEX = re.compile(rb"[0-9]{1,10}")


def _parse_small(buf, first_index, max_index):
    """The rows of ``buf`` as float64, or None where any token is out of the ordinary (the compiled
    parser then reads the file and words its error). Accepts a subset of what the compiled parser
    accepts, with the same values: Python's ``float`` of the same decimal text."""
    from svmkit._core.libsvm_status import LARGEST_INDEX

    is_decimal, is_index = _DECIMAL.fullmatch, _INDEX.fullmatch
    labels, row_lines, indptr, columns, values = [], [], [0], [], []
    for line, text in enumerate(buf.split(b"\n"), start=1):
        tokens = text.split(b"#", 1)[0].split()
        if not tokens:
            continue
        if not is_decimal(tokens[0]):
            return None
        labels.append(float(tokens[0]))
        row_lines.append(line)
        previous = first_index - 1
        for token in tokens[1:]:
            index, colon, value = token.partition(b":")
            if not (colon and is_index(index) and is_decimal(value)):
                return None
            index = int(index)
            if index <= previous or index > LARGEST_INDEX or 0 <= max_index < index:
                return None
            columns.append(index - first_index)
            values.append(float(value))
            previous = index
        indptr.append(len(columns))
    return (np.array(labels, dtype=np.float64), np.array(row_lines, dtype=np.int64), np.array(indptr, dtype=np.int64),
            np.array(columns, dtype=np.int32), np.array(values, dtype=np.float64))


def _parse_compiled(buf, first_index, max_index):
    """The rows of ``buf`` read by the compiled parser; raises on the first malformed token."""
    from svmkit._core import libsvm_parse
    from svmkit._first_use import notice_compilation

    data = np.frombuffer(buf, dtype=np.uint8)
    # a row takes a byte and a line end, an entry a separator and three bytes ("1:1") at least
    max_rows = min(int(np.count_nonzero(data == ord("\n"))) + 1, (data.size + 1) // 2 + 1)
    max_stored = min(int(np.count_nonzero(data == ord(":"))), data.size // 4 + 1)
    labels = np.empty(max_rows, dtype=np.float64)
    row_lines = np.empty(max_rows, dtype=np.int64)
    indptr = np.empty(max_rows + 1, dtype=np.int64)
    columns = np.empty(max_stored, dtype=np.int32)
    values = np.empty(max_stored, dtype=np.float64)
    deferred = np.empty((3, max_stored + max_rows), dtype=np.int64)
    notice_compilation(libsvm_parse.parse_libsvm)
    status, line, token_start, token_end, n_rows, n_stored, n_deferred = libsvm_parse.parse_libsvm(
        data, first_index, max_index, labels, row_lines, indptr, columns, values, *deferred
    )
    if status != libsvm_parse.OK:
        raise LibsvmFormatError(_reason(status), line, _token_text(buf[token_start:token_end]))
    starts, ends, targets = deferred[:, :n_deferred]
    converted = np.array([float(buf[start:end]) for start, end in zip(starts.tolist(), ends.tolist())], dtype=np.float64)
    is_label = targets < 0
    labels[-targets[is_label] - 1] = converted[is_label]
    values[targets[~is_label]] = converted[~is_label]
    return labels[:n_rows], row_lines[:n_rows], indptr[: n_rows + 1], columns[:n_stored], values[:n_stored]


def _raise_overflow(buf, row_lines, indptr, bad_labels, bad_values, dtype):
    """Raise for the first label or value that is not finite in ``dtype``."""
    rows_of_bad_values = np.searchsorted(indptr, np.flatnonzero(bad_values), side="right") - 1
    row = int(np.concatenate([np.flatnonzero(bad_labels), rows_of_bad_values]).min())
    line = int(row_lines[row])
    tokens = buf.split(b"\n", line)[line - 1].split(b"#", 1)[0].split()
    if bad_labels[row]:
        what, token = "label", tokens[0]
    else:
        position_in_row = np.flatnonzero(bad_values[indptr[row] : indptr[row + 1]])[0]
        what, token = "feature value", tokens[1 + position_in_row]
    raise LibsvmFormatError(f"{what} overflows {np.dtype(dtype).name}", line, _token_text(token))


def _raise_at_first(rows, bad_rows, reason):
    if bad_rows.any():
        raise LibsvmFormatError(reason, int(rows.row_lines[np.argmax(bad_rows)]))


def _token_text(raw):
    text = raw.decode("utf-8", errors="backslashreplace")
    if len(text) > _LONGEST_TOKEN_SHOWN:
        return text[: _LONGEST_TOKEN_SHOWN - 3] + "..."
    return text


def _read_bytes(source):
    if isinstance(source, (str, os.PathLike)):
        with open(source, "rb") as file:
            raw = file.read()
    elif hasattr(source, "read"):
        raw = source.read()
        if isinstance(raw, str):
            raise TypeError("open the file in binary mode ('rb')")
        raw = bytes(raw)
    elif hasattr(source, "read_bytes"):  # importlib.resources Traversable
        raw = source.read_bytes()
    else:
        raise TypeError(f"expected a path or a binary file object, got {type(source).__name__}")
    for magic, decompress in _DECOMPRESSORS:
        if raw.startswith(magic):
            try:
                return decompress(raw)
            except (OSError, EOFError, ValueError, zlib.error, lzma.LZMAError) as error:
                raise LibsvmFormatError(f"cannot decompress the file ({error})") from error
    return raw


def _write_rows(target, labels, indptr, columns, values, comment):
    label_texts = _format_numbers(labels)
    feature_tokens = [f"{column}:{value}" for column, value in zip(columns.tolist(), _format_numbers(values))]
    lines = [f"# {text}" for text in comment.splitlines()] if comment is not None else []
    for label, start, stop in zip(label_texts, indptr[:-1].tolist(), indptr[1:].tolist()):
        lines.append(" ".join([label, *feature_tokens[start:stop]]))
    text = "".join(line + "\n" for line in lines).encode("utf-8")
    if isinstance(target, (str, os.PathLike)):
        compress = _COMPRESSORS.get(os.path.splitext(os.fspath(target))[1].lower())
        with open(target, "wb") as file:
            file.write(compress(text) if compress else text)
    else:
        target.write(text)


def _format_numbers(numbers):
    """Shortest round-trip decimal text of each number; integers without '.0'."""
    if numbers.dtype.kind == "b":
        numbers = numbers.astype(np.int64)
    if numbers.dtype.kind in "iu":
        return [str(number) for number in numbers.tolist()]
    numbers = numbers.astype(np.float64, copy=False)
    whole = (numbers == np.trunc(numbers)) & (np.abs(numbers) < 2.0**53)
    return [format(number, ".0f") if is_whole else repr(number) for number, is_whole in zip(numbers.tolist(), whole.tolist())]


def _float_dtype(dtype):
    dtype = np.dtype(dtype)
    if dtype.kind != "f":
        raise TypeError(f"dtype must be a floating dtype, got {dtype}")
    return dtype


def _real_array(values, name, ndim):
    array = np.asarray(values)
    if array.dtype.kind not in "biuf":
        raise TypeError(f"{name} must hold real numbers, got dtype {array.dtype}")
    if array.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {array.shape}")
    return array


def _check_finite(values, name):
    if values.dtype.kind == "f" and not np.isfinite(values).all():
        raise ValueError(f"{name} contains NaN or infinity, which LIBSVM files cannot hold")
