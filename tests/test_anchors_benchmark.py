"""The benchmark against the anchors (meteor.gpp-6, Knuth's DLX3), with stand-ins for their binaries (not bundled)."""

from __future__ import annotations

import sys

import pytest

from benchmarks import anchors
from support import DEFS


def stand_in(tmp_path, name: str, stdout: str = "", stderr: str = "", reads_stdin: bool = False) -> str:
    """An executable that prints what the real program prints (and reads its matrix from standard input)."""
    path = tmp_path / name
    read = "sys.stdin.read()\n" if reads_stdin else ""
    path.write_text(f"#!{sys.executable}\nimport sys\n{read}sys.stdout.write({stdout!r})\nsys.stderr.write({stderr!r})\n")
    path.chmod(0o755)
    return str(path)


def meteor(tmp_path, count: int) -> str:
    return stand_in(tmp_path, "meteor", stdout=f"{count} solutions found\n\n0 0 0 0 1 \n 2 2 2 0 1 \n")


def dlx3(tmp_path, count: int, nodes: int = 137) -> str:
    return stand_in(tmp_path, "dlx3", reads_stdin=True,
                    stderr=f"(112 options, 65+0 items, 448 entries successfully read)\nAltogether {count} solutions, "
                           f"27500+5594876429 mems, 294992505 updates, 0 cleansings, 9936 bytes, {nodes} nodes, "
                           "ccost 10%.\n")


def test_the_anchors_outputs_are_read_and_a_silent_run_is_an_error(tmp_path):
    assert anchors.run_meteor(meteor(tmp_path, 2098), None)["count"] == 2098
    got = anchors.run_dlx3(dlx3(tmp_path, 36, 61), DEFS / "dominoes_4x4.txt", None)
    assert (got["count"], got["nodes"]) == (36, 61) and got["cpu"] >= 0
    with pytest.raises(SystemExit, match="did not solve the Meteor puzzle: boom"):
        anchors.run_meteor(stand_in(tmp_path, "broken", stderr="boom\n"), None)
    with pytest.raises(SystemExit, match="did not solve"):
        anchors.run_dlx3(stand_in(tmp_path, "silent", reads_stdin=True), DEFS / "dominoes_4x4.txt", None)


@pytest.mark.parametrize("meteor_count, dlx3_count, status", [(2098, 36, 0), (2096, 36, 1), (2098, 35, 1)])
def test_the_benchmark_checks_every_count_and_writes_its_report(tmp_path, meteor_count, dlx3_count, status):
    argv = ["--meteor", meteor(tmp_path, meteor_count), "--dlx3", dlx3(tmp_path, dlx3_count),
            "--dominoes", str(DEFS / "dominoes_4x4.txt"), "--rounds", "1", "--cpu", "-1",
            "--results", str(tmp_path / "results")]
    assert anchors.main(argv) == status
    report = (tmp_path / "results" / "anchors.md").read_text()
    assert "| meteor.txt | meteor.gpp-6 (one thread) |" in report and "| dominoes_4x4.txt | DLX3 |" in report
    assert ("DISAGREE" in report) is (status == 1)
    assert "`bench solve -q -e fila polyspheres_tetrahedron_20.txt`" in report
    assert (tmp_path / "results" / "anchors.json").exists()


def test_a_missing_binary_is_refused_before_anything_runs(tmp_path, capsys):
    with pytest.raises(SystemExit):
        anchors.main(["--meteor", str(tmp_path / "nothing"), "--dlx3", str(tmp_path / "nothing")])
    assert "no executable at" in capsys.readouterr().err
