"""Schema of scikit-learn's ColumnTransformer, alone or as a step of a saved Pipeline.

A file holds its public fitted state: ``transformers_`` (each fitted transformer an estimator
of the file, 'drop' or 'passthrough'), ``n_features_in_``, ``feature_names_in_``,
``sparse_output_`` and ``output_indices_``. What ``transform`` also needs is private to
scikit-learn (the column indices of each transformer, the remainder's columns, the fitted
passthrough steps), so load rebuilds it through the public ``fit``: on a one-row table of the
training data's width (a DataFrame of its column names when it had names), with every
transformer replaced by 'passthrough'. It then sets the fitted transformers and fields of the
file, after checking that the columns, the remainder and the output slices agree.
"""

from __future__ import annotations

import string

import numpy as np
from sklearn.base import BaseEstimator
from sklearn.exceptions import NotFittedError
from sklearn.preprocessing import FunctionTransformer
from sklearn.utils.validation import check_is_fitted

from ._errors import ModelFileError, _fail, _join
from ._kinds import _is_integer, _Kind, _Real
from ._raw import _describe, _RawEstimator
from ._schema import _FEATURE_FIELDS, _check_features, _Field, _Schema

#: The parameters that load sets for its fit of a one-row table, and then sets back.
_REBUILT_PARAMS = ("transformers", "remainder", "n_jobs", "verbose")
#: The most columns a ColumnTransformer file's training data may have: load fits it on a row
#: of that many columns, which the file need not otherwise hold (a slice selects any number).
_MAX_FEATURES = 2**20
#: The fields a format string of ``verbose_feature_names_out`` may name.
_NAME_FIELDS = ("transformer_name", "feature_name")
#: The transformers a ColumnTransformer takes by name.
_SPECIFIERS = ("drop", "passthrough")


def _is_specifier(transformer, name=None):
    return isinstance(transformer, str) and (transformer == name if name else transformer in _SPECIFIERS)


def _selection_problem(columns):
    """Why ``columns`` is not a column selection a file holds (None if it is one): an int or
    str, a list or 1-D array of ints, of str or of bools, or a slice of ints or of str."""
    if _is_integer(columns) or isinstance(columns, (str, np.str_)):
        return None
    if type(columns) is slice:
        bounds = (columns.start, columns.stop)
        if all(bound is None or _is_integer(bound) for bound in bounds):
            step = columns.step
            return None if step is None or (_is_integer(step) and step != 0) else "a slice's step is a nonzero int"
        if all(bound is None or isinstance(bound, (str, np.str_)) for bound in bounds) and columns.step is None:
            return None
        return "a slice is of ints, or of column names without a step"
    if type(columns) is list:
        kinds = {_item_kind(item) for item in columns}
        return None if len(kinds) <= 1 and None not in kinds else "a list of columns holds ints, names or bools, not a mix"
    if isinstance(columns, np.ndarray):
        if columns.ndim != 1:
            return f"an array of columns is 1-D, got shape {columns.shape}"
        if columns.dtype.kind in "biuU":
            return None
        if columns.dtype.kind == "O" and all(type(item) is str for item in columns):
            return None
        return f"an array of columns holds ints, names or bools, not {columns.dtype}"
    return f"columns are ints, names, bools or a slice, not {_describe(columns)}"


def _item_kind(item):
    if isinstance(item, (bool, np.bool_)):
        return "bool"
    if _is_integer(item):
        return "int"
    if isinstance(item, (str, np.str_)):
        return "str"
    return None


