"""Reading LIBSVM data and model files, with errors that name the file."""


def _load_data(path):
    from ..io.libsvm_data import LibsvmFormatError, load_libsvm

    try:
        return load_libsvm(path)
    except LibsvmFormatError as error:
        raise ValueError(f"{path}: {error}") from None


def _load_rows(path):
    """The rows of a LIBSVM data file (labels, line numbers, CSR arrays) and its number of features."""
    from ..io.libsvm_data import MAX_FEATURES, LibsvmFormatError, _load_rows

    try:
        return _load_rows(path, None, "float64", MAX_FEATURES)
    except LibsvmFormatError as error:
        raise ValueError(f"{path}: {error}") from None


def _load_kernel(path, check_serial):
    from ..io.libsvm_data import LibsvmFormatError, load_libsvm_precomputed

    try:
        return load_libsvm_precomputed(path, check_serial=check_serial)
    except LibsvmFormatError as error:
        raise ValueError(f"{path}: {error}") from None


def _load_model(path, n_features=None):
    from ..io.libsvm_data import LibsvmFormatError
    from ..io.libsvm_model import load_libsvm_model

    try:
        return load_libsvm_model(path, n_features=n_features)
    except LibsvmFormatError as error:
        raise ValueError(f"{path}: {error}") from None


def _line_of_row(path, row):
    """The 1-based line of the ``row``-th data line of a LIBSVM data file (blank and comment
    lines do not count as rows)."""
    from ..io.libsvm_data import _read_bytes

    seen = -1
    for number, line in enumerate(_read_bytes(path).split(b"\n"), start=1):
        if line.split(b"#", 1)[0].strip():
            seen += 1
            if seen == row:
                return number
    return None
