"""Schemas of naive Bayes: GaussianNB, CategoricalNB and MixedNB."""

from __future__ import annotations

import numpy as np

from ._errors import _fail
from ._kinds import _Floats, _Integers, _Labels, _ListOf, _Real
from ._raw import _V1Object
from ._schema import (
    _FEATURE_FIELDS,
    _check_features,
    _expect_shape,
    _Field,
    _present,
    _same_array,
    _Schema,
    _version_1_fields,
)

_NAIVE_BAYES_FIELDS = (
    *_FEATURE_FIELDS,
    _Field("categorical_features_", _Integers(1, low=0), "indices of the categorical columns"),
    _Field("gaussian_features_", _Integers(1, low=0), "indices of the Gaussian columns"),
    _Field("classes_", _Labels(), "the class labels, sorted"),
    _Field("class_count_", _Floats(1), "weighted number of training rows of each class"),
    _Field("class_prior_", _Floats(1), "P(C_k) of each class"),
    _Field("class_log_prior_", _Floats(1, values="log probability"), "log P(C_k) of each class"),
    _Field("gaussian_count_", _Floats(2), "weighted number of observed values per class and Gaussian column",
           group="gaussian", condition="when there are Gaussian columns"),
    _Field("theta_", _Floats(2), "mean per class and Gaussian column", group="gaussian",
           condition="when there are Gaussian columns"),
    _Field("var_", _Floats(2), "variance per class and Gaussian column, epsilon_ included", group="gaussian",
           condition="when there are Gaussian columns"),
    _Field("epsilon_", _Real(), "the variance floor", group="gaussian", condition="when there are Gaussian columns"),
    _Field("gaussian.squared_deviations", _Floats(2), "sum of squared deviations from the mean per class and "
           "Gaussian column (what partial_fit merges new batches into)", group="gaussian",
           condition="when there are Gaussian columns"),
    _Field("categories_", _ListOf(_Labels()), "the categories of each categorical column", group="categorical",
           condition="when there are categorical columns"),
    _Field("category_count_", _ListOf(_Floats(2)), "weighted count of each category per class, per categorical "
           "column (n_classes, n_categories)", group="categorical", condition="when there are categorical columns"),
    _Field("n_categories_", _Integers(1, low=0), "number of categories of each categorical column (more than its "
           "categories_ with min_categories)",
           group="categorical", condition="when there are categorical columns"),
    _Field("feature_log_prob_", _ListOf(_Floats(2, values="log probability")), "log P(A_i = b | C_k) per categorical column "
           "(n_classes, n_categories)", group="categorical", condition="when there are categorical columns"),
)


