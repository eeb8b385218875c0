"""A fitted two-class kernel machine and the theory it exposes.

Every kernel classifier in svmkit is made of :class:`BinaryModel` objects, one
per two-class problem (one-vs-one pairs, one-vs-rest problems, or the single
problem of a binary task). Each keeps its multipliers and shows the quantities
of the seeds: slacks, margin, primal and dual objectives, duality gap,
leave-one-out bound and a per-point KKT report.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

import numpy as np


#: KKT categories of a training point (C-SVC).
NOT_SUPPORT_VECTOR = "not a support vector"
ON_MARGIN = "on the margin"
BOUNDED_INSIDE = "bounded, inside the margin"
BOUNDED_MISCLASSIFIED = "bounded, misclassified"
C_SVC_CATEGORIES = (NOT_SUPPORT_VECTOR, ON_MARGIN, BOUNDED_INSIDE, BOUNDED_MISCLASSIFIED)


#: Rows that ``print(report)`` shows before "... N more".
REPORT_ROWS_SHOWN = 20

#: Heading of the ``yf`` column in the printed table, by ``value_name``.
_VALUE_HEADINGS = {"yf": "y f(x)", "f": "f(x)", "residual": "y - f(x)"}


@dataclass
class KKTReport:
    """Per training point of one two-class problem: the KKT picture.

    ``print(report)`` shows the counts per category, then a table of every
    point (the first :data:`REPORT_ROWS_SHOWN`, then "... N more");
    :meth:`to_string` takes another cap and :meth:`to_frame` gives the whole
    table as a pandas DataFrame.

    Attributes
    ----------
    index : int array
        Row of the point in the training set.
    alpha : float array
        Lagrange multiplier ``alpha_i``.
    mu : float array
        Multiplier of ``xi_i >= 0``: ``mu_i = C_i - alpha_i``.
    slack : float array
        ``xi_i = max(0, 1 - y_i f(x_i))``.
    yf : float array
        Functional margin ``y_i f(x_i)``.
    category : str array
        Not a support vector (alpha = 0), on the margin (0 < alpha < C),
        bounded inside the margin (alpha = C, xi <= 1) or bounded and
        misclassified (alpha = C, xi > 1).
    violation : float array
        How far the point is from its KKT condition: ``max(0, 1 - yf)`` for
        alpha = 0, ``|1 - yf|`` for free points, ``max(0, yf - 1)`` at alpha = C.
    categories : tuple of str
        The possible categories, in reporting order (C-SVC's by default; other
        formulations, e.g. one-class and SVR, name their own).
    value_name : str
        What ``yf`` holds for the formulation (column name in :meth:`to_frame`):
        ``'yf'`` for classifiers, ``'f'`` for one-class, ``'residual'`` for SVR.
    label : array or None
        The label of each point: the class (an estimator's ``kkt_report``;
        ``'rest'`` for the other classes of a one-vs-rest problem) or its +1/-1
        code (:meth:`BinaryModel.kkt_report`); None where the formulation has
        no labels (one-class) or reports residuals (SVR).
    bounds : tuple of (str, str)
        The problem's bounds on the generalisation error, printed under the
        counts (``SVC.kkt_report``: the leave-one-out bound and the fat-margin
        bound on the VC dimension).
    """

    index: np.ndarray
    alpha: np.ndarray
    mu: np.ndarray
    slack: np.ndarray
    yf: np.ndarray
    category: np.ndarray
    violation: np.ndarray
    categories: tuple = C_SVC_CATEGORIES
    value_name: str = "yf"
    label: np.ndarray | None = None
    bounds: tuple = ()

    def counts(self):
        """Number of points in each category."""
        return {name: int(np.sum(self.category == name)) for name in self.categories}

    def _columns(self):
        """(heading, values) of the table, in order."""
        columns = [("index", self.index)]
        if self.label is not None:
            columns.append(("y", self.label))
        columns += [("alpha", self.alpha), ("mu", self.mu), ("slack", self.slack), (self.value_name, self.yf),
                    ("category", self.category), ("violation", self.violation)]
        return columns

    def to_frame(self):
        """The report as a pandas DataFrame, one row per point (needs ``pip install svmkit[pandas]``)."""
        try:
            import pandas as pd
        except ImportError as error:
            raise ImportError("KKTReport.to_frame needs pandas: pip install 'svmkit[pandas]'") from error
        columns = dict(self._columns())
        index = pd.Index(columns.pop("index"), name="sample")
        return pd.DataFrame(columns, index=index)

    def to_string(self, max_rows=REPORT_ROWS_SHOWN):
        """The counts per category and a table of the points, at most ``max_rows`` of them.

        Parameters
        ----------
        max_rows : int or None, default=20
            Points shown (in training order) before "... N more"; None shows every point.

        Returns
        -------
        str

        Examples
        --------
        >>> import numpy as np
        >>> from svmkit import SVC
        >>> model = SVC(C=np.inf, kernel="linear").fit([[-1.0], [0.0], [1.0]], [1, -1, -1])
        >>> print(model.kkt_report().to_string(max_rows=2))
        KKT report of 3 training points
          not a support vector                1
          on the margin                       2
          bounded, inside the margin          0
          bounded, misclassified              0
          largest KKT violation        0.000e+00
          leave-one-out bound          0.6667 (support vectors / N)
          VC dimension bound           2 = min(ceil(R^2 / rho^2), d) + 1, R = 1, rho = 0.5
        index   y  alpha   mu  xi  y f(x)  category
            0   1      2  inf   0       1  on the margin
            1  -1      2  inf   0       1  on the margin
        ... 1 more (to_string(max_rows=None) or to_frame() shows every point)
        """
        if max_rows is not None and (not isinstance(max_rows, (int, np.integer)) or max_rows < 0):
            raise ValueError(f"max_rows must be a non-negative integer or None, got {max_rows!r}.")
        lines = [f"KKT report of {self.index.shape[0]} training points"]
        lines += [f"  {name:<28s} {count:>8d}" for name, count in self.counts().items()]
        lines.append(f"  largest KKT violation        {self.violation.max(initial=0.0):.3e}")
        lines += [f"  {name:<28s} {value}" for name, value in self.bounds]
        shown = self.index.shape[0] if max_rows is None else min(max_rows, self.index.shape[0])
        if shown:
            lines += _table(self._printed_columns(), shown)
        if shown < self.index.shape[0]:
            lines.append(f"... {self.index.shape[0] - shown} more (to_string(max_rows=None) or to_frame() shows "
                         f"every point)")
        return "\n".join(lines)

    def _printed_columns(self):
        """The columns of the printed table: headings as the seeds write them, no violation column."""
        headings = {"slack": "xi", self.value_name: _VALUE_HEADINGS.get(self.value_name, self.value_name)}
        return [(headings.get(name, name), values) for name, values in self._columns() if name != "violation"]

    def __str__(self):
        return self.to_string()


def _table(columns, n_rows):
    """Lines of a plain-text table of the first ``n_rows`` values of each (heading, values):
    numbers right-aligned to 4 significant digits, text left-aligned and last."""
    cells = []
    for heading, values in columns:
        values = values[:n_rows]
        if values.dtype.kind in "fc":
            text = [f"{value + 0.0:.4g}" for value in values]  # (+ 0.0: no "-0")
        else:
            text = [str(value) for value in values]
        width = max(len(heading), *map(len, text))
        left = values.dtype.kind in "OUS" and heading != "y"
        align = str.ljust if left else str.rjust
        cells.append([align(heading, width)] + [align(item, width) for item in text])
    return ["  ".join(row).rstrip() for row in zip(*cells)]


class Objectives(NamedTuple):
    """What :meth:`BinaryModel.objectives` returns."""

    margin: float
    dual: float
    primal: float
    gap: float


@dataclass
class BinaryModel:
    """One fitted two-class problem ``f(x) = sum_i alpha_i y_i K(x_i, x) + b``.

    Attributes
    ----------
    positive_class, negative_class :
        The labels coded +1 and -1.
    indices : int array
        Training rows of this problem.
    y : float array
        +1/-1 labels of those rows.
    alpha : float array
        The multipliers, one per row of the problem.
    upper : float array
        Their upper bounds ``C_i`` (C times class and sample weights).
    intercept : float
        ``b``.
    yf : float array
        ``y_i f(x_i)`` at the solution.
    n_iter : int
        Two-variable updates made by the solver.
    gap : float
        Maximal violating-pair gap reached.
    status : int
        Solver status (0 converged).
    """

    positive_class: object
    negative_class: object
    indices: np.ndarray
    y: np.ndarray
    alpha: np.ndarray
    upper: np.ndarray
    intercept: float
    yf: np.ndarray
    n_iter: int
    gap: float
    status: int

    @property
    def support(self):
        """Training rows with ``alpha > 0``."""
        return self.indices[self.alpha > 0]

    @property
    def dual_coef(self):
        """``alpha_i y_i`` for the support vectors, in the order of :attr:`support`."""
        sv = self.alpha > 0
        return self.alpha[sv] * self.y[sv]

    @property
    def slack(self):
        """``xi_i = max(0, 1 - y_i f(x_i))`` for every row of the problem."""
        return np.maximum(0.0, 1.0 - self.yf)

    @property
    def w_norm_squared(self):
        """``||w||^2 = sum_ij a_i a_j y_i y_j K_ij`` (feature space)."""
        return float(self.alpha @ (self.yf - self.y * self.intercept))

    @property
    def margin(self):
        """Geometric width of the margin, ``2 / ||w||``, in feature space."""
        return self.objectives().margin

    @property
    def dual_objective(self):
        """``sum a_i - 1/2 a'Qa`` (to be maximised)."""
        return self.objectives().dual

    @property
    def primal_objective(self):
        """``1/2 ||w||^2 + sum_i C_i xi_i`` (hard margin: ``1/2 ||w||^2``)."""
        return self.objectives().primal

    @property
    def duality_gap(self):
        """``primal - dual``: non-negative, zero at the exact optimum."""
        return self.objectives().gap

    def objectives(self):
        """:attr:`margin`, the dual and primal objectives and the duality gap, computed
        together (one ``||w||^2``, one pass over the slacks).

        Examples
        --------
        >>> import numpy as np
        >>> from svmkit import SVC
        >>> model = SVC(C=np.inf, kernel="linear").fit([[-1.0], [1.0]], [0, 1]).binary_models_[0]
        >>> model.objectives()
        Objectives(margin=2.0, dual=0.5, primal=0.5, gap=0.0)
        """
        values = objectives_per_problem(np.array([0, self.alpha.shape[0]]), self.alpha, self.y, self.yf, self.upper,
                                        np.array([self.intercept]))
        return Objectives(*(float(value[0]) for value in values))

    @property
    def loo_bound(self):
        """Leave-one-out error bound: number of support vectors / N."""
        return float(np.count_nonzero(self.alpha) / self.alpha.shape[0])

    def kkt_report(self):
        """The :class:`KKTReport` of this problem."""
        alpha, upper, yf = self.alpha, self.upper, self.yf
        slack = self.slack
        at_zero = alpha <= 0
        at_upper = (alpha >= upper) & ~at_zero
        free = ~at_zero & ~at_upper
        category = np.full(alpha.shape[0], NOT_SUPPORT_VECTOR, dtype=object)
        category[free] = ON_MARGIN
        category[at_upper] = BOUNDED_INSIDE
        category[at_upper & (slack > 1.0)] = BOUNDED_MISCLASSIFIED
        violation = np.where(at_zero, np.maximum(0.0, 1.0 - yf), 0.0)
        violation = np.where(free, np.abs(1.0 - yf), violation)
        violation = np.where(at_upper, np.maximum(0.0, yf - 1.0), violation)
        return KKTReport(
            index=self.indices.copy(),
            alpha=alpha.copy(),
            mu=upper - alpha,
            slack=slack,
            yf=yf.copy(),
            category=category.astype(str),
            violation=violation,
            label=self.y.astype(np.int64),
        )


