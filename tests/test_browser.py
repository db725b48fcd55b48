"""A generated report and a solution gallery opened in headless Chromium, screenshots saved.

Runs only when selected (``pytest -m browser``, as ``.ci/run`` does after
installing Debian's ``chromium``); skipped, with the reason, where no
Chromium can be found.  Screenshots go to ``$BENCH_SCREENSHOTS`` (default: the
test's temporary directory) so a person can look at them; the test checks
that each shows the page: not blank, with ink in every band where the page
has content.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from bench.cli import main
from support import DEFS

pytestmark = pytest.mark.browser

BROWSERS = ("chromium", "chromium-browser", "google-chrome")


@pytest.fixture(scope="module")
def chromium() -> str:
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    pytest.skip("no Chromium found (.ci/run installs Debian's chromium with apt-get when it runs as root)")


@pytest.fixture
def shots(tmp_path) -> Path:
    out = Path(os.environ.get("BENCH_SCREENSHOTS", tmp_path / "screenshots"))
    out.mkdir(parents=True, exist_ok=True)
    return out


def screenshot(browser: str, page: Path, png: Path, height: int):
    """Chromium's screenshot of ``page``, 1400 pixels wide, as a greyscale PIL image."""
    from PIL import Image

    # a fresh profile per shot, so a locked profile of another run never blocks this one
    profile = png.with_suffix(".profile")
    subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                    f"--user-data-dir={profile}", f"--window-size=1400,{height}", f"--screenshot={png}",
                    page.resolve().as_uri()], check=True, capture_output=True, timeout=120)
    shutil.rmtree(profile, ignore_errors=True)
    return Image.open(png).convert("L")


def inked_rows(image) -> list[int]:
    """Rows of the screenshot holding anything darker than the page's near-white background."""
    import numpy as np

    pixels = np.asarray(image)
    return np.nonzero(pixels.min(axis=1) < 200)[0].tolist()


def test_report_and_gallery_render_in_chromium(chromium, shots, tmp_path, capsys):
    pytest.importorskip("matplotlib")
    result = tmp_path / "run.json"
    puzzles = ["dominoes_4x4.txt", "somacube.txt", "tetrahexes_4x7.txt", "hexiamonds_6x6.txt",
               "polyspheres_tetrahedron_20.txt"]
    assert main(["run", "-e", "dlx,fila,sat", "--timeout", "20", "--output-file", str(result),
                 *(str(DEFS / p) for p in puzzles)]) == 0
    assert main(["solve", "-q", "--max-solutions", "6", "--draw", str(tmp_path / "gallery"),
                 str(DEFS / "somacube.txt"), str(DEFS / "polyspheres_tetrahedron_20.txt"),
                 str(DEFS / "hexiamonds_6x6.txt")]) == 0
    capsys.readouterr()
    report = screenshot(chromium, result.with_suffix(".html"), shots / "report.png", 6000)
    rows = inked_rows(report)
    assert rows and rows[-1] > 3000, "the report should run over several screens: table, plots, pictures"
    # ink throughout: no screen-sized hole where a plot or a picture failed to show
    gaps = [b - a for a, b in zip(rows, rows[1:])]
    assert max(gaps) < 400
    for name in ("somacube", "polyspheres_tetrahedron_20", "hexiamonds_6x6"):
        gallery = screenshot(chromium, tmp_path / "gallery" / f"{name}.html", shots / f"gallery-{name}.png", 1400)
        assert len(inked_rows(gallery)) > 400, f"the {name} gallery shows too little"
