"""Tests of svmkit.naive_bayes: the seeds' worked examples, scikit-learn agreement, missing values."""

import doctest
import math
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from sklearn import naive_bayes as sklearn_nb
from sklearn.datasets import load_breast_cancer, load_iris, load_wine
from sklearn.exceptions import NotFittedError
from sklearn.utils.estimator_checks import parametrize_with_checks

import svmkit.naive_bayes
from svmkit.naive_bayes import CategoricalNB, Explanation, GaussianNB, MixedNB
from svmkit.naive_bayes import _base, _categorical, _classifiers, _gaussian, _input

TAX_EVASION = Path(__file__).parent / "data" / "tax_evasion.csv"


@pytest.fixture
def tax():
    """The seeds' table (Tan, Steinbach, Kumar): features and the Evade label."""
    table = pd.read_csv(TAX_EVASION, index_col="Tid")
    return table.drop(columns="Evade"), table["Evade"]


def normal_density(x, mean, sd):
    return math.exp(-((x - mean) ** 2) / (2 * sd**2)) / (math.sqrt(2 * math.pi) * sd)


# -- the seeds' worked examples ----------------------------------------------------------------


def test_tax_evasion_priors_and_unsmoothed_conditionals(tax):
    X, y = tax
    model = MixedNB(alpha=0).fit(X, y)
    assert model.classes_.tolist() == ["No", "Yes"]
    assert model.categorical_features_.tolist() == [0, 1]
    assert model.gaussian_features_.tolist() == [2]
    np.testing.assert_allclose(model.class_prior_, [7 / 10, 3 / 10], rtol=1e-15)
    refund, status = model.feature_log_prob_
    assert model.categories_[1].tolist() == ["Divorced", "Married", "Single"]
    np.testing.assert_allclose(np.exp(status[0, 1]), 4 / 7, rtol=1e-14)  # P(Married | No)
    assert model.categories_[0].tolist() == ["No", "Yes"]
    assert np.exp(refund[1, 1]) == 0.0 and refund[1, 1] == -np.inf  # P(Refund = Yes | Yes)
    # every record of the table still gets a posterior without NaN, and a Refund = Yes record cannot evade
    proba = model.predict_proba(X)
    assert np.isfinite(proba).all()
    np.testing.assert_array_equal(proba[X["Refund"].to_numpy() == "Yes", 1], 0.0)


def test_tax_evasion_laplace_smoothing(tax):
    X, y = tax
    model = MixedNB(alpha=1).fit(X, y)
    np.testing.assert_allclose(np.exp(model.feature_log_prob_[1][0, 1]), (4 + 1) / (7 + 3), rtol=1e-14)
    np.testing.assert_allclose(np.exp(model.feature_log_prob_[0][1, 1]), (0 + 1) / (3 + 2), rtol=1e-14)
    assert model.n_categories_.tolist() == [2, 3]


def test_tax_evasion_income_density(tax):
    X, y = tax
    model = MixedNB().fit(X, y)  # ddof=1: the sample standard deviation of the seeds
    np.testing.assert_allclose(model.theta_[:, 0], [110.0, 90.0], rtol=1e-14)
    np.testing.assert_allclose(np.sqrt(model.var_[:, 0]), [54.5436, 5.0], atol=1e-4)
    record = pd.DataFrame({"Refund": ["No"], "Marital Status": ["Married"], "Taxable Income": [130]})
    income_term = model.explain(record).feature_log_likelihood[0, 0, 2]
    np.testing.assert_allclose(np.exp(income_term), 0.0068386, rtol=1e-5)
    # the seeds print 0.0068434: the same density with the standard deviation rounded to 54.5
    np.testing.assert_allclose(normal_density(130, 110, 54.5), 0.0068434, rtol=1e-5)


