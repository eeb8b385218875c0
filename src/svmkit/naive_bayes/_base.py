"""The machinery the three naive Bayes classifiers share.

A fitted model holds, per class, the weighted class count and sufficient
statistics of every column: per-category counts for categorical columns and
count, mean and squared deviations for Gaussian columns.  Everything else is
derived from them, so a new batch (``partial_fit``) only adds to them.

Predictions come from the joint log-likelihood
``log P(C_k) + sum_i log P(x_i | C_k)`` normalised with log-sum-exp, so they
neither underflow nor turn into NaN however many features there are.
"""

from dataclasses import dataclass
from numbers import Integral, Real

import numpy as np
from sklearn.base import BaseEstimator, ClassifierMixin
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import (
    _check_sample_weight,
    check_consistent_length,
    check_is_fitted,
    column_or_1d,
    validate_data,
)

from .._interrupt import unfitted_on_interrupt
from .._validation import check_finite_result
from . import _categorical, _gaussian
from ._input import as_table, column, column_label, gaussian_matrix, import_pandas


#: Rows that ``print(explanation)`` explains before "... N more".
EXPLAINED_ROWS_SHOWN = 5


@dataclass(frozen=True)
class Explanation:
    """Why each row got its posterior: the terms of ``log P(C_k) + sum_i log P(x_i | C_k)``.

    ``print(explanation)`` shows, for each row (the first five, then "... N
    more"), the predicted class and a table of the terms: a line per feature,
    then the log prior, the joint log-likelihood and the log posterior, a
    column per class (:meth:`to_string` takes another cap).

    Attributes
    ----------
    classes : ndarray of shape (n_classes,)
    feature_names : ndarray of shape (n_features,)
    log_prior : ndarray of shape (n_classes,)
        ``log P(C_k)``.
    feature_log_likelihood : ndarray of shape (n_samples, n_classes, n_features)
        ``log P(x_i | C_k)`` of every value; 0 where the value is left out of the
        product (missing, or no estimate exists).
    log_proba : ndarray of shape (n_samples, n_classes)
        The normalised log-posterior, as ``predict_log_proba`` returns it.
    """

    classes: np.ndarray
    feature_names: np.ndarray
    log_prior: np.ndarray
    feature_log_likelihood: np.ndarray
    log_proba: np.ndarray

    @property
    def joint_log_likelihood(self):
        """``log P(C_k) + sum_i log P(x_i | C_k)``, shape (n_samples, n_classes)."""
        return self.log_prior + self.feature_log_likelihood.sum(axis=2)

    def to_frame(self, row=0):
        """One row's terms as a DataFrame: a line per feature, then prior, total and posterior."""
        pandas = import_pandas("Explanation.to_frame")
        lines = np.vstack(
            [
                self.feature_log_likelihood[row].T,
                self.log_prior,
                self.joint_log_likelihood[row],
                self.log_proba[row],
            ]
        )
        return pandas.DataFrame(lines, index=self._line_names(), columns=self.classes)

    def _line_names(self):
        return [*map(str, self.feature_names), "log prior", "joint log-likelihood", "log posterior"]

    def to_string(self, max_rows=EXPLAINED_ROWS_SHOWN):
        """Each row's prediction and its terms as a table: a line per feature, then the
        log prior, the joint log-likelihood and the log posterior, a column per class.

        Parameters
        ----------
        max_rows : int or None, default=5
            Rows explained before "... N more"; None explains every row.

        Returns
        -------
        str

        Examples
        --------
        >>> from svmkit.naive_bayes import CategoricalNB
        >>> X = [["Yes", "Single"], ["No", "Married"], ["No", "Single"], ["Yes", "Married"], ["No", "Divorced"],
        ...      ["No", "Married"], ["Yes", "Divorced"], ["No", "Single"], ["No", "Married"], ["No", "Single"]]
        >>> evade = ["No", "No", "No", "No", "Yes", "No", "No", "Yes", "No", "Yes"]
        >>> explanation = CategoricalNB().fit(X, evade).explain([["No", "Single"], ["Yes", "Married"]])
        >>> print(explanation.to_string(max_rows=1))
        row 0: predicted Yes (P = 0.507)
                                      No         Yes
        x0                       -0.5878     -0.2231
        x1                        -1.204     -0.6931
        log prior                -0.3567      -1.204
        joint log-likelihood      -2.148       -2.12
        log posterior            -0.7073     -0.6792
        <BLANKLINE>
        ... 1 more row (to_string(max_rows=None) explains every row)
        """
        if max_rows is not None and (not isinstance(max_rows, (int, np.integer)) or max_rows < 0):
            raise ValueError(f"max_rows must be a non-negative integer or None, got {max_rows!r}.")
        n_rows = self.log_proba.shape[0]
        shown = n_rows if max_rows is None else min(max_rows, n_rows)
        names = self._line_names()
        name_width = max(map(len, names))
        headings = [str(label) for label in self.classes]
        width = max(10, *map(len, headings))
        blocks = []
        for row in range(shown):
            best = int(np.argmax(self.log_proba[row]))
            lines = [
                f"row {row}: predicted {self.classes[best]} (P = {np.exp(self.log_proba[row, best]):.4g})",
                " " * name_width + "".join(f"  {heading:>{width}}" for heading in headings),
            ]
            values = np.vstack(
                [self.feature_log_likelihood[row].T, self.log_prior, self.joint_log_likelihood[row], self.log_proba[row]]
            )
            lines += [f"{name:<{name_width}}" + "".join(f"  {value:>{width}.4g}" for value in line)
                      for name, line in zip(names, values)]
            blocks.append("\n".join(lines))
        if shown < n_rows:
            left = n_rows - shown
            blocks.append(f"... {left} more row{'s' if left > 1 else ''} (to_string(max_rows=None) explains every row)")
        return "\n\n".join(blocks)

    def __str__(self):
        return self.to_string()


