"""The side-by-side benchmark against polycube 1.2.1, with a stand-in for polycube's binary (not bundled)."""

from __future__ import annotations

import sys

import pytest

from benchmarks import polycube
from benchmarks.polycube import Case

# what polycube 1.2.1 prints with -i -q: its statistics, then its performance meters
OUTPUT = """# Number of solutions found:
SOLUTIONS={unique}

# Number of rotationally unique solutions found:
UNIQUE={unique}

# Number of times pieces were attempted to be placed:
ATTEMPTS_TOTAL=15198004

# Number of times pieces fit:
FITS_TOTAL=2091215

NAME                          :      TOTAL TIME                    : PERCENTAGE                 :  NUM EVENTS :     AVG TIME
_______________________________________________________________________________________________________________________________

all                           :        0.146857                    : *                          :            1:           0.147
    parsing                   :            0.000097                :      0.066%                :            1:           0.000
    solve                     :            0.146279                :     99.606%                :            1:           0.146
        solve-init            :                0.004431            :          3.029%            :            1:           0.004
"""


def fake_polycube(tmp_path, unique: int | None) -> str:
    """An executable that prints polycube's output for ``unique`` solutions, or its error (and exits 0, as polycube
    does) when None; it records the arguments it was given."""
    path = tmp_path / "polycube"
    text = OUTPUT.format(unique=unique) if unique is not None else ""
    err = "" if unique is not None else "Exception: the argument for option '--volumeFilter' is invalid"
    path.write_text(f"#!{sys.executable}\nimport sys\nopen({str(tmp_path / 'argv')!r}, 'a').write(' '.join(sys.argv[1:]) + '\\n')\n"
                    f"sys.stdout.write({text!r})\nsys.stderr.write({err!r})\n")
    path.chmod(0o755)
    return str(path)


def test_a_polycube_run_gives_its_search_seconds_counts_and_statistics(tmp_path):
    binary = fake_polycube(tmp_path, 2339)
    got = polycube.run_polycube(binary, polycube.CASES["10x6"], None)
    assert got["search"] == pytest.approx(0.146279 - 0.004431) and got["solve"] == pytest.approx(0.146279)
    assert (got["unique"], got["attempts"], got["fits"]) == (2339, 15198004, 2091215)
    # the file after "--": polycube's options with an optional value would take it for theirs
    args = (tmp_path / "argv").read_text().split()
    assert args[-2] == "--" and args[-1].endswith("pentominoes_10x6.txt") and args[:4] == ["-r", "-b", "11", "-V"]


def test_a_polycube_run_without_its_count_line_is_an_error_though_it_exits_0(tmp_path):
    with pytest.raises(SystemExit, match="polycube did not solve .*volumeFilter"):
        polycube.run_polycube(fake_polycube(tmp_path, None), polycube.CASES["10x6"], None)


@pytest.mark.parametrize("unique, agree", [(480, True), (479, False)])
def test_the_counts_of_both_solvers_are_checked_against_each_other_and_the_record(tmp_path, unique, agree):
    case = Case("soma", "somacube.txt", ("-r",))
    row = polycube.compare(fake_polycube(tmp_path, unique), sys.executable, case, 1, None)
    assert row["counts_agree"] is agree and row["expected_unique"] == 480
    assert row["bench"]["nodes"] > 0 and row["bench"]["search"]["median"] > 0
    assert row["search_ratio"] == pytest.approx((0.146279 - 0.004431) / row["bench"]["search"]["median"])
    assert row["solve_ratio"] == pytest.approx(0.146279 / row["bench"]["solve"]["median"])
    assert row["bench"]["solve"]["median"] > row["bench"]["search"]["median"]
    report = polycube.markdown([row], {"cpu": "cpu", "cores": 2, "commit": "abc"}, 0, "Polycube, Version 1.2.1.")
    assert "| somacube.txt | `-r` |" in report and ("DISAGREE" in report) is not agree