def _selected_indices(columns, n_features, names):
    """``(indices, problem)``: the columns a selection takes, as scikit-learn indexes them, or
    why it cannot (an index out of range, a name the training data did not have)."""
    name_list = None if names is None else [str(name) for name in names]
    if type(columns) is slice and not all(b is None or _is_integer(b) for b in (columns.start, columns.stop)):
        return _named_slice(columns, name_list)
    items = columns.tolist() if isinstance(columns, np.ndarray) else columns if type(columns) is list else [columns]
    kind = _item_kind(items[0]) if items else "int"
    if type(columns) is slice:
        return list(range(n_features))[columns], None
    if kind == "bool":
        if len(items) != n_features:
            return None, f"a mask of {len(items)} bools for {n_features} features"
        return [i for i, chosen in enumerate(items) if chosen], None
    if kind == "int":
        outside = [i for i in items if not -n_features <= i < n_features]
        if outside:
            return None, f"column {outside[0]} is not one of the {n_features} features"
        return [int(i) % n_features for i in items], None
    if name_list is None:
        return None, "columns are chosen by name, but the training data had no column names (feature_names_in_)"
    indices = []
    for name in items:
        if name_list.count(str(name)) != 1:
            return None, f"column {str(name)!r} is not exactly one of the training data's columns"
        indices.append(name_list.index(str(name)))
    return indices, None


def _named_slice(columns, name_list):
    if name_list is None:
        return None, "columns are chosen by name, but the training data had no column names (feature_names_in_)"
    ends = []
    for bound in (columns.start, columns.stop):
        if bound is not None and name_list.count(str(bound)) != 1:
            return None, f"column {str(bound)!r} is not exactly one of the training data's columns"
        ends.append(None if bound is None else name_list.index(str(bound)))
    start = 0 if ends[0] is None else ends[0]
    stop = len(name_list) if ends[1] is None else ends[1] + 1  # (label slices include their end)
    return list(range(start, stop)), None


def _same_selection(a, b):
    if isinstance(a, np.ndarray) or isinstance(b, np.ndarray):
        return (isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.dtype.kind == b.dtype.kind
                and a.shape == b.shape and bool(np.all(a == b)))
    return type(a) is type(b) and a == b and (type(a) is not list or [type(x) for x in a] == [type(x) for x in b])


def _named(transformer):
    """A transformer as messages name it: 'drop', 'passthrough', or its class."""
    if isinstance(transformer, (str, BaseEstimator)):
        return repr(transformer) if isinstance(transformer, str) else type(transformer).__name__
    return _describe(transformer)


def _transformer_problem(transformer):
    if _is_specifier(transformer):
        return None
    if not isinstance(transformer, BaseEstimator) or not callable(getattr(transformer, "transform", None)):
        return f"{_named(transformer)} is not a transformer (an estimator with transform, 'drop' or 'passthrough')"
    return None


def _triples_problem(triples, what):
    if type(triples) not in (list, tuple) or not all(
            type(t) in (tuple, list) and len(t) == 3 and type(t[0]) is str for t in triples):
        return f"{what} must be a list of (name, transformer, columns) triples"
    for name, transformer, columns in triples:
        problem = _transformer_problem(transformer) or _selection_problem(columns)
        if problem:
            return f"{what} {name!r}: {problem}"
    return None


class _Transformers(_Kind):
    """``transformers_``: (name, transformer, columns) triples; each transformer an estimator
    of the file, 'drop' or 'passthrough'."""

    description = "list of (name, estimator or 'drop' or 'passthrough', columns)"

    def check(self, raw, where):
        if type(raw) is not list:
            _fail(where, f"expected a list of (name, transformer, columns), got {_describe(raw)}")
        from ._build import _build_estimator  # (imported on use: building an estimator checks its fields here)

        triples = []
        for i, triple in enumerate(raw):
            at = f"{where}[{i}]"
            if type(triple) is not tuple or len(triple) != 3 or type(triple[0]) is not str:
                _fail(at, f"expected a (name, transformer, columns) tuple, got {_describe(triple)}")
            name, transformer, columns = triple
            if isinstance(transformer, _RawEstimator):
                transformer = _build_estimator(transformer, f"{at}[1]", nested=True)
            problem = _transformer_problem(transformer)
            if problem:
                _fail(f"{at}[1]", problem)
            problem = _selection_problem(columns)
            if problem:
                _fail(f"{at}[2]", problem)
            triples.append((name, transformer, columns))
        return triples


class _Bool(_Kind):
    description = "bool"

    def check(self, raw, where):
        if type(raw) is not bool:
            _fail(where, f"expected true or false, got {_describe(raw)}")
        return raw


