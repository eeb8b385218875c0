"""Schema of :class:`svmkit.dask.CascadeSVC`: the SVC of its last pass, the rows that SVC was
fitted on, and the theory of its passes (reading one needs the extra ``svmkit[dask]``)."""

from __future__ import annotations

import numpy as np

from ._errors import _fail
from ._kinds import _EstimatorKind, _Floats, _Int, _Integers, _Labels, _Real, _Shape
from ._schema import _FEATURE_FIELDS, _check_features, _check_indices, _expect_shape, _Field, _Schema

#: The entries of ``history_`` that are one number per pass, and the kind of each.
_HISTORY_NUMBERS = {"pass": _Integers(1, low=1), "working_set": _Integers(1, low=0),
                    "support_vectors": _Integers(1, low=0), "violators": _Integers(1, low=0),
                    "max_violation": _Floats(1), "seconds": _Floats(1)}
#: The entries that are one number per pass and two-class problem.
_HISTORY_PER_PROBLEM = ("dual", "duality_gap")
#: The attributes of the last pass's SVC that CascadeSVC shows as its own.
_FROM_MODEL = ("support_vectors_", "n_support_", "dual_coef_", "intercept_", "n_iter_", "fit_status_",
               "problem_classes_")


class _CascadeSVCSchema(_Schema):
    name = "svmkit.dask.CascadeSVC"
    module = "svmkit.dask"
    class_name = "CascadeSVC"
    fields = (
        *_FEATURE_FIELDS,
        _Field("classes_", _Labels(), "the class labels, sorted"),
        _Field("shape_fit_", _Shape(), "shape of the training data (all partitions)"),
        _Field("model_", _EstimatorKind(), "the svmkit.SVC of the last pass, fitted on the rows working_set_ (its "
               "support vectors, multipliers and Platt parameters are the cascade's)"),
        _Field("working_set_", _Integers(1, low=0), "training rows (global numbers, increasing) that model_ was fitted on"),
        _Field("probA_", _Floats(1), "Platt parameter A of each one-vs-one pair (empty without probability=True)"),
        _Field("probB_", _Floats(1), "Platt parameter B of each one-vs-one pair (empty without probability=True)"),
        _Field("primal_objective_", _Floats(1), "1/2 ||w||^2 + sum C_i xi_i over all rows, of each two-class problem "
               "(a float where there is one problem)"),
        _Field("duality_gap_", _Floats(1), "primal_objective_ - dual objective, of each two-class "
               "problem"),
        _Field("kkt_violation_", _Real(), "largest KKT violation of any row at the last check"),
        _Field("n_passes_", _Int(low=1), "passes of the cascade"),
        *(_Field(f"history.{name}", kind, f"history_[p][{name!r}] of each pass p", group="history",
                 condition="fitted")
          for name, kind in _HISTORY_NUMBERS.items()),
        *(_Field(f"history.{name}", _Floats(2), f"history_[p][{name!r}] of each pass p (n_passes_, n_problems)",
                 group="history", condition="fitted") for name in _HISTORY_PER_PROBLEM),
    )

    def collect(self, estimator):
        state = vars(estimator)
        if "model_" not in state:
            return {}
        values = {name: state[name] for name in self.names if name in state}
        for name in ("primal_objective_", "duality_gap_"):
            values[name] = np.atleast_1d(np.asarray(values[name], dtype=np.float64))
        history = estimator.history_
        for name, kind in _HISTORY_NUMBERS.items():
            dtype = np.float64 if isinstance(kind, _Floats) else np.int64
            values[f"history.{name}"] = np.array([entry[name] for entry in history], dtype=dtype)
        for name in _HISTORY_PER_PROBLEM:
            values[f"history.{name}"] = np.array([entry[name] for entry in history], dtype=np.float64)
        return values

    def check_params(self, estimator, fitted):
        if fitted:
            estimator._check_params()

    def check(self, estimator, values, where):
        from ..svm import SVC

        _check_features(values, where)
        model = values["model_"]
        if type(model) is not SVC:
            _fail(f"{where}.model_", f"must be an svmkit.SVC, got {type(model).__name__}")
        if not hasattr(model, "support_") or not hasattr(model, "_variables"):
            _fail(f"{where}.model_", "must be a fitted SVC with its problems (the problems.* fields)")
        if not np.array_equal(model.classes_, values["classes_"]):
            _fail(f"{where}.model_", "has other classes than classes_")
        if model.n_features_in_ != values["n_features_in_"] or values["shape_fit_"][1] != values["n_features_in_"]:
            _fail(f"{where}.model_", "has not n_features_in_ features (nor has shape_fit_)")
        working_set = values["working_set_"]
        _expect_shape(values, "working_set_", (model.shape_fit_[0],), where, " (the rows model_ was fitted on)")
        _check_indices(working_set, values["shape_fit_"][0], f"{where}.working_set_", "rows of the training data")
        if np.any(np.diff(working_set) <= 0):
            _fail(f"{where}.working_set_", "must be strictly increasing")
        for name in ("probA_", "probB_"):
            if not np.array_equal(values[name], model.__dict__.get(name)):
                _fail(f"{where}.{name}", f"differs from model_.{name}")
        n_problems = len(model._problem_pairs)
        for name in ("primal_objective_", "duality_gap_"):
            _expect_shape(values, name, (n_problems,), where, " (one per problem)")
        n_passes = values["n_passes_"]
        if "history.pass" not in values:
            _fail(f"{where}.history.pass", "is needed: a fitted CascadeSVC has its history")
        for name in _HISTORY_NUMBERS:
            _expect_shape(values, f"history.{name}", (n_passes,), where, " (one per pass)")
        for name in _HISTORY_PER_PROBLEM:
            _expect_shape(values, f"history.{name}", (n_passes, n_problems), where, " (n_passes_, n_problems)")

    def restore(self, estimator, values):
        history = {name[len("history."):]: values.pop(name) for name in list(values) if name.startswith("history.")}
        for name in ("primal_objective_", "duality_gap_"):
            if values[name].shape[0] == 1:
                values[name] = float(values[name][0])
        super().restore(estimator, values)
        estimator.history_ = [
            {**{name: history[name][p].item() for name in _HISTORY_NUMBERS},
             **{name: history[name][p].tolist() for name in _HISTORY_PER_PROBLEM}}
            for p in range(values["n_passes_"])
        ]
        model = values["model_"]
        estimator.support_ = values["working_set_"][model.support_].astype(np.int32)
        for name in _FROM_MODEL:
            setattr(estimator, name, getattr(model, name))
