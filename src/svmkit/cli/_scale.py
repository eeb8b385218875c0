"""``svmkit scale``: LIBSVM's svm-scale."""

import sys

from ._files import _load_rows
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


def _scaled_lines(rows, n_features, scaling, target_range):
    """svm-scale's output lines: the (scaled) label with 17 digits, then ``index:value`` with %g."""
    import numpy as np

    from .._libsvm_ranges import _scale_linearly

    lower, upper, low, high = scaling
    rows_per_block = max(1, 2**20 // max(n_features, 1))
    n_rows = rows.labels.size
    for start in range(0, n_rows, rows_per_block):
        stop = min(start + rows_per_block, n_rows)
        block = np.zeros((stop - start, n_features))
        first, last = rows.indptr[start], rows.indptr[stop]
        row_of_entry = np.repeat(np.arange(stop - start), np.diff(rows.indptr[start : stop + 1]))
        block[row_of_entry, rows.columns[first:last]] = rows.values[first:last]
        block = _scale_linearly(block, low, high, lower, upper)
        labels = rows.labels[start:stop]
        if target_range is not None:
            labels = target_range.transform(labels)
        for label, row in zip(labels.tolist(), block):
            columns = np.flatnonzero(row)
            values = zip(columns.tolist(), row[columns].tolist())
            fields = [f"{label:.17g}", *(f"{j + 1}:{value:g}" for j, value in values)]
            yield " ".join(fields) + " \n"


def _restored_scaling(restore_path, rows, n_features, data_path):
    """The scaling ``(lower, upper, min, max)`` of a range file, over all features of the data and
    the file, and the number of features; warns about features the file leaves out."""
    import numpy as np

    from .._libsvm_ranges import feature_ranges, read_range

    lower, upper, ranges, target_range = read_range(restore_path)
    n_features = max(n_features, max(ranges, default=0))
    low, high = np.zeros(n_features), np.zeros(n_features)
    for index, (feature_min, feature_max) in ranges.items():
        low[index - 1], high[index - 1] = feature_min, feature_max
    data_min, data_max = feature_ranges(rows.labels.size, n_features, rows.columns, rows.values)
    left_out = (low == high) & (data_min != data_max)
    for j in np.flatnonzero(left_out):
        print(
            f"WARNING: feature index {j + 1} appeared in file {data_path} was not seen in the scaling factor file "
            f"{restore_path}. The feature is scaled to 0.",
            file=sys.stderr,
        )
    return (lower, upper, low, high), target_range, n_features


def scale(args):
    """``svmkit scale``: LIBSVM's svm-scale. Returns the exit status."""
    options, files = _parse("scale", args, _SCALE_OPTIONS, (1, 1), SCALE_USAGE)
    if options is None:
        return 0
    if "save" in options and "restore" in options:
        raise UsageError("cannot use -r and -s simultaneously")
    from .._libsvm_ranges import TargetRange, _check_limits, feature_ranges, write_range

    rows, n_features = _load_rows(files[0])
    if "restore" in options:
        scaling, target_range, n_features = _restored_scaling(options["restore"], rows, n_features, files[0])
    else:
        lower, upper = options.get("lower", -1.0), options.get("upper", 1.0)
        _check_limits(lower, upper, "x")
        scaling = (lower, upper, *feature_ranges(rows.labels.size, n_features, rows.columns, rows.values))
        target_range = None
    if target_range is None and "y_limits" in options and rows.labels.size:
        target_range = TargetRange.fit(rows.labels, *options["y_limits"])
    if "save" in options:
        write_range(options["save"], *scaling, target_range)
    n_nonzero = 0
    for line in _scaled_lines(rows, n_features, scaling, target_range):
        n_nonzero += line.count(":")
        sys.stdout.write(line)
    if n_nonzero > rows.values.size:
        print(
            f"WARNING: original #nonzeros {rows.values.size}\n       > new      #nonzeros {n_nonzero}\n"
            "If feature values are non-negative and sparse, use -l 0 rather than the default -l -1",
            file=sys.stderr,
        )
    return 0