class StackedVariables(NamedTuple):
    """The variables of several fitted problems one after another (problem ``k``:
    ``bounds[k]:bounds[k + 1]``), as the attributes of :class:`BinaryModel`, and each
    problem's intercept, steps, gap and status.

    Examples
    --------
    >>> import numpy as np
    >>> variables = StackedVariables(
    ...     np.array([0, 2, 3]), np.array([0, 1, 2]), np.array([1.0, -1.0, 1.0]), np.array([0.5, 0.5, 0.0]),
    ...     np.ones(3), np.array([1.0, 1.0, 2.0]), np.array([0.0, -1.0]), np.array([3, 1]),
    ...     np.array([1e-4, 0.0]), np.array([0, 0]))
    >>> models = variables.models([(1, 0), (2, 0)])
    >>> models[1].positive_class, models[1].indices, models[1].intercept, models[1].n_iter
    (2, array([2]), -1.0, 1)
    """

    bounds: np.ndarray
    indices: np.ndarray
    y: np.ndarray
    alpha: np.ndarray
    upper: np.ndarray
    yf: np.ndarray
    intercept: np.ndarray
    n_iter: np.ndarray
    gap: np.ndarray
    status: np.ndarray
    r: np.ndarray = None  # (nu-SVC: the scale r of each problem)

    def models(self, problems):
        """The :class:`BinaryModel` of each problem, its ``(positive_class, negative_class)``
        from ``problems``; their arrays are views of these."""
        intercepts, steps, gaps = self.intercept.tolist(), self.n_iter.tolist(), self.gap.tolist()
        statuses = self.status.tolist()
        return [
            BinaryModel(
                positive_class=positive,
                negative_class=negative,
                indices=self.indices[start:stop],
                y=self.y[start:stop],
                alpha=self.alpha[start:stop],
                upper=self.upper[start:stop],
                intercept=intercepts[k],
                yf=self.yf[start:stop],
                n_iter=steps[k],
                gap=gaps[k],
                status=statuses[k],
            )
            for k, ((positive, negative), start, stop) in enumerate(zip(problems, self.bounds[:-1], self.bounds[1:]))
        ]


