"""``svmkit scale``: LIBSVM's svm-scale."""

import sys

from ._files import _load_data
from ._options import UsageError, _Option, _parse

SCALE_USAGE = """\
Usage: svmkit scale [options] data_filename
options:
-l lower : x scaling lower limit (default -1)
-u upper : x scaling upper limit (default +1)
-y y_lower y_upper : y scaling limits (default: no y scaling)
-s save_filename : save scaling parameters to save_filename
-r restore_filename : restore scaling parameters from restore_filename
The scaled data go to stdout.
"""

_SCALE_OPTIONS = {
    "l": _Option("lower"),
    "u": _Option("upper"),
    "y": _Option("y_limits", n_values=2),
    "s": _Option("save", str),
    "r": _Option("restore", str),
}


def _scaled_lines(X, y, scaler, target_range):
    """svm-scale's output lines: the (scaled) label with 17 digits, then ``index:value`` with %g."""
    import numpy as np
    import scipy.sparse as sp

    rows_per_block = max(1, 2**20 // max(X.shape[1], 1))
    for start in range(0, X.shape[0], rows_per_block):
        block = scaler.transform(X[start : start + rows_per_block])
        block = block.toarray() if sp.issparse(block) else block
        labels = y[start : start + rows_per_block]
        if target_range is not None:
            labels = target_range.transform(labels)
        for label, row in zip(labels.tolist(), block):
            columns = np.flatnonzero(row)
            values = zip(columns.tolist(), row[columns].tolist())
            fields = [f"{label:.17g}", *(f"{j + 1}:{value:g}" for j, value in values)]
            yield " ".join(fields) + " \n"


def _restored_scaler(restore_path, X, data_path):
    """The scaler of a range file, over all features of ``X``; warns about features the file leaves out."""
    import numpy as np
    import scipy.sparse as sp

    from ..preprocessing import LibsvmScaler, load_range

    scaler, target_range = load_range(restore_path, n_features=X.shape[1])
    X = sp.csr_matrix((X.data, X.indices, X.indptr), shape=(X.shape[0], scaler.n_features_in_))
    varies = LibsvmScaler().fit(X)
    left_out = (scaler.data_min_ == scaler.data_max_) & (varies.data_min_ != varies.data_max_)
    for j in np.flatnonzero(left_out):
        print(
            f"WARNING: feature index {j + 1} appeared in file {data_path} was not seen in the scaling factor file "
            f"{restore_path}. The feature is scaled to 0.",
            file=sys.stderr,
        )
    return scaler, target_range, X


def scale(args):
    """``svmkit scale``: LIBSVM's svm-scale. Returns the exit status."""
    options, files = _parse("scale", args, _SCALE_OPTIONS, (1, 1), SCALE_USAGE)
    if options is None:
        return 0
    if "save" in options and "restore" in options:
        raise UsageError("cannot use -r and -s simultaneously")
    from ..preprocessing import LibsvmScaler, TargetRange, save_range

    X, y = _load_data(files[0])
    if "restore" in options:
        scaler, target_range, X = _restored_scaler(options["restore"], X, files[0])
    else:
        scaler = LibsvmScaler(lower=options.get("lower", -1.0), upper=options.get("upper", 1.0)).fit(X)
        target_range = None
    if target_range is None and "y_limits" in options and y.size:
        target_range = TargetRange.fit(y, *options["y_limits"])
    if "save" in options:
        save_range(scaler, options["save"], target_range)
    n_nonzero = 0
    for line in _scaled_lines(X, y, scaler, target_range):
        n_nonzero += line.count(":")
        sys.stdout.write(line)
    if n_nonzero > X.nnz:
        print(
            f"WARNING: original #nonzeros {X.nnz}\n       > new      #nonzeros {n_nonzero}\n"
            "If feature values are non-negative and sparse, use -l 0 rather than the default -l -1",
            file=sys.stderr,
        )
    return 0
