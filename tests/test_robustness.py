"""Inputs that once crashed the process, ran without end or gave non-finite models (issue 61):
each gives a documented exception or the right result. What could crash runs in a subprocess."""

import io
import json
import os
import struct
import subprocess
import sys
import textwrap
import tracemalloc
import warnings
import zipfile
import zlib

import numpy as np
import pytest
import scipy.sparse as sp
from numpy.testing import assert_allclose, assert_array_equal
from sklearn.exceptions import ConvergenceWarning
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import svmkit
from svmkit import (
    SVC, SVR, KernelPerceptron, LinearSVC, ModelFileError, NotSeparableError, NuSVC, NuSVR, OneClassSVM, PegasosSVC,
    Perceptron,
)
from svmkit.io import LibsvmFormatError, load_libsvm, load_libsvm_model, load_libsvm_precomputed
from svmkit.naive_bayes import CategoricalNB, GaussianNB, MixedNB

rng = np.random.RandomState(0)
X = rng.randn(30, 3)
y = (X[:, 0] > 0).astype(int)
y3 = np.digitize(X[:, 0], [-0.5, 0.5])
X_CATEGORIES = np.digitize(X, [-1.0, 0.0, 1.0])  # (categories 0 to 3 in each column)
y_reg = X @ [1.0, -2.0, 0.5]
X_big = X / np.abs(X).max() * 1e308  # finite values up to 1e308


def _run_isolated(code):
    """Run ``code`` in a fresh interpreter (a crash there fails the test, not the suite)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True, text=True,
                          timeout=600, env=env)


def test_the_issues_reproducers_raise_documented_errors_in_a_subprocess():
    result = _run_isolated('''
        import io, json, numpy as np, svmkit
        from svmkit import SVC, NuSVC, NuSVR, OneClassSVM
        rng = np.random.RandomState(0); X = rng.randn(30, 3); y = (X[:, 0] > 0).astype(int)
        Xo = rng.randn(200, 2); yo = Xo[:, 0] + .8 * rng.randn(200) > 0
        cases = {
            "poly coef0=1e308": lambda: SVC(kernel="poly", coef0=1e308).fit(X, y),
            "NuSVC weights 1e308": lambda: NuSVC().fit(X, y, sample_weight=np.full(30, 1e308)),
            "OneClassSVM weights 1e308": lambda: OneClassSVM().fit(X, sample_weight=np.full(30, 1e308)),
            "NuSVR weights 1e308": lambda: NuSVR().fit(X, X @ [1.0, -2, .5], sample_weight=np.full(30, 1e308)),
            "callable 1e308": lambda: SVC(kernel=lambda A, B: np.full((len(A), len(B)), 1e308)).fit(X, y),
            "NuSVR C=1e308": lambda: NuSVR(C=1e308).fit(X, X @ [1.0, -2, .5]),
            "hard margin rbf": lambda: SVC(C=np.inf, kernel="rbf").fit(Xo, yo),
            "class_weight nan": lambda: SVC(class_weight={0: float("nan")}).fit(X, y),
        }
        outcome = {}
        for name, case in cases.items():
            try:
                case()
                outcome[name] = "fitted"
            except Exception as error:
                outcome[name] = type(error).__name__
        print(json.dumps(outcome))
    ''')
    assert result.returncode == 0, result.stderr[-2000:]
    outcome = json.loads(result.stdout.strip().splitlines()[-1])
    assert outcome == {
        "poly coef0=1e308": "ValueError",
        "NuSVC weights 1e308": "ValueError",
        "OneClassSVM weights 1e308": "ValueError",
        "NuSVR weights 1e308": "ValueError",
        "callable 1e308": "ValueError",
        "NuSVR C=1e308": "ValueError",
        "hard margin rbf": "NotSeparableError",
        "class_weight nan": "ValueError",
    }


@pytest.mark.parametrize(
    "make, fit_args, message",
    [
        (lambda: SVC(kernel="poly", coef0=1e308), (X, y), r"kernel='poly' \(gamma='scale', coef0=1e\+308"),
        (lambda: SVC(kernel=lambda A, B: np.full((len(A), len(B)), 1e308)), (X, y), "the kernel <function"),
        (lambda: NuSVR(C=1e308), (X, y_reg), r"C \* sample_weight overflows"),
        (lambda: NuSVC(), (X, y, np.full(30, 1e308)), r"class_weight \* sample_weight overflows"),
        (lambda: SVC(C=1e300), (X, y, np.full(30, 1e10)), r"C \* class_weight \* sample_weight overflows"),
        (lambda: SVC(class_weight={0: float("nan")}), (X, y), "class_weight must map each class"),
        (lambda: SVC(class_weight={0: -1.0}), (X, y), "class_weight must map each class"),
        (lambda: LinearSVC(class_weight={1: float("inf")}), (X, y), "class_weight must map each class"),
        (lambda: SVR(), (X, y * 1e308), "intercept_ is not finite"),
        (lambda: SVC(kernel="linear"), (X_big, y), "kernel='linear' are not finite"),
        (lambda: PegasosSVC(random_state=0), (X_big, y), "weights is not finite"),
        (lambda: PegasosSVC(C=1e308), (X, y), "lambda = 1 / \\(2 C n\\)"),
        (lambda: Perceptron(eta=1e308), (X, y), "weights is not finite"),
        (lambda: KernelPerceptron(), (X_big, y), "variance of X overflows"),
        (lambda: KernelPerceptron(kernel="poly", coef0=1e308), (X, y), "kernel values of kernel='poly'"),
        (lambda: GaussianNB(), (X_big, y), "theta_ is not finite"),
        (lambda: MixedNB(), (X_big, y), "theta_ is not finite"),
        (lambda: GaussianNB(), (X, y, np.full(30, 1e308)), "class_count_ is not finite"),
        (lambda: CategoricalNB(alpha=1e308), ((X > 0).astype(int), y), "use a smaller alpha"),
    ],
)
def test_overflowing_parameters_weights_and_data_raise_a_value_error_naming_them(make, fit_args, message):
    with pytest.raises(ValueError, match=message):
        make().fit(*fit_args)


def test_bounds_whose_sum_rounds_past_float64_are_refused():
    """C times 11 unit weights is finite as a product but their sum, rounded, is not: the
    bounds' overflow check still sees it."""
    rows = np.flatnonzero(y == 0)[:5].tolist() + np.flatnonzero(y == 1)[:6].tolist()
    with pytest.raises(ValueError, match=r"C \* class_weight \* sample_weight overflows"):
        SVC(C=1.6342664862384688e307).fit(X[rows], y[rows])


