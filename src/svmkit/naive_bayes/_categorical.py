"""Categories of one column: encoding, weighted counts per class, smoothed log-probabilities.

Any hashable value can be a category.  Integer columns take a fast path that
needs no hashing (``np.bincount`` over the value range), pandas categorical
columns use their codes, and everything else is hashed once by
``pandas.factorize``.  A category counts as seen when its rows carry positive
weight, so a weight of zero is the same as leaving the row out; the categories
of a pandas categorical column are those of its dtype, seen or not.

At prediction each value becomes a row of a lookup table of log-probabilities
with one row per class-conditional case: missing value, unseen category, then
the seen categories in the order of ``categories``.
"""

import numpy as np

from ._input import import_pandas, is_series

MISSING_ROW = 0
UNSEEN_ROW = 1
FIRST_CATEGORY_ROW = 2

#: Integer columns whose value range is at most this many values more than
#: their length are counted with ``np.bincount`` over the range.
_SPAN_SLACK = 1 << 16


def count_categories(values, class_codes, n_classes, weights):
    """Categories of a column that carry weight, and their weighted count per class.

    Parameters
    ----------
    values : ndarray or pandas Series of shape (n_samples,)
    class_codes : ndarray of int of shape (n_samples,)
    n_classes : int
    weights : ndarray of shape (n_samples,) or None

    Returns
    -------
    categories : ndarray of shape (n_categories,)
        Sorted when the categories compare, else in order of appearance.
    counts : ndarray of shape (n_classes, n_categories)
        Missing values are left out.
    """
    codes, categories = _encode(values)
    slots = categories.size + 1  # slot 0 of each class collects the missing values
    flat = np.multiply(class_codes, slots, dtype=np.int64)
    flat += codes
    flat += 1
    counts = np.bincount(flat, weights, minlength=n_classes * slots).reshape(n_classes, slots)[:, 1:]
    if not _is_categorical_series(values):  # (a categorical dtype declares its categories, seen or not)
        carries_weight = counts.sum(axis=0) > 0
        categories, counts = categories[carries_weight], counts[:, carries_weight]
    order = _sort_order(categories)
    return categories[order], counts[:, order].astype(np.float64)


def merge_counts(categories, counts, new_categories, new_counts):
    """Counts over the union of two category sets, sorted when the categories compare."""
    union = _union(categories, new_categories)
    merged = np.zeros((counts.shape[0], union.size))
    merged[:, _positions(union, categories)] += counts
    merged[:, _positions(union, new_categories)] += new_counts
    return union, merged


def log_probabilities(counts, alpha, n_categories=None):
    """Smoothed ``log P(A = b | C_k)`` for seen and unseen categories.

    ``P(A = b | C_k) = (count + alpha) / (count(C_k) + alpha * n_categories)`` where
    ``count(C_k)`` is the weight of the rows of class ``k`` in which the column is
    observed and ``n_categories`` is the number of categories of the column (by
    default, the columns of ``counts``; more with ``min_categories``).  Where the formula is 0 / 0 (``alpha = 0`` and a class with no
    observed value) the column is left out of that class's product (log 1 = 0),
    and so is an unseen category when ``alpha = 0``: it has probability zero
    under every class and cannot favour one.

    Returns
    -------
    seen : ndarray of shape (n_classes, n_categories)
    unseen : ndarray of shape (n_classes,)
    """
    n_categories = counts.shape[1] if n_categories is None else n_categories
    denominator = counts.sum(axis=1) + alpha * n_categories
    has_estimate = denominator > 0
    with np.errstate(divide="ignore"):
        log_denominator = np.log(denominator, out=np.zeros_like(denominator), where=has_estimate)
        seen = np.log(counts + alpha) - log_denominator[:, None]
        unseen = np.log(alpha) - log_denominator if alpha > 0 else np.zeros_like(denominator)
    seen[~has_estimate] = 0.0
    return seen, unseen


def lookup_table(seen, unseen):
    """Rows: missing value (0), unseen category, seen categories; columns: classes."""
    return np.vstack([np.zeros(seen.shape[0]), unseen, seen.T])