@pytest.mark.parametrize("alpha", [0, 1])
def test_tax_evasion_posterior_of_new_record(tax, alpha):
    X, y = tax
    model = MixedNB(alpha=alpha).fit(X, y)
    record = pd.DataFrame({"Refund": ["No"], "Marital Status": ["Married"], "Taxable Income": [120]})
    income = [125, 100, 70, 120, 95, 60, 220, 85, 75, 90]
    floor = 1e-9 * sum((v - 104) ** 2 for v in income) / 10  # var_smoothing * variance of the column
    sd_no = math.sqrt(sum((v - 110) ** 2 for v in [125, 100, 70, 120, 60, 220, 75]) / 6 + floor)
    sd_yes = math.sqrt(25 + floor)
    no = 7 / 10 * (4 + alpha) / (7 + 2 * alpha) * (4 + alpha) / (7 + 3 * alpha) * normal_density(120, 110, sd_no)
    yes = 3 / 10 * (3 + alpha) / (3 + 2 * alpha) * (0 + alpha) / (3 + 3 * alpha) * normal_density(120, 90, sd_yes)
    posterior = [[no / (no + yes), yes / (no + yes)]]
    np.testing.assert_allclose(model.predict_proba(record), posterior, rtol=1e-10, atol=1e-15)
    assert model.predict(record).tolist() == ["No"]
    if alpha == 0:
        assert model.predict_proba(record)[0, 1] == 0.0


def test_meningitis_example():
    p_stiff_neck_given_meningitis, p_meningitis, p_stiff_neck = 0.5, 1 / 50_000, 1 / 20
    assert math.isclose(p_stiff_neck_given_meningitis * p_meningitis / p_stiff_neck, 0.0002, rel_tol=1e-12)
    model = CategoricalNB(alpha=0).fit(
        [["stiff"], ["not stiff"], ["stiff"], ["not stiff"]],
        ["meningitis", "meningitis", "healthy", "healthy"],
        sample_weight=[0.5, 0.5, 2_499.5, 47_499.5],
    )
    assert math.isclose(model.predict_proba([["stiff"]])[0, 1], 0.0002, rel_tol=1e-12)
    assert "0.0002" in svmkit.naive_bayes.__doc__