@pytest.mark.parametrize("estimator", [SVC, SVR, OneClassSVM])
def test_a_fit_without_its_data_names_the_missing_argument(estimator):
    with pytest.raises(TypeError, match=r"missing (1|2) required positional arguments?: 'X'"):
        estimator().fit()


@pytest.mark.parametrize("estimator", [SVC, NuSVC, SVR, NuSVR, OneClassSVM])
@pytest.mark.parametrize(
    "params",
    [
        {"n_jobs": 0}, {"n_jobs": float("nan")}, {"n_jobs": float("inf")}, {"n_jobs": 2.5}, {"n_jobs": "abc"},
        {"shrinking": "yes"}, {"shrinking": 1}, {"degree": 2.5}, {"degree": "abc"}, {"coef0": float("inf")},
        {"tol": float("inf")}, {"cache_size": float("nan")}, {"verbose": "abc"}, {"max_iter": 2.5},
    ],
)
def test_every_kernel_svm_refuses_invalid_parameters(estimator, params):
    if "n_jobs" in params and estimator in (SVR, NuSVR, OneClassSVM):
        pytest.skip("no n_jobs parameter")
    fit_args = (X,) if estimator is OneClassSVM else (X, y_reg if estimator in (SVR, NuSVR) else y)
    with pytest.raises(ValueError, match=next(iter(params))):
        estimator(**params).fit(*fit_args)


@pytest.mark.parametrize("estimator", [SVC, NuSVC, LinearSVC, PegasosSVC])
def test_random_state_is_checked_as_scikit_learn_does(estimator):
    with pytest.raises(ValueError, match="random_state"):
        estimator(random_state="abc").fit(X, y)