class _OutputIndices(_Kind):
    description = "dict of str to slice(start, stop) of ints >= 0"

    def check(self, raw, where):
        if type(raw) is not dict or not all(type(key) is str for key in raw):
            _fail(where, f"expected a dict of transformer names to slices, got {_describe(raw)}")
        for key, value in raw.items():
            if not (type(value) is slice and value.step is None and all(
                    type(end) is int and end >= 0 for end in (value.start, value.stop)) and value.start <= value.stop):
                _fail(f"{where}[{key!r}]", f"expected slice(start, stop) with 0 <= start <= stop, got {_describe(value)}")
        return raw


class _ColumnTransformerSchema(_Schema):
    name = "sklearn.compose.ColumnTransformer"
    module = "sklearn.compose"
    class_name = "ColumnTransformer"
    fields = (
        *_FEATURE_FIELDS,
        _Field("transformers_", _Transformers(), "the fitted transformers with their columns, as given (the "
               "remainder last, its columns those no transformer takes, when there are any)"),
        _Field("sparse_output_", _Bool(), "whether transform gives a sparse matrix", required=False,
               condition="when a transformer gives output"),
        _Field("output_indices_", _OutputIndices(), "the columns of the output each transformer gives (and "
               "'remainder')", required=False, condition="when a transformer gives output"),
    )

    def collect(self, estimator):
        for name, _, columns in _triples(estimator.transformers):
            if callable(columns):
                raise TypeError(
                    f"Cannot save ColumnTransformer: the columns of {name!r} are chosen by a function "
                    f"({getattr(columns, '__name__', type(columns).__name__)}). Files never hold code (no pickle): "
                    "give the columns as a list of names or indices."
                )
        if callable(estimator.verbose_feature_names_out):
            raise TypeError("Cannot save ColumnTransformer: verbose_feature_names_out is a function; files never "
                            "hold code (no pickle): give True, False or a format string.")
        problem = _triples_problem(estimator.transformers, "transformer")
        if problem:
            raise TypeError(f"Cannot save ColumnTransformer: {problem}.")
        fields = super().collect(estimator)
        if "transformers_" not in fields:
            return fields
        given = {name: transformer for name, transformer, _ in _triples(estimator.transformers)}
        given["remainder"] = estimator.remainder
        transformers = []
        for name, transformer, columns in fields["transformers_"]:
            if name not in given:
                raise TypeError(f"Cannot save ColumnTransformer: its fitted transformer {name!r} is not one of its "
                                "transformers (they changed since fit): fit it again.")
            if _is_specifier(given[name], "passthrough") and type(transformer) is FunctionTransformer:
                transformer = "passthrough"  # (the step scikit-learn's fit made; load makes it again)
            transformers.append((name, transformer, columns))
        fields["transformers_"] = transformers
        from ._registry import _schema_of_instance  # (imported on use: the registry lists this schema)

        if not all(_is_specifier(t) or _schema_of_instance(t, nested=True) for _, t, _ in transformers):
            return fields  # (writing refuses the transformer, naming it)
        try:
            self.check(estimator, fields, self.class_name)
        except ModelFileError as error:
            raise TypeError(f"Cannot save ColumnTransformer: its fitted state disagrees with its parameters ({error}); "
                            "were they set since fit? Fit it again.") from None
        return fields

    def check_params(self, estimator, fitted):
        if not fitted:
            return
        problem = _triples_problem(estimator.transformers, "transformer")
        if problem:
            raise ValueError(problem)
        names = [name for name, _, _ in estimator.transformers]
        reserved = {"remainder", *estimator.get_params(deep=False)}
        if len(set(names)) != len(names) or reserved & set(names) or any("__" in name for name in names):
            raise ValueError(f"transformer names must be distinct, without '__', and not {sorted(reserved)}")
        problem = _transformer_problem(estimator.remainder)
        if problem:
            raise ValueError(f"remainder: {problem}")
        threshold = estimator.sparse_threshold
        if not (isinstance(threshold, (int, float)) and type(threshold) is not bool and 0 <= threshold <= 1):
            raise ValueError(f"sparse_threshold must be a number in [0, 1], got {threshold!r}")
        if not (estimator.n_jobs is None or (type(estimator.n_jobs) is int and estimator.n_jobs != 0
                                              and abs(estimator.n_jobs) < 2**31)):
            raise ValueError(f"n_jobs must be None or a nonzero int (of C's int), got {estimator.n_jobs!r}")
        weights = estimator.transformer_weights
        if weights is not None and not (type(weights) is dict and all(
                type(key) is str and _is_number(value) for key, value in weights.items())):
            raise ValueError("transformer_weights must be None or a dict of names to finite numbers")
        names_out = estimator.verbose_feature_names_out
        if type(estimator.verbose) is not bool or type(names_out) not in (bool, str) or (
                type(names_out) is str and not _is_name_format(names_out)):
            raise ValueError(f"verbose must be True or False, verbose_feature_names_out True, False or a format "
                             f"string of the fields {list(_NAME_FIELDS)}")

    def check(self, estimator, values, where):
        _check_features(values, where)
        n_features, names = values["n_features_in_"], values.get("feature_names_in_")
        if n_features > _MAX_FEATURES:
            _fail(_join(where, "n_features_in_"), f"is {n_features}, more than the {_MAX_FEATURES} columns a "
                  "ColumnTransformer file may have")
        fitted, at = values["transformers_"], _join(where, "transformers_")
        given = [tuple(triple) for triple in estimator.transformers]
        selected = set()
        for i, (name, transformer, columns) in enumerate(given):
            indices, problem = _selected_indices(columns, n_features, names)
            if problem:
                _fail(f"{_join(where, 'transformers')}[{i}][2]", problem)
            selected.update(indices)
        remaining = sorted(set(range(n_features)) - selected)
        if remaining:
            given.append(("remainder", estimator.remainder, None))
        if [entry[0] for entry in fitted] != [entry[0] for entry in given]:
            _fail(at, f"names {[entry[0] for entry in fitted]}, but the transformers (and a remainder of "
                  f"{len(remaining)} columns) are {[entry[0] for entry in given]}")
        for i, ((name, transformer, columns), (_, made, saved_columns)) in enumerate(zip(given, fitted)):
            if name == "remainder":
                indices = remaining
            else:
                indices, _ = _selected_indices(columns, n_features, names)
                if not _same_selection(saved_columns, columns):
                    _fail(f"{at}[{i}][2]", f"the columns {saved_columns!r} differ from those of the parameter "
                          f"transformers ({columns!r})")
            if (made != transformer if _is_specifier(transformer) else type(made) is not type(transformer)):
                _fail(f"{at}[{i}][1]", f"{_named(made)} is not the fitted {_named(transformer)} of the parameters")
            if indices and not _is_specifier(made):
                _check_nested(made, indices, names, f"{at}[{i}][1]")
        _check_output(values, fitted, remaining, n_features, names, where)

    def restore(self, estimator, values):
        names = values.get("feature_names_in_")
        table = np.zeros((1, values["n_features_in_"]))
        if names is not None:
            import pandas as pd  # (the training data had column names: so has the table)

            table = pd.DataFrame(table, columns=list(names))
        given = {name: getattr(estimator, name) for name in _REBUILT_PARAMS}
        shadow = {
            "transformers": [(name, "drop" if _is_specifier(t, "drop") else "passthrough", columns)
                             for name, t, columns in estimator.transformers],
            "remainder": "drop" if _is_specifier(estimator.remainder, "drop") else "passthrough",
            "n_jobs": None,
            "verbose": False,
        }
        try:
            for name, value in shadow.items():
                setattr(estimator, name, value)
            estimator.fit(table)
        except (ValueError, IndexError, KeyError, TypeError) as error:
            _fail(self.class_name, f"fit cannot select these columns of the training data's: {error}")
        finally:
            for name, value in given.items():
                setattr(estimator, name, value)
        rebuilt, saved = estimator.transformers_, values["transformers_"]
        where = f"{self.class_name}.transformers_"
        if [entry[0] for entry in rebuilt] != [entry[0] for entry in saved]:
            _fail(where, f"names {[entry[0] for entry in saved]}, but fit gives {[entry[0] for entry in rebuilt]}")
        if len(saved) > len(estimator.transformers) and not _same_selection(saved[-1][2], rebuilt[-1][2]):
            _fail(where, f"the remainder's columns {saved[-1][2]!r} are not those fit gives ({rebuilt[-1][2]!r})")
        transformers = []
        for (name, transformer, columns), (_, made, _) in zip(saved, rebuilt):
            if _is_specifier(transformer, "passthrough") and type(made) is FunctionTransformer:
                transformer = made  # (the passthrough step fit made for these columns)
            elif type(made) is FunctionTransformer and made.n_features_in_ != getattr(transformer, "n_features_in_",
                                                                                         made.n_features_in_):
                _fail(where, f"{name!r} takes {transformer.n_features_in_} columns, but fit selects "
                      f"{made.n_features_in_}")
            transformers.append((name, transformer, columns))
        estimator.transformers_ = transformers
        for name in ("n_features_in_", "feature_names_in_", "sparse_output_", "output_indices_"):
            if name in values:
                setattr(estimator, name, values[name])


