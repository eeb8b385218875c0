"""Schemas of the kernel SVMs: SVC and NuSVC (two-class problems), OneClassSVM, SVR and NuSVR
(one problem)."""

from __future__ import annotations

import numpy as np

from ._errors import _fail
from ._kernels import _check_fitted_kernel, _KernelKind
from ._kinds import _Floats, _Int, _Integers, _Labels, _Matrix, _Real, _Shape, _Text
from ._raw import _V1Object
from ._schema import (
    _FEATURE_FIELDS,
    _check_features,
    _check_indices,
    _expect_shape,
    _Field,
    _present,
    _same_array,
    _Schema,
    _version_1_fields,
)

_KERNEL_SVM_FIELDS = (
    _Field("shape_fit_", _Shape(), "shape of the training data (the Gram matrix with kernel='precomputed')"),
    _Field("kernel_", _KernelKind(allow_none=True), "the kernel the fit used, gamma resolved to the number 'scale' "
           "or 'auto' gave"),
    _Field("support_", _Integers(1), "training row of each support vector"),
    _Field("support_vectors_", _Matrix(), "the support vectors, dense or CSR; (0, n_features_in_) with kernel='precomputed'"),
    _Field("n_support_", _Integers(1, low=0), "number of support vectors of each class (one entry for one problem)"),
    _Field("dual_coef_", _Floats(2), "coefficient of each support vector in the decision functions"),
    _Field("intercept_", _Floats(1), "bias b of each decision function"),
)


def _check_support(estimator, values, where):
    """The fields every kernel SVM has, against each other; returns the number of support vectors."""
    _check_features(values, where)
    n_features = values["n_features_in_"]
    shape_fit = values.get("shape_fit_")
    if shape_fit is not None and shape_fit[1] != n_features:
        _fail(f"{where}.shape_fit_", f"has {shape_fit[1]} columns, n_features_in_ is {n_features}")
    vectors, support = values["support_vectors_"], values["support_"]
    if vectors.shape[1] != n_features:
        _fail(f"{where}.support_vectors_", f"has {vectors.shape[1]} columns, n_features_in_ is {n_features}")
    values["kernel_"] = _check_fitted_kernel(estimator, values["kernel_"], f"{where}.kernel_")
    if estimator._precomputed:
        if vectors.shape[0] != 0:
            _fail(f"{where}.support_vectors_", "must have no rows with kernel='precomputed'")
        if shape_fit is None:
            _fail(f"{where}.shape_fit_", "is needed with kernel='precomputed'")
        n_support_vectors = support.shape[0]
    else:
        n_support_vectors = vectors.shape[0]
        _expect_shape(values, "support_", (n_support_vectors,), where, " (one per support vector)")
    _check_indices(support, shape_fit[0] if shape_fit is not None else None, f"{where}.support_", "rows of the training data")
    if values["dual_coef_"].shape[1:] != (n_support_vectors,):
        _fail(f"{where}.dual_coef_", f"expected {n_support_vectors} columns (one per support vector), "
                                     f"got shape {values['dual_coef_'].shape}")
    return n_support_vectors


_PROBLEM_FIELDS = (
    _Field("problems.indexing", _Text(("training rows", "support vectors")),
           "what problems.indices number: 'training rows' for a fitted model; 'support vectors' (rows of "
           "support_vectors_) for a model read from a LIBSVM model file, which has no training set, so that "
           "alpha_, slack_ and the objectives are not available", group="problems",
           condition="fitted, with the other problems.* fields"),
    _Field("problems.bounds", _Integers(1), "problem p's variables are entries bounds[p]:bounds[p + 1] of the "
           "problems.* arrays (n_problems + 1 entries)", group="problems"),
    _Field("problems.indices", _Integers(1), "row of each variable (BinaryModel.indices)", group="problems"),
    _Field("problems.y", _Floats(1), "its label, +1 or -1 (BinaryModel.y)", group="problems"),
    _Field("problems.alpha", _Floats(1), "its multiplier alpha_i (BinaryModel.alpha)", group="problems"),
    _Field("problems.upper", _Floats(1, values="any"), "its upper bound C_i (BinaryModel.upper; inf for a hard margin, "
           "NaN where unknown)", group="problems"),
    _Field("problems.yf", _Floats(1, values="any"), "y_i f(x_i) at the solution (BinaryModel.yf; NaN where unknown)",
           group="problems"),
    _Field("problems.gap", _Floats(1, values="any"), "maximal violating-pair gap each problem reached "
           "(BinaryModel.gap)", group="problems"),
    _Field("problems.status", _Integers(1), "solver status of each problem, 0 converged (BinaryModel.status)",
           group="problems"),
)
_SVC_PUBLIC = (
    "n_features_in_", "feature_names_in_", "classes_", "shape_fit_", "kernel_", "support_", "support_vectors_",
    "n_support_", "dual_coef_", "intercept_", "probA_", "probB_", "n_iter_", "fit_status_", "loo_bound_",
    "radius_",
)