def test_hard_margin_on_numerically_singular_rbf_kernel_is_not_separable_not_a_solver_status():
    Xo = rng.randn(200, 2)
    yo = Xo[:, 0] + 0.8 * rng.randn(200) > 0
    with pytest.raises(NotSeparableError, match="not separable|no solution"):
        SVC(C=np.inf, kernel="rbf").fit(Xo, yo)


@pytest.mark.parametrize("estimator", [SVC, NuSVC, SVR, NuSVR, OneClassSVM])
@pytest.mark.parametrize("layout", [np.asarray, sp.csr_matrix])
def test_an_asymmetric_precomputed_kernel_is_refused(estimator, layout):
    A, B = rng.randn(30, 3), rng.randn(30, 3)
    K = layout(A @ B.T)  # (the reproducer: NuSVR iterated for minutes on it with a flat gap)
    fit_args = (K,) if estimator is OneClassSVM else (K, y_reg if estimator in (SVR, NuSVR) else y)
    with pytest.raises(ValueError, match=r"precomputed kernel matrix is not symmetric: K\[\d+, \d+\] = "):
        estimator(kernel="precomputed").fit(*fit_args)


def test_a_precomputed_kernel_symmetric_up_to_float32_round_off_is_accepted():
    K = X @ X.T
    noisy = K * (1 + 1e-7 * rng.uniform(-1, 1, K.shape))  # (not symmetric in its last bits)
    assert not np.array_equal(noisy, noisy.T)
    exact = SVC(kernel="precomputed").fit(K, y)
    assert_array_equal(SVC(kernel="precomputed").fit(noisy, y).support_, exact.support_)


def test_a_tol_below_round_off_stops_at_a_stall_with_the_gap_reached():
    Xo = np.random.RandomState(0).randn(300, 4)
    yo = (Xo[:, 0] + 0.8 * np.random.RandomState(1).randn(300) > 0).astype(int)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        model = SVC(tol=1e-308).fit(Xo, yo)
    messages = [str(w.message) for w in caught if issubclass(w.category, ConvergenceWarning)]
    problem = model.binary_models_[0]
    if problem.status == 0:
        # (round-off may also end at a gap of exactly zero, below any tol: it does here where
        # OpenBLAS takes its AVX-512 kernels, OPENBLAS_CORETYPE=SkylakeX, for the steps on the
        # face; with its Haswell kernels the solver stalls at 2.8e-17 after 208,000 steps)
        assert problem.gap == 0.0 and messages == []
    else:
        assert len(messages) == 1
        assert f"stopped improving at the KKT gap {problem.gap:.3e} > tol=1e-308" in messages[0]
    # (without the stall it ran to the default limit of 10 million steps, about as accurate)
    assert model.n_iter_[0] < 1_000_000
    assert_allclose(model.dual_coef_, SVC(tol=1e-12).fit(Xo, yo).dual_coef_, rtol=1e-6, atol=1e-9)


def _duplicated_csr():
    """Rows whose entries for a column are split in two (unsorted, duplicated), and the same
    rows canonical."""
    dense = np.abs(rng.randn(12, 4)) + 0.1
    rows, cols, vals = [], [], []
    for i in range(dense.shape[0]):
        for j in reversed(range(dense.shape[1])):
            rows += [i, i]
            cols += [j, j]
            vals += [0.25 * dense[i, j], 0.75 * dense[i, j]]
    raw = sp.csr_matrix((np.array(vals), np.array(cols), np.arange(0, 2 * dense.size + 1, 2 * dense.shape[1])),
                        shape=dense.shape)
    return raw, sp.csr_matrix(dense)


