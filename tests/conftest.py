import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))

SHARED_DATA = Path(__file__).resolve().parents[2] / "shared" / "data"


@pytest.fixture
def shared_data():
    """The folder of real datasets beside the repository; skips the test when absent."""
    if not SHARED_DATA.is_dir():
        pytest.skip("../shared/data is not present")
    return SHARED_DATA


@pytest.fixture
def pair_solver_calls(monkeypatch):
    """The compiled solvers of one-vs-one problems that the fits called, in order, each as
    ``(route, type of its first argument's values)``: ``all rows`` (the Gram matrix of all
    rows), ``own rows`` (kernel rows computed in one call), ``group of own rows`` (a group of
    problems on a worker thread), ``gram rows`` and ``group of gram rows`` (the same, the rows
    copied from a precomputed Gram matrix), ``strips`` (the class strips), ``pair rows`` (each
    problem's Gram matrix from its rows)."""
    import svmkit._class_blocks as class_blocks_module
    import svmkit.svm._formulations as formulations_module

    calls = []
    for module, name, label in [
        (formulations_module, "solve_c_svc_pairs", "all rows"),
        (formulations_module, "solve_c_svc_pairs_on_own_rows", "own rows"),
        (formulations_module, "solve_pairs_on_own_rows", "group of own rows"),
        (formulations_module, "solve_c_svc_pairs_on_gram_rows", "gram rows"),
        (formulations_module, "solve_pairs_on_gram_rows", "group of gram rows"),
        (class_blocks_module, "solve_pairs", "strips"),
        (class_blocks_module, "solve_linear_pairs", "pair rows"),
    ]:
        original = getattr(module, name)
        monkeypatch.setattr(module, name, lambda *args, original=original, label=label:
                            calls.append((label, str(args[0].dtype))) or original(*args))
    return calls