class _NaiveBayesSchema(_Schema):
    module = "svmkit.naive_bayes"
    fields = _NAIVE_BAYES_FIELDS
    #: Whether the class has categorical and Gaussian columns.
    has_categorical = True
    has_gaussian = True

    def collect(self, estimator):
        values = _present(estimator, self.names)
        moments = vars(estimator).get("_gaussian_moments_")
        if values and moments is not None:
            values["gaussian.squared_deviations"] = moments.squared_deviations
        return values

    def check_params(self, estimator, fitted):
        from ..naive_bayes._base import check_alpha

        if fitted and self.has_categorical:
            check_alpha(estimator.alpha)

    def check(self, estimator, values, where):
        _check_features(values, where)
        n_features = values["n_features_in_"]
        categorical, gaussian = values["categorical_features_"], values["gaussian_features_"]
        columns = np.sort(np.concatenate([categorical, gaussian]))
        if columns.shape[0] != n_features or not np.array_equal(columns, np.arange(n_features)):
            _fail(f"{where}.categorical_features_", f"with gaussian_features_ must number each of the {n_features} "
                                                   "columns once")
        if categorical.size and not self.has_categorical:
            _fail(f"{where}.categorical_features_", f"{self.class_name} has no categorical columns")
        if gaussian.size and not self.has_gaussian:
            _fail(f"{where}.gaussian_features_", f"{self.class_name} has no Gaussian columns")
        n_classes = values["classes_"].shape[0]
        if n_classes < 2:
            _fail(f"{where}.classes_", f"needs at least two classes, got {n_classes}")
        for name in ("class_count_", "class_prior_", "class_log_prior_"):
            _expect_shape(values, name, (n_classes,), where, " (one per class)")
        if bool(gaussian.size) != ("theta_" in values):
            _fail(f"{where}.theta_", "the gaussian fields are present exactly when there are Gaussian columns")
        if gaussian.size:
            for name in ("gaussian_count_", "theta_", "var_", "gaussian.squared_deviations"):
                _expect_shape(values, name, (n_classes, gaussian.shape[0]), where, " (n_classes, Gaussian columns)")
            if not np.all(values["var_"] > 0):
                _fail(f"{where}.var_", "variances must be positive")
        if bool(categorical.size) != ("categories_" in values):
            _fail(f"{where}.categories_", "the categorical fields are present exactly when there are categorical columns")
        if categorical.size:
            self._check_categories(values, where, n_classes, categorical.shape[0])

    @staticmethod
    def _check_categories(values, where, n_classes, n_columns):
        for name in ("categories_", "category_count_", "feature_log_prob_"):
            if len(values[name]) != n_columns:
                _fail(f"{where}.{name}", f"expected one entry per categorical column ({n_columns}), got {len(values[name])}")
        _expect_shape(values, "n_categories_", (n_columns,), where, " (one per categorical column)")
        for i, categories in enumerate(values["categories_"]):
            n_categories = categories.shape[0]
            if values["n_categories_"][i] < n_categories:
                _fail(f"{where}.n_categories_", f"says {values['n_categories_'][i]} categories for column {i}, "
                                                f"categories_ has {n_categories}")
            for name in ("category_count_", "feature_log_prob_"):
                if values[name][i].shape != (n_classes, n_categories):
                    _fail(f"{where}.{name}[{i}]", f"expected shape {(n_classes, n_categories)}, got {values[name][i].shape}")

    def restore(self, estimator, values):
        from ..naive_bayes._categorical import log_probabilities
        from ..naive_bayes._gaussian import Moments

        squared_deviations = values.pop("gaussian.squared_deviations", None)
        super().restore(estimator, values)
        if squared_deviations is not None:
            estimator._gaussian_moments_ = Moments(values["gaussian_count_"], values["theta_"], squared_deviations)
        if "category_count_" in values:
            estimator._unseen_log_prob_ = [log_probabilities(counts, estimator.alpha, int(n_categories))[1]
                                           for counts, n_categories in zip(values["category_count_"],
                                                                           values["n_categories_"])]

    def from_version_1(self, state):
        fields = _version_1_fields(state, self.names)
        moments = state.get("_gaussian_moments_")
        if fields and isinstance(moments, _V1Object) and type(moments.content) is list and len(moments.content) == 3:
            fields["gaussian.squared_deviations"] = moments.content[2]
        private = {"_unseen_log_prob_": state["_unseen_log_prob_"]} if "_unseen_log_prob_" in state else {}
        return fields, private

    def verify_version_1(self, estimator, private, where):
        if "_unseen_log_prob_" in private:
            saved, rebuilt = private["_unseen_log_prob_"], estimator._unseen_log_prob_
            if type(saved) is not list or len(saved) != len(rebuilt) or not all(map(_same_array, saved, rebuilt)):
                _fail(f"{where}._unseen_log_prob_", "differs from the log-probabilities rebuilt from category_count_ "
                                                    "and alpha")


class _GaussianNBSchema(_NaiveBayesSchema):
    name = "svmkit.GaussianNB"
    class_name = "GaussianNB"
    aliases = ("svmkit.naive_bayes.GaussianNB",)
    has_categorical = False


class _CategoricalNBSchema(_NaiveBayesSchema):
    name = "svmkit.CategoricalNB"
    class_name = "CategoricalNB"
    aliases = ("svmkit.naive_bayes.CategoricalNB",)
    has_gaussian = False


class _MixedNBSchema(_NaiveBayesSchema):
    name = "svmkit.MixedNB"
    class_name = "MixedNB"
    aliases = ("svmkit.naive_bayes.MixedNB",)