def _triples(transformers):
    if type(transformers) not in (list, tuple):
        return []
    return [t for t in transformers if type(t) in (tuple, list) and len(t) == 3]


def _is_name_format(text):
    """Whether ``text`` is a format string of the fields ``_NAME_FIELDS`` only, each without
    attribute, index, conversion or format spec."""
    try:
        parts = list(string.Formatter().parse(text))
    except ValueError:
        return False
    return all(field is None or (field in _NAME_FIELDS and not spec and conversion is None)
               for _, field, spec, conversion in parts)


def _is_number(value):
    try:
        _Real().check(value, "")
    except ValueError:
        return False
    return True


def _check_nested(transformer, indices, names, where):
    """A fitted transformer of ``indices``: fitted on that many columns, of those names."""
    try:
        check_is_fitted(transformer)
    except NotFittedError:
        _fail(where, f"{type(transformer).__name__} takes {len(indices)} columns but is not fitted")
    n_features = getattr(transformer, "n_features_in_", None)
    if n_features is not None and n_features != len(indices):
        _fail(where, f"was fitted on {n_features} features, but its columns are {len(indices)}")
    nested_names = getattr(transformer, "feature_names_in_", None)
    expected = None if names is None else [str(names[i]) for i in indices]
    if (nested_names is None) != (expected is None) or (
            expected is not None and [str(name) for name in nested_names] != expected):
        _fail(where, f"its feature_names_in_ are not the names of its columns ({expected})")