@pytest.mark.parametrize("module", [svmkit.naive_bayes, _base, _classifiers, _categorical, _gaussian, _input])
def test_docstring_examples_run(module):
    result = doctest.testmod(module, optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.failed == 0


# -- agreement with scikit-learn ---------------------------------------------------------------


@pytest.mark.parametrize("load", [load_iris, load_wine, load_breast_cancer])
def test_gaussian_matches_sklearn_on_real_datasets(load):
    X, y = load(return_X_y=True)
    ours = GaussianNB(ddof=0).fit(X, y)
    theirs = sklearn_nb.GaussianNB().fit(X, y)
    np.testing.assert_allclose(ours.theta_, theirs.theta_, rtol=1e-12)
    np.testing.assert_allclose(ours.var_, theirs.var_, rtol=1e-10)
    np.testing.assert_allclose(ours.epsilon_, theirs.epsilon_, rtol=1e-10)
    np.testing.assert_allclose(ours.predict_proba(X), theirs.predict_proba(X), atol=1e-10)
    np.testing.assert_array_equal(ours.predict(X), theirs.predict(X))


@pytest.mark.parametrize("alpha", [1.0, 0.5])
def test_categorical_matches_sklearn_on_integer_codes(alpha):
    rng = np.random.default_rng(0)
    y = rng.integers(3, size=300)
    # 4 categories per column, every one seen, so values(A_i) = max code + 1 as scikit-learn counts
    X = (rng.integers(4, size=(300, 6)) + y[:, None]) % 4
    ours = CategoricalNB(alpha=alpha).fit(X, y)
    theirs = sklearn_nb.CategoricalNB(alpha=alpha).fit(X, y)
    for mine, sklearns in zip(ours.feature_log_prob_, theirs.feature_log_prob_):
        np.testing.assert_allclose(mine, sklearns, rtol=1e-13)
    X_test = rng.integers(4, size=(50, 6))
    np.testing.assert_allclose(ours.predict_proba(X_test), theirs.predict_proba(X_test), atol=1e-12)


def test_mixed_with_one_kind_of_column_equals_pure_model():
    rng = np.random.default_rng(1)
    y = rng.integers(2, size=120)
    real = rng.normal(size=(120, 3)) + y[:, None]
    codes = rng.integers(3, size=(120, 3))
    np.testing.assert_array_equal(
        MixedNB(categorical=[]).fit(real, y).predict_proba(real), GaussianNB().fit(real, y).predict_proba(real)
    )
    np.testing.assert_array_equal(
        MixedNB(categorical=[0, 1, 2]).fit(codes, y).predict_proba(codes),
        CategoricalNB().fit(codes, y).predict_proba(codes),
    )
    words = pd.DataFrame(np.array(["a", "b", "c"])[codes], columns=["p", "q", "r"])
    mixed = MixedNB().fit(words, y)
    assert mixed.categorical_features_.tolist() == [0, 1, 2]
    np.testing.assert_array_equal(mixed.predict_proba(words), CategoricalNB().fit(words, y).predict_proba(words))


def test_mixed_combines_the_two_pure_models():
    rng = np.random.default_rng(2)
    y = rng.integers(3, size=150)
    frame = pd.DataFrame({"x": rng.normal(size=150) + y, "colour": rng.choice(["red", "green"], size=150)})
    mixed = MixedNB().fit(frame, y)
    gaussian = GaussianNB().fit(frame[["x"]], y)
    categorical = CategoricalNB().fit(frame[["colour"]], y)
    # log P(C | x, colour) = log P(C | x) + log P(C | colour) - log P(C) + constant
    expected = gaussian.predict_log_proba(frame[["x"]]) + categorical.predict_log_proba(frame[["colour"]])
    expected -= np.log(mixed.class_prior_)
    expected -= np.log(np.exp(expected).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(mixed.predict_log_proba(frame), expected, atol=1e-12)


@parametrize_with_checks([GaussianNB(), CategoricalNB(), MixedNB()])
def test_sklearn_estimator_checks(estimator, check):
    check(estimator)


# -- missing values ----------------------------------------------------------------------------


def with_missing(values, fraction, rng, missing=np.nan):
    values = values.astype(float if values.dtype.kind == "f" else object)
    values[rng.random(values.shape[0]) < fraction] = missing
    return values


def test_gaussian_moments_leave_missing_values_out():
    rng = np.random.default_rng(3)
    y = rng.integers(2, size=200)
    X = rng.normal(size=(200, 2)) + y[:, None]
    X[:, 0] = with_missing(X[:, 0], 0.3, rng)
    model = GaussianNB(ddof=1).fit(X, y)
    observed = ~np.isnan(X[:, 0])
    by_hand = GaussianNB(ddof=1).fit(X[observed, :1], y[observed])
    assert 0.2 < 1 - observed.mean() < 0.4
    np.testing.assert_allclose(model.theta_[:, 0], by_hand.theta_[:, 0], rtol=1e-12)
    np.testing.assert_allclose(model.var_[:, 0] - model.epsilon_, by_hand.var_[:, 0] - by_hand.epsilon_, rtol=1e-12)
    np.testing.assert_array_equal(model.gaussian_count_[:, 0], np.bincount(y[observed]))
    np.testing.assert_array_equal(model.class_count_, np.bincount(y))  # the priors still use every row


@pytest.mark.parametrize("missing", [np.nan, None, pd.NA])
def test_category_counts_leave_missing_values_out(missing):
    rng = np.random.default_rng(4)
    y = rng.integers(2, size=200)
    colours = rng.choice(np.array(["red", "green", "blue"], dtype=object), size=200)
    X = np.column_stack([with_missing(colours, 0.3, rng, missing), rng.choice(["s", "m"], size=200)])
    model = CategoricalNB().fit(X, y)
    observed = ~pd.isna(X[:, 0])
    by_hand = CategoricalNB().fit(X[observed, :1], y[observed])
    np.testing.assert_array_equal(model.categories_[0], by_hand.categories_[0])
    np.testing.assert_array_equal(model.category_count_[0], by_hand.category_count_[0])
    np.testing.assert_allclose(model.feature_log_prob_[0], by_hand.feature_log_prob_[0], rtol=1e-12)


def test_missing_value_at_prediction_equals_model_without_that_feature():
    rng = np.random.default_rng(5)
    y = rng.integers(3, size=300)
    frame = pd.DataFrame(
        {
            "wide": rng.normal(scale=5.0, size=300) + y,
            "narrow": rng.normal(size=300) - y,
            "colour": rng.choice(["red", "green", "blue"], size=300),
            "size": rng.choice(["s", "m", "l"], size=300),
        }
    )
    frame.loc[rng.random(300) < 0.2, "narrow"] = np.nan  # missing values in training too
    model = MixedNB().fit(frame, y)
    for dropped in ["narrow", "size"]:  # narrow is not the widest column, so epsilon_ does not change
        reduced = MixedNB().fit(frame.drop(columns=dropped), y)
        blanked = frame.copy()
        blanked[dropped] = None if dropped == "size" else np.nan
        np.testing.assert_allclose(
            model.predict_proba(blanked), reduced.predict_proba(frame.drop(columns=dropped)), rtol=1e-12, atol=1e-15
        )


def test_row_with_every_feature_missing_predicts_the_priors(tax):
    X, y = tax
    model = MixedNB().fit(X, y)
    empty = pd.DataFrame({"Refund": [None], "Marital Status": [pd.NA], "Taxable Income": [np.nan]})
    np.testing.assert_allclose(model.predict_proba(empty), [[0.7, 0.3]], rtol=1e-15)
    given = MixedNB(priors=[0.2, 0.8]).fit(X, y)
    np.testing.assert_allclose(given.predict_proba(empty), [[0.2, 0.8]], rtol=1e-15)
    assert given.predict(empty).tolist() == ["Yes"]


def test_nullable_pandas_columns(tax):
    X, y = tax
    nullable = X.astype({"Taxable Income": "Float64", "Refund": "string", "Marital Status": "category"})
    nullable.loc[3, "Taxable Income"] = pd.NA
    nullable.loc[4, "Refund"] = pd.NA
    nullable.loc[5, "Marital Status"] = np.nan
    model = MixedNB().fit(nullable, y)
    assert model.categorical_features_.tolist() == [0, 1]
    blank = X.astype({"Taxable Income": float, "Refund": object, "Marital Status": object})
    blank.loc[3, "Taxable Income"] = np.nan
    blank.loc[4, "Refund"] = None
    blank.loc[5, "Marital Status"] = None
    reference = MixedNB(categorical=["Refund", "Marital Status"]).fit(blank, y)
    np.testing.assert_allclose(model.predict_proba(nullable), reference.predict_proba(blank), rtol=1e-12)


# -- categories --------------------------------------------------------------------------------


def test_any_hashable_categories_and_unseen_ones():
    X = np.array([["a", 1, True], ["b", 2, False], ["a", 2, True], ["c", 1, False]], dtype=object)
    y = np.array([0, 0, 1, 1])
    model = CategoricalNB(alpha=0.5).fit(X, y)
    assert [categories.tolist() for categories in model.categories_] == [["a", "b", "c"], [1, 2], [False, True]]
    unseen = model.explain(np.array([["z", 7, None]], dtype=object))
    # an unseen category: alpha / (count(C_k) + alpha * values(A_i)); the missing one adds nothing
    np.testing.assert_allclose(unseen.feature_log_likelihood[0, :, 0], np.log(0.5 / (2 + 0.5 * 3)), rtol=1e-14)
    np.testing.assert_allclose(unseen.feature_log_likelihood[0, :, 1], np.log(0.5 / (2 + 0.5 * 2)), rtol=1e-14)
    np.testing.assert_array_equal(unseen.feature_log_likelihood[0, :, 2], 0.0)


def test_unseen_category_without_smoothing_is_left_out():
    X = np.array([["a", "x"], ["b", "y"], ["a", "y"], ["b", "x"], ["b", "x"]], dtype=object)
    y = np.array([0, 0, 1, 1, 1])
    model = CategoricalNB(alpha=0).fit(X, y)
    reduced = CategoricalNB(alpha=0).fit(X[:, 1:], y)
    unseen = np.array([["never seen", "x"]], dtype=object)
    np.testing.assert_allclose(model.predict_proba(unseen), reduced.predict_proba(unseen[:, 1:]), rtol=1e-15)


def test_evidence_that_rules_out_every_class_falls_back_to_priors():
    X = [["a", "x"], ["b", "y"], ["b", "y"]]
    y = [0, 1, 1]
    model = CategoricalNB(alpha=0).fit(X, y)
    proba = model.predict_proba([["a", "y"]])  # "a" only with class 0, "y" only with class 1
    np.testing.assert_allclose(proba, [[1 / 3, 2 / 3]], rtol=1e-15)


def test_integer_fast_path_matches_generic_encoding():
    rng = np.random.default_rng(6)
    y = rng.integers(2, size=500)
    codes = rng.integers(-3, 5, size=(500, 4))
    X_test = rng.integers(-6, 8, size=(100, 4))  # includes unseen integers on both sides of the range
    fast = CategoricalNB().fit(codes, y)
    generic = CategoricalNB().fit(codes.astype(object), y)
    wide = CategoricalNB().fit(codes * 10**9, y)  # too wide a range for the lookup table
    for model, test in [(generic, X_test.astype(object)), (wide, X_test * 10**9)]:
        np.testing.assert_allclose(fast.predict_proba(X_test), model.predict_proba(test), rtol=1e-14)


def test_pandas_categorical_columns_use_their_codes():
    rng = np.random.default_rng(7)
    y = rng.integers(2, size=200)
    values = rng.choice(["low", "mid", "high"], size=200)
    as_category = pd.DataFrame({"level": pd.Categorical(values, categories=["mid", "high", "low", "unused"])})
    as_strings = pd.DataFrame({"level": values.astype(object)})
    model = CategoricalNB().fit(as_category, y)
    assert model.categories_[0].tolist() == ["high", "low", "mid", "unused"]  # the dtype declares them all
    test = pd.DataFrame({"level": pd.Categorical(["low", "unused", None], categories=["low", "unused"])})
    reference = CategoricalNB(min_categories=4).fit(as_strings, y)
    np.testing.assert_allclose(
        model.predict_proba(test), reference.predict_proba(pd.DataFrame({"level": ["low", "unused", None]})), rtol=1e-14
    )


# -- batches and weights -----------------------------------------------------------------------


def mixed_frame(rng, n):
    y = rng.choice(["ham", "spam", "eggs"], size=n)
    frame = pd.DataFrame(
        {
            "length": rng.normal(size=n) * 10 + (y == "spam") * 5,
            "hour": rng.integers(24, size=n),
            "sender": rng.choice(["friend", "shop", "bank", "unknown"], size=n),
        }
    )
    frame.loc[rng.random(n) < 0.1, "length"] = np.nan
    frame.loc[rng.random(n) < 0.1, "sender"] = None
    return frame, y


def test_partial_fit_over_batches_equals_fit():
    rng = np.random.default_rng(8)
    frame, y = mixed_frame(rng, 300)
    frame.loc[:99, "sender"] = frame.loc[:99, "sender"].replace("bank", "shop")  # "bank" first appears later
    whole = MixedNB(categorical=["hour", "sender"]).fit(frame, y)
    batched = MixedNB(categorical=["hour", "sender"])
    for start in range(0, 300, 100):
        batched.partial_fit(frame.iloc[start : start + 100], y[start : start + 100], classes=["eggs", "ham", "spam"])
    np.testing.assert_allclose(batched.theta_, whole.theta_, rtol=1e-12)
    np.testing.assert_allclose(batched.var_, whole.var_, rtol=1e-12)
    for mine, full in zip(batched.categories_, whole.categories_):
        np.testing.assert_array_equal(mine, full)
    np.testing.assert_allclose(batched.predict_proba(frame), whole.predict_proba(frame), rtol=1e-12)


@pytest.mark.parametrize("make", [GaussianNB, CategoricalNB, MixedNB])
def test_sample_weight_two_equals_repeating_the_row(make):
    rng = np.random.default_rng(9)
    frame, y = mixed_frame(rng, 120)
    X = frame[["length"]] if make is GaussianNB else frame[["hour", "sender"]] if make is CategoricalNB else frame
    weights = rng.integers(0, 3, size=120)
    weighted = make().fit(X, y, sample_weight=weights)
    repeated = make().fit(X.loc[X.index.repeat(weights)], np.repeat(y, weights))
    np.testing.assert_allclose(weighted.class_count_, repeated.class_count_)
    np.testing.assert_allclose(weighted.predict_proba(X), repeated.predict_proba(X), rtol=1e-11)


@settings(max_examples=25, deadline=None)
@given(st.integers(0, 2**32 - 1), st.integers(1, 5))
def test_partial_fit_split_anywhere_equals_fit(seed, n_batches):
    rng = np.random.default_rng(seed)
    frame, y = mixed_frame(rng, 60)
    whole = MixedNB(categorical=["sender"]).fit(frame, y)
    batched = MixedNB(categorical=["sender"])
    for rows in np.array_split(np.arange(60), n_batches):
        batched.partial_fit(frame.iloc[rows], y[rows], classes=np.unique(y))
    np.testing.assert_allclose(batched.predict_log_proba(frame), whole.predict_log_proba(frame), rtol=1e-9, atol=1e-9)


# -- log space and explanations ----------------------------------------------------------------


def test_hundreds_of_features_do_not_underflow():
    rng = np.random.default_rng(10)
    y = rng.integers(2, size=200)
    X = (rng.integers(10, size=(200, 500)) + y[:, None]) % 10
    model = CategoricalNB().fit(X, y)
    explanation = model.explain(X[:5])
    assert np.all(np.exp(explanation.joint_log_likelihood) == 0.0)  # the plain product underflows
    proba = model.predict_proba(X)
    assert np.isfinite(proba).all()
    np.testing.assert_allclose(proba.sum(axis=1), 1.0, rtol=1e-14)
    gaussian = GaussianNB().fit(rng.normal(size=(200, 400)) + y[:, None], y)
    assert np.isfinite(gaussian.predict_log_proba(rng.normal(size=(20, 400)) * 30)).all()


def test_explain_adds_up_to_the_prediction(tax):
    X, y = tax
    model = MixedNB().fit(X, y)
    explanation = model.explain(X)
    assert isinstance(explanation, Explanation)
    assert explanation.feature_log_likelihood.shape == (10, 2, 3)
    np.testing.assert_allclose(explanation.log_proba, model.predict_log_proba(X), rtol=1e-12, atol=1e-15)
    joint = explanation.joint_log_likelihood
    log_posterior = joint - np.log(np.exp(joint).sum(axis=1, keepdims=True))
    np.testing.assert_allclose(log_posterior, model.predict_log_proba(X), rtol=1e-12, atol=1e-15)
    frame = explanation.to_frame(row=1)
    assert frame.columns.tolist() == ["No", "Yes"]
    assert frame.index.tolist() == [*X.columns, "log prior", "joint log-likelihood", "log posterior"]
    np.testing.assert_allclose(frame.loc["Marital Status", "No"], np.log((4 + 1) / (7 + 3)), rtol=1e-12)


# -- bad input ---------------------------------------------------------------------------------


def test_labels_with_one_class():
    with pytest.raises(ValueError, match="only one class"):
        GaussianNB().fit([[1.0], [2.0]], ["a", "a"])


@pytest.mark.parametrize("make", [GaussianNB, CategoricalNB])
def test_column_of_missing_values(make):
    X = pd.DataFrame({"fine": [1.0, 2.0, 3.0, 4.0], "empty": [np.nan] * 4})
    with pytest.raises(ValueError, match="column 'empty' has no observed value"):
        make().fit(X, [0, 0, 1, 1])


@pytest.mark.parametrize(
    ("model", "message"),
    [
        (CategoricalNB(alpha=-1), "alpha must be a finite number >= 0"),
        (GaussianNB(var_smoothing=-1e-9), "var_smoothing must be a finite number >= 0"),
        (GaussianNB(ddof=-1), "ddof must be a non-negative integer"),
        (GaussianNB(priors=[0.5, 0.2]), "sum to 1"),
        (GaussianNB(priors=[1.0]), "priors has 1 entries but there are 2 classes"),
        (MixedNB(categorical=["nope"]), r"categorical names columns \['nope'\]"),
        (MixedNB(categorical=[5]), "outside the 1 columns"),
    ],
)
def test_bad_parameters(model, message):
    with pytest.raises(ValueError, match=message):
        model.fit(pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]}), [0, 0, 1, 1])