def _problem_coefficients(dual_coef, n_support, pairs, one_vs_one):
    """The coefficient of each support vector in each problem (n_SV, n_problems): ``dual_coef_``
    transposed, or for one-vs-one problems read from LIBSVM's layout (a support vector of
    class ``i`` has its coefficient of pair ``(i, j)`` in row ``j - 1`` if ``i < j``, else ``i``)."""
    if not one_vs_one:
        return np.ascontiguousarray(dual_coef.T)
    pairs = np.array(pairs, dtype=np.int64)
    first, second = pairs[:, 0], pairs[:, 1]
    support_class = np.repeat(np.arange(n_support.shape[0]), n_support)[:, np.newaxis]
    by_vector = dual_coef.T
    return np.where(support_class == first, by_vector[:, second - 1],
                    np.where(support_class == second, by_vector[:, first], 0.0))


class _SVCSchema(_Schema):
    name = "svmkit.SVC"
    module = "svmkit.svm"
    class_name = "SVC"
    aliases = ("svmkit.svm.SVC",)
    fields = (
        *_FEATURE_FIELDS,
        _Field("classes_", _Labels(), "the class labels, sorted"),
        _Field("shape_fit_", _Shape(), "shape of the training data (the Gram matrix with kernel='precomputed')",
               required=False, condition="fitted on training data, or read from a LIBSVM model file with "
               "kernel='precomputed'"),
        *_KERNEL_SVM_FIELDS[1:4],
        _Field("n_support_", _Integers(1, low=0), "number of support vectors of each class (support_vectors_ are "
               "grouped by class)"),
        _Field("dual_coef_", _Floats(2), "alpha_i y_i of each support vector: (n_classes - 1, n_SV) in LIBSVM's "
               "one-vs-one layout, else (n_problems, n_SV)"),
        _Field("intercept_", _Floats(1), "bias b of each two-class problem"),
        _Field("probA_", _Floats(1), "Platt parameter A of each one-vs-one pair (empty without probability=True)"),
        _Field("probB_", _Floats(1), "Platt parameter B of each one-vs-one pair (empty without probability=True)"),
        _Field("n_iter_", _Integers(1, low=0), "two-variable updates of each problem", required=False,
               condition="fitted (not read from a LIBSVM model file)"),
        _Field("fit_status_", _Int(), "0 if every problem converged, else 1", required=False,
               condition="fitted (not read from a LIBSVM model file)"),
        _Field("loo_bound_", _Real(), "leave-one-out error bound: support vectors / training rows", required=False,
               condition="fitted (not read from a LIBSVM model file)"),
        _Field("radius_", _Real(), "radius of the training points' enclosing ball in feature space (VC bound)",
               required=False, condition="fitted (not read from a LIBSVM model file)"),
        *_PROBLEM_FIELDS,
    )

    def collect(self, estimator):
        values = _present(estimator, _SVC_PUBLIC)
        if not values:
            return values
        if "_radius_inputs" in vars(estimator) or "_radius" in vars(estimator):
            values["radius_"] = estimator.radius_  # (solved when first asked for)
        state = vars(estimator)
        variables = state.get("_variables")
        if variables is not None:
            indexing = "training rows"
            problems = {name: getattr(variables, name) for name in ("bounds", "indices", "y", "alpha", "upper", "yf",
                                                                     "gap", "status", "r")}
        elif isinstance(state.get("binary_models_"), list) and state["binary_models_"]:
            indexing = "training rows" if "_n_training_rows" in state else "support vectors"
            problems = _stack_models(state["binary_models_"])
        else:
            return values
        values["problems.indexing"] = indexing
        values.update({f"problems.{name}": value for name, value in problems.items()
                       if f"problems.{name}" in self.kinds})
        return values

    def check_params(self, estimator, fitted):
        if fitted:
            estimator._check_classifier_params()

    def check(self, estimator, values, where):
        n_support_vectors = _check_support(estimator, values, where)
        n_classes = values["classes_"].shape[0]
        if n_classes < 2:
            _fail(f"{where}.classes_", f"needs at least two classes, got {n_classes}")
        pairs = estimator._problems(n_classes)
        one_vs_one = n_classes > 2 and estimator.multiclass == "ovo"
        n_problems = len(pairs)
        _expect_shape(values, "n_support_", (n_classes,), where, " (one per class)")
        if int(values["n_support_"].sum()) != n_support_vectors:
            _fail(f"{where}.n_support_", f"counts {int(values['n_support_'].sum())} support vectors, "
                                         f"support_ has {n_support_vectors}")
        if one_vs_one:
            _expect_shape(values, "dual_coef_", (n_classes - 1, n_support_vectors), where,
                          " (n_classes - 1, n_SV) for one-vs-one")
        else:
            _expect_shape(values, "dual_coef_", (n_problems, n_support_vectors), where, " (n_problems, n_SV)")
        _expect_shape(values, "intercept_", (n_problems,), where, " (one per problem)")
        n_pairs = n_classes * (n_classes - 1) // 2
        for name in ("probA_", "probB_"):
            if values[name].shape not in ((0,), (n_pairs,)):
                _fail(f"{where}.{name}", f"expected shape (0,) or ({n_pairs},) (one per pair), got {values[name].shape}")
        if values["probA_"].shape != values["probB_"].shape:
            _fail(f"{where}.probB_", "has not as many entries as probA_")
        if values["probA_"].shape[0] and not (n_classes == 2 or one_vs_one):
            _fail(f"{where}.probA_", "probabilities need one-vs-one problems")
        if "n_iter_" in values:
            _expect_shape(values, "n_iter_", (n_problems,), where, " (one per problem)")
        if "problems.bounds" in values:
            self._check_problems(values, where, n_problems, n_support_vectors)

    def _check_problems(self, values, where, n_problems, n_support_vectors):
        training = values["problems.indexing"] == "training rows"
        if training:
            for name in ("shape_fit_", "n_iter_"):
                if name not in values:
                    _fail(f"{where}.{name}", "is needed with problems on training rows")
        n_rows = values["shape_fit_"][0] if training else n_support_vectors
        bounds = values["problems.bounds"]
        n_variables = values["problems.indices"].shape[0]
        _expect_shape(values, "problems.bounds", (n_problems + 1,), where, " (n_problems + 1)")
        if bounds[0] != 0 or bounds[-1] != n_variables or np.any(np.diff(bounds) < 0):
            _fail(f"{where}.problems.bounds", f"must rise from 0 to the number of variables ({n_variables})")
        _check_indices(values["problems.indices"], n_rows, f"{where}.problems.indices", values["problems.indexing"])
        for name in ("y", "alpha", "upper", "yf"):
            _expect_shape(values, f"problems.{name}", (n_variables,), where, " (one per variable)")
        if not np.all(np.abs(values["problems.y"]) == 1.0):
            _fail(f"{where}.problems.y", "labels are +1 or -1")
        for name in ("gap", "status", "r"):
            if f"problems.{name}" in values:
                _expect_shape(values, f"problems.{name}", (n_problems,), where, " (one per problem)")

    def restore(self, estimator, values):
        from ..svm._binary import StackedVariables

        problems = {name[len("problems."):]: values.pop(name) for name in list(values) if name.startswith("problems.")}
        super().restore(estimator, values)
        classes = values["classes_"]
        pairs = estimator._problems(classes.shape[0])
        one_vs_one = classes.shape[0] > 2 and estimator.multiclass == "ovo"
        estimator._problem_pairs = pairs
        estimator._problem_coef = _problem_coefficients(values["dual_coef_"], values["n_support_"], pairs, one_vs_one)
        estimator.problem_classes_ = [(classes[a], classes[b] if b is not None else "rest") for a, b in pairs]
        if problems:
            training = problems.pop("indexing") == "training rows"
            n_iter = values["n_iter_"] if training else np.zeros(len(pairs), dtype=np.int64)
            variables = StackedVariables(problems["bounds"], problems["indices"], problems["y"], problems["alpha"],
                                         problems["upper"], problems["yf"], values["intercept_"], n_iter,
                                         problems["gap"], problems["status"], problems.get("r"))
            if training:
                estimator._variables = variables
                estimator._n_training_rows = values["shape_fit_"][0]
            else:
                estimator.binary_models_ = variables.models(pairs)
        estimator._keep_prediction_model()

    def from_version_1(self, state):
        fields = _version_1_fields(state, _SVC_PUBLIC)
        if not fields:
            return fields, {}
        variables = state.get("_variables")
        problems = None
        if isinstance(variables, _V1Object) and variables.path.endswith(".StackedVariables"):
            items = variables.content
            names = ("bounds", "indices", "y", "alpha", "upper", "yf", "intercept", "n_iter", "gap", "status", "r")
            if type(items) is not list or len(items) not in (10, 11):
                _fail("_variables", "is not the StackedVariables of svmkit")
            problems = dict(zip(names, items))
            indexing = "training rows"
        elif type(state.get("binary_models_")) is list and state["binary_models_"]:
            models = state["binary_models_"]
            if not all(isinstance(m, _V1Object) and m.path.rpartition(".")[2] in ("BinaryModel", "NuBinaryModel")
                       and type(m.content) is dict for m in models):
                _fail("binary_models_", "are not BinaryModel objects of svmkit")
            problems = _stack_models([_AttributeView(model.content) for model in models])
            indexing = "training rows" if "_n_training_rows" in state else "support vectors"
        if problems is not None:
            fields["problems.indexing"] = indexing
            fields.update({f"problems.{name}": value for name, value in problems.items()
                           if f"problems.{name}" in self.kinds and value is not None})
        private = {name: state[name] for name in ("_problem_coef", "_problem_pairs") if name in state}
        return fields, private

    def verify_version_1(self, estimator, private, where):
        if "_problem_coef" in private and not _same_array(private["_problem_coef"], estimator._problem_coef):
            _fail(f"{where}._problem_coef", "differs from the coefficients rebuilt from dual_coef_ and n_support_")
        if "_problem_pairs" in private:
            pairs = [tuple(pair) if type(pair) in (list, tuple) else pair for pair in private["_problem_pairs"]]
            if pairs != list(estimator._problem_pairs):
                _fail(f"{where}._problem_pairs", "differs from the problems of the classes and multiclass")