def objectives_per_problem(bounds, alpha, y, yf, upper, intercept):
    """Per problem ``k`` (variables ``bounds[k]:bounds[k + 1]``, intercept ``b_k``): the
    margin ``2 / ||w||`` (inf where ``w = 0``), the dual objective ``sum a_t - ||w||^2 / 2``,
    the primal objective ``||w||^2 / 2 + sum C_t max(0, 1 - y_t f(x_t))`` (over the variables
    of finite bound ``C_t``) and the duality gap, with ``||w||^2 = sum a_t (y_t f(x_t) - y_t
    b_k)``. Returns four float64 arrays of one value per problem.

    Examples
    --------
    >>> objectives_per_problem(np.array([0, 2]), np.array([0.5, 0.5]), np.array([1.0, -1.0]),
    ...                        np.array([1.0, 1.0]), np.array([np.inf, np.inf]), np.array([0.0]))
    (array([2.]), array([0.5]), array([0.5]), array([0.]))
    """
    starts = bounds[:-1]
    sizes = np.diff(bounds)
    b = np.repeat(np.asarray(intercept, dtype=np.float64), sizes)
    finite = np.isfinite(upper)
    slack_cost = np.where(finite, np.where(finite, upper, 0.0) * np.maximum(0.0, 1.0 - yf), 0.0)
    per_variable = np.stack([alpha, alpha * (yf - y * b), slack_cost])
    sums = np.zeros((3, sizes.shape[0]))
    nonempty = sizes > 0
    if nonempty.any():
        sums[:, nonempty] = np.add.reduceat(per_variable, starts[nonempty], axis=1)
    alpha_sum, w_norm_squared, slack = sums
    with np.errstate(divide="ignore"):
        margin = np.where(w_norm_squared > 0, 2.0 / np.sqrt(np.maximum(w_norm_squared, 0.0)), np.inf)
    dual = alpha_sum - 0.5 * w_norm_squared
    primal = 0.5 * w_norm_squared + slack
    return margin, dual, primal, primal - dual
