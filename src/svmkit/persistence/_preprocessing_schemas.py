"""Schemas of scikit-learn's common preprocessing steps, which a saved Pipeline may hold before
an svmkit estimator: MinMaxScaler, MaxAbsScaler, SimpleImputer and OneHotEncoder.

The scalers' fitted state is public attributes. SimpleImputer and OneHotEncoder also keep
private state that changes between scikit-learn versions, so a file holds only their public
fields (and the training data's dtype) and load rebuilds them through their public ``fit``:
on one row of that dtype (SimpleImputer) or on a table of each column's categories
(OneHotEncoder, given those categories), then sets the saved fields and checks that the
rebuilt ones agree.
"""

from __future__ import annotations

import numpy as np

from ._errors import _fail
from ._kinds import _Count, _Floats, _Integers, _Kind, _ListOf, _Optional
from ._raw import _describe
from ._schema import _FEATURE_FIELDS, _check_features, _expect_shape, _Field, _per_feature, _Schema

#: dtypes of training data that SimpleImputer files name (``numpy.dtype.str``).
_IMPUTER_DTYPES = ("|O", "<f8", "<f4", "<f2", "<i8", "<i4", "<i2", "|i1", "<u8", "<u4", "<u2", "|u1", "|b1")


class _Values(_Kind):
    """A 1-D array of values: float64 (NaN allowed) or an object array of str, int, float,
    bool and None."""

    description = "float64 1-D (NaN allowed), or labels 1-D"

    def check(self, raw, where):
        if not isinstance(raw, np.ndarray) or raw.ndim != 1 or raw.dtype.kind not in "fO":
            _fail(where, f"expected a 1-D float64 or object array, got {_describe(raw)}")
        if raw.dtype.kind == "f" and raw.dtype != np.float64:
            _fail(where, f"expected float64 values, got {raw.dtype}")
        if raw.dtype.kind == "O" and not all(item is None or type(item) in (bool, int, str, float) for item in raw):
            _fail(where, "object arrays hold str, int, float, bool and None only")
        return raw


class _Categories(_Kind):
    """The categories of one column: a 1-D array of distinct numbers (NaN at most once, last)
    or strings, or an object array of str, int, float, bool and None."""

    description = "labels 1-D, distinct (NaN at most once, last)"

    def check(self, raw, where):
        if not isinstance(raw, np.ndarray) or raw.ndim != 1 or raw.dtype.kind not in "biufUO":
            _fail(where, f"expected a 1-D array of categories, got {_describe(raw)}")
        if raw.dtype.kind == "O":
            if not all(item is None or type(item) in (bool, int, str, float) for item in raw):
                _fail(where, "object arrays of categories hold str, int, float, bool and None only")
            if len(set(raw.tolist())) != raw.shape[0]:
                _fail(where, "categories repeat")
            return raw
        values = raw[:-1] if raw.dtype.kind == "f" and raw.size and np.isnan(raw[-1]) else raw
        if (values.dtype.kind == "f" and np.isnan(values).any()) or np.any(values[1:] <= values[:-1]):
            _fail(where, "categories must be strictly increasing (NaN at most once, last)")
        return raw


class _DtypeName(_Kind):
    description = "dtype name: " + ", ".join(repr(name) for name in _IMPUTER_DTYPES)

    def check(self, raw, where):
        if type(raw) is not str or raw not in _IMPUTER_DTYPES:
            _fail(where, f"must be one of {list(_IMPUTER_DTYPES)}, got {_describe(raw)}")
        return np.dtype(raw)


class _MinMaxScalerSchema(_Schema):
    name = "sklearn.preprocessing.MinMaxScaler"
    module = "sklearn.preprocessing"
    class_name = "MinMaxScaler"
    nested_only = True
    fields = (
        *_FEATURE_FIELDS,
        _Field("n_samples_seen_", _Count(), "samples seen"),
        _Field("min_", _Floats(1), "offset of each feature: x * scale_ + min_"),
        _Field("scale_", _Floats(1), "scale of each feature"),
        _Field("data_min_", _Floats(1), "training minimum of each feature"),
        _Field("data_max_", _Floats(1), "training maximum of each feature"),
        _Field("data_range_", _Floats(1), "data_max_ - data_min_"),
    )

    def check(self, estimator, values, where):
        _per_feature(values, ("min_", "scale_", "data_min_", "data_max_", "data_range_"), where)


class _MaxAbsScalerSchema(_Schema):
    name = "sklearn.preprocessing.MaxAbsScaler"
    module = "sklearn.preprocessing"
    class_name = "MaxAbsScaler"
    nested_only = True
    fields = (
        *_FEATURE_FIELDS,
        _Field("n_samples_seen_", _Count(), "samples seen"),
        _Field("max_abs_", _Floats(1), "training maximum of the absolute value of each feature"),
        _Field("scale_", _Floats(1), "scale of each feature"),
    )

    def check(self, estimator, values, where):
        _per_feature(values, ("max_abs_", "scale_"), where)


