"""Schemas of scaling and model selection: LibsvmScaler, SVCGridSearch, and scikit-learn's
Pipeline and StandardScaler."""

from __future__ import annotations

import numpy as np
from sklearn.base import BaseEstimator

from ._errors import _fail
from ._kinds import _BestParams, _Count, _EstimatorKind, _Floats, _Int, _Optional, _Real, _Results
from ._schema import _FEATURE_FIELDS, _expect_shape, _Field, _per_feature, _Schema


class _LibsvmScalerSchema(_Schema):
    name = "svmkit.LibsvmScaler"
    module = "svmkit.preprocessing"
    class_name = "LibsvmScaler"
    aliases = ("svmkit.preprocessing.LibsvmScaler",)
    fields = (
        *_FEATURE_FIELDS,
        _Field("data_min_", _Floats(1), "training minimum of each feature"),
        _Field("data_max_", _Floats(1), "training maximum of each feature"),
    )

    def check_params(self, estimator, fitted):
        from .._libsvm_ranges import _check_limits

        if fitted:
            _check_limits(estimator.lower, estimator.upper, "x")

    def check(self, estimator, values, where):
        _per_feature(values, ("data_min_", "data_max_"), where)
        if np.any(values["data_min_"] > values["data_max_"]):
            _fail(f"{where}.data_min_", "exceeds data_max_")


class _SVCGridSearchSchema(_Schema):
    name = "svmkit.SVCGridSearch"
    module = "svmkit.model_selection"
    class_name = "SVCGridSearch"
    aliases = ("svmkit.model_selection.SVCGridSearch",)
    fields = (
        _Field("n_splits_", _Int(low=1), "number of cross-validation folds"),
        _Field("cv_results_", _Results(), "one entry per evaluated grid point"),
        _Field("best_index_", _Int(), "row of the best point in cv_results_"),
        _Field("best_params_", _BestParams(), "C and gamma of the best point"),
        _Field("best_score_", _Real(), "its cross-validation accuracy"),
        _Field("best_estimator_", _EstimatorKind(), "the scaling Pipeline (or the estimator without scaling) with the "
               "best parameters, refitted on all the data"),
    )

    def check(self, estimator, values, where):
        n_points = values["cv_results_"]["C"].shape[0]
        if values["best_index_"] >= n_points:
            _fail(f"{where}.best_index_", f"is not a row of cv_results_ ({n_points} rows)")


class _PipelineSchema(_Schema):
    """scikit-learn's Pipeline, saved itself or as the best estimator of
    :class:`svmkit.SVCGridSearch`: its steps are estimators of the file, its fitted state is
    theirs."""

    name = "sklearn.pipeline.Pipeline"
    module = "sklearn.pipeline"
    class_name = "Pipeline"
    fields = ()

    def check_params(self, estimator, fitted):
        steps = estimator.steps
        if type(steps) is not list or not steps or not all(
            type(step) is tuple and len(step) == 2 and type(step[0]) is str and isinstance(step[1], BaseEstimator)
            for step in steps
        ):
            raise ValueError("steps must be a list of (name, estimator) pairs")
        if estimator.memory is not None or estimator.transform_input is not None:
            raise ValueError("memory and transform_input must be None")
        if type(estimator.verbose) is not bool:
            raise ValueError("verbose must be True or False")


class _StandardScalerSchema(_Schema):
    name = "sklearn.preprocessing.StandardScaler"
    module = "sklearn.preprocessing"
    class_name = "StandardScaler"
    nested_only = True
    fields = (
        *_FEATURE_FIELDS,
        _Field("n_samples_seen_", _Count(), "samples seen (per feature when some were missing)"),
        _Field("mean_", _Optional(_Floats(1)), "mean of each feature"),
        _Field("var_", _Optional(_Floats(1)), "variance of each feature"),
        _Field("scale_", _Optional(_Floats(1)), "scale of each feature"),
    )

    def check(self, estimator, values, where):
        _per_feature(values, ("mean_", "var_", "scale_"), where)
        if isinstance(values["n_samples_seen_"], np.ndarray):
            _expect_shape(values, "n_samples_seen_", (values["n_features_in_"],), where, " (one per feature)")
