"""Schemas of the linear models and the perceptrons: LinearSVC, PegasosSVC, Perceptron and
KernelPerceptron."""

from __future__ import annotations

import numpy as np

from ._errors import _fail
from ._kernels import _check_fitted_kernel, _KernelKind
from ._kinds import _Floats, _Int, _Integers, _Labels, _Matrix, _PerProblem, _RandomStateKind, _Real
from ._schema import (
    _FEATURE_FIELDS,
    _check_features,
    _check_indices,
    _expect_shape,
    _Field,
    _present,
    _Schema,
    _version_1_fields,
)

#: Per Pegasos problem: scale, sum of scales, step t and ||direction||^2.
_PEGASOS_STATE_COLUMNS = 4


def _n_problems(values, where):
    n_classes = values["classes_"].shape[0]
    if n_classes < 2:
        _fail(f"{where}.classes_", f"needs at least two classes, got {n_classes}")
    return 1 if n_classes == 2 else n_classes


def _check_weights(values, where):
    """coef_ and intercept_ of one-vs-rest problems; returns the number of problems."""
    _check_features(values, where)
    n_problems = _n_problems(values, where)
    _expect_shape(values, "coef_", (n_problems, values["n_features_in_"]), where, " (n_problems, n_features_in_)")
    _expect_shape(values, "intercept_", (n_problems,), where, " (one per problem)")
    return n_problems


_LINEAR_FIELDS = (
    *_FEATURE_FIELDS,
    _Field("classes_", _Labels(), "the class labels, sorted"),
    _Field("coef_", _Floats(2), "w of each one-vs-rest problem (one row for two classes)"),
    _Field("intercept_", _Floats(1), "b of each problem"),
)


class _LinearSVCSchema(_Schema):
    name = "svmkit.LinearSVC"
    module = "svmkit.linear"
    class_name = "LinearSVC"
    aliases = ("svmkit.linear.LinearSVC",)
    fields = (
        *_LINEAR_FIELDS,
        _Field("n_iter_", _Int(), "largest number of passes over the data of any problem"),
        _Field("alpha_", _Floats(1, 2), "the dual multipliers: (n_samples,) for two classes, else (n_problems, n_samples)"),
        _Field("slack_", _Floats(1, 2), "the slacks max(0, 1 - y_i f(x_i)), shaped as alpha_"),
        _Field("margin_", _PerProblem(), "2 / ||w|| of each problem"),
        _Field("primal_objective_", _PerProblem(), "the primal objective of each problem"),
        _Field("dual_objective_", _PerProblem(), "the dual objective of each problem"),
        _Field("duality_gap_", _PerProblem(), "primal minus dual objective of each problem"),
    )

    def check(self, estimator, values, where):
        n_problems = _check_weights(values, where)
        alpha = values["alpha_"]
        if alpha.ndim != (1 if n_problems == 1 else 2) or (alpha.ndim == 2 and alpha.shape[0] != n_problems):
            _fail(f"{where}.alpha_", f"expected (n_samples,) for one problem, else (n_problems, n_samples); "
                                     f"got {alpha.shape} for {n_problems} problems")
        _expect_shape(values, "slack_", alpha.shape, where, " (as alpha_)")
        for name in ("margin_", "primal_objective_", "dual_objective_", "duality_gap_"):
            value = values[name]
            if (n_problems == 1) != (not isinstance(value, np.ndarray)) or (n_problems > 1 and value.shape != (n_problems,)):
                _fail(f"{where}.{name}", f"expected a number for one problem, else one per problem ({n_problems})")


