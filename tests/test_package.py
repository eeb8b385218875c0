"""The package's public names: each one importable, and each loaded only when asked for."""

import subprocess
import sys

import pytest

import svmkit


@pytest.mark.parametrize("name", svmkit.__all__)
def test_every_public_name_is_found_where_it_is_defined(name):
    value = getattr(svmkit, name)
    home = next((module for module, names in svmkit._HOMES.items() if name in names), None)
    if home is None:  # a submodule
        assert value.__name__ == f"svmkit.{name}"
    else:
        assert value.__module__.startswith(f"svmkit{home}")
    assert name in dir(svmkit)


def test_an_unknown_name_is_an_attribute_error():
    with pytest.raises(AttributeError, match="has no attribute 'SVM'"):
        svmkit.SVM  # noqa: B018


def test_importing_svc_leaves_model_selection_file_formats_and_persistence_unloaded():
    code = (
        "import sys\n"
        "from svmkit import SVC\n"
        "print(sorted(name for name in ('svmkit.model_selection', 'svmkit.io', 'svmkit.persistence', "
        "'svmkit.plotting', 'svmkit.naive_bayes', 'sklearn.model_selection') if name in sys.modules))\n"
    )
    loaded = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert loaded.strip() == "[]"


def test_the_lazy_names_example_runs():
    import doctest

    import svmkit._lazy

    result = doctest.testmod(svmkit._lazy)
    assert result.attempted > 0 and result.failed == 0