@pytest.mark.parametrize(
    "make",
    [lambda: SVC(kernel="rbf"), lambda: SVC(kernel="poly", degree=2), lambda: PegasosSVC(random_state=0),
     lambda: LinearSVC(random_state=0), lambda: Perceptron(), lambda: KernelPerceptron(kernel="rbf")],
)
def test_duplicate_csr_entries_are_summed_per_column_as_scikit_learn_reads_them(make):
    raw, canonical = _duplicated_csr()
    assert not raw.has_canonical_format
    labels = np.arange(12) % 2
    before = raw.data.copy()
    fitted_raw, fitted = make().fit(raw, labels), make().fit(canonical, labels)
    np.testing.assert_array_equal(raw.data, before)  # (the caller's matrix is left as it was)
    np.testing.assert_allclose(fitted_raw.decision_function(raw), fitted.decision_function(canonical),
                               rtol=1e-9, atol=1e-12)


def _inconsistent_csr(which):
    """Heart-like CSR rows whose arrays SciPy's constructor accepts but do not describe the
    matrix: a column index beyond its width, a negative one, or row pointers past its values."""
    X = sp.random(24, 13, density=0.3, format="csr", random_state=np.random.default_rng(5))
    X = sp.csr_matrix((X.data.copy(), X.indices.copy(), X.indptr.copy()), shape=X.shape)
    if which == "index beyond the columns":
        X.indices[3] = 10**6
    elif which == "negative index":
        X.indices[3] = -2
    else:
        X.indptr[-1] += 50
    return X


@pytest.mark.parametrize("which, message", [
    ("index beyond the columns", r"X\.indices holds column indices outside \[0, 13\)"),
    ("negative index", r"X\.indices holds column indices outside \[0, 13\)"),
    ("row pointers past the values", r"X\.indptr must rise from 0 to the number of values"),
])
@pytest.mark.parametrize("make", [
    lambda: SVC(), lambda: SVR(), lambda: OneClassSVM(), lambda: LinearSVC(), lambda: Perceptron(),
    lambda: svmkit.LibsvmScaler(), lambda: svmkit.SVCGridSearch(log2_C=(0, 0, 1), log2_gamma=(-3, -3, -1), cv=2),
])
def test_a_csr_matrix_whose_arrays_do_not_describe_it_is_refused_by_fit_and_predict(make, which, message):
    """Compiled code (SciPy's and svmkit's) reads a CSR matrix's arrays without bounds checks: such
    a matrix crashed the process (SIGSEGV) in fit and predict; now a ValueError names the array."""
    bad = _inconsistent_csr(which)
    labels = np.arange(24) % 2
    with pytest.raises(ValueError, match=message):
        make().fit(bad, labels)
    good = sp.random(24, 13, density=0.3, format="csr", random_state=np.random.default_rng(6))
    fitted = make().fit(good, labels)
    with pytest.raises(ValueError, match=message):
        (fitted.transform if hasattr(fitted, "transform") else fitted.predict)(bad)


def test_a_huge_feature_index_is_refused_unless_max_features_allows_it():
    text = b"1 2147483647:1\n-1 1:1\n"
    with pytest.raises(LibsvmFormatError, match="line 1: feature index 2147483647 is larger than max_features"):
        load_libsvm(io.BytesIO(text))
    X_wide, _ = load_libsvm(io.BytesIO(text), max_features=None)
    assert X_wide.shape == (2, 2147483647)
    X_given, _ = load_libsvm(io.BytesIO(b"1 3:1\n"), n_features=5)
    assert X_given.shape == (1, 5)


def test_a_model_file_with_a_huge_feature_index_or_serial_is_refused():
    header = (b"svm_type c_svc\nkernel_type linear\nnr_class 2\ntotal_sv 2\nrho 0\nlabel 1 -1\nnr_sv 1 1\nSV\n")
    with pytest.raises(LibsvmFormatError, match="larger than max_features"):
        load_libsvm_model(io.BytesIO(header + b"1 2147483647:1\n-1 1:1\n"))
    precomputed = header.replace(b"linear", b"precomputed")
    with pytest.raises(LibsvmFormatError, match=r"serial number of a support vector is an integer >= 1 \(at most 2147483647\)"):
        load_libsvm_model(io.BytesIO(precomputed + b"1 0:1e300\n-1 0:1\n"))


def test_a_precomputed_kernel_file_with_a_huge_serial_is_a_format_error():
    with pytest.raises(LibsvmFormatError, match="serial number"):
        load_libsvm_precomputed(io.BytesIO(b"1 0:1e300 1:1\n"))