class BaseNaiveBayes(ClassifierMixin, BaseEstimator):
    """fit, partial_fit, predict*, explain for naive Bayes over categorical and Gaussian columns.

    Subclasses say which columns are categorical (``_categorical_mask``) and
    which parameters they have; the parameters a model does not have are never
    read because it has no column of that kind.
    """

    def _categorical_mask(self, table):
        """Boolean mask of the categorical columns of the training table."""
        raise NotImplementedError

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.input_tags.allow_nan = True
        return tags

    @unfitted_on_interrupt
    def fit(self, X, y, sample_weight=None):
        """Fit the model to ``X``, ``y``.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
            Training data; NaN, None and ``pandas.NA`` mark missing values.
        y : array-like of shape (n_samples,)
            Class labels, at least two distinct ones.
        sample_weight : array-like of shape (n_samples,), default=None
            Non-negative weights; a weight of 2 counts the row twice.

        Returns
        -------
        self
        """
        return self._learn(X, y, sample_weight, classes=None, first_batch=True)

    @unfitted_on_interrupt
    def partial_fit(self, X, y, classes=None, sample_weight=None):
        """Add one batch of rows to the model.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)
        y : array-like of shape (n_samples,)
        classes : array-like of shape (n_classes,), default=None
            Every class label; required on the first call, optional later.
        sample_weight : array-like of shape (n_samples,), default=None

        Returns
        -------
        self
        """
        first_batch = not hasattr(self, "classes_")
        if first_batch and classes is None:
            raise ValueError("classes must be passed on the first call to partial_fit.")
        return self._learn(X, y, sample_weight, classes, first_batch)

    def predict_log_proba(self, X):
        """Log of the posterior class probabilities, shape (n_samples, n_classes)."""
        return _log_posterior(self._joint_log_likelihood(X)).T

    def predict_proba(self, X):
        """Posterior class probabilities, shape (n_samples, n_classes)."""
        return _posterior(self._joint_log_likelihood(X)).T

    def predict(self, X):
        """The class of highest posterior probability for each row."""
        jll = self._joint_log_likelihood(X)
        return self.classes_[np.argmax(jll, axis=0)]

    def explain(self, X):
        """Per-feature log-likelihood terms behind each prediction.

        Parameters
        ----------
        X : array-like or DataFrame of shape (n_samples, n_features)

        Returns
        -------
        Explanation
            ``log_prior``, ``feature_log_likelihood`` (n_samples, n_classes,
            n_features), ``log_proba``, and ``to_frame(row)`` for a table of one row.
        """
        table = self._table_to_predict(X)
        terms = np.zeros((table.shape[0], self.classes_.size, self.n_features_in_))
        if self.gaussian_features_.size:
            matrix, missing = self._gaussian_matrix(table)
            terms[:, :, self.gaussian_features_] = _gaussian.feature_log_likelihood(
                matrix, missing, self.theta_, self.var_, self.gaussian_count_
            )
        for position, rows, lookup in self._categorical_lookups(table):
            terms[:, :, self.categorical_features_[position]] = lookup[rows]
        jll = (self.class_log_prior_ + terms.sum(axis=2)).T
        _fall_back_to_priors(jll, self.class_log_prior_)
        log_proba = _log_posterior(jll).T
        return Explanation(self.classes_, self._feature_names(), self.class_log_prior_, terms, log_proba)

    # -- fitting ---------------------------------------------------------------------------------

    def _learn(self, X, y, sample_weight, classes, first_batch):
        self._check_parameters()
        table = as_table(X, self)
        table, y = validate_data(self, table, y, skip_check_array=True, reset=first_batch)
        y = column_or_1d(y, warn=True)
        check_consistent_length(table, y)
        check_classification_targets(y)
        if first_batch:
            known_classes, class_codes = _classes_and_codes(y, classes)
            categorical = self._categorical_mask(table)
            self.categorical_features_ = np.flatnonzero(categorical)
            self.gaussian_features_ = np.flatnonzero(~categorical)
        else:
            if classes is not None and not np.array_equal(np.unique(classes), self.classes_):
                raise ValueError(f"classes={classes!r} differs from the classes of the first call, {self.classes_!r}.")
            known_classes, class_codes = self.classes_, _codes_of(y, self.classes_)
        weights = None
        if sample_weight is not None:
            weights = _check_sample_weight(sample_weight, table, dtype=np.float64, ensure_non_negative=True)
        n_classes = known_classes.size
        class_count = np.bincount(class_codes, weights, minlength=n_classes).astype(np.float64)
        if not first_batch:
            class_count += self.class_count_
        class_prior = self._class_prior(class_count)
        gaussian_moments = self._learn_gaussian(table, class_codes, n_classes, weights, first_batch)
        category_counts = self._learn_categories(table, class_codes, n_classes, weights, first_batch)
        self._check_finite(class_count, gaussian_moments, category_counts)

        # everything is checked: the model changes only from here on
        self.classes_ = known_classes
        self.class_count_ = class_count
        self.class_prior_ = class_prior
        with np.errstate(divide="ignore"):
            self.class_log_prior_ = np.log(class_prior)
        if self.gaussian_features_.size:
            self._set_gaussian(gaussian_moments)
        if self.categorical_features_.size:
            self._set_categories(category_counts)
        return self

    def _learn_gaussian(self, table, class_codes, n_classes, weights, first_batch):
        """Moments of the Gaussian columns so far (this batch merged into the model's)."""
        if not self.gaussian_features_.size:
            return None
        matrix, missing = self._gaussian_matrix(table)
        moments = _gaussian.class_moments(matrix, missing, class_codes, n_classes, weights)
        if not first_batch:
            moments = _gaussian.merge_moments(self._gaussian_moments_, moments)
        empty = np.flatnonzero(moments.count.sum(axis=0) == 0)
        if empty.size:
            names = ", ".join(self._label(self.gaussian_features_[j]) for j in empty)
            raise ValueError(f"Gaussian {names} has no observed value (every value is missing or has weight 0).")
        return moments

    def _learn_categories(self, table, class_codes, n_classes, weights, first_batch):
        """(categories, counts) of each categorical column so far."""
        learned = []
        for position, j in enumerate(self.categorical_features_):
            categories, counts = _categorical.count_categories(column(table, j), class_codes, n_classes, weights)
            if not first_batch:
                categories, counts = _categorical.merge_counts(
                    self.categories_[position], self.category_count_[position], categories, counts
                )
            if categories.size == 0:
                raise ValueError(
                    f"Categorical {self._label(j)} has no observed value (every value is missing or has weight 0)."
                )
            learned.append((categories, counts))
        return learned

    def _check_finite(self, class_count, gaussian_moments, category_counts):
        """Refuse a model that float64 cannot hold: sums of weights, means or variances that
        overflow (values near 1e308, weights near 1e308), or smoothed probabilities whose
        denominator ``count + alpha * n_categories`` does."""
        check_finite_result({"class_count_": class_count}, "the sample weights' sum overflows float64")
        if gaussian_moments is not None:
            with np.errstate(over="ignore", invalid="ignore"):
                variance, _ = _gaussian.floored_variance(gaussian_moments, self.ddof, self.var_smoothing)
            check_finite_result(
                {"theta_": gaussian_moments.mean, "var_": variance},
                "the Gaussian columns' means or variances overflow float64 (values or weights too large); "
                "scale the data",
            )
            zero = (gaussian_moments.count > 0) & (variance <= 0)
            if np.any(zero):
                k, j = np.argwhere(zero)[0]
                raise ValueError(
                    f"var_smoothing={self.var_smoothing!r} leaves Gaussian column {j} a variance of 0 in class "
                    f"{k} (its values there are all equal, or fewer than ddof + 1): the density is not finite. Use "
                    "var_smoothing > 0 (the default 1e-9 adds a small floor)."
                )
        for categories, counts in category_counts:
            with np.errstate(over="ignore"):
                denominator = counts.sum(axis=1) + self.alpha * counts.shape[1]
            check_finite_result({"feature_log_prob_": denominator},
                                "count + alpha * n_categories overflows float64; use a smaller alpha")

    def _class_prior(self, class_count):
        """``priors`` when given (checked), else ``count(C_k) / N``."""
        if self.priors is None:
            return class_count / class_count.sum()
        priors = np.asarray(self.priors, dtype=np.float64)
        if priors.shape != class_count.shape:
            raise ValueError(f"priors has {priors.size} entries but there are {class_count.size} classes.")
        if np.any(priors < 0) or not np.isclose(priors.sum(), 1.0):
            raise ValueError(f"priors must be non-negative and sum to 1; got {priors.tolist()}.")
        return priors

    def _set_gaussian(self, moments):
        self._gaussian_moments_ = moments
        self.gaussian_count_ = moments.count
        self.theta_ = moments.mean
        self.var_, self.epsilon_ = _gaussian.floored_variance(moments, self.ddof, self.var_smoothing)

    def _set_categories(self, category_counts):
        self.categories_ = [categories for categories, _ in category_counts]
        self.category_count_ = [counts for _, counts in category_counts]
        self.n_categories_ = np.array([categories.size for categories in self.categories_])
        minimum = getattr(self, "min_categories", None)
        if minimum is not None:
            self.n_categories_ = np.maximum(self.n_categories_, _min_categories(minimum, self.n_categories_.size))
        smoothed = [_categorical.log_probabilities(counts, self.alpha, int(n_categories))
                    for counts, n_categories in zip(self.category_count_, self.n_categories_)]
        self.feature_log_prob_ = [seen for seen, _ in smoothed]
        self._unseen_log_prob_ = [unseen for _, unseen in smoothed]

    # -- prediction ------------------------------------------------------------------------------

    def _joint_log_likelihood(self, X):
        """``log P(C_k) + sum_i log P(x_i | C_k)`` with classes along axis 0: (n_classes, n_samples)."""
        table = self._table_to_predict(X)
        jll = np.repeat(self.class_log_prior_[:, None], table.shape[0], axis=1)
        if self.gaussian_features_.size:
            matrix, missing = self._gaussian_matrix(table)
            _gaussian.add_log_likelihood(jll, matrix, missing, self.theta_, self.var_, self.gaussian_count_)
        for _, rows, lookup in self._categorical_lookups(table):
            for k, class_lookup in enumerate(lookup.T):
                jll[k] += class_lookup[rows]
        _fall_back_to_priors(jll, self.class_log_prior_)
        return jll

    def _categorical_lookups(self, table):
        """(position, lookup-table row of each value, lookup table) for each categorical column."""
        for position, j in enumerate(self.categorical_features_):
            rows = _categorical.category_rows(column(table, j), self.categories_[position])
            lookup = _categorical.lookup_table(self.feature_log_prob_[position], self._unseen_log_prob_[position])
            yield position, rows, lookup

    def _table_to_predict(self, X):
        check_is_fitted(self)
        table = as_table(X, self)
        validate_data(self, table, skip_check_array=True, reset=False)
        return table

    # -- helpers ---------------------------------------------------------------------------------

    def _gaussian_matrix(self, table):
        labels = [self._label(j) for j in self.gaussian_features_]
        return gaussian_matrix(table, self.gaussian_features_, labels)

    def _feature_names(self):
        return getattr(self, "feature_names_in_", np.array([f"x{j}" for j in range(self.n_features_in_)], dtype=object))

    def _label(self, j):
        return column_label(getattr(self, "feature_names_in_", None), j)

    def _check_parameters(self):
        """Raise ValueError for a parameter out of its range."""
        raise NotImplementedError


