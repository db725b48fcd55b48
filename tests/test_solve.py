"""bench solve: polycube's options, output formats that read back, info and JSON."""

from __future__ import annotations

import json
import re
import signal
import subprocess
import sys
import time

import pytest

import bench
from bench.cli import main
from support import DEFS, ROOT


def run(capsys, *argv):
    status = main(["solve", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def keyvalues(out):
    return dict(line.split("=", 1) for line in out.splitlines() if "=" in line and not line.startswith("#"))


def test_brief_layout_output(capsys):
    status, out, _ = run(capsys, "-r", "--max-solutions", "1", "--", str(DEFS / "pentominoes_20x3.txt"))
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "# --- SOLUTION 1 ---"
    assert len(lines) == 4 and all(len(line.split()) == 20 for line in lines[1:])
    assert sorted(set("".join(lines[1:]).replace(" ", ""))) == sorted("FILNPTUVWXYZ")


def test_three_d_layout_slices_are_separated_by_commas(capsys):
    status, out, _ = run(capsys, "--max-solutions", "1", str(DEFS / "somacube.txt"))
    rows = out.splitlines()[1:]
    assert len(rows) == 3 and all(row.count(",") == 2 for row in rows)


@pytest.mark.parametrize("fmt", ["F", "FL", "FC"])
def test_full_output_reads_back_as_the_same_puzzle(capsys, tmp_path, fmt):
    status, out, _ = run(capsys, "-O", fmt, "--max-solutions", "2", str(DEFS / "tetriscube.txt"))
    assert status == 0
    f = tmp_path / "back.txt"
    f.write_text(out)
    [original] = bench.load(DEFS / "tetriscube.txt")
    puzzles = bench.load(f)
    assert len(puzzles) == 2
    for p in puzzles:
        assert option_set(bench.Cover.from_puzzle(p)) == option_set(bench.Cover.from_puzzle(original))


def option_set(cover):
    """The options as a set of item tuples: equal puzzles, whatever order the shapes were drawn in."""
    return {tuple(cover.option(o)) for o in range(cover.n_options)}


@pytest.mark.parametrize("fmt", ["S", "SL", "SC"])
def test_sub_puzzle_output_reads_back_with_exactly_that_solution(capsys, tmp_path, fmt):
    status, out, _ = run(capsys, "-O", fmt, "--max-solutions", "2", str(DEFS / "tetriscube.txt"))
    f = tmp_path / "back.txt"
    f.write_text(out)
    status, out, _ = run(capsys, "-q", "-i", str(f))
    assert status == 0
    assert [line for line in out.splitlines() if line.startswith("SOLUTIONS=")] == ["SOLUTIONS=1"] * 2


def test_sub_puzzles_of_10x6_add_up_to_2339(capsys, tmp_path):
    status, out, _ = run(capsys, "-r", "-R", "-g", "11", "-O", "S", "--", str(DEFS / "pentominoes_10x6.txt"))
    assert status == 0 and out.count("# --- SOLUTION") == 7
    f = tmp_path / "subs.txt"
    f.write_text(out)
    status, out, _ = run(capsys, "-q", "-i", str(f))
    counts = [int(line.split("=")[1]) for line in out.splitlines() if line.startswith("SOLUTIONS=")]
    assert len(counts) == 7 and sum(counts) == 2339


def test_unique_prints_only_canonical_solutions(capsys):
    status, out, _ = run(capsys, str(DEFS / "dominoes_4x4.txt"))
    assert out.count("# --- SOLUTION") == 36
    status, out, _ = run(capsys, "-u", str(DEFS / "dominoes_4x4.txt"))
    assert out.count("# --- SOLUTION") == 9


def test_info_prints_configuration_facts_and_statistics(capsys):
    status, out, _ = run(capsys, "-i", "-q", "-r", "-o", "s", "--", str(DEFS / "pentominoes_20x3.txt"))
    kv = keyvalues(out)
    assert kv["redundancyFilter"] == "#" and kv["orderingHeuristicConfig"] == "s"
    assert kv["REDUNDANCY_FILTER"] == "V" and kv["BOUNDED"] == "1236"
    assert (kv["SOLUTIONS"], kv["UNIQUE"], kv["TOTAL"]) == ("2", "2", "8")
    assert int(kv["FITS_TOTAL"]) == sum(int(v) for k, v in kv.items() if k.startswith("FITS["))
    assert "ATTEMPTS[12]" in kv and "COMPILE_SECONDS" in kv and "SOLVE_SECONDS" in kv


def test_json_output(capsys):
    status, out, _ = run(capsys, "--json", str(DEFS / "dominoes_4x4.txt"), str(DEFS / "somacube.txt"))
    docs = json.loads(out)
    assert [d["result"]["total"] for d in docs] == [36, 11520]
    assert docs[1]["puzzle"]["SYMMETRY_GROUP_ORDER"] == 24


def test_refusals_are_clear(capsys):
    status, _, err = run(capsys, "-e", "nope", str(DEFS / "dominoes_4x4.txt"))
    assert status == 2 and "unknown engine 'nope'" in err
    status, _, err = run(capsys, "-R", str(DEFS / "dominoes_4x4.txt"))
    assert status == 2 and "--redundancy-first needs the redundancy filter" in err
    status, _, err = run(capsys, "-O", "XZ", str(DEFS / "dominoes_4x4.txt"))
    assert status == 2 and "output format" in err


def test_ctrl_c_stops_with_partial_counts_and_status_130():
    # the same solve cut at its first node first, so that the kernels it runs are built before the clock below starts:
    # on cold caches under load, compiling alone outlasted the 4 s and the Ctrl-C came before the search
    subprocess.run([sys.executable, "-m", "bench", "solve", "-q", "--node-limit", "1",
                    str(DEFS / "pentominoes_1s_18x5.txt")], cwd=ROOT, capture_output=True, timeout=600)
    proc = subprocess.Popen([sys.executable, "-m", "bench", "solve", "-i", "-q", str(DEFS / "pentominoes_1s_18x5.txt")],
                            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(4)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130
    assert "STATUS=interrupted" in out and "NODES=" in out
    assert "partial" in err and "Traceback" not in err


def test_untuned_fila_picks_its_configuration_and_says_so(capsys):
    status, out, _ = run(capsys, "-e", "fila", "-i", "-q", str(DEFS / "pentominoes_20x3.txt"))
    info = keyvalues(out)
    assert status == 0 and info["autoTuned"] == "1"
    assert (info["fila"], info["nof"], info["orderingHeuristicConfig"]) == ("11", "1", "f=11")
    assert (info["redundancyFilter"], info["volumeFilter"]) == ("X", "-1")
    assert (info["UNIQUE"], info["TOTAL"]) == ("2", "8")
    assert int(info["NO_FITS_TOTAL"]) == int(info["ATTEMPTS_TOTAL"]) - int(info["FITS_TOTAL"])
    assert info["FILA_HANDOFFS"] == info["FITS[12]"] and info["REDUNDANCY_FILTER"] == "X"
    # why: every candidate piece with its estimate, and the budget the estimates spent
    assert info["AUTO_CHOICE"] == "X" and float(info["AUTO_SECONDS"]) >= 0
    assert sorted(k[len("AUTO_CANDIDATE["):-1] for k in info if k.startswith("AUTO_CANDIDATE[")) == sorted("FILNPTUVWXYZ")
    assert "nodes=" in info["AUTO_CANDIDATE[X]"] and int(info["AUTO_SAMPLING_STEPS"]) > 0


def test_untuned_fila_json_records_the_choice(capsys):
    status, out, _ = run(capsys, "-e", "fila", "--json", str(DEFS / "pentominoes_20x3.txt"))
    [doc] = json.loads(out)
    auto = doc["autoconfig"]
    assert status == 0 and auto["redundancy"] == "X" == doc["configuration"]["redundancyFilter"]
    assert {c["piece"] for c in auto["candidates"]} == set("FILNPTUVWXYZ")
    assert auto["sampling_steps"] > 0 and auto["predicted_seconds"] > 0


def test_untuned_fila_filters_a_jagged_region_by_volume_until_a_quarter_of_the_pieces_are_placed(capsys):
    # the 13x13 diamond loses over a quarter of its images to the one-shot volume filter (810 of 2930 with the o
    # constrained): the FILA article's PT5
    status, out, _ = run(capsys, "-e", "fila", "-i", "-q", "-w", "1", "--node-limit", "2000",
                         str(DEFS / "pentominoes_tetrominoes_diamond_13x13.txt"))
    info = keyvalues(out)
    assert status == 3 and info["autoTuned"] == "1"  # 3: cut by --node-limit
    removed = int(info["VOLUME_FILTER_ONE_SHOT"])
    assert removed > 0.25 * (int(info["OPTIONS"]) + removed)
    assert (info["fila"], info["volumeFilter"], info["orderingHeuristicConfig"]) == ("13", "13", "e=13")
    # the repeated filter works at DLX's nodes, from the root (17 pieces left) down to 13
    assert int(info["VOLUME_FILTER[17]"]) > 0 and int(info["VOLUME_FILTER[12]"]) == 0


def test_untuned_fila_on_other_lattices_picks_e_and_leaves_small_puzzles_unfiltered(capsys):
    # the hexiamonds' rhombus is a full box but not of squares, so FILA picks e, not the rows-of-squares fill f,
    # from the root (DLX's first level would branch on a cell); the Meteor puzzle loses a sixth of its images to the
    # one-shot filter, but 10 pieces are too few to filter at nodes; there the race of schedules finds the scan row
    # by row, from the root, faster than e
    status, out, _ = run(capsys, "-e", "fila", "-i", "-q", "-w", "1", str(DEFS / "hexiamonds_6x6.txt"))
    info = keyvalues(out)
    assert status == 0 and info["orderingHeuristicConfig"] == "e=12" and (info["UNIQUE"], info["TOTAL"]) == ("156", "624")
    status, out, _ = run(capsys, "-e", "fila", "-i", "-q", "-w", "1", str(DEFS / "meteor.txt"))
    info = keyvalues(out)
    removed = int(info["VOLUME_FILTER_ONE_SHOT"])
    assert status == 0 and 0.15 * (int(info["OPTIONS"]) + removed) < removed
    assert (info["fila"], info["volumeFilter"], info["orderingHeuristicConfig"]) == ("10", "-1", "f@1,0,2=10")
    assert info["isolatedBacktrack"] == "1" and int(info["ISOLATED_BACKTRACK_TOTAL"]) > 0
    assert (info["UNIQUE"], info["TOTAL"]) == ("1049", "2098")


def test_a_fila_flag_selects_fila_and_turns_auto_tuning_off(capsys):
    status, out, _ = run(capsys, "-i", "-q", "-f", "12", "-o", "e", "--no-nof", str(DEFS / "pentominoes_20x3.txt"))
    info = keyvalues(out)
    assert status == 0 and (info["engine"], info["autoTuned"], info["nof"]) == ("fila", "0", "0")
    assert (info["redundancyFilter"], info["SOLUTIONS"], info["UNIQUE"]) == (".", "8", "2")


def test_dlx_refuses_fila_options(capsys):
    status, _, err = run(capsys, "-e", "dlx", "-f", "3", str(DEFS / "dominoes_4x4.txt"))
    assert status == 2 and "does not implement: fila" in err


def test_fila_traces_as_dlx_does(capsys):
    # -t -K shows the board after each placement that leaves exactly K + 1 pieces: here every FILA placement
    # with 11 pieces remaining (FILA takes over at 11), FITS[11] of them, each with two pieces on the board
    status, out, _ = run(capsys, "-e", "fila", "-r", "-f", "11", "-t", "-9", "-i", str(DEFS / "pentominoes_20x3.txt"))
    info = keyvalues(out)
    assert status == 0 and info["engine"] == "fila" and int(info["FILA_HANDOFFS"]) > 0
    boards = re.findall(r"^TRACE \d+:\n(.*?)^END TRACE$", out, re.M | re.S)
    assert len(boards) == int(info["FITS[11]"]) > 0
    assert all(board.count(".") == 60 - 2 * 5 for board in boards)
    # -t 11 adds to -t 12's DLX events the FILA placements with 11 pieces remaining and their removals
    counts = []
    for k in ("11", "12"):
        status, out, _ = run(capsys, "-e", "fila", "-r", "-f", "11", "-t", k, "-q", str(DEFS / "pentominoes_20x3.txt"))
        counts.append(out.count("END TRACE\n"))
    assert counts[0] - counts[1] == 2 * int(info["FITS[11]"])


def test_a_terminal_gets_the_first_few_solutions_and_the_count_a_pipe_or_all_gets_every_one(capsys, monkeypatch):
    from bench.cli.solve import SHOWN

    p20 = str(DEFS / "pentominoes_20x3.txt")  # 8 solutions without the redundancy filter
    status, out, err = run(capsys, p20)
    assert status == 0 and out.count("# --- SOLUTION") == 8 and "printed" not in err
    monkeypatch.setattr(sys.stdout, "isatty", lambda: True)
    status, out, err = run(capsys, p20)
    assert status == 0 and out.count("# --- SOLUTION") == SHOWN < 8
    assert f"pentominoes_20x3.txt: {SHOWN} of 8 solutions printed (--all prints them all)" in err
    assert "8 covers, 2 unique, 8 total" in err
    status, out, err = run(capsys, "--all", p20)
    assert status == 0 and out.count("# --- SOLUTION") == 8 and "printed" not in err


def planted(tmp_path, total: int):
    """dominoes_4x4 beside an expected.toml that records ``total`` solutions (36 is right)."""
    (tmp_path / "d.txt").write_text((DEFS / "dominoes_4x4.txt").read_text())
    (tmp_path / "expected.toml").write_text(f'["d.txt"]\nunique_mirror = 9\ntotal = {total}\ngroup_mirror = 8\n'
                                            'symmetry = "the square"\nsource = "a test"\n')
    return str(tmp_path / "d.txt")


@pytest.mark.parametrize("engine", ["dlx", "fila", "sat"])
def test_counts_that_disagree_with_expected_toml_exit_1(capsys, tmp_path, engine):
    status, out, err = run(capsys, "-q", "-i", "-e", engine, planted(tmp_path, 37))
    assert status == 1
    assert "EXPECTED_TOTAL=37" in out and "TOTAL=36" in out and "EXPECTED_CHECK=mismatch" in out
    assert f"MISMATCH: {tmp_path / 'd.txt'}: {engine} reports total=36, expected 37" in err


def test_counts_that_agree_with_expected_toml_say_so(capsys, tmp_path):
    status, out, _ = run(capsys, "-q", "-i", planted(tmp_path, 36))
    assert status == 0 and "EXPECTED_CHECK=agreed" in out
    status, out, _ = run(capsys, "-q", "--json", planted(tmp_path, 36))
    assert status == 0 and json.loads(out)[0]["result"]["expected_check"] == "agreed"
    # partial assemblies are not solutions: nothing to compare
    status, out, _ = run(capsys, "-q", "-i", "-g", "2", planted(tmp_path, 37))
    assert status == 0 and "EXPECTED_CHECK" not in out


def test_a_search_cut_short_does_not_count_unique_and_total(capsys):
    meteor = str(DEFS / "meteor.txt")
    status, out, err = run(capsys, "-q", "-i", "--max-solutions", "2", meteor)
    assert status == 0
    assert "meteor.txt: 2 covers (unique and total not counted) in" in err
    assert "SOLUTIONS=2" in out and "\nUNIQUE=" not in out and "\nTOTAL=" not in out and "EXPECTED_CHECK" not in out
    status, out, err = run(capsys, "-q", "--json", "--max-solutions", "2", meteor)
    result = json.loads(out)[0]["result"]
    assert (result["covers"], result["unique"], result["total"], result["partial"]) == (2, None, None, True)