# -- fuzzing ---------------------------------------------------------------------------------

_SPECIAL = [np.nan, np.inf, -np.inf, 1e308, -1e308, 1e-308, 0, -1, 2.5, "abc", True, None]
_FUZZED = {
    SVC: ["C", "gamma", "coef0", "degree", "tol", "cache_size", "shrinking", "max_iter", "n_jobs", "random_state"],
    NuSVC: ["nu", "gamma", "coef0", "tol", "shrinking"],
    SVR: ["C", "epsilon", "gamma", "coef0", "tol"],
    NuSVR: ["C", "nu", "gamma", "tol"],
    OneClassSVM: ["nu", "gamma", "coef0", "tol"],
    LinearSVC: ["C", "tol", "intercept_scaling", "max_iter", "random_state"],
    PegasosSVC: ["C", "intercept_scaling", "max_iter", "random_state"],
    Perceptron: ["eta", "max_iter"],
    KernelPerceptron: ["gamma", "coef0", "degree", "max_iter"],
    GaussianNB: ["var_smoothing", "ddof"],
    MixedNB: ["var_smoothing", "alpha"],
}
_WEIGHTED = (SVC, NuSVC, SVR, NuSVR, OneClassSVM, LinearSVC, GaussianNB, MixedNB)


def _assert_finite_model(model):
    for name in ("coef_", "intercept_", "dual_coef_", "theta_", "var_", "class_count_"):
        value = vars(model).get(name)
        if value is not None:
            assert np.all(np.isfinite(np.asarray(value, dtype=np.float64))), name


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    estimator=st.sampled_from(sorted(_FUZZED, key=lambda cls: cls.__name__)),
    choices=st.lists(st.tuples(st.integers(0, 99), st.sampled_from(_SPECIAL)), max_size=3),
    weight=st.one_of(st.none(), st.sampled_from([np.nan, np.inf, 1e308, -1.0, 0.0, 1e-308])),
    scale=st.sampled_from([1.0, 1e150, 1e308 / 3]),
)
def test_fuzzed_parameters_weights_and_data_give_documented_errors_or_finite_models(estimator, choices, weight, scale):
    names = _FUZZED[estimator]
    params = {names[index % len(names)]: value for index, value in choices}
    fit_args = [X * scale, y_reg if estimator in (SVR, NuSVR) else y3]
    if estimator is OneClassSVM:
        fit_args = fit_args[:1]
    kwargs = {}
    if weight is not None and estimator in _WEIGHTED:
        weights = np.ones(30)
        weights[::3] = weight
        kwargs["sample_weight"] = weights
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            model = estimator(**params).fit(*fit_args, **kwargs)
        except (ValueError, TypeError):  # (scikit-learn's InvalidParameterError is both)
            return
    _assert_finite_model(model)


def _members(blob):
    with zipfile.ZipFile(io.BytesIO(blob)) as archive:
        return {info.filename[: -len(".npy")]: np.load(io.BytesIO(archive.read(info))) for info in archive.infolist()}


def _pack(arrays):
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for name, array in arrays.items():
            buffer = io.BytesIO()
            np.save(buffer, array, allow_pickle=False)
            archive.writestr(name + ".npy", buffer.getvalue())
    return out.getvalue()


def _mutated(array, kind, position, value):
    """One structural mutation of a member: transposed, cut short, retyped, a value replaced,
    emptied, repeated or given an extra axis."""
    if kind == 0 and array.ndim == 2:
        return np.ascontiguousarray(array.T)
    if kind == 1 and array.size:
        return array.ravel()[:-1]
    if kind == 2:
        return array.astype(np.int32 if array.dtype.kind == "f" else np.float64)
    if kind == 3 and array.size:
        array = array.astype(np.float64) if array.dtype.kind != "b" else array.copy()
        array.flat[position % array.size] = value
        return array
    if kind == 4:
        return array[:0]
    if kind == 5 and array.size:
        return np.repeat(array, 2, axis=0)
    return array.reshape(array.shape + (1,))


