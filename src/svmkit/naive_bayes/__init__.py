"""Naive Bayes classifiers for categorical, Gaussian and mixed columns.

Bayes' theorem turns what is known about the evidence given a class into the
probability of the class given the evidence:
``P(C | A) = P(A | C) P(C) / P(A)``.  With a stiff neck in half of the
meningitis cases, meningitis in 1 of 50,000 people and a stiff neck in 1 of 20:

>>> p_stiff_neck_given_meningitis, p_meningitis, p_stiff_neck = 0.5, 1 / 50_000, 1 / 20
>>> round(p_stiff_neck_given_meningitis * p_meningitis / p_stiff_neck, 10)
0.0002

The same number from a classifier fitted on the weighted population, one
feature ("stiff neck?") and no smoothing:

>>> from svmkit.naive_bayes import CategoricalNB
>>> population = [["stiff"], ["not stiff"], ["stiff"], ["not stiff"]]
>>> diagnosis = ["meningitis", "meningitis", "healthy", "healthy"]
>>> people = [0.5, 0.5, 2_500 - 0.5, 47_500 - 0.5]
>>> model = CategoricalNB(alpha=0).fit(population, diagnosis, sample_weight=people)
>>> round(float(model.predict_proba([["stiff"]])[0, 1]), 10)
0.0002

Naive Bayes assumes the features independent given the class, so
``P(C_k | x) ∝ P(C_k) prod_i P(x_i | C_k)``.  The classifiers here differ in how
they model ``P(x_i | C_k)``:

- :class:`CategoricalNB`: smoothed category frequencies, any hashable categories;
- :class:`GaussianNB`: a normal density with the class mean and standard deviation;
- :class:`MixedNB`: both, column by column, in one model.

All of them take DataFrames with string columns, leave missing values out of
the counts and the product, work in log space, and ``explain`` a prediction
feature by feature.
"""

from ._base import Explanation
from ._classifiers import CategoricalNB, GaussianNB, MixedNB

__all__ = ["CategoricalNB", "Explanation", "GaussianNB", "MixedNB"]
