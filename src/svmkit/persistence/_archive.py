"""The container of a model file: a ZIP archive of ``.npy`` members, one of them the metadata.

Reading bounds what the members may decompress to, verifies the ZIP checksums and refuses
members that are not plain arrays (pickled objects, records) before NumPy reads them.
"""

from __future__ import annotations

import io
import json
import math
import zipfile
import zlib

import numpy as np

from ._errors import ModelFileError, _fail

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

_METADATA = "metadata"
#: The timestamp of every member (the earliest a ZIP archive can hold): the same model gives
#: the same bytes.
_MEMBER_TIMESTAMP = (1980, 1, 1, 0, 0, 0)
#: What reading a damaged archive can raise; all of it means a damaged file.
_ARCHIVE_ERRORS = (zipfile.BadZipFile, zlib.error, EOFError, OSError, ValueError, KeyError, NotImplementedError, RuntimeError)
#: The dtype kinds an array member may have: booleans, integers, floats, bytes and str.
_MEMBER_KINDS = "biufSU"


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
                arrays[info.filename[: -len(".npy")]] = _read_npy(_read_member(archive, info), info.filename)
    except ModelFileError:
        raise
    except _ARCHIVE_ERRORS as error:
        raise ModelFileError(f"truncated or corrupted svmkit model file: {type(error).__name__}: {error}") from None
    return arrays


def _read_member(archive, info):
    """The bytes of a member: at most the size it declares (which the limit bounds) are ever
    decompressed. (``ZipFile.read`` decompresses up to 2 GiB at once before it cuts the data at
    the declared size: a member of a few MB that declares 1000 bytes expands that far.)"""
    with archive.open(info) as member:
        return member.read(info.file_size)


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