def _saved_models():
    models = [SVC().fit(X, y3), SVC(kernel="precomputed").fit(X @ X.T, y), NuSVR(kernel="poly").fit(X, y_reg),
              OneClassSVM().fit(X), LinearSVC().fit(X, y3), KernelPerceptron().fit(X, y3), MixedNB().fit(X, y),
              GaussianNB().fit(X, y3), CategoricalNB().fit(X_CATEGORIES, y)]
    saved = []
    for model in models:
        buffer = io.BytesIO()
        svmkit.save(model, buffer)
        data = X @ X.T if getattr(model, "kernel", None) == "precomputed" else (
            X_CATEGORIES if isinstance(model, CategoricalNB) else X)
        saved.append((_members(buffer.getvalue()), data))
    return saved


_SAVED = []


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    which=st.integers(0, 8),
    mutations=st.lists(
        st.tuples(st.integers(0, 40), st.integers(0, 6), st.integers(0, 1000),
                  st.sampled_from([np.nan, np.inf, -1.0, 0.0, 2.0**31 - 1, -2.0**31, 2.0**62])),
        min_size=1, max_size=3),
)
def test_loading_structurally_valid_but_mutated_model_files_gives_model_file_errors(which, mutations):
    if not _SAVED:
        _SAVED.extend(_saved_models())
    members, data = _SAVED[which]
    members = dict(members)
    for member, kind, position, value in mutations:
        names = sorted(name for name in members if name != "metadata")
        name = names[member % len(names)]
        members[name] = _mutated(members[name], kind, position, value)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            model = svmkit.load(io.BytesIO(_pack(members)))
            model.predict(data)
            if hasattr(model, "predict_proba"):  # (naive Bayes: posteriors from the file's log-probabilities)
                assert np.isfinite(model.predict_proba(data)).all()
        except (ModelFileError, ValueError):
            return


@pytest.mark.parametrize("value", [np.inf, -np.inf, np.nan])
def test_a_model_file_with_a_label_that_is_not_finite_is_refused(value):
    buffer = io.BytesIO()
    svmkit.save(NuSVC().fit(X, y3), buffer)
    members = _members(buffer.getvalue())
    members["classes_"] = np.array([value, 1.0, 2.0]) if value < 0 else np.array([0.0, 1.0, value])
    with pytest.raises(ModelFileError, match="labels must be finite"):
        svmkit.load(io.BytesIO(_pack(members)))


@pytest.mark.parametrize("value", [np.inf, 0.5, np.nan])
@pytest.mark.parametrize("member", ["class_log_prior_", "feature_log_prob_[0]"])
def test_a_naive_bayes_file_with_a_log_probability_above_0_is_refused(member, value):
    buffer = io.BytesIO()
    svmkit.save(MixedNB(categorical=[3]).fit(np.c_[X, X_CATEGORIES[:, 0]], y), buffer)
    members = _members(buffer.getvalue())
    assert member in members
    members[member] = members[member].copy()
    members[member].flat[0] = value
    with pytest.raises(ModelFileError, match="holds NaN or log-probabilities above 0"):
        svmkit.load(io.BytesIO(_pack(members)))


@pytest.mark.parametrize(
    "make, member, methods",
    [
        (lambda: SVC().fit(X, y3), "dual_coef_", ("predict", "decision_function")),
        (lambda: SVC(kernel="linear").fit(X, y), "support_vectors_", ("predict", "decision_function")),
        (lambda: NuSVR(kernel="poly").fit(X, y_reg), "support_vectors_", ("predict",)),
        (lambda: OneClassSVM().fit(X), "dual_coef_", ("predict", "decision_function", "score_samples")),
        (lambda: LinearSVC().fit(X, y3), "coef_", ("predict", "decision_function")),
        (lambda: PegasosSVC(random_state=0).fit(X, y), "coef_", ("predict", "decision_function")),
        (lambda: KernelPerceptron().fit(X, y3), "dual_coef_", ("predict", "decision_function")),
    ],
)
def test_a_model_file_with_huge_finite_values_predicts_an_error_not_inf_or_nan(make, member, methods):
    buffer = io.BytesIO()
    svmkit.save(make(), buffer)
    members = _members(buffer.getvalue())
    members[member] = np.where(members[member] != 0, np.copysign(1e308, members[member]), 0.0)
    model = svmkit.load(io.BytesIO(_pack(members)))  # (finite values: the file is well formed)
    for method in methods:
        with pytest.raises(ValueError, match=r"are not finite for some samples: the model's .*" + member):
            getattr(model, method)(X)