class _AttributeView:
    """The attributes of a version-1 object, read as attributes."""

    def __init__(self, attributes):
        self.__dict__.update(attributes)


def _stack_models(models):
    """The problems.* arrays of a list of BinaryModel (one after another)."""
    sizes = [np.asarray(model.indices).shape[0] for model in models]
    stacked = {
        "bounds": np.concatenate([[0], np.cumsum(sizes)]).astype(np.int64),
        **{name: np.concatenate([np.asarray(getattr(model, name)) for model in models])
           for name in ("indices", "y", "alpha", "upper", "yf")},
        "gap": np.array([model.gap for model in models], dtype=np.float64),
        "status": np.array([model.status for model in models], dtype=np.int64),
    }
    if all(hasattr(model, "r") for model in models):
        stacked["r"] = np.array([model.r for model in models], dtype=np.float64)
    return stacked


class _NuSVCSchema(_SVCSchema):
    name = "svmkit.NuSVC"
    class_name = "NuSVC"
    aliases = ("svmkit.svm.NuSVC",)
    fields = (
        *_SVCSchema.fields,
        _Field("problems.r", _Floats(1), "nu-SVC's margin parameter r of each problem (1 / effective_C_)",
               group="problems"),
    )


class _SingleProblemSchema(_Schema):
    """OneClassSVM, SVR and NuSVR: one problem, its theory as plain attributes and the data of
    its KKT report under the kkt.* fields."""

    module = "svmkit.svm"
    #: The fitted attributes of the class, and the private attribute of each kkt.* field.
    public = ()
    report = {}

    def collect(self, estimator):
        values = _present(estimator, self.public)
        state = vars(estimator)
        if values:
            values.update({name: state[private] for name, private in self.report.items() if private in state})
        return values

    def check_params(self, estimator, fitted):
        if fitted:
            estimator._check_common_params()

    def check(self, estimator, values, where):
        n_support_vectors = _check_support(estimator, values, where)
        n_rows = values["shape_fit_"][0]
        _expect_shape(values, "n_support_", (1,), where, " (one problem)")
        if int(values["n_support_"][0]) != n_support_vectors:
            _fail(f"{where}.n_support_", f"counts {int(values['n_support_'][0])} support vectors, "
                                         f"support_ has {n_support_vectors}")
        _expect_shape(values, "dual_coef_", (1, n_support_vectors), where)
        _expect_shape(values, "intercept_", (1,), where)
        for name in ("alpha_", "alpha_star_", "slack_"):
            if name in values:
                _expect_shape(values, name, (n_rows,), where, " (one per training row)")
        rows = values["kkt.rows"]
        _check_indices(rows, n_rows, f"{where}.kkt.rows", "rows of the training data")
        if np.any(np.diff(rows) <= 0):
            _fail(f"{where}.kkt.rows", "must be strictly increasing")
        for name in self.report:
            if name != "kkt.epsilon" and name != "kkt.rows":
                _expect_shape(values, name, rows.shape, where, " (one per row of kkt.rows)")

    def restore(self, estimator, values):
        report = {name: values.pop(name) for name in self.report}
        super().restore(estimator, values)
        for name, private in self.report.items():
            setattr(estimator, private, report[name])
        estimator._keep_prediction_model()

    def from_version_1(self, state):
        fields = _version_1_fields(state, self.public)
        if fields:
            fields.update({name: state[private] for name, private in self.report.items() if private in state})
        return fields, {}


