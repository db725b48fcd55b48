"""A generated report and solution galleries opened in headless Chromium: screenshots saved, the layout measured.

Runs only when selected (``pytest -m browser``, as ``.ci/run`` does after
installing Debian's ``chromium``); skipped, with the reason, where no
Chromium can be found.  Screenshots go to ``$BENCH_SCREENSHOTS`` (default: the
test's temporary directory) so a person can look at them; the test checks
that each shows the page: not blank, with ink in every band where the page
has content.  What only a browser knows, the laid-out page, is measured by a
script added to a copy of each page (the pages themselves carry none) and
read back from Chromium's ``--dump-dom``: the page's height, markers that
lie on one another, text over a marker, labels that spill out of their
balls.
"""

from __future__ import annotations

import html
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from bench.cli import main
from support import DEFS

pytestmark = pytest.mark.browser

BROWSERS = ("chromium", "chromium-browser", "google-chrome")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--hide-scrollbars",
         "--no-first-run")
REPORT_HEIGHT = 7000
"""Pixels the report of the test's five puzzles may take at 1400 pixels wide, its detail folded (about 4,500)."""

MEASURE = """<script>
(() => {
  const box = el => el.getBoundingClientRect();
  const meet = (a, b) => Math.min(a.right, b.right) - Math.max(a.left, b.left) > 0.5
                      && Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 0.5;
  const inside = (a, b) => a.left >= b.left - 0.5 && a.right <= b.right + 0.5
                        && a.top >= b.top - 0.5 && a.bottom <= b.bottom + 0.5;
  const out = {height: document.documentElement.scrollHeight, stacked: 0, covered: [], spilled: [], timeouts: 0};
  for (const svg of document.querySelectorAll('.figure svg')) {
    const markers = [...svg.querySelectorAll('g[id^="axes_"] > g[id^="line2d"] use')];
    // the panel of timeouts: one marker per engine and puzzle, none on another
    const stopped = [...svg.querySelectorAll('g[id="axes_2"] > g[id^="line2d"] use')].map(box);
    out.timeouts += stopped.length;
    stopped.forEach((a, i) => stopped.slice(i + 1).forEach(b => { if (meet(a, b)) out.stacked += 1; }));
    // no text inside a plot (an annotation, a note) over one of its markers; tick labels and legends lie outside
    for (const text of svg.querySelectorAll('g[id^="axes_"] text')) {
      if (text.closest('g[id^="legend"], g[id^="matplotlib.axis"]')) continue;
      if (markers.some(m => meet(box(text), box(m)))) out.covered.push(text.textContent);
    }
  }
  for (const svg of document.querySelectorAll('svg[role="img"]')) {
    const balls = [...svg.querySelectorAll('circle.cell')].map(box);
    if (!balls.length) continue;
    for (const label of svg.querySelectorAll('text.label')) {
      if (!balls.some(b => inside(box(label), b))) out.spilled.push(label.textContent);
    }
  }
  const pre = document.createElement('pre');
  pre.id = 'measured';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
</script>"""


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


def _chromium(browser: str, profile: Path, *args: str) -> subprocess.CompletedProcess:
    # a fresh profile per call, so a locked profile of another run never blocks this one
    try:
        return subprocess.run([browser, *FLAGS, f"--user-data-dir={profile}", *args], check=True, capture_output=True,
                              text=True, timeout=120)
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def screenshot(browser: str, page: Path, png: Path, height: int):
    """Chromium's screenshot of ``page``, 1400 pixels wide, as a greyscale PIL image."""
    from PIL import Image

    _chromium(browser, png.with_suffix(".profile"), f"--window-size=1400,{height}", f"--screenshot={png}",
              page.resolve().as_uri())
    return Image.open(png).convert("L")


def measure(browser: str, page: Path) -> dict:
    """The laid-out ``page`` measured in Chromium (see :data:`MEASURE`), on a copy with the script added."""
    probe = page.with_name(page.stem + "-measured.html")
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", MEASURE + "\n</body>"), encoding="utf-8")
    dom = _chromium(browser, probe.with_suffix(".profile"), "--window-size=1400,1000", "--dump-dom",
                    probe.resolve().as_uri()).stdout
    probe.unlink()
    found = re.search(r'<pre id="measured">(.*?)</pre>', dom, flags=re.S)
    assert found, "the measuring script did not run"
    return json.loads(html.unescape(found.group(1)))


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
    # a timeout short enough that CP-SAT and SAT time out on some puzzles: the plots must show them apart
    assert main(["run", "-e", "dlx,fila,sat,cpsat", "--timeout", "1", "--output-file", str(result),
                 *(str(DEFS / p) for p in puzzles)]) == 0
    spheres = ["polyspheres_tetrahedron_20", "polyspheres_square_pyramid_30"]
    galleries = ["somacube", "hexiamonds_6x6", *spheres]
    assert main(["solve", "-q", "--max-solutions", "6", "--draw", str(tmp_path / "gallery"),
                 *(str(DEFS / f"{name}.txt") for name in galleries)]) == 0
    capsys.readouterr()
    page = result.with_suffix(".html")
    report = screenshot(chromium, page, shots / "report.png", REPORT_HEIGHT + 1000)
    rows = inked_rows(report)
    # over two screens of 900 px: how far past that depends on which engines timed out in this run (2,445 px once)
    assert rows and rows[-1] > 2000, "the report should run over several screens: table, plots, pictures"
    # ink throughout: no screen-sized hole where a plot or a picture failed to show
    gaps = [b - a for a, b in zip(rows, rows[1:])]
    assert max(gaps) < 400
    laid_out = measure(chromium, page)
    # per-puzzle detail folded: the page is a few screens, not tens
    assert laid_out["height"] < REPORT_HEIGHT and rows[-1] < REPORT_HEIGHT
    assert laid_out["timeouts"] > 0 and laid_out["stacked"] == 0, laid_out
    assert laid_out["covered"] == [], laid_out
    # opened, the detail shows every reason whole
    opened = page.with_name("run-opened.html")
    opened.write_text(page.read_text(encoding="utf-8").replace("<details>", "<details open>"), encoding="utf-8")
    assert inked_rows(screenshot(chromium, opened, shots / "report-opened.png", 3 * REPORT_HEIGHT))[-1] > rows[-1]
    for name in galleries:
        gallery = screenshot(chromium, tmp_path / "gallery" / f"{name}.html", shots / f"gallery-{name}.png", 1400)
        assert len(inked_rows(gallery)) > 400, f"the {name} gallery shows too little"
    for name in spheres:
        assert measure(chromium, tmp_path / "gallery" / f"{name}.html")["spilled"] == [], name