def _zeros_deflated(n_mib):
    """A raw deflate stream of ``n_mib`` MiB of zero bytes, made of copies of one
    self-contained block (a full flush resets the compressor), so never held expanded."""
    compressor = zlib.compressobj(9, zlib.DEFLATED, -15)
    block = compressor.compress(bytes(2**20)) + compressor.flush(zlib.Z_FULL_FLUSH)
    return block * n_mib + zlib.compressobj(9, zlib.DEFLATED, -15).flush()


def _one_member_zip(name, stream, declared_size, crc):
    """A ZIP archive of one deflated member ``name`` whose headers declare ``declared_size``."""
    name = name.encode()
    local = struct.pack("<IHHHHHIIIHH", 0x04034B50, 20, 0, 8, 0, 0x21, crc, len(stream), declared_size, len(name), 0)
    central = struct.pack("<IHHHHHHIIIHHHHHII", 0x02014B50, 20, 20, 0, 8, 0, 0x21, crc, len(stream), declared_size,
                          len(name), 0, 0, 0, 0, 0, 0)
    directory = central + name
    end = struct.pack("<IHHHHIIH", 0x06054B50, 0, 0, 1, 1, len(directory), len(local) + len(name) + len(stream), 0)
    return local + name + stream + directory + end


def _crc_of_zeros(n_bytes):
    crc = 0
    for start in range(0, n_bytes, 2**24):
        crc = zlib.crc32(bytes(min(2**24, n_bytes - start)), crc)
    return crc


@pytest.mark.parametrize("declared", ["honest", "understated"])
def test_a_zip_bomb_is_refused_quickly_in_bounded_memory(declared):
    n_mib = 3 * 1024  # (3 GiB of zeros, from a file of about 3 MB)
    stream = _zeros_deflated(n_mib)
    assert len(stream) < 4 * 2**20
    if declared == "honest":
        bomb = _one_member_zip("metadata.npy", stream, n_mib * 2**20, 0)  # (refused before its checksum counts)
        message = r"refusing to decompress the svmkit model file: its members would expand to 3221225472 bytes"
    else:  # (the headers claim 1000 bytes and the checksum of 1000 zeros: the stream holds far more)
        bomb = _one_member_zip("metadata.npy", stream, 1000, _crc_of_zeros(1000))
        message = "truncated or corrupted svmkit model file: ValueError: the magic string is not correct"
    tracemalloc.start()
    try:
        with pytest.raises(ModelFileError, match=message):
            svmkit.load(io.BytesIO(bomb))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 * 2**20


@pytest.mark.parametrize("class_name", ["svmkit.cli._options._Option", "os.system", "svmkit.kernels.RBFKernel"])
def test_a_model_file_may_name_only_saveable_estimator_classes(class_name):
    buffer = io.BytesIO()
    svmkit.save(SVC().fit(X, y), buffer)
    members = _members(buffer.getvalue())
    metadata = json.loads(bytes(members["metadata"]).decode())
    metadata["estimator"] = class_name
    members["metadata"] = np.frombuffer(json.dumps(metadata).encode(), dtype=np.uint8)
    with pytest.raises(ModelFileError, match="refusing to load"):
        svmkit.load(io.BytesIO(_pack(members)))


def test_a_parameter_made_invalid_after_a_fit_is_refused_at_the_next_fit():
    """Valid settings are remembered, so that refits skip their checks; a value changed to an
    invalid one (a negative C, shrinking="yes") is still refused."""
    model = SVC(C=1).fit(X, y)
    with pytest.raises(ValueError, match="C"):
        model.set_params(C=-1.0).fit(X, y)
    with pytest.raises(ValueError, match="shrinking"):
        model.set_params(C=1, shrinking="yes").fit(X, y)