def check_alpha(alpha):
    """``alpha`` must be a finite number >= 0 (0: no smoothing, 1: Laplace)."""
    if not _is_finite_real(alpha) or alpha < 0:
        raise ValueError(f"alpha must be a finite number >= 0; got {alpha!r}.")


def _min_categories(min_categories, n_columns):
    """``min_categories`` as one integer per categorical column."""
    minimum = np.asarray(min_categories)
    if minimum.dtype.kind not in "iu" or minimum.ndim > 1 or np.any(minimum < 1) or (
        minimum.ndim == 1 and minimum.shape[0] != n_columns
    ):
        raise ValueError(
            f"min_categories must be None, an integer >= 1 or one per column ({n_columns}); got {min_categories!r}."
        )
    return np.broadcast_to(minimum, (n_columns,))


def check_var_smoothing(var_smoothing):
    """``var_smoothing`` must be a finite number >= 0 (as scikit-learn; a fit whose variances
    it leaves at 0 is refused by the fit)."""
    if not _is_finite_real(var_smoothing) or var_smoothing < 0:
        raise ValueError(f"var_smoothing must be a finite number >= 0; got {var_smoothing!r}.")


def check_ddof(ddof):
    """``ddof`` must be a non-negative integer."""
    if not isinstance(ddof, Integral) or isinstance(ddof, bool) or ddof < 0:
        raise ValueError(f"ddof must be a non-negative integer; got {ddof!r}.")