_SINGLE_PROBLEM_FIELDS = (
    *_FEATURE_FIELDS,
    *_KERNEL_SVM_FIELDS,
    _Field("n_iter_", _Int(), "two-variable updates of the solver"),
    _Field("fit_status_", _Int(), "0 if the solver converged, else 1"),
)
_REPORT_ROWS = _Field("kkt.rows", _Integers(1), "training rows of positive weight, which kkt_report() reports")
_REPORT_UPPER = _Field("kkt.upper", _Floats(1), "upper bound of the multipliers of each of those rows")


class _OneClassSVMSchema(_SingleProblemSchema):
    name = "svmkit.OneClassSVM"
    class_name = "OneClassSVM"
    aliases = ("svmkit.svm.OneClassSVM",)
    fields = (
        *_SINGLE_PROBLEM_FIELDS,
        _Field("offset_", _Floats(1), "rho = -intercept_"),
        _Field("alpha_", _Floats(1), "the multiplier of each training row"),
        _Field("slack_", _Floats(1), "xi_i = max(0, -f(x_i)) of each training row"),
        _Field("dual_objective_", _Real(), "-1/2 a'Ka"),
        _Field("primal_objective_", _Real(), "1/2 a'Ka - nu sum(w) rho + sum w_i xi_i"),
        _Field("duality_gap_", _Real(), "primal_objective_ - dual_objective_"),
        _REPORT_ROWS,
        _REPORT_UPPER,
        _Field("kkt.f", _Floats(1), "f(x_i) of each of those rows"),
    )
    public = tuple(field.name for field in fields if not field.name.startswith("kkt."))
    report = {"kkt.rows": "_report_rows", "kkt.upper": "_upper", "kkt.f": "_f"}

    def check(self, estimator, values, where):
        super().check(estimator, values, where)
        if not np.array_equal(values["offset_"], -values["intercept_"]):
            _fail(f"{where}.offset_", "must be -intercept_")