@pytest.mark.filterwarnings("ignore:X does not have valid feature names")
def test_mismatched_columns_at_predict(tax):
    X, y = tax
    model = MixedNB().fit(X, y)
    with pytest.raises(ValueError, match="X has 2 features, but MixedNB is expecting 3"):
        model.predict(X.iloc[:, :2].to_numpy())
    with pytest.raises(ValueError, match="feature names should match"):
        model.predict(X.rename(columns={"Refund": "Refunded"}))


def test_infinite_value_in_gaussian_column(tax):
    X, y = tax
    X = X.astype({"Taxable Income": float})
    X.loc[2, "Taxable Income"] = np.inf
    with pytest.raises(ValueError, match="column 'Taxable Income' contains infinite values"):
        MixedNB().fit(X, y)
    with pytest.raises(ValueError, match="column 'Taxable Income' contains infinite values"):
        MixedNB().fit(X.fillna(0).replace(np.inf, 1.0), y).predict(X)


def test_nothing_is_coerced_silently():
    y = [0, 0, 1, 1]
    with pytest.raises(ValueError, match="column 0 holds string values"):
        GaussianNB().fit(np.array([["1.5"], ["2"], ["3"], ["4"]], dtype=object), y)
    with pytest.raises(ValueError, match="column 'flag' has dtype bool"):
        GaussianNB().fit(pd.DataFrame({"flag": [True, False, True, False]}), y)
    with pytest.raises(ValueError, match="Cannot tell whether column .when. of dtype datetime64"):
        MixedNB().fit(pd.DataFrame({"when": pd.date_range("2024-01-01", periods=4)}), y)


def test_predict_before_fit():
    for model in (GaussianNB(), CategoricalNB(), MixedNB()):
        with pytest.raises(NotFittedError):
            model.predict([[1.0]])


def test_partial_fit_needs_classes_and_known_labels():
    model = CategoricalNB()
    with pytest.raises(ValueError, match="classes must be passed"):
        model.partial_fit([["a"]], ["x"])
    model.partial_fit([["a"], ["b"]], ["x", "y"], classes=["x", "y"])
    with pytest.raises(ValueError, match=r"not among the classes \['x', 'y'\]: \['z'\]"):
        model.partial_fit([["a"]], ["z"])