def _is_finite_real(value):
    return isinstance(value, Real) and not isinstance(value, bool) and bool(np.isfinite(value))


def _classes_and_codes(y, classes):
    """Sorted class labels and the class index of each label in ``y``."""
    if classes is None:
        known_classes, codes = np.unique(y, return_inverse=True)
    else:
        known_classes = np.unique(column_or_1d(classes))
        codes = _codes_of(y, known_classes)
    if known_classes.size < 2:
        raise ValueError(
            f"Naive Bayes needs at least two classes; y has only one class ({known_classes.tolist()})."
        )
    return known_classes, codes


def _codes_of(y, classes):
    codes = np.searchsorted(classes, y)
    np.minimum(codes, classes.size - 1, out=codes)
    unknown = classes[codes] != y
    if unknown.any():
        unknown_labels = np.unique(y[unknown]).tolist()
        raise ValueError(f"y holds labels that are not among the classes {classes.tolist()}: {unknown_labels}.")
    return codes


def _fall_back_to_priors(jll, log_prior):
    """Rows that every class rules out (possible only with ``alpha = 0``) get the priors.

    ``jll`` has shape (n_classes, n_samples) and is changed in place.
    """
    ruled_out = np.isneginf(jll.max(axis=0))
    jll[:, ruled_out] = log_prior[:, None]


def _log_posterior(jll):
    """``jll`` (n_classes, n_samples) minus its log-sum-exp over classes."""
    shifted = jll - jll.max(axis=0)
    return shifted - np.log(np.exp(shifted).sum(axis=0))


def _posterior(jll):
    """``exp(jll)`` (n_classes, n_samples) normalised to sum to 1 over classes."""
    likelihood = np.exp(jll - jll.max(axis=0))
    return likelihood / likelihood.sum(axis=0)