class _SimpleImputerSchema(_Schema):
    name = "sklearn.impute.SimpleImputer"
    module = "sklearn.impute"
    class_name = "SimpleImputer"
    nested_only = True
    fields = (
        *_FEATURE_FIELDS,
        _Field("statistics_", _Values(), "the value that replaces a missing one, per feature (NaN: the feature "
               "is dropped)"),
        _Field("training.dtype", _DtypeName(), "dtype of the training data, which transform converts to"),
    )

    def collect(self, estimator):
        if not hasattr(estimator, "statistics_"):
            return {}
        if estimator.add_indicator:
            raise TypeError("Cannot save SimpleImputer(add_indicator=True): its MissingIndicator is not a class "
                            "that svmkit model files hold; add a MissingIndicator-free imputer instead.")
        fields = super().collect(estimator)
        fields["training.dtype"] = np.dtype(getattr(estimator, "_fit_dtype", estimator.statistics_.dtype)).str
        return fields

    def check_params(self, estimator, fitted):
        if fitted and estimator.add_indicator:
            raise ValueError("add_indicator must be False")

    def check(self, estimator, values, where):
        _per_feature(values, ("statistics_",), where)

    def restore(self, estimator, values):
        dtype = values["training.dtype"]
        n_features = values["n_features_in_"]
        statistics = values["statistics_"]
        row = statistics.reshape(1, -1).astype(object) if dtype.kind == "O" else np.zeros((1, n_features), dtype)
        if dtype.kind == "O":
            row[0, [item is None for item in statistics]] = "missing"
        params = estimator.get_params(deep=False)
        estimator.set_params(keep_empty_features=True).fit(row)
        estimator.set_params(**params)
        estimator.statistics_ = statistics
        if values.get("feature_names_in_") is not None:
            estimator.feature_names_in_ = values["feature_names_in_"]


class _OneHotEncoderSchema(_Schema):
    name = "sklearn.preprocessing.OneHotEncoder"
    module = "sklearn.preprocessing"
    class_name = "OneHotEncoder"
    nested_only = True
    fields = (
        *_FEATURE_FIELDS,
        _Field("categories_", _ListOf(_Categories()), "the categories of each feature"),
        _Field("drop_idx_", _Optional(_Integers(1, low=-1)), "the category of each feature left out (-1 for "
               "none), or null"),
    )

    def collect(self, estimator):
        if hasattr(estimator, "categories_") and getattr(estimator, "infrequent_categories_", None) is not None and any(
            categories is not None for categories in estimator.infrequent_categories_
        ):
            raise TypeError("Cannot save a OneHotEncoder that groups infrequent categories (min_frequency or "
                            "max_categories): svmkit model files hold its categories only.")
        fields = super().collect(estimator)
        if "drop_idx_" in fields and fields["drop_idx_"] is not None:
            fields["drop_idx_"] = np.asarray([-1 if i is None else i for i in fields["drop_idx_"]], dtype=np.int64)
        return fields

    def check_params(self, estimator, fitted):
        if fitted and (estimator.min_frequency is not None or estimator.max_categories is not None):
            raise ValueError("min_frequency and max_categories must be None (infrequent categories are not saved)")

    def check(self, estimator, values, where):
        _check_features(values, where)
        categories, drop = values["categories_"], values["drop_idx_"]
        if len(categories) != values["n_features_in_"]:
            _fail(f"{where}.categories_", f"has {len(categories)} features for n_features_in_={values['n_features_in_']}")
        if drop is not None:
            _expect_shape(values, "drop_idx_", (values["n_features_in_"],), where, " (one per feature)")
            if np.any(drop >= np.array([c.shape[0] for c in categories])):
                _fail(f"{where}.drop_idx_", "names a category that the feature does not have")

    def restore(self, estimator, values):
        categories = values["categories_"]
        n_rows = max(c.shape[0] for c in categories)
        numeric = all(c.dtype.kind in "biuf" for c in categories)
        table = np.empty((n_rows, len(categories)), dtype=np.float64 if numeric else object)
        for j, column in enumerate(categories):
            table[:, j] = np.resize(column, n_rows)  # (each category at least once)
        params = estimator.get_params(deep=False)
        estimator.set_params(categories=[c.astype(table.dtype) for c in categories]).fit(table)
        estimator.set_params(**params)
        drop = values["drop_idx_"]
        rebuilt = estimator.drop_idx_
        rebuilt = None if rebuilt is None else np.asarray([-1 if i is None else i for i in rebuilt], dtype=np.int64)
        if (rebuilt is None) != (drop is None) or (drop is not None and not np.array_equal(rebuilt, drop)):
            _fail(f"{self.class_name}.drop_idx_", f"disagrees with drop={estimator.drop!r} on these categories")
        estimator.categories_ = categories
        if values.get("feature_names_in_") is not None:
            estimator.feature_names_in_ = values["feature_names_in_"]
