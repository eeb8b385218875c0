"""Model files taken apart and put together again, for the tests that save, load and craft them."""

import io
import json
import zipfile

import numpy as np

import svmkit


def saved_bytes(estimator):
    """The model file of ``estimator``, as bytes."""
    buffer = io.BytesIO()
    svmkit.save(estimator, buffer)
    return buffer.getvalue()


def round_trip(estimator):
    """``estimator`` saved and loaded again."""
    return svmkit.load(io.BytesIO(saved_bytes(estimator)))


def file_parts(raw):
    """The metadata and the arrays of a model file."""
    with np.load(io.BytesIO(raw), allow_pickle=False) as archive:
        arrays = {name: archive[name] for name in archive.files}
    return json.loads(arrays.pop("metadata").tobytes()), arrays


def assemble(metadata, arrays):
    """A model file of these metadata and arrays."""
    buffer = io.BytesIO()
    members = {"metadata": np.frombuffer(json.dumps(metadata).encode(), dtype=np.uint8), **arrays}
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, array in members.items():
            with archive.open(name + ".npy", "w", force_zip64=True) as member:
                np.lib.format.write_array(member, np.asanyarray(array), allow_pickle=False)
    return buffer.getvalue()
