"""Fields and estimator classes: the base of the schema of each class, and the checks that
the schemas share."""

from __future__ import annotations

import importlib
from dataclasses import dataclass

import numpy as np

from ._errors import _fail
from ._kinds import _Int, _Kind, _Names


@dataclass(frozen=True)
class _Field:
    """A field of a model file. ``group``: fields a file has all of or none of;
    ``required=False``: a field a fitted model may lack (``condition`` says when it has it)."""

    name: str
    kind: _Kind
    meaning: str
    required: bool = True
    group: str = ""
    condition: str = ""

    @property
    def presence(self):
        if self.group:
            return self.condition or f"with the other {self.group}.* fields"
        return "fitted" if self.required else self.condition


_FEATURE_FIELDS = (
    _Field("n_features_in_", _Int(low=1), "number of features (columns) of the training data"),
    _Field("feature_names_in_", _Names(), "column names of the training data", required=False,
           condition="when fitted on a DataFrame with string column names"),
)


def _check_features(values, where):
    names = values.get("feature_names_in_")
    if names is not None and names.shape[0] != values["n_features_in_"]:
        _fail(f"{where}.feature_names_in_", f"has {names.shape[0]} names for n_features_in_={values['n_features_in_']}")


def _expect_shape(values, name, shape, where, why=""):
    actual = values[name].shape
    if actual != shape:
        _fail(f"{where}.{name}", f"expected shape {shape}{why}, got {actual}")


def _per_feature(values, names, where):
    """Check the feature names, and that each of the arrays ``names`` (where present) holds one
    value per feature."""
    _check_features(values, where)
    for name in names:
        if values.get(name) is not None:
            _expect_shape(values, name, (values["n_features_in_"],), where, " (one per feature)")


def _check_indices(array, limit, where, what):
    if array.size and (array.min() < 0 or (limit is not None and array.max() >= limit)):
        bound = f"[0, {limit})" if limit is not None else "[0, inf)"
        _fail(where, f"holds indices outside {bound} ({what})")


def _present(estimator, names):
    state = vars(estimator)
    return {name: state[name] for name in names if name in state}


class _Schema:
    """The fields of one estimator class: how they are collected from an estimator, checked
    against each other and restored, and how a version-1 file gives them."""

    #: How files name the class.
    name = ""
    #: Where the class is defined: load imports this module, never a name from the file.
    module = ""
    class_name = ""
    #: Other names of the class in version-1 files.
    aliases = ()
    #: Whether the class may only appear inside another estimator (scikit-learn's).
    nested_only = False
    fields = ()

    def __init__(self):
        self.names = [field.name for field in self.fields]
        self.kinds = {field.name: field.kind for field in self.fields}

    def estimator_class(self):
        return getattr(importlib.import_module(self.module), self.class_name)

    def check_presence(self, fields, where):
        """The file's fields, after checking that they are known and complete."""
        if type(fields) is not dict:
            _fail(where, "fields are a JSON object")
        unknown = sorted(set(fields) - set(self.names))
        if unknown:
            _fail(where, f"unknown fields {unknown} for {self.class_name}")
        if not fields:
            return fields
        missing = [field.name for field in self.fields if field.required and not field.group and field.name not in fields]
        if missing:
            _fail(where, f"a fitted {self.class_name} needs the fields {missing}, which the file lacks")
        for group in dict.fromkeys(field.group for field in self.fields if field.group):
            members = [field.name for field in self.fields if field.group == group]
            present = [name for name in members if name in fields]
            if present and len(present) != len(members):
                _fail(where, f"the {group}.* fields come together: the file lacks {sorted(set(members) - set(present))}")
        return fields

    def collect(self, estimator):
        """The fields of ``estimator`` (none when it is not fitted)."""
        return _present(estimator, self.names)

    def check_params(self, estimator, fitted):
        """Raise ValueError for a parameter that prediction cannot use (only checked once
        fitted: an unfitted estimator keeps whatever parameters it was given)."""

    def check(self, estimator, values, where):
        """Raise ModelFileError where fields disagree with each other or with the parameters."""

    def restore(self, estimator, values):
        for name, value in values.items():
            setattr(estimator, name, value)

    def from_version_1(self, state):
        """``(fields, private)`` from the attributes of a version-1 file."""
        return _version_1_fields(state, self.names), {}

    def verify_version_1(self, estimator, private, where):
        """Compare private values of a version-1 file with those rebuilt from the fields."""


def _version_1_fields(state, names):
    """The attributes ``names`` that a version-1 file has, as raw values (its kernels and
    estimators as those of version 2)."""
    from ._version1 import _v1_raw  # (imported on use: reading version 1 looks up the schemas, built on this module)

    return {name: _v1_raw(state[name]) for name in names if name in state}


def _same_array(a, b):
    return isinstance(a, np.ndarray) and isinstance(b, np.ndarray) and a.shape == b.shape and np.array_equal(a, b)