def _output_width(transformer, indices, where):
    if _is_specifier(transformer, "passthrough"):
        return len(indices)
    try:
        return len(transformer.get_feature_names_out())
    except (AttributeError, ValueError, TypeError) as error:
        _fail(where, f"cannot tell how many columns {type(transformer).__name__} gives: {error}")


def _check_output(values, fitted, remaining, n_features, names, where):
    """``output_indices_``: consecutive slices of the columns each transformer gives, in order;
    empty for those that give none. ``sparse_output_`` and it come with output."""
    bounds, position = {}, 0
    for i, (name, transformer, columns) in enumerate(fitted):
        indices = remaining if name == "remainder" else _selected_indices(columns, n_features, names)[0]
        if indices and not _is_specifier(transformer, "drop"):
            width = _output_width(transformer, indices, f"{where}.transformers_[{i}][1]")
            bounds[name] = slice(position, position + width)
            position += width
    has_output = bool(bounds)
    for field in ("sparse_output_", "output_indices_"):
        if (field in values) != has_output:
            _fail(_join(where, field), "is present, but no transformer gives output" if field in values else
                  "is missing: a transformer gives output")
    if not has_output:
        return
    expected_keys = {entry[0] for entry in fitted} | {"remainder"}
    output = values["output_indices_"]
    if set(output) != expected_keys:
        _fail(_join(where, "output_indices_"), f"names {sorted(output)}, expected {sorted(expected_keys)}")
    for name, bound in output.items():
        if bound != bounds.get(name, slice(0, 0)):
            _fail(f"{where}.output_indices_[{name!r}]",
                  f"is {bound}, but the transformers' outputs give {bounds.get(name, slice(0, 0))}")