class _SVRSchema(_SingleProblemSchema):
    name = "svmkit.SVR"
    class_name = "SVR"
    aliases = ("svmkit.svm.SVR",)
    fields = (
        *_SINGLE_PROBLEM_FIELDS,
        _Field("alpha_", _Floats(1), "multiplier of the upper constraint y - f <= epsilon + xi of each training row"),
        _Field("alpha_star_", _Floats(1), "multiplier of the lower constraint of each training row"),
        _Field("slack_", _Floats(1), "max(0, |y_i - f(x_i)| - epsilon) of each training row"),
        _Field("dual_objective_", _Real(), "the dual objective (to be maximised)"),
        _Field("primal_objective_", _Real(), "the primal objective"),
        _Field("duality_gap_", _Real(), "primal_objective_ - dual_objective_"),
        _REPORT_ROWS,
        _REPORT_UPPER,
        _Field("kkt.residual", _Floats(1), "residual y_i - f(x_i) of each of those rows"),
        _Field("kkt.epsilon", _Real(), "half-width of the tube that the solution reaches"),
    )
    public = tuple(field.name for field in fields if not field.name.startswith("kkt."))
    report = {"kkt.rows": "_report_rows", "kkt.upper": "_upper", "kkt.residual": "_residual", "kkt.epsilon": "_epsilon"}


class _NuSVRSchema(_SVRSchema):
    name = "svmkit.NuSVR"
    class_name = "NuSVR"
    aliases = ("svmkit.svm.NuSVR",)
    fields = (
        *_SVRSchema.fields[:-4],
        _Field("epsilon_", _Real(), "the learned half-width of the tube"),
        *_SVRSchema.fields[-4:],
    )
    public = tuple(field.name for field in fields if not field.name.startswith("kkt."))
