"""Reading and writing data files.

:mod:`svmkit.io.libsvm_data` handles the LIBSVM (svmlight) text format,
plain or compressed, including precomputed-kernel files;
:mod:`svmkit.io.libsvm_model` LIBSVM's model files. Each name is imported
when first asked for, so reading data does not load the SVMs.
"""

from .._lazy import lazy_names

_HOMES = {
    ".libsvm_data": ["LibsvmFormatError", "load_libsvm", "dump_libsvm", "load_libsvm_precomputed",
                     "dump_libsvm_precomputed"],
    ".libsvm_model": ["load_libsvm_model", "save_libsvm_model", "check_libsvm_model", "libsvm_label_order",
                      "predict_as_libsvm", "predict_proba_as_libsvm"],
}

__all__ = [name for names in _HOMES.values() for name in names]


__getattr__, __dir__ = lazy_names(__name__, _HOMES)
