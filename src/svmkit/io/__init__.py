"""Reading and writing data files.

:mod:`svmkit.io.libsvm_data` handles the LIBSVM (svmlight) text format,
plain or compressed, including precomputed-kernel files.
"""

from svmkit.io.libsvm_data import (
    LibsvmFormatError,
    dump_libsvm,
    dump_libsvm_precomputed,
    load_libsvm,
    load_libsvm_precomputed,
)
from svmkit.io.libsvm_model import load_libsvm_model, save_libsvm_model

__all__ = [
    "LibsvmFormatError",
    "load_libsvm",
    "dump_libsvm",
    "load_libsvm_precomputed",
    "dump_libsvm_precomputed",
    "load_libsvm_model",
    "save_libsvm_model",
]
