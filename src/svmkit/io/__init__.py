"""Reading and writing data files.

:mod:`svmkit.io.libsvm_data` handles the LIBSVM (svmlight) text format,
plain or compressed, including precomputed-kernel files;
:mod:`svmkit.io.libsvm_model` LIBSVM's model files. Each name is imported
when first asked for, so reading data does not load the SVMs.
"""

import importlib

_HOMES = {
    ".libsvm_data": ["LibsvmFormatError", "load_libsvm", "dump_libsvm", "load_libsvm_precomputed",
                     "dump_libsvm_precomputed"],
    ".libsvm_model": ["load_libsvm_model", "save_libsvm_model", "check_libsvm_model", "libsvm_label_order",
                      "predict_as_libsvm", "predict_proba_as_libsvm"],
}
_HOME_OF = {name: module for module, names in _HOMES.items() for name in names}

__all__ = [name for names in _HOMES.values() for name in names]


def __getattr__(name):
    if name not in _HOME_OF:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(_HOME_OF[name], __name__), name)
    globals()[name] = value  # (asked for once)
    return value


def __dir__():
    return sorted(set(globals()) | set(__all__))
