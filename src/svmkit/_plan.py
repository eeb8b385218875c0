"""How a dual is solved: every threshold of the solver, and the one function that applies them.

:func:`plan` looks only at the problem's shape, the kernel's compiled form, the memory
budget and the threads allowed, and returns a :class:`Plan`; it computes nothing, so that
tests ask it what a fit will do for given shapes. The solver (:mod:`svmkit._solver`) does
what the plan says. ``SVC(verbose=True)`` logs the plan.

There are two strategies (DESIGN.md sections 2 and 3):

* ``"gram"``: the kernel rows a problem needs are computed as SMO asks for them and kept in
  a store of rows; used where the budget holds the Gram matrix, or enough of its rows that
  few are computed twice (LIBSVM's cache: the least recently used rows make room). The
  problems of a batch (one-vs-one pairs, cross-validation folds) share one store of rows of
  all the data where that holds enough rows, else each problem has its own.
* ``"blocked"``: working sets of ``working_set`` variables, their kernel rows computed in
  blocks (BLAS) through a row cache bounded by the budget; used where the Gram matrix does
  not fit, and for the linear kernel where it would cost more than working sets that follow
  the change of ``w`` (``LINEAR_GRAM_MAX_WORK``).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

# -- thresholds, each with its reason ------------------------------------------------------
#: Kernel rows of dense data of at most this many features are computed by compiled loops in
#: the Gram strategy, one row as SMO asks for it; wider rows by a BLAS product, whose blocking
#: pays from about here on. The blocked strategy, which wants rows many at a time, takes BLAS
#: products whatever the width (docs/performance.md).
LOOP_ROWS_MAX_FEATURES = 32
#: A Gram matrix is held in float64 up to this many bytes and in float32 above: beyond it the
#: rows' memory traffic, not their precision, limits SMO, and float32 keeps the solution within
#: the tolerance of float64's (docs/performance.md).
FLOAT64_GRAM_BYTES = 4 * 2**20
#: Kernel values are stored in float32 only where none exceeds this magnitude (the RBF and
#: sigmoid kernels' reach 1, the linear kernel's the largest squared norm): float32 rounds a
#: value v by about 6e-8 v, and on unscaled data under the linear or polynomial kernel the
#: gradient summed from such values misses the optimum (svmguide1 unscaled, linear, C=2:
#: values up to 3.8e5, the dual objective 4e-4 below the optimum); scaled data stay far below.
FLOAT32_VALUE_LIMIT = 1e3
#: The Gram strategy keeps rows of all the data in a store that holds at least this fraction
#: of them (float32, least recently used out): SMO's rows are then found again. Its rows are
#: whole (not shortened by shrinking, as LIBSVM's), so with fewer a store thrashes: half of
#: covtype's 10,000 rows held, SMO computed 3.5 rows per row where the blocked strategy, its
#: shrunk variables solved apart, computes 1.1; then the problems get stores of their own,
#: or the blocked strategy.
SHARED_ROWS_MIN_FRACTION = 0.95
#: The Gram strategy computes every row of one store of all the rows in one call before SMO
#: starts where that is at most this many multiply-adds (rows x rows x features), by the way
#: its rows are computed: below it SMO reads most rows anyway, and each row computed while SMO
#: waits costs the solver a return and a restart besides the row itself (loops), or is one of
#: many small BLAS products, far below the speed of one large one on every core (BLAS: SMO's
#: rows as it asks cost more than all of them at once even where a tenth of the rows are
#: support vectors, up to some 2^32; docs/performance.md).
ROWS_UPFRONT_MAX_WORK = {"loops": 2**20, "sparse": 2**20, "common": 2**20, "blas": 2**32}
#: Dense rows of at least this many features (and at most ``LOOP_ROWS_MAX_FEATURES``) whose one
#: store holds every row, with a Gram matrix of ``UPFRONT_BLAS_WORK`` multiply-adds, have it
#: computed all first by one BLAS product (the values on and below the diagonal, mirrored): that
#: beats compiled loops' rows, all first or as SMO asks, even where SMO reads a quarter of them
#: (cancer RBF, 104 of 426; ijcnn1's 1,000-2,000 rows), though not where it reads far fewer
#: (cancer linear, 51 of 426); below the range the product's set-up costs more than it saves
#: (wine), above it SMO needs too few of the rows and the matrix leaves the caches (ijcnn1's
#: 3,000), and with fewer features the loops' products are as cheap (iris, svmguide1;
#: docs/performance.md).
UPFRONT_BLAS_MIN_FEATURES = 8
UPFRONT_BLAS_WORK = (2**18, 2**27)
#: Most kernel rows the Gram strategy computes at once where SMO asks for one: the one asked
#: for and those of the strongest violators, which SMO may ask for next. BLAS blocks of 64 rows
#: run near peak; a row by compiled loops costs as much alone as with others, and the
#: violators' rows are mostly never read, so loops compute the one asked for (as LIBSVM). Rows
#: of common features by BLAS (``COMMON_FEATURE_DENSITY``) as BLAS's: fewer at a time were
#: slower on a9a's crossed rows (docs/performance.md).
PREFETCH_ROWS = {"blas": 64, "python": 64, "common": 64, "loops": 1, "sparse": 1, "precomputed": 1}
#: The problems of a batch on stores of their own rows (one-vs-one pairs) compute their rows by
#: compiled loops, one as SMO asks for it (as LIBSVM), where its first problems used fewer than
#: this fraction of the BLAS rows they computed: with few support vectors most of the rows of the
#: strongest violators computed with each missing row are never used (usps's pairs: 16-23%),
#: while a value by loops costs two to three times one by BLAS, which pays where most rows are
#: support vectors (58-90% used; docs/performance.md).
BLAS_ROWS_MIN_USED_FRACTION = 0.5
#: ... judged from as many of the batch's first problems as computed this many BLAS rows.
BLAS_ROWS_JUDGED_AFTER = 512
#: The blocked strategy's working set: LIBSVM-like problems of many rows converge in fewer
#: rounds with large sets, and a set's block (1024^2 values) stays small next to its rows.
WORKING_SET = 1024
#: The linear kernel's problems whose Gram matrix takes more multiply-adds than this (rows x
#: rows x features, sparse features counted by their density) are solved by the blocked
#: strategy even where the Gram matrix fits: its rounds follow the change of ``w``, O(n d)
#: each, where on such a problem the Gram strategy computes most rows (the variables that
#: a9a's shrinking keeps: 93% of their rows), and problems of fewer, whose rows SMO mostly
#: leaves alone, keep their Gram matrix (docs/performance.md) ...
LINEAR_GRAM_MAX_WORK = 2**31
#: ... and on dense rows, whose rounds are compiled whole, from this many: usps's one-vs-one
#: pairs (1.2 G each, rows of many features computed one at a time by the Gram strategy) take
#: working sets, while splice (60 M) and digits' pairs, whose rounds would zig-zag, keep their
#: Gram matrix. (Sparse rows' rounds, partly Python, stay at the bound above: at this one the
#: shrunk variables of a9a's crossed features took working sets, and the fit several times as
#: long; docs/performance.md.)
LINEAR_DENSE_GRAM_MAX_WORK = 2**28
#: ... and so are those of at most this many features and at least ``LINEAR_FEW_FEATURES_MIN_ROWS``
#: rows: a round's products through ``w`` then cost a few kernel rows' worth, while the Gram
#: strategy makes a step per row and computes a row for most of its steps (svmguide1: 1,352
#: steps, 794 rows; the blocked strategy 7 rounds, docs/performance.md).
LINEAR_FEW_FEATURES = 8
#: ... (below it, a round's fixed cost is more than the Gram strategy's whole solve: heart_scale).
LINEAR_FEW_FEATURES_MIN_ROWS = 2048
#: The linear kernel's working set in the blocked strategy, smaller than other kernels': a round
#: costs O(n d) for the gradient (through ``w``) and O(q^2 d) for the set's block, no kernel rows,
#: and this size balanced them best on a9a's sparse rows (docs/performance.md) ...
LINEAR_WORKING_SET = 512
#: ... while dense rows, whose rounds are compiled whole, take the power of two nearest 3 sqrt(n)
#: for n rows, within these bounds: usps's one-vs-one pairs of some 1,800 rows 128, ijcnn1's
#: first 14,000 rows 256, all its 49,990 512 (docs/performance.md).
LINEAR_DENSE_WORKING_SET_BOUNDS = (128, 1024)
#: A problem of a blocked batch on at most this fraction of the data's rows (a one-vs-one pair
#: of many classes) is solved on a copy of its own rows: its kernel rows are then that much
#: shorter, and the copy takes at most this fraction of the data's memory.
OWN_ROWS_MAX_FRACTION = 0.5
#: The blocked strategy solves the variables LIBSVM's shrinking keeps as a problem of their own
#: (on a copy of their rows, by the Gram strategy where their Gram matrix fits) once they are at
#: most this fraction of a problem's: few support vectors among many rows then take kernel rows
#: over the few, as LIBSVM's shrunk rows, not over all the rows ...
HAND_OVER_FRACTION = 0.25
#: ... lent the memory of the blocked problem's cache, its copy of the kept rows included, but
#: at least this fraction of it for its own cache (a copy larger than most of the budget: fewer
#: rows computed again are then worth more than the memory).
SUB_PROBLEM_MIN_BUDGET_FRACTION = 0.25
#: ... at the earliest this many rounds after the start or the last such sub-problem (the rounds
#: in between settle the variables the last one left out, and the multipliers' sides).
HAND_OVER_ROUNDS = 2
#: ... counted every this many rounds (a count reads every variable twice: on many rows with
#: cheap rounds, the linear kernel's, a fifth of a round's work when made every round).
HAND_OVER_CHECK_ROUNDS = 4
#: ... but for the linear kernel's rounds on dense rows only from this many variables: they update
#: every gradient through ``w`` (variables x features a round), which below it costs less than
#: solving the kept variables on a copy of their rows (svmguide1, ijcnn1's 14,000 rows, usps's
#: pairs), while above it the shrunk problem pays (covtype's 100,000 rows; docs/performance.md).
LINEAR_HAND_OVER_MIN_VARIABLES = 2**15
#: Rounds without a decrease of the dual objective after which the blocked strategy stops
#: with status STALLED (round-off limits the accuracy).
STALL_ROUNDS = 50
#: The Gram strategy stops a problem with status STALLED where its KKT gap has not fallen below
#: STALL_GAP_FRACTION of its value at the last progress for STALL_STEPS_PER_VARIABLE steps per
#: variable, and at least STALL_MIN_STEPS: SMO's gap falls by far more over such a stretch
#: unless round-off (a tol below it) or an inconsistent kernel (one that is not symmetric)
#: holds it, and a stalled problem would otherwise run to the step limit.
STALL_GAP_FRACTION = 0.9
STALL_STEPS_PER_VARIABLE = 20
STALL_MIN_STEPS = 200_000
#: A precomputed training kernel is refused as not symmetric where ``|K_ij - K_ji|`` exceeds
#: this fraction of its largest value: ten times float32's round-off, so that Gram matrices
#: computed in single precision or by unsymmetric BLAS products pass.
PRECOMPUTED_SYMMETRY_RTOL = 1e-6
#: Sparse data with at most this fraction of nonzeros keep their CSR rows (kernel rows by
#: compiled loops, by feature); denser ones are made dense for BLAS products, in either
#: strategy, and such support vectors dense for predictions (compiled loops over a9a's 11% of
#: nonzeros and SciPy's sparse-by-sparse products run far below BLAS's speed; docs/performance.md).
SPARSE_ROWS_DENSITY = 0.08
#: Variables on copies of one training point are merged into one (their kernel rows are
#: equal) where at least this fraction of them are copies: fewer save less than finding them
#: and a copy of the distinct rows cost (a9a: 20% of its variables are copies).
MERGE_COPIES_MIN_FRACTION = 0.05
#: Kernel rows by BLAS products are written straight into a store's slots where at least this
#: many of them go to consecutive slots; the others are computed into a block of their own and
#: copied (a product per run of slots reads all the data again; a fresh block of whole rows
#: costs its page faults and a second pass over the rows; docs/performance.md).
DIRECT_ROWS_MIN_RUN = 32
#: ... and the others a block of at most this many bytes at a time: one block of them all can
#: be as large as the cache (covtype's first 100,000 rows, 200 MB: the fit's peak 385 MB above
#: its data), while a block of this size still holds tens of rows of a million values.
SCATTERED_ROWS_BYTES = 16 * 2**20
#: The largest dense copy of the data (in the rows' type) made for the blocked strategy's BLAS
#: rows, or of the support vectors for predictions.
DENSE_COPY_BYTES = 512 * 2**20
#: Problems of a batch are solved on worker threads where each has its own rows (the shared
#: store does not fit) and the batch holds at least this many Gram values in all: below it
#: thread start-up and the interpreter's lock cost more than the work.
PARALLEL_BATCH_VALUES = 2**20
#: A compiled call of the solver makes at most this many SMO steps, then returns, so that
#: progress reports, callbacks and Ctrl-C are served (a step of the Gram strategy takes at most
#: some tens of microseconds). A count, not a time: the solution does not depend on the
#: machine's speed.
STEPS_PER_CALL = 20_000
#: A compiled call of the linear models' and perceptrons' loops (LinearSVC, PegasosSVC,
#: Perceptron, KernelPerceptron) returns after the pass over the data in which it has read this
#: many values (at least one pass), so that Ctrl-C is served: some tens of milliseconds of
#: memory traffic, against microseconds a call costs. A count, not a time, as STEPS_PER_CALL.
LINEAR_VALUES_PER_CALL = 2**24
#: The Gram strategy tries Newton steps on the face of the free multipliers (where SMO
#: zig-zags on a badly conditioned face) after this many SMO steps per variable at first ...
FACE_STEPS_PER_VARIABLE = 2
#: ... and not before SMO's steps have done this much work (m a step, for m variables): a
#: try's NumPy and LAPACK calls cost a few hundred microseconds however small the face, the
#: time of some 2^20 such units of SMO.
FACE_FIRST_MIN_WORK = 2**20
#: ... and only where the free multipliers have stopped falling fast: at least this share of
#: those at the last look (a face tried while SMO still takes multipliers off it is soon left).
FACE_SETTLED_SHARE = 0.9
#: ... then after SMO steps whose work (m a step, for m variables) is this many times a try's
#: (k^3 + k m for k free multipliers), so that the tries cost a small share of the time.
FACE_WORK_RATIO = 2
#: Steps of one problem by default (``max_iter=-1``): LIBSVM's limit, 10 million, or 100 per
#: variable where that is more. Reaching it warns with the gap attained.
DEFAULT_MAX_STEPS = 10_000_000
STEPS_PER_VARIABLE = 100


#: BLAS products of fewer multiply-adds than this run on one thread (svmkit's threads share out
#: larger ones): a second thread on a shared two-core machine waits for its core longer than it
#: saves (times vary by milliseconds).
ONE_THREAD_BLAS_WORK = 2**23
#: ... and below this many BLAS's thread count is left as it is: OpenBLAS takes one thread for
#: such products by itself, and setting the count costs more than a product this small.
BLAS_UNTHREADED_WORK = 2**18
#: ... and a matrix of fewer values than this times a vector runs on one thread (OpenBLAS
#: threads its matrix-vector products from 2,304 x 4 values).
BLAS_UNTHREADED_VALUES = 2**13
#: Test rows per block of kernel values at prediction (a block per thread at least): a block
#: of kernel values stays within the shared cache while the passes over it (products, kernel,
#: coefficients) read it again, and blocks are few enough that their Python work is small
#: beside their products (2 MB blocks: ijcnn1's 91,701 test rows took 873; docs/performance.md).
PREDICT_BLOCK_BYTES = 4 * 2**20
#: A grid search sends each of its workers about this many tasks, each a batch of grid points
#: (all their folds): a task's round trip through a cluster's scheduler and client costs more
#: than many a small fit, while the points' order (largest C first) still evens out the workers'
#: ends (docs/performance.md).
GRID_BATCHES_PER_WORKER = 4
#: Shrinking hands its sub-problem over (:mod:`svmkit._core.smo`) only once the steps made times
#: the problem's variables reach this: its set-up (two more calls, the block copied, every
#: gradient updated) costs what a hundred steps on a few hundred variables do, and short solves
#: of small problems end before it pays (docs/performance.md).
HAND_OVER_MIN_WORK = 2**17
#: Rows of a block of BLAS's products of a square kernel matrix on and below its diagonal: each
#: block's products run to its last row's diagonal, so a block computes half its square above
#: it in vain, while smaller blocks make products too thin for BLAS's speed.
GRAM_BLOCK_ROWS = 128
#: Rows transposed at a time where dense rows are laid out features by rows for compiled code
#: and BLAS: the block stays in the cache while its columns are written, where one strided copy
#: of all the rows reads a column at a time (docs/performance.md).
TRANSPOSE_BLOCK_ROWS = 256
#: A subset's columns of the data's transpose are copied a run of consecutive rows at a time
#: where its rows are fewer runs than this (a one-vs-one pair in class order: two), else gathered
#: one column at a time: a slice per run costs a NumPy call.
MOST_COPIED_RUNS = 16
#: Features copied at a time where a Cascade SVM's node joins its row sets: small beside the
#: node's rows (covtype's top nodes: 130 MB), so that joining them costs no second copy.
GATHER_CHUNK_BYTES = 4 * 2**20
#: Support vectors per part of a block of kernel values at prediction: as many as this many bytes
#: of float64 features hold, so that a part stays in a core's cache while every test row of the
#: block meets it; whole, many support vectors left blocks of a few test rows that each read all
#: of them from memory (37,742 support vectors of 54 features: 6 test rows a block).
PREDICT_SUPPORT_BYTES = 2**20
#: Sparse test rows against dense support vectors are made dense a block at a time, up to this
#: many bytes a block, for BLAS's products (SciPy's sparse-times-dense product is several times
#: slower but on very sparse rows).
PREDICT_DENSE_BYTES = 16 * 2**20
#: Sparse test rows of at most this fraction of nonzeros are multiplied by dense support vectors
#: in compiled loops over their nonzeros (each adds its feature's row of the support vectors'
#: transpose) rather than by BLAS on dense copies or by a feature split
#: (:func:`sparse_test_products_pay`) ...
SPARSE_TEST_ROWS_DENSITY = 0.15
#: ... where the support vectors are at most this many per feature: the split's dense copies of
#: the test rows cost per feature, its BLAS products of the features that most rows hold save per
#: support vector (a9a, 123 features, 11% nonzeros: the loops faster up to about 2,000 support
#: vectors, the split from about 3,300; docs/performance.md).
SPARSE_PRODUCTS_SUPPORT_PER_FEATURE = 16
#: Exact float32 products at prediction (svm/_decisions.py) save about this many nanoseconds a
#: multiply-add against float64's (BLAS multiplies float32 about twice as fast) ...
FLOAT32_SAVING_NS = 0.024
#: ... cost this many a product to widen to float64 for the kernel ...
FLOAT32_WIDENING_NS = 0.26
#: ... and this many a test value for the look at whether they are exact (:func:`exact_float32_pays`).
FLOAT32_LOOK_NS = 4.4
#: A feature whose rows (support vectors at prediction, sparse rows made dense for BLAS in the
#: solver: _features.py) differ from their median in at most this fraction is a sparse one: its
#: products are taken over those entries.
SPARSE_FEATURE_DENSITY = 0.125
#: What a sparse feature's entry costs, in features of BLAS's dense products: its row of the
#: other side is read and added apart, where BLAS multiplies features in cache-sized tiles.
SPARSE_ENTRY_COST = 4.0
#: Products split the features into dense and sparse ones where the sparse ones save at least
#: this fraction of the dense products' work: the split's copies of the rows, its extra pass
#: over each row of products and BLAS's lower speed on fewer features take smaller savings (ijcnn1:
#: 9 sparse features of 22, about 0.9 entries a row, predicted more slowly split).
SPLIT_MIN_SAVING = 0.5
#: A feature of sparse rows whose products are taken by feature (``SPARSE_ROWS_DENSITY``) that is
#: in more than this fraction of the rows has its products taken by BLAS on a dense copy of such
#: features: a product by feature costs about ``BY_FEATURE_VALUE_COST`` of BLAS's float32
#: multiply-adds, so a feature in a fraction f of n rows costs f^2 n^2 x 74 by feature against
#: n^2 by BLAS, more from f = 1 / sqrt(74) = 0.12 on.
COMMON_FEATURE_DENSITY = 0.125
#: ... as measured on a9a's crossed rows, one thread each (docs/performance.md).
BY_FEATURE_VALUE_COST = 74
#: ... where the products by feature they save (``BY_FEATURE_VALUE_COST`` each) come to at least
#: this many times what BLAS's products of them and a second pass over every row of products
#: (the other features' products added in, ``COMMON_SPLIT_PASS_COST``) cost: the dense copies
#: cost besides, and rows of w8a's shape (12 binary features a row, 17 of 300 common, a saving of
#: 63 against 65) were computed more slowly split (docs/performance.md).
COMMON_SPLIT_MIN_GAIN = 2.0
#: ... that pass, in BLAS's float32 multiply-adds a value (docs/performance.md).
COMMON_SPLIT_PASS_COST = 48
#: ... and the rows are at least this many: the copies and the rows computed from Python cost
#: more than they save on fewer (a9a's crossed rows: 1,000 slower split, 4,000 faster;
#: docs/performance.md).
COMMON_FEATURES_MIN_ROWS = 2048
#: One-vs-one predictions of at least this many classes multiply a block's kernel values by each
#: class's coefficients in its k - 1 pairs (LIBSVM's ``dual_coef_``) rather than by every pair's,
#: most of them zero: k / 2 times fewer multiply-adds, for a product per class and a sum per pair ...
PAIR_PRODUCTS_MIN_CLASSES = 4
#: ... where the pairs' products would take at least this many multiply-adds (test rows x support
#: vectors x pairs): fewer leave little to save beside the extra NumPy calls of a product per class.
PAIR_PRODUCTS_MIN_WORK = 2**20
#: Kernel values from which a prediction's blocks are spread over ``n_jobs`` threads (fewer
#: cost more in thread hand-overs than they save).
PARALLEL_PREDICT_VALUES = 2**20


@dataclass(frozen=True)
class Plan:
    """What the solver will do for one batch of duals.

    Attributes
    ----------
    strategy : {'gram', 'blocked'}
    shared_rows : bool
        Gram strategy: one store of kernel rows of all the data for every problem of the
        batch (else each problem its own).
    gram_dtype : numpy dtype
        Type of the stored kernel values (Gram strategy) or cached rows (blocked: float32
        for the built-in kernels).
    dots : {'loops', 'blas', 'sparse', 'common', 'precomputed', 'python'}
        How kernel rows are computed: compiled loops, BLAS products, compiled loops over
        sparse rows' nonzeros, BLAS products of the features many sparse rows hold and
        compiled loops' of the others (``COMMON_FEATURE_DENSITY``), copies from a precomputed
        Gram matrix, or the kernel object in Python (kernels without a compiled form).
    working_set : int
        Blocked strategy: variables per working set.
    cache_rows : int
        Kernel rows the store (Gram strategy, shared rows) or the row cache (blocked) holds.
    prefetch : int
        Gram strategy: most rows computed at once where SMO asks for one.
    threads : int
        Problems solved at once on worker threads.
    max_steps : int
        Steps of one problem before it stops with ITERATION_LIMIT.
    single_precision : bool
        Whether kernel values may be stored in float32 (their magnitude allows it).
    own_rows : bool
        Blocked strategy: the problem's kernel rows span a copy of its own rows only, not all
        the data (:func:`for_problem`).
    rows_upfront : bool
        Gram strategy, one store of all rows of a built-in kernel: every row computed in one
        call before SMO starts (``ROWS_UPFRONT_MAX_WORK``), not as SMO asks for them.
    features : float
        Blocked strategy: the features a product reads (sparse ones counted by their
        density), by which :func:`for_problem` judges a problem's own Gram matrix.
    gram_dots : str
        Blocked strategy: how the Gram strategy would compute rows of these data, which the
        problems that :func:`for_problem` gives it take.
    dense_rows : bool
        Blocked strategy: whether the data's rows are dense (the linear kernel's rounds are
        then compiled whole, and take smaller working sets).
    """

    strategy: str
    shared_rows: bool
    gram_dtype: np.dtype
    dots: str
    working_set: int
    cache_rows: int
    prefetch: int
    threads: int
    max_steps: int
    single_precision: bool = True
    own_rows: bool = False
    rows_upfront: bool = False
    features: float = 0.0
    gram_dots: str = ""
    dense_rows: bool = True

    def __str__(self):
        where = ("one store of rows for all problems" if self.shared_rows else "rows per problem")
        if self.strategy == "gram":
            detail = f"Gram matrix in {np.dtype(self.gram_dtype).name}, {where}"
            if self.shared_rows:
                detail += f" ({self.cache_rows} rows{', all computed first' if self.rows_upfront else ' at most'})"
            elif self.rows_upfront:
                detail += " (each problem's rows computed first)"
        else:
            detail = (f"working sets of {self.working_set}, a cache of {self.cache_rows} "
                      f"{np.dtype(self.gram_dtype).name} rows")
            if self.own_rows:
                detail += " of the problem's own rows"
        return f"plan: {self.strategy} strategy ({detail}), rows by {self.dots}, {self.threads} thread(s)"


def plan(n_data, group_rows, *, n_features, kernel_code, sparse_density=None, budget_bytes, n_jobs=1,
         max_iter=-1, linear=False, value_bound=1.0, exact_in_float32=False, common_features=False):
    """The :class:`Plan` of a batch of duals.

    Parameters
    ----------
    n_data : int
        Rows of the data (or of the precomputed Gram matrix) the batch refers to.
    group_rows : sequence of int
        Distinct data rows of each problem of the batch.
    n_features : int
        Columns of the data (0 for a precomputed kernel).
    kernel_code : int or None
        The kernel's compiled code (:mod:`svmkit._core.kernels`), ``PRECOMPUTED``, or None
        (a kernel computed in Python).
    sparse_density : float or None
        Fraction of nonzeros of sparse data (None: dense).
    budget_bytes : float
        ``cache_size`` in bytes.
    n_jobs : int
        Threads allowed.
    max_iter : int
        The estimator's ``max_iter`` (-1: the default limit).
    linear : bool
        Whether the kernel is the linear kernel (the blocked strategy then follows ``w``).
    value_bound : float
        The largest magnitude a kernel value can have (float32 stores only up to
        ``FLOAT32_VALUE_LIMIT``, or where every value is exact in float32).
    exact_in_float32 : bool
        Whether every kernel value is exact in float32 (the linear kernel on counts and small
        integers: float32 rows are the float64 ones, whatever their size).
    common_features : bool
        Whether a few features of sparse data take most of their products by feature
        (:func:`svmkit._features.common_features`): BLAS takes those where the rows stay sparse.

    Examples
    --------
    >>> from svmkit._core.kernels import RBF
    >>> str(plan(112, [112], n_features=4, kernel_code=RBF, budget_bytes=200 * 2**20))
    'plan: gram strategy (Gram matrix in float64, one store of rows for all problems (112 rows, all computed first)), rows by loops, 1 thread(s)'
    >>> str(plan(270, [270], n_features=13, kernel_code=RBF, budget_bytes=200 * 2**20))
    'plan: gram strategy (Gram matrix in float64, one store of rows for all problems (270 rows, all computed first)), rows by blas, 1 thread(s)'
    >>> str(plan(3000, [3000], n_features=22, kernel_code=RBF, budget_bytes=200 * 2**20))  # (198 M multiply-adds)
    'plan: gram strategy (Gram matrix in float32, one store of rows for all problems (3000 rows at most)), rows by loops, 1 thread(s)'
    >>> plan(50_000, [50_000], n_features=22, kernel_code=RBF, budget_bytes=200 * 2**20).strategy
    'blocked'
    >>> from svmkit._core.kernels import LINEAR
    >>> plan(3089, [3089], n_features=4, kernel_code=LINEAR, budget_bytes=200 * 2**20,
    ...      value_bound=3.8e5).gram_dtype  # (unscaled data)
    dtype('float64')
    """
    from ._core.kernels import PRECOMPUTED

    largest = max(group_rows)
    n_variables = 2 * largest  # (SVR: two variables per row, the most there can be)
    max_steps = max_iter if max_iter > 0 else max(DEFAULT_MAX_STEPS, STEPS_PER_VARIABLE * n_variables)
    single = bool(value_bound <= FLOAT32_VALUE_LIMIT or exact_in_float32)
    row_dtype = np.dtype(np.float32 if single else np.float64)
    if kernel_code == PRECOMPUTED:
        dots = "precomputed"
    elif kernel_code is None:
        dots = "python"
    elif sparse_density is not None:
        # (sparse rows dense enough are made dense for BLAS, whichever the strategy)
        if dense_copy_pays(sparse_density, n_data, n_features, row_dtype):
            dots = "blas"
        else:
            dots = "common" if common_features else "sparse"
    else:
        dots = "loops" if n_features <= LOOP_ROWS_MAX_FEATURES else "blas"
    features = n_features * (sparse_density if dots in ("sparse", "common") else 1.0)
    dense = sparse_density is None
    shared_dtype = _gram_dtype_where_it_pays(n_data, budget_bytes, single, features, linear, dense)
    if shared_dtype is not None:
        work = n_data * n_data * max(n_features, 1)
        if dots == "loops" and n_features >= UPFRONT_BLAS_MIN_FEATURES and \
                UPFRONT_BLAS_WORK[0] <= work <= UPFRONT_BLAS_WORK[1]:
            dots = "blas"
        upfront = work <= ROWS_UPFRONT_MAX_WORK.get(dots, 0)
        return Plan("gram", True, shared_dtype, dots, 0, n_data, PREFETCH_ROWS[dots], 1, max_steps, single,
                    rows_upfront=upfront)
    own_dtypes = [_gram_dtype_where_it_pays(rows, budget_bytes, single, features, linear, dense) for rows in group_rows]
    if all(dtype is not None for dtype in own_dtypes):
        widest = np.float64 if all(d == np.float64 for d in own_dtypes) else np.float32
        return Plan("gram", False, np.dtype(widest), dots, 0, 0, PREFETCH_ROWS[dots],
                    _batch_threads(group_rows, n_jobs, budget_bytes), max_steps, single)
    shared_rows = rows_in_budget(n_data, budget_bytes, row_dtype)
    if (dots != "precomputed" and shared_rows >= SHARED_ROWS_MIN_FRACTION * n_data
            and gram_pays(n_data, features, linear, dense)):
        return Plan("gram", True, row_dtype, dots, 0, shared_rows, PREFETCH_ROWS[dots], 1, max_steps, single)
    working_set, cache_rows = _blocked_sizes(n_data, largest, n_variables, budget_bytes, row_dtype, linear, dense)
    # (the linear kernel's problems, which need no row cache, on threads where there are many)
    threads = _batch_threads(group_rows, n_jobs, budget_bytes) if linear else 1
    return Plan("blocked", False, row_dtype, "blas" if dots == "loops" else dots, working_set, cache_rows, 0, threads,
                max_steps, single, features=features, gram_dots=dots, dense_rows=dense)


def _batch_threads(group_rows, n_jobs, budget_bytes):
    """Threads for the problems of a batch (of ``group_rows`` rows each) solved on rows of
    their own: up to ``n_jobs`` where they hold ``PARALLEL_BATCH_VALUES`` Gram values in all,
    as many as the budget holds the float64 Gram matrices of the largest problems solved at
    once (their own, or that of their shrunk variables)."""
    values = sum(rows * rows for rows in group_rows)
    threads = max(1, min(n_jobs, len(group_rows))) if values >= PARALLEL_BATCH_VALUES else 1
    while threads > 1 and sum(sorted(rows * rows for rows in group_rows)[-threads:]) * 8 > budget_bytes:
        threads -= 1
    return threads


def gram_pays(n_rows, features, linear, dense=True):
    """Whether the Gram strategy may solve a problem of ``n_rows`` rows of ``features``
    features (sparse ones counted by their density): always but for the linear kernel, whose
    blocked strategy follows ``w`` and beats a Gram matrix of more than
    ``LINEAR_DENSE_GRAM_MAX_WORK`` multiply-adds (``dense`` rows; sparse ones:
    ``LINEAR_GRAM_MAX_WORK``), or of few features (``LINEAR_FEW_FEATURES``) and many rows
    (``LINEAR_FEW_FEATURES_MIN_ROWS``).

    Examples
    --------
    >>> gram_pays(2199, 256, linear=True), gram_pays(1000, 60, linear=True), gram_pays(2199, 256, linear=False)
    (False, True, True)
    >>> gram_pays(6182, 123, linear=True, dense=False), gram_pays(1490, 123, linear=True, dense=False)  # (a9a)
    (False, True)
    >>> gram_pays(3089, 4, linear=True), gram_pays(270, 4, linear=True)  # (svmguide1, a small set)
    (False, True)
    """
    if not linear:
        return True
    if features <= LINEAR_FEW_FEATURES and n_rows >= LINEAR_FEW_FEATURES_MIN_ROWS:
        return False
    return n_rows * n_rows * features <= (LINEAR_DENSE_GRAM_MAX_WORK if dense else LINEAR_GRAM_MAX_WORK)


def _gram_dtype_where_it_pays(n_rows, budget_bytes, single_precision, features, linear, dense):
    """:func:`gram_dtype` of a problem whose Gram strategy pays (:func:`gram_pays`), else None."""
    if not gram_pays(n_rows, features, linear, dense):
        return None
    return gram_dtype(n_rows, budget_bytes, single_precision)


def exact_float32_pays(n_support, n_features):
    """Whether predictions against ``n_support`` support vectors of ``n_features`` features look
    for exact float32 products: what they save on a test row's products (``FLOAT32_SAVING_NS``
    a multiply-add, less ``FLOAT32_WIDENING_NS`` a product) exceeds the look at its values
    (``FLOAT32_LOOK_NS`` each; docs/performance.md).

    Examples
    --------
    >>> exact_float32_pays(680, 60), exact_float32_pays(5000, 4), exact_float32_pays(100, 123)
    (True, False, False)
    """
    return n_support * (FLOAT32_SAVING_NS * n_features - FLOAT32_WIDENING_NS) > FLOAT32_LOOK_NS * n_features


def sparse_test_products_pay(density, n_support, n_features):
    """Whether sparse test rows of this ``density`` (fraction of nonzeros) are multiplied by
    ``n_support`` dense support vectors in compiled loops over their nonzeros: at most
    ``SPARSE_TEST_ROWS_DENSITY`` and ``SPARSE_PRODUCTS_SUPPORT_PER_FEATURE`` support vectors a feature.

    Examples
    --------
    >>> sparse_test_products_pay(0.11, 835, 123), sparse_test_products_pay(0.11, 7236, 123)
    (True, False)
    >>> sparse_test_products_pay(1.0, 150, 60)
    False
    """
    return density <= SPARSE_TEST_ROWS_DENSITY and n_support <= SPARSE_PRODUCTS_SUPPORT_PER_FEATURE * n_features


def dense_copy_pays(density, n_rows, n_features, dtype):
    """Whether sparse rows of this ``density`` (fraction of nonzeros) are better made dense for
    BLAS's products: denser than ``SPARSE_ROWS_DENSITY`` and a copy within ``DENSE_COPY_BYTES``.
    The solver's rows and the support vectors of a prediction decide alike.

    Examples
    --------
    >>> dense_copy_pays(0.2, 10_000, 123, np.float32), dense_copy_pays(0.01, 10_000, 123, np.float32)
    (True, False)
    """
    return density > SPARSE_ROWS_DENSITY and n_rows * n_features * np.dtype(dtype).itemsize <= DENSE_COPY_BYTES


def _blocked_sizes(n_rows, problem_rows, n_variables, budget_bytes, dtype, linear, dense):
    """The blocked strategy's working set and cached rows (of ``n_rows`` values) for a problem
    of ``problem_rows`` rows and ``n_variables`` variables: the budget holds the cached rows (at
    least one), a working set's float64 block and its rows' block in ``dtype``, and the block
    that rows bound for scattered slots are computed in (``SCATTERED_ROWS_BYTES``); the rows of
    a round's moved multipliers pass through the cache a part at a time where it holds fewer.

    Examples
    --------
    >>> [_blocked_sizes(n, n, n, 200 * 2**20, np.float32, True, True)[0] for n in (1800, 14_000, 49_990)]
    [128, 256, 512]
    """
    if linear and dense:
        low, high = LINEAR_DENSE_WORKING_SET_BOUNDS
        working_set = int(np.clip(2 ** round(np.log2(3 * np.sqrt(max(problem_rows, 1)))), low, high))
    else:
        working_set = LINEAR_WORKING_SET if linear else WORKING_SET
    working_set = int(min(working_set, 2 ** int(np.floor(np.log2(max(n_variables // 2, 2))))))
    round_bytes = working_set**2 * (8 + np.dtype(dtype).itemsize)
    cache_rows = 0 if linear else row_cache_rows(n_rows, budget_bytes - round_bytes, dtype)
    return working_set, cache_rows


def for_problem(plan, n_data, n_rows, n_variables, budget_bytes, linear=False):
    """The plan of one problem of a batch planned for the blocked strategy, ``n_rows`` of the
    data's ``n_data`` rows and ``n_variables`` variables: the Gram strategy on its own rows
    where their Gram matrix fits the budget (the small pairs of unequal classes), else the
    blocked strategy, on a copy of its own rows where they are at most
    ``OWN_ROWS_MAX_FRACTION`` of the data. Other plans are every problem's.

    Examples
    --------
    >>> from svmkit._core.kernels import RBF
    >>> batch = plan(60_000, [40_000, 20_100, 100], n_features=9, kernel_code=RBF, budget_bytes=200 * 2**20)
    >>> [(p.strategy, p.own_rows, p.cache_rows) for p in (for_problem(batch, 60_000, rows, rows, 200 * 2**20)
    ...                                                  for rows in (40_000, 20_100, 100))]
    [('blocked', False, 751), ('blocked', True, 2243), ('gram', False, 0)]
    """
    if plan.strategy != "blocked":
        return plan
    own_dtype = _gram_dtype_where_it_pays(n_rows, budget_bytes, plan.single_precision, plan.features, linear,
                                          plan.dense_rows)
    if own_dtype is not None:
        return replace(plan, strategy="gram", shared_rows=False, gram_dtype=own_dtype, dots=plan.gram_dots,
                       working_set=0, cache_rows=0, prefetch=PREFETCH_ROWS[plan.gram_dots])
    own = n_rows <= OWN_ROWS_MAX_FRACTION * n_data
    working_set, cache_rows = _blocked_sizes(n_rows if own else n_data, n_rows, n_variables, budget_bytes,
                                             plan.gram_dtype, linear, plan.dense_rows)
    return replace(plan, working_set=working_set, cache_rows=cache_rows, own_rows=own)


def class_blocks_pay(plan, class_bytes=0, pair_bytes=0, budget_bytes=np.inf, linear=False):
    """Whether the one-vs-one problems of a batch of this ``plan`` take Gram matrices assembled
    before SMO starts from blocks (:mod:`svmkit._solver.class_blocks`): each class's own,
    computed once for its k - 1 problems, and each pair's, all by BLAS. Where the problems
    are on stores of their own rows whose rows BLAS computes (dense rows wider than
    ``LOOP_ROWS_MAX_FEATURES``), and the class blocks (``class_bytes`` in all) and the largest
    Gram matrix and pair's block of each of the plan's threads (``pair_bytes``) fit the budget: SMO's rows one at
    a time read all of a pair's features for each row, bound by memory, at several times a BLAS
    value's cost, and usps's pairs read a sixth of their rows under RBF. Not for the linear kernel,
    whose pairs read fewer of their rows (usps's first 3,000 rows: 12%) and whose values have no
    exponential: there the copies into each pair's matrix cost more than the loops' rows
    (docs/performance.md).

    Examples
    --------
    >>> from svmkit._core.kernels import RBF
    >>> usps = plan(7291, [1458] * 45, n_features=256, kernel_code=RBF, budget_bytes=200 * 2**20, n_jobs=2)
    >>> class_blocks_pay(usps, 22 * 2**20, 9 * 2**20, 200 * 2**20), class_blocks_pay(usps, 22 * 2**20, 9 * 2**20, 30 * 2**20)
    (True, False)
    """
    if plan.strategy != "gram" or plan.shared_rows or plan.dots != "blas" or linear:
        return False
    return class_bytes + max(plan.threads, 1) * pair_bytes <= budget_bytes


def with_rows_per_problem(plan):
    """``plan`` with a store of rows per problem instead of one shared store (for a batch whose
    problems' rows are not runs of consecutive rows of the data)."""
    return replace(plan, shared_rows=False)


def rows_in_budget(n_rows, budget_bytes, dtype=np.float32):
    """How many kernel rows of ``n_rows`` values of ``dtype`` ``budget_bytes`` holds (a store
    of rows where the Gram matrix does not fit).

    Examples
    --------
    >>> rows_in_budget(8000, 200 * 2**20), rows_in_budget(8000, 200 * 2**20, np.float64)
    (6553, 3276)
    """
    return int(max(budget_bytes, 0) // (np.dtype(dtype).itemsize * max(n_rows, 1)))


def row_cache_rows(n_rows, budget_bytes, dtype=np.float32):
    """How many kernel rows of ``n_rows`` values of ``dtype`` a cache of rows holds within
    ``budget_bytes`` beside the block that its rows bound for scattered slots are computed in
    (``SCATTERED_ROWS_BYTES``); at least one.

    Examples
    --------
    >>> row_cache_rows(20_000, 200 * 2**20), row_cache_rows(20_000, 2**20)
    (2411, 1)
    """
    return max(1, rows_in_budget(n_rows, budget_bytes - SCATTERED_ROWS_BYTES, dtype))


def gram_dtype(n_rows, budget_bytes, single_precision=True):
    """The type of a Gram matrix of ``n_rows`` rows within ``budget_bytes``: float64 up to
    ``FLOAT64_GRAM_BYTES``, float32 above (float64 without ``single_precision``); None where
    it does not fit.

    Examples
    --------
    >>> gram_dtype(700, 200 * 2**20), gram_dtype(5000, 200 * 2**20), gram_dtype(8000, 200 * 2**20)
    (dtype('float64'), dtype('float32'), None)
    >>> gram_dtype(5000, 200 * 2**20, single_precision=False)
    dtype('float64')
    """
    values = n_rows * n_rows
    if values * 8 <= (min(budget_bytes, FLOAT64_GRAM_BYTES) if single_precision else budget_bytes):
        return np.dtype(np.float64)
    if single_precision and values * 4 <= budget_bytes:
        return np.dtype(np.float32)
    return None


def epochs_per_call(values_per_epoch):
    """Epochs of a compiled loop that reads ``values_per_epoch`` values an epoch made in one call:
    as many as ``LINEAR_VALUES_PER_CALL`` values allow, at least one.

    Examples
    --------
    >>> epochs_per_call(50_000 * 51), epochs_per_call(10**9)
    (6, 1)
    """
    return max(1, int(LINEAR_VALUES_PER_CALL // max(values_per_epoch, 1)))
