"""The class-conditional densities of a naive Bayes model."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from sklearn.utils.validation import check_is_fitted

from ._style import class_color, figure_and_axes


@dataclass
class ClassDensityPlot:
    """What :func:`plot_class_densities` drew.

    Attributes
    ----------
    figure, ax : matplotlib Figure and Axes
    kind : {'gaussian', 'categorical'}
    artists : dict
        Per class label: its density curve (Line2D) or its bars (BarContainer).
    """

    figure: object
    ax: object
    kind: str
    artists: dict


def plot_class_densities(model, feature, ax=None, n_points=400):
    """The class-conditional distribution ``P(x_i | C_k)`` of one feature of a naive Bayes model.

    A Gaussian feature shows the normal density of each class (its mean and
    standard deviation); a categorical feature shows, for each class, bars of
    the smoothed ``P(value | class)``.

    Parameters
    ----------
    model : GaussianNB, CategoricalNB or MixedNB
        Fitted.
    feature : int or str
        Column index, or column name when the model was fitted on a DataFrame.
    ax : matplotlib Axes, optional
    n_points : int, default=400
        Points of each density curve.

    Returns
    -------
    ClassDensityPlot

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import numpy as np
    >>> from svmkit.naive_bayes import GaussianNB
    >>> from svmkit.plotting import plot_class_densities
    >>> income = np.array([[125.0], [100], [70], [120], [95], [60], [220], [85], [75], [90]])
    >>> evade = np.array(["No", "No", "No", "No", "Yes", "No", "No", "Yes", "No", "Yes"])
    >>> drawn = plot_class_densities(GaussianNB().fit(income, evade), 0)
    >>> drawn.kind, sorted(drawn.artists)
    ('gaussian', ['No', 'Yes'])
    """
    check_is_fitted(model)
    column = _column_index(model, feature)
    name = model.feature_names_in_[column] if hasattr(model, "feature_names_in_") else f"x{column}"
    figure, ax = figure_and_axes(ax)
    gaussian = np.flatnonzero(model.gaussian_features_ == column)
    if gaussian.size:
        position = gaussian[0]
        mean = model.theta_[:, position]
        sd = np.sqrt(model.var_[:, position])
        x = np.linspace((mean - 4 * sd).min(), (mean + 4 * sd).max(), n_points)
        artists = {}
        for k, (label, m, s) in enumerate(zip(model.classes_.tolist(), mean, sd)):
            density = np.exp(-0.5 * ((x - m) / s) ** 2) / (s * np.sqrt(2 * np.pi))
            (artists[label],) = ax.plot(x, density, color=class_color(k), label=f"{label} (mean {m:.4g}, sd {s:.4g})")
        ax.set_ylabel("density")
        kind = "gaussian"
    else:
        position = int(np.flatnonzero(model.categorical_features_ == column)[0])
        categories = model.categories_[position]
        probabilities = np.exp(model.feature_log_prob_[position])
        n_classes = probabilities.shape[0]
        width = 0.8 / n_classes
        slots = np.arange(categories.shape[0])
        artists = {}
        for k, label in enumerate(model.classes_.tolist()):
            offset = (k - (n_classes - 1) / 2) * width
            artists[label] = ax.bar(slots + offset, probabilities[k], width=width, color=class_color(k),
                                    label=str(label))
        ax.set_xticks(slots, [str(category) for category in categories.tolist()])
        ax.set_ylabel("probability")
        kind = "categorical"
    ax.set_xlabel(str(name))
    ax.set_title(f"P({name} | class)")
    ax.legend(title="class", fontsize="small")
    return ClassDensityPlot(figure, ax, kind, artists)


def _column_index(model, feature):
    if isinstance(feature, str):
        names = getattr(model, "feature_names_in_", None)
        if names is None or feature not in names.tolist():
            known = None if names is None else names.tolist()
            raise ValueError(f"Unknown feature {feature!r}: the model's features are {known}.")
        return names.tolist().index(feature)
    index = int(feature)
    if not 0 <= index < model.n_features_in_:
        raise ValueError(f"feature must be in 0..{model.n_features_in_ - 1}, got {feature!r}.")
    return index
