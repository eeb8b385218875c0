"""The three naive Bayes classifiers: they differ only in which columns are categorical."""

import numpy as np

from ._base import BaseNaiveBayes, _min_categories, check_alpha, check_ddof, check_var_smoothing
from ._input import categorical_mask_from_spec, infer_categorical_mask


class GaussianNB(BaseNaiveBayes):
    """Naive Bayes with a normal density per class for every feature.

    ``P(x_i | C_k)`` is the normal density with the mean and standard deviation
    of feature ``i`` over the rows of class ``k``.  Missing values (NaN) are left
    out of those moments when fitting and out of the product when predicting.

    Parameters
    ----------
    priors : array-like of shape (n_classes,), default=None
        Class probabilities; ``None`` learns ``count(C_k) / N`` from the data.
    var_smoothing : float, default=1e-9
        Variance floor, as in scikit-learn: ``epsilon_ = var_smoothing * (largest
        variance of any feature over all rows)`` is added to every class
        variance (the overall variances use ``ddof = 0`` and the sample
        weights).  If every feature is constant, ``epsilon_ = var_smoothing``.
        0 is accepted, as in scikit-learn; a fit that leaves a class variance at
        0 (equal values) is then refused, since that density is not finite.
    ddof : int, default=1
        Delta degrees of freedom: variance = sum of squared deviations /
        (count - ddof).  1 gives the sample standard deviation of the seeds, 0
        the maximum-likelihood one of scikit-learn.  A class with at most
        ``ddof`` observed values of a feature has variance ``epsilon_``.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
        Weighted number of training rows per class.
    class_prior_ : ndarray of shape (n_classes,)
    class_log_prior_ : ndarray of shape (n_classes,)
    theta_ : ndarray of shape (n_classes, n_features)
        Mean of each feature per class.
    var_ : ndarray of shape (n_classes, n_features)
        Variance of each feature per class, ``epsilon_`` included.
    epsilon_ : float
        The variance floor.
    gaussian_count_ : ndarray of shape (n_classes, n_features)
        Weighted number of observed (non-missing) values per class and feature.
    gaussian_features_, categorical_features_ : ndarray of int
        Indices of the Gaussian columns (all of them) and categorical ones (none).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)
        Only when ``X`` is a DataFrame with string column names.

    Examples
    --------
    Taxable income (in thousands) and whether the taxpayer evaded:

    >>> import numpy as np
    >>> from svmkit.naive_bayes import GaussianNB
    >>> income = np.array([[125.0], [100], [70], [120], [95], [60], [220], [85], [75], [90]])
    >>> evade = np.array(["No", "No", "No", "No", "Yes", "No", "No", "Yes", "No", "Yes"])
    >>> model = GaussianNB().fit(income, evade)
    >>> model.theta_.ravel().tolist(), np.sqrt(model.var_).ravel().round(2).tolist()
    ([110.0, 90.0], [54.54, 5.0])
    >>> model.predict([[120.0], [np.nan]]).tolist()
    ['No', 'No']
    """

    def __init__(self, *, priors=None, var_smoothing=1e-9, ddof=1):
        self.priors = priors
        self.var_smoothing = var_smoothing
        self.ddof = ddof

    def _check_parameters(self):
        check_var_smoothing(self.var_smoothing)
        check_ddof(self.ddof)

    def _categorical_mask(self, table):
        return np.zeros(table.shape[1], dtype=bool)


class CategoricalNB(BaseNaiveBayes):
    """Naive Bayes over categorical features with additive (Laplace) smoothing.

    ``P(A_i = b | C_k) = (count(A_i = b, C_k) + alpha) / (count(C_k) + alpha * values(A_i))``
    where ``values(A_i)`` is the number of distinct categories of column ``i``
    seen in training (as in the seeds; scikit-learn uses the largest code + 1)
    and ``count(C_k)`` counts the rows of class ``k`` in which column ``i`` is
    observed.  Categories can be any hashable values (strings, integers,
    booleans), one set per column.  A category never seen in training gets the
    zero-count probability ``alpha / (count(C_k) + alpha * values(A_i))``; with
    ``alpha = 0`` that is 0 for every class, so it is left out of the product.
    Missing values (NaN, None, ``pandas.NA``) are left out of the counts and of
    the product.

    Parameters
    ----------
    alpha : float, default=1.0
        Additive smoothing: 1 is Laplace, 0 none (a category never seen with a
        class then has probability exactly 0, log-probability ``-inf``).
    priors : array-like of shape (n_classes,), default=None
        Class probabilities; ``None`` learns ``count(C_k) / N`` from the data.
    min_categories : int or array-like of shape (n_features,), default=None
        As in scikit-learn: ``values(A_i)`` is at least this, for columns with
        categories that the training rows lack (``min_categories=4`` for codes
        0-3 of which 3 never occurs). A pandas categorical column declares its
        categories by its dtype instead: all of them count, seen or not.

    Attributes
    ----------
    classes_ : ndarray of shape (n_classes,)
    class_count_ : ndarray of shape (n_classes,)
    class_prior_ : ndarray of shape (n_classes,)
    class_log_prior_ : ndarray of shape (n_classes,)
    categories_ : list of ndarray
        Categories of each column, sorted when they compare (a pandas
        categorical column: those of its dtype).
    category_count_ : list of ndarray of shape (n_classes, n_categories_[i])
        Weighted count of each category per class.
    feature_log_prob_ : list of ndarray of shape (n_classes, n_categories_[i])
        ``log P(A_i = b | C_k)``.
    n_categories_ : ndarray of shape (n_features,)
        ``values(A_i)``: the categories seen, or ``min_categories`` if more.
    gaussian_features_, categorical_features_ : ndarray of int
        Indices of the Gaussian columns (none) and categorical ones (all).
    n_features_in_ : int
    feature_names_in_ : ndarray of shape (n_features_in_,)

    Examples
    --------
    >>> import numpy as np
    >>> from svmkit.naive_bayes import CategoricalNB
    >>> X = [["Yes", "Single"], ["No", "Married"], ["No", "Single"], ["Yes", "Married"],
    ...      ["No", "Divorced"], ["No", "Married"], ["Yes", "Divorced"], ["No", "Single"],
    ...      ["No", "Married"], ["No", "Single"]]
    >>> evade = ["No", "No", "No", "No", "Yes", "No", "No", "Yes", "No", "Yes"]
    >>> model = CategoricalNB(alpha=1).fit(X, evade)
    >>> model.categories_[1].tolist()
    ['Divorced', 'Married', 'Single']
    >>> round(float(np.exp(model.feature_log_prob_[1][0, 1])), 12)  # P(Married | No) = (4 + 1) / (7 + 3)
    0.5
    >>> model.predict([["No", "Married"], [None, "Single"]]).tolist()
    ['No', 'No']

    "Widowed" was never seen: it gets 1 / (7 + 3) given No and 1 / (3 + 3) given Yes.

    >>> model.predict_proba([["No", "Widowed"]]).round(3)
    array([[0.493, 0.507]])
    """

    def __init__(self, *, alpha=1.0, priors=None, min_categories=None):
        self.alpha = alpha
        self.priors = priors
        self.min_categories = min_categories

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags

    def _check_parameters(self):
        check_alpha(self.alpha)
        if self.min_categories is not None:
            _min_categories(self.min_categories, np.size(self.min_categories))  # (the count is checked in fit)

    def _categorical_mask(self, table):
        return np.ones(table.shape[1], dtype=bool)


