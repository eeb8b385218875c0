"""Input handling shared by the naive Bayes classifiers.

The models see their data as a *table*: a pandas DataFrame kept as it is (so
categorical dtypes and string columns reach the encoders untouched) or a 2-D
NumPy array whose non-numeric entries keep their Python objects.  Nothing is
converted silently: a column is either read as categories or as real numbers,
and a value that cannot be read the way its column is declared raises.
"""

import sys

import numpy as np
from sklearn.utils.validation import check_array

#: Kinds reported by ``pandas.api.types.infer_dtype`` for object columns that
#: hold real numbers only (missing values skipped).
NUMBER_KINDS = frozenset({"integer", "floating", "mixed-integer-float", "decimal"})


def import_pandas(purpose):
    """Import pandas, or say which feature needs it."""
    try:
        import pandas
    except ImportError as error:  # pragma: no cover - pandas is installed in the test environment
        raise ImportError(f"{purpose} needs pandas: pip install 'svmkit[pandas]'") from error
    return pandas


def is_dataframe(X):
    """Whether ``X`` is a pandas DataFrame (without importing pandas)."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(X, pandas.DataFrame)


def is_series(column):
    """Whether ``column`` is a pandas Series (without importing pandas)."""
    pandas = sys.modules.get("pandas")
    return pandas is not None and isinstance(column, pandas.Series)


def as_table(X, estimator):
    """Return ``X`` as a DataFrame or a 2-D array with at least one row and column.

    Lists that hold strings become object arrays, so that the numbers among them
    stay numbers instead of being turned into strings by NumPy.
    """
    if is_dataframe(X):
        n_samples, n_features = X.shape
        if n_samples == 0 or n_features == 0:
            raise ValueError(
                f"Found a DataFrame with {n_samples} sample(s) and {n_features} feature(s) while "
                f"a minimum of 1 of each is required by {type(estimator).__name__}."
            )
        return X
    if isinstance(X, (list, tuple)):
        array = np.asarray(X)
        X = np.asarray(X, dtype=object) if array.dtype.kind in "USO" else array
    return check_array(X, dtype=None, ensure_all_finite=False, estimator=estimator)


def column(table, index):
    """Column ``index`` of a table: a Series for a DataFrame, a 1-D array otherwise."""
    return table.iloc[:, index] if is_dataframe(table) else table[:, index]


def column_label(feature_names, index):
    """How error messages name column ``index``."""
    return f"column {feature_names[index]!r}" if feature_names is not None else f"column {index}"


def infer_categorical_mask(table):
    """Which columns hold categories, read from the table's types.

    DataFrame: bool, category, object and string dtypes are categorical, numeric
    dtypes Gaussian.  Array: a numeric array is all Gaussian, a string array all
    categorical, and each column of an object array is Gaussian when every
    observed value is a real number.
    """
    if is_dataframe(table):
        return np.array([_dtype_is_categorical(name, dtype) for name, dtype in table.dtypes.items()], dtype=bool)
    if table.dtype.kind != "O":
        return np.full(table.shape[1], table.dtype.kind in "bUS")
    pandas = import_pandas("Inferring column kinds of an object array")
    return np.array(
        [pandas.api.types.infer_dtype(table[:, j], skipna=True) not in NUMBER_KINDS for j in range(table.shape[1])]
    )


def _dtype_is_categorical(name, dtype):
    types = sys.modules["pandas"].api.types
    if types.is_bool_dtype(dtype) or dtype.name == "category" or types.is_string_dtype(dtype):
        return True
    if types.is_numeric_dtype(dtype):
        return False
    raise ValueError(
        f"Cannot tell whether column {name!r} of dtype {dtype} is categorical or Gaussian; "
        "pass categorical= explicitly."
    )


def categorical_mask_from_spec(spec, n_features, feature_names):
    """Boolean mask of categorical columns from ``categorical=``: indices, names or a mask."""
    items = np.asarray(spec)
    if items.ndim != 1:
        raise ValueError(f"categorical must be a 1-D list of column indices or names; got shape {items.shape}.")
    mask = np.zeros(n_features, dtype=bool)
    if items.size == 0:
        return mask
    if items.dtype.kind == "b":
        if items.size != n_features:
            raise ValueError(f"A boolean categorical mask needs one entry per column ({n_features}); got {items.size}.")
        return items.copy()
    if items.dtype.kind in "iu":
        bad = items[(items < 0) | (items >= n_features)]
        if bad.size:
            raise ValueError(f"categorical indices {bad.tolist()} are outside the {n_features} columns of X.")
        mask[items] = True
        return mask
    if items.dtype.kind in "UO":
        if feature_names is None:
            raise ValueError("categorical names columns, but X has no column names; pass column indices instead.")
        position = {name: j for j, name in enumerate(feature_names)}
        unknown = [name for name in items.tolist() if name not in position]
        if unknown:
            raise ValueError(f"categorical names columns {unknown} that X does not have.")
        mask[[position[name] for name in items.tolist()]] = True
        return mask
    raise ValueError(f"categorical must hold column indices, names or booleans; got dtype {items.dtype}.")


def gaussian_matrix(table, columns, labels):
    """The Gaussian columns as a float64 matrix, and the mask of its missing values.

    Missing values become NaN; the mask is ``None`` when there are none.  Raises
    ``ValueError`` for a column that does not hold real numbers (strings,
    booleans, dates) and for infinite values.
    """
    if is_dataframe(table):
        matrix = _dataframe_numbers(table, columns, labels)
    else:
        block = table if np.array_equal(columns, np.arange(table.shape[1])) else table[:, columns]
        if block.dtype.kind == "O":
            matrix = _object_numbers(block, labels)
        elif block.dtype.kind in "iuf":
            matrix = np.asarray(block, dtype=np.float64)
        else:
            raise ValueError(
                f"Gaussian columns must hold real numbers; X has dtype {block.dtype} "
                "(declare such columns categorical)."
            )
    return matrix, _missing_mask(matrix, labels)


def _dataframe_numbers(table, columns, labels):
    types = import_pandas("DataFrame input").api.types
    for label, dtype in zip(labels, table.dtypes.iloc[columns]):
        if types.is_bool_dtype(dtype) or not types.is_numeric_dtype(dtype):
            raise ValueError(
                f"Gaussian {label} has dtype {dtype}; Gaussian columns must be numeric (declare it categorical)."
            )
    return table.iloc[:, columns].to_numpy(dtype=np.float64, na_value=np.nan)


def _object_numbers(block, labels):
    pandas = import_pandas("Object arrays")
    missing = pandas.isna(block)
    for j, label in enumerate(labels):
        kind = pandas.api.types.infer_dtype(block[:, j], skipna=True)
        if kind in NUMBER_KINDS or kind == "empty":
            continue
        if kind == "mixed":
            try:  # objects such as dicts raise TypeError here, as NumPy would
                np.asarray(block[~missing[:, j], j], dtype=np.float64)
            except ValueError:
                pass
        raise ValueError(f"Gaussian {label} holds {kind} values, not real numbers (declare it categorical).")
    return np.where(missing, np.nan, block).astype(np.float64)


def _missing_mask(matrix, labels):
    """NaN mask of ``matrix`` (``None`` when it has no NaN); infinite values raise."""
    if np.isfinite(matrix.sum()):
        return None
    infinite_columns = np.flatnonzero(np.isinf(matrix).any(axis=0))
    if infinite_columns.size:
        named = ", ".join(labels[j] for j in infinite_columns)
        raise ValueError(f"Gaussian {named} contains infinite values; only NaN marks a missing value.")
    missing = np.isnan(matrix)
    return missing if missing.any() else None
