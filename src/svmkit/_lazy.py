"""Public names of a package imported when first asked for (PEP 562), so that importing one
part of svmkit (``svmkit scale``, ``svmkit train -s 3``) does not load the others."""

import importlib
import sys


def lazy_names(package, homes, submodules=()):
    """``(__getattr__, __dir__)`` of the package ``package`` whose public names live in the
    modules of ``homes`` (relative module name -> names), and whose ``submodules`` are
    imported when first asked for.

    Examples
    --------
    >>> getattr_, dir_ = lazy_names("svmkit", {".kernels": ["RBFKernel"]})
    >>> getattr_("RBFKernel").__name__
    'RBFKernel'
    """
    home_of = {name: module for module, names in homes.items() for name in names}

    def __getattr__(name):
        if name in submodules:
            value = importlib.import_module(f".{name}", package)
        elif name in home_of:
            value = getattr(importlib.import_module(home_of[name], package), name)
        else:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        setattr(sys.modules[package], name, value)  # (asked for once)
        return value

    def __dir__():
        module = sys.modules[package]
        return sorted(set(vars(module)) | set(getattr(module, "__all__", ())))

    return __getattr__, __dir__
