"""docs/tutorial.md runs as a doctest and draws its pictures (headless)."""

import doctest
from pathlib import Path

import pytest

matplotlib = pytest.importorskip("matplotlib")
pytest.importorskip("pandas")
matplotlib.use("Agg")

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_the_tutorial_runs_and_draws_its_pictures(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "images").mkdir()
    result = doctest.testfile(str(DOCS / "tutorial.md"), module_relative=False,
                              optionflags=doctest.NORMALIZE_WHITESPACE)
    assert result.attempted > 50 and result.failed == 0
    text = (DOCS / "tutorial.md").read_text()
    drawn = sorted(path.name for path in (tmp_path / "images").glob("*.png"))
    shown = sorted(name for name in drawn if f"](images/{name})" in text)
    assert len(drawn) == 6 and shown == drawn
    for name in drawn:  # the committed pictures are the ones the tutorial draws
        assert (DOCS / "images" / name).is_file(), name


def test_the_readme_shows_the_pictures_that_make_images_draws():
    import importlib.util

    spec = importlib.util.spec_from_file_location("make_images", DOCS / "make_images.py")
    make_images = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(make_images)
    readme = (DOCS.parent / "README.md").read_text()
    assert len(make_images.PICTURES) == 3
    for name in make_images.PICTURES:
        picture = DOCS / "images" / name
        assert f"](docs/images/{name})" in readme
        assert picture.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and picture.stat().st_size < 100_000