class MixedNB(BaseNaiveBayes):
    """Naive Bayes over categorical and Gaussian columns in one model.

    Categorical columns follow :class:`CategoricalNB`, Gaussian ones
    :class:`GaussianNB`; the product over all columns is taken in log space.

    Parameters
    ----------
    categorical : array-like of int, str or bool, default=None
        The categorical columns, by index, by name (DataFrame input) or as a
        boolean mask; every other column is Gaussian.  ``None`` infers them:
        DataFrame columns of bool, category, object or string dtype are
        categorical and numeric ones Gaussian; a numeric array is all Gaussian,
        a string array all categorical, and a column of an object array is
        Gaussian when all its observed values are real numbers.
    alpha : float, default=1.0
        Additive smoothing of the categorical columns (see :class:`CategoricalNB`).
    var_smoothing : float, default=1e-9
        Variance floor of the Gaussian columns (see :class:`GaussianNB`).
    ddof : int, default=1
        Delta degrees of freedom of the Gaussian variances (see :class:`GaussianNB`).
    priors : array-like of shape (n_classes,), default=None
        Class probabilities; ``None`` learns ``count(C_k) / N`` from the data.

    Attributes
    ----------
    categorical_features_ : ndarray of int
        Indices of the categorical columns; ``categories_``, ``category_count_``,
        ``feature_log_prob_`` and ``n_categories_`` follow their order.
    gaussian_features_ : ndarray of int
        Indices of the Gaussian columns; the columns of ``theta_``, ``var_`` and
        ``gaussian_count_`` follow their order.
    classes_, class_count_, class_prior_, class_log_prior_, epsilon_, n_features_in_, feature_names_in_
        As in :class:`GaussianNB` and :class:`CategoricalNB`.

    Examples
    --------
    The seeds' tax-evasion records:

    >>> import pandas as pd
    >>> from svmkit.naive_bayes import MixedNB
    >>> records = pd.DataFrame({
    ...     "Refund": ["Yes", "No", "No", "Yes", "No", "No", "Yes", "No", "No", "No"],
    ...     "Marital Status": ["Single", "Married", "Single", "Married", "Divorced",
    ...                        "Married", "Divorced", "Single", "Married", "Single"],
    ...     "Taxable Income": [125, 100, 70, 120, 95, 60, 220, 85, 75, 90],
    ... })
    >>> evade = ["No", "No", "No", "No", "Yes", "No", "No", "Yes", "No", "Yes"]
    >>> model = MixedNB(alpha=0).fit(records, evade)
    >>> model.categorical_features_.tolist(), model.gaussian_features_.tolist()
    ([0, 1], [2])
    >>> new = pd.DataFrame({"Refund": ["No"], "Marital Status": ["Married"], "Taxable Income": [120]})
    >>> model.predict_proba(new).round(4).tolist()
    [[1.0, 0.0]]
    >>> model.explain(new).to_frame().round(3)
                             No     Yes
    Refund               -0.560   0.000
    Marital Status       -0.560    -inf
    Taxable Income       -4.935 -20.528
    log prior            -0.357  -1.204
    joint log-likelihood -6.411    -inf
    log posterior         0.000    -inf
    """

    def __init__(self, *, categorical=None, alpha=1.0, var_smoothing=1e-9, ddof=1, priors=None):
        self.categorical = categorical
        self.alpha = alpha
        self.var_smoothing = var_smoothing
        self.ddof = ddof
        self.priors = priors

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.categorical = True
        tags.input_tags.string = True
        return tags

    def _check_parameters(self):
        check_alpha(self.alpha)
        check_var_smoothing(self.var_smoothing)
        check_ddof(self.ddof)

    def _categorical_mask(self, table):
        if self.categorical is None:
            return infer_categorical_mask(table)
        return categorical_mask_from_spec(self.categorical, table.shape[1], getattr(self, "feature_names_in_", None))
