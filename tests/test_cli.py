"""The command line: bench info and bench check."""

from __future__ import annotations

import json
import subprocess
import sys

from bench.cli import main
from support import DEFS, ROOT


def run(capsys, *argv):
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def facts(out: str) -> dict:
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line and not line.startswith("SHAPE["))


def test_info_reports_the_10x6_specification(capsys):
    status, out, err = run(capsys, "info", str(DEFS / "pentominoes_10x6.txt"))
    assert status == 0 and not err
    f = facts(out)
    assert f["ORIENTATIONS"] == "63"
    assert f["BOUNDED"] == "2056"
    assert f["SYMMETRY_GROUP_ORDER"] == "4"
    assert (f["REDUNDANCY_FILTER"], f["REDUNDANCY_KEPT"], f["OPTIONS"]) == ("X", "8", "2032")
    assert f["PUZZLE_PARITY"] == "0"
    assert f["EXPECTED_UNIQUE"] == "2339"
    assert "SHAPE[9]={name=X:size=5:parity=3:orientations=1:copies=1:stationary=0:images=32:" in out


def test_info_tetris_cube_and_box_in_a_diamond(capsys):
    status, out, _ = run(capsys, "info", str(DEFS / "tetriscube.txt"), str(DEFS / "hexominoes_box_in_diamond.txt"))
    assert status == 0
    tetris, diamond = out.split("\n\n")
    assert facts(tetris)["ORIENTATION_CELLS"] == "1416"
    assert facts(tetris)["SYMMETRY_GROUP_ORDER"] == "24"
    assert facts(diamond)["PUZZLE_PARITY"] == "22"
    assert facts(diamond)["MAX_PARITY"] == "22"


def test_info_without_redundancy_and_as_json(capsys):
    status, out, _ = run(capsys, "info", "--json", "-r", ".", str(DEFS / "pentominoes_10x6.txt"))
    assert status == 0
    [f] = json.loads(out)
    assert f["OPTIONS"] == 2056 and f["REDUNDANCY_FILTER"] == "."
    assert [s["name"] for s in f["SHAPE"]] == list("FILNPTUVWXYZ")


def test_info_reports_every_puzzle_of_a_file(capsys):
    status, out, _ = run(capsys, "info", str(DEFS / "hexominoes_rectangles.txt"))
    assert status == 0
    assert out.count("PUZZLE_FILE=") == 6
    assert "UNSOLVABLE=parity: the open region has parity 0" in out


def test_bad_input_prints_path_line_and_exits_2(capsys, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("D:xDim=2:yDim=1:zDim=1\nC:name=a:layout=0 0 0\nC:name=a:layout=1 0 0\n~D\n")
    good = DEFS / "dominoes_4x4.txt"
    status, out, err = run(capsys, "info", str(good), str(bad))
    assert status == 2
    assert err.strip() == f"{bad}:3: duplicate piece name 'a' (first defined on line 2); expected each piece to have its own name"
    # the good file is still reported, and the status says the run was not clean
    assert "PUZZLE_FILE=" in out


def test_unknown_redundancy_piece_is_a_user_error(capsys):
    status, _, err = run(capsys, "info", "-r", "Q", str(DEFS / "pentominoes_10x6.txt"))
    assert status == 2 and "cannot constrain piece 'Q'" in err


def test_check_lists_puzzles_and_why_they_are_unsolvable(capsys):
    status, out, err = run(capsys, "check", str(DEFS))
    assert status == 0, err
    assert "ok          " in out
    assert out.count("unsolvable  ") == 6
    assert "fits nowhere" not in out


def test_check_says_a_piece_fits_nowhere(capsys, tmp_path):
    f = tmp_path / "nowhere.txt"
    f.write_text("D:xDim=3:yDim=1:zDim=1\nC:name=a:layout=0 0 0, 1 0 0, 2 0 0\nC:name=b:layout=0 0 0, 0 1 0\n~D\n")
    status, out, _ = run(capsys, "check", str(f))
    assert status == 0
    assert "piece b fits nowhere" not in out  # spare piece: it may stay out
    f.write_text("D:xDim=6:yDim=1:zDim=1\nC:name=a:layout=0 0 0, 1 0 0, 2 0 0\nC:name=b:layout=0 0 0, 1 0 0, 0 1 0\n~D\n")
    status, out, _ = run(capsys, "check", str(f))
    assert status == 0 and "piece b fits nowhere in the open region" in out


def test_check_validates_expected_counts(capsys, tmp_path):
    (tmp_path / "a.txt").write_text((DEFS / "dominoes_4x4.txt").read_text())
    (tmp_path / "expected.toml").write_text('["a.txt"]\nunique = 9\ntotal = 36\ngroup = 4\nsymmetry = "x"\nsource = "y"\n\n["gone.txt"]\nunique = 1\ngroup = 1\nsymmetry = "x"\nsource = "y"\n')
    status, _, err = run(capsys, "check", str(tmp_path))
    assert status == 2
    assert "records group = 4, but the puzzle's symmetry group (mirror) has order 8" in err
    assert '["gone.txt"] names a file that does not exist' in err


def test_console_entry_point_and_standard_input():
    text = (DEFS / "dominoes_4x4.txt").read_text()
    proc = subprocess.run([sys.executable, "-m", "bench", "info", "-"], input=text, capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 0, proc.stderr
    assert "PUZZLE_FILE=<stdin>" in proc.stdout
    proc = subprocess.run([sys.executable, "-m", "bench", "info", "-"], input="D:xDim=1\n", capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode == 2
    assert proc.stderr.startswith("<stdin>:1: missing attribute 'yDim'")
    assert "Traceback" not in proc.stderr


def test_ci_runs_the_readme_test_command():
    readme = (ROOT / "README.md").read_text()
    ci = (ROOT / ".ci" / "run").read_text().splitlines()
    test_command = next(line for line in ci if "pytest" in line)
    assert f"```sh\n{test_command}\n```" in readme
    assert any(line.startswith(".venv/bin/bench run") for line in ci)