def category_rows(values, categories):
    """Lookup-table row of each value: ``MISSING_ROW``, ``UNSEEN_ROW`` or 2 + category index."""
    if _is_categorical_series(values):
        position = import_pandas("Categorical columns").Index(categories).get_indexer(values.cat.categories)
        row_of_code = np.append(np.where(position >= 0, position + FIRST_CATEGORY_ROW, UNSEEN_ROW), MISSING_ROW)
        return row_of_code[values.cat.codes.to_numpy()]  # code -1 (missing) picks the last entry
    values = _numpy_values(values)
    if isinstance(values, np.ndarray) and values.dtype.kind in "biuf" and categories.dtype.kind in "biuf":
        return _numeric_rows(values, categories)
    pandas = import_pandas("Non-numeric categories")
    position = pandas.Index(categories, dtype=object).get_indexer(values)
    rows = np.where(position >= 0, position + FIRST_CATEGORY_ROW, UNSEEN_ROW)
    rows[np.asarray(pandas.isna(values))] = MISSING_ROW
    return rows


def _numeric_rows(values, categories):
    if values.dtype.kind in "iu" and categories.dtype.kind in "iu":
        low, high = int(categories[0]), int(categories[-1])
        span = high - low + 1
        if span <= categories.size + _SPAN_SLACK:
            row_of_value = np.full(span + 2, UNSEEN_ROW)  # both ends catch values out of range
            row_of_value[categories - low + 1] = np.arange(categories.size) + FIRST_CATEGORY_ROW
            offset = np.subtract(values, low - 1, dtype=np.int64)
            np.clip(offset, 0, span + 1, out=offset)
            return row_of_value[offset]
    position = np.searchsorted(categories, values)
    np.minimum(position, categories.size - 1, out=position)
    rows = np.where(categories[position] == values, position + FIRST_CATEGORY_ROW, UNSEEN_ROW)
    if values.dtype.kind == "f":
        rows[np.isnan(values)] = MISSING_ROW
    return rows


def _encode(values):
    """Codes (-1 for missing) and the categories they index."""
    if _is_categorical_series(values):
        return values.cat.codes.to_numpy().astype(np.int64), np.asarray(values.cat.categories)
    values = _numpy_values(values)
    if isinstance(values, np.ndarray) and values.dtype.kind in "iu":
        low, high = int(values.min()), int(values.max())
        if high - low + 1 <= values.size + _SPAN_SLACK:
            return np.subtract(values, low, dtype=np.int64), np.arange(low, high + 1, dtype=values.dtype)
    if isinstance(values, np.ndarray) and values.dtype.kind in "biuf":
        missing = np.isnan(values) if values.dtype.kind == "f" else np.zeros(values.size, dtype=bool)
        categories, observed_codes = np.unique(values[~missing], return_inverse=True)
        codes = np.full(values.size, -1, dtype=np.int64)
        codes[~missing] = observed_codes
        return codes, categories
    codes, categories = import_pandas("Non-numeric categories").factorize(values)
    return codes.astype(np.int64), np.asarray(categories, dtype=object)


def _numpy_values(values):
    """A NumPy array for numeric columns (nullable numbers become float with NaN); other Series stay."""
    if not is_series(values):
        return values
    if isinstance(values.dtype, np.dtype):
        return values.to_numpy()
    if values.dtype.kind in "iuf":
        return values.to_numpy(dtype=np.float64, na_value=np.nan)
    return values


def _is_categorical_series(values):
    return is_series(values) and values.dtype.name == "category"


def _union(first, second):
    if first.dtype.kind in "biuf" and second.dtype.kind in "biuf":
        return np.union1d(first, second)
    pandas = import_pandas("Non-numeric categories")
    union = np.asarray(pandas.Index(first, dtype=object).append(pandas.Index(second, dtype=object)).unique())
    return union[_sort_order(union)]


def _sort_order(categories):
    """Order that sorts the categories; their order of appearance when they do not compare."""
    try:
        return np.argsort(categories, kind="stable")
    except TypeError:
        return np.arange(categories.size)


def _positions(union, categories):
    if union.dtype.kind in "biuf" and categories.dtype.kind in "biuf":
        return np.searchsorted(union, categories)
    return import_pandas("Non-numeric categories").Index(union, dtype=object).get_indexer(categories)