class _PegasosSVCSchema(_Schema):
    name = "svmkit.PegasosSVC"
    module = "svmkit.linear"
    class_name = "PegasosSVC"
    aliases = ("svmkit.linear.PegasosSVC",)
    fields = (
        *_LINEAR_FIELDS,
        _Field("n_iter_", _Int(), "epochs run by the last fit or partial_fit"),
        _Field("t_", _Int(), "steps taken since the model was started"),
        _Field("lambda_", _Real(), "the regularisation lambda = 1 / (2 C N)"),
        _Field("n_samples_seen_", _Int(), "samples seen so far"),
        _Field("sgd.bias_value", _Real(), "value of the constant feature that carries the intercept (0: none)"),
        _Field("sgd.directions", _Floats(2), "direction of each problem's weights, w = scale * direction "
               "(n_problems, n_features_in_ + 1 with an intercept)"),
        _Field("sgd.average_offsets", _Floats(2), "offsets of the running average of the iterates, shaped as "
               "sgd.directions"),
        _Field("sgd.states", _Floats(2), "per problem: scale, sum of scales, step t and ||direction||^2"),
        _Field("sgd.random_state", _RandomStateKind(), "the random state that draws the visiting orders of the "
               "next epochs"),
    )
    private = {"sgd.bias_value": "_bias_value", "sgd.directions": "_directions",
               "sgd.average_offsets": "_average_offsets", "sgd.states": "_states", "sgd.random_state": "_rng"}

    def collect(self, estimator):
        values = _present(estimator, [name for name in self.names if not name.startswith("sgd.")])
        state = vars(estimator)
        if values:
            values.update({name: state[private] for name, private in self.private.items() if private in state})
        return values

    def check(self, estimator, values, where):
        n_problems = _check_weights(values, where)
        n_weights = values["n_features_in_"] + (values["sgd.bias_value"] != 0.0)
        for name in ("sgd.directions", "sgd.average_offsets"):
            _expect_shape(values, name, (n_problems, n_weights), where, " (n_problems, features + intercept)")
        _expect_shape(values, "sgd.states", (n_problems, _PEGASOS_STATE_COLUMNS), where,
                      " (n_problems; scale, sum of scales, t, ||direction||^2)")

    def restore(self, estimator, values):
        state = {name: values.pop(name) for name in self.private}
        super().restore(estimator, values)
        for name in ("sgd.directions", "sgd.average_offsets", "sgd.states"):
            state[name] = np.require(state[name], dtype=np.float64, requirements=("C", "W"))
        parameter = estimator.random_state
        if type(parameter) is np.random.RandomState and _same_random_state(parameter, state["sgd.random_state"]):
            state["sgd.random_state"] = parameter  # (the fit draws from its parameter itself)
        for name, private in self.private.items():
            setattr(estimator, private, state[name])

    def from_version_1(self, state):
        fields = _version_1_fields(state, self.names)
        if fields:
            fields.update({name: state[private] for name, private in self.private.items() if private in state})
        return fields, {}


def _same_random_state(a, b):
    first, second = a.get_state(legacy=True), b.get_state(legacy=True)
    return np.array_equal(first[1], second[1]) and first[2:] == second[2:]


class _PerceptronSchema(_Schema):
    name = "svmkit.Perceptron"
    module = "svmkit.perceptron"
    class_name = "Perceptron"
    aliases = ("svmkit.perceptron.Perceptron",)
    fields = (
        *_LINEAR_FIELDS,
        _Field("alpha_", _Integers(2, low=0), "mistakes made on each sample, per problem (n_problems, n_samples)"),
        _Field("n_iter_", _Int(), "largest number of sweeps of any problem"),
    )

    def check(self, estimator, values, where):
        n_problems = _check_weights(values, where)
        if values["alpha_"].shape[0] != n_problems:
            _fail(f"{where}.alpha_", f"expected one row per problem ({n_problems}), got shape {values['alpha_'].shape}")


class _KernelPerceptronSchema(_Schema):
    name = "svmkit.KernelPerceptron"
    module = "svmkit.perceptron"
    class_name = "KernelPerceptron"
    aliases = ("svmkit.perceptron.KernelPerceptron",)
    fields = (
        *_FEATURE_FIELDS,
        _Field("classes_", _Labels(), "the class labels, sorted"),
        _Field("kernel_", _KernelKind(allow_none=False), "the kernel the fit used, gamma resolved"),
        _Field("alpha_", _Integers(2, low=0), "mistakes made on each sample, per problem (n_problems, n_samples)"),
        _Field("n_iter_", _Int(), "largest number of sweeps of any problem"),
        _Field("support_", _Integers(1), "training rows with a mistake in some problem"),
        _Field("support_vectors_", _Matrix(), "those rows, dense or CSR"),
        _Field("dual_coef_", _Floats(2), "alpha_i c_i of the support vectors (n_problems, n_SV)"),
        _Field("intercept_", _Floats(1), "sum_i alpha_i c_i of each problem"),
    )

    def check(self, estimator, values, where):
        _check_features(values, where)
        n_problems = _n_problems(values, where)
        values["kernel_"] = _check_fitted_kernel(estimator, values["kernel_"], f"{where}.kernel_")
        vectors = values["support_vectors_"]
        n_support_vectors = vectors.shape[0]
        if vectors.shape[1] != values["n_features_in_"]:
            _fail(f"{where}.support_vectors_", f"has {vectors.shape[1]} columns, n_features_in_ is "
                                               f"{values['n_features_in_']}")
        if values["alpha_"].shape[0] != n_problems:
            _fail(f"{where}.alpha_", f"expected one row per problem ({n_problems}), got shape {values['alpha_'].shape}")
        _expect_shape(values, "support_", (n_support_vectors,), where, " (one per support vector)")
        _check_indices(values["support_"], values["alpha_"].shape[1], f"{where}.support_", "rows of the training data")
        _expect_shape(values, "dual_coef_", (n_problems, n_support_vectors), where, " (n_problems, n_SV)")
        _expect_shape(values, "intercept_", (n_problems,), where, " (one per problem)")
