"""bench run, report and compare: cross-validation, statuses that keep the run going, stored results."""

from __future__ import annotations

import json
import re
import shutil
import time

import pytest

from bench import engines
from bench.comparison import report, results
from bench.comparison.pages import render_markdown
from bench.cli import main
from support import DATA, DEFS

FAKES = {"crash": "support.fake_engines:CrashEngine", "hang": "support.fake_engines:HangEngine", "wrong": "support.fake_engines:WrongEngine"}


@pytest.fixture
def fakes(monkeypatch):
    for name, target in FAKES.items():
        monkeypatch.setitem(engines.ENGINES, name, target)


def run(capsys, tmp_path, *argv):
    out_file = tmp_path / "run.json"
    status = main(["run", "--output-file", str(out_file), *argv])
    out, err = capsys.readouterr()
    return status, out, err, (json.loads(out_file.read_text()) if out_file.exists() else None)


def rows_of(doc, engine):
    return [r for r in doc["rows"] if r["engine"] == engine]


def test_all_engines_agree_on_small_puzzles(capsys, tmp_path):
    # a timeout wide enough for a loaded machine (CP-SAT and SAT count the Soma cube in about a second when idle)
    status, out, err, doc = run(capsys, tmp_path, "-e", "dlx,cpsat,sat,ganak,xcover,exact-cover", "--timeout", "30",
                                str(DEFS / "dominoes_4x4.txt"), str(DEFS / "somacube.txt"), str(DATA / "spare_3x3.txt"))
    assert status == 0, err
    assert doc["schema"] == results.SCHEMA and doc["validation"] == []
    soma = [r for r in doc["rows"] if r["puzzle"] == "somacube.txt"]
    assert {r["engine"]: r["status"] for r in soma} == {"dlx": "solved", "cpsat": "solved", "sat": "solved",
                                                         "ganak": "timeout", "xcover": "solved", "exact-cover": "solved"} \
        or all(r["status"] == "solved" for r in soma)
    assert {(r["covers"], r["total"]) for r in soma if r["status"] == "solved"} == {(480, 11520)}
    dominoes = {r["engine"]: r for r in doc["rows"] if r["puzzle"] == "dominoes_4x4.txt"}
    assert dominoes["xcover"]["status"] == "skipped" and "multiplicities" in dominoes["xcover"]["message"]
    assert dominoes["ganak"]["covers"] == 36 and dominoes["ganak"]["unique"] is None
    assert "somacube" in out and "agreed" in out and out.strip().splitlines()[-1].startswith("3 puzzles, 6 engines")


def test_planted_mismatch_with_expected_counts_exits_1(capsys, tmp_path):
    shutil.copy(DEFS / "dominoes_4x4.txt", tmp_path)
    text = (DEFS / "expected.toml").read_text()
    block = text[text.index('["dominoes_4x4.txt"]'):]
    block = block[: block.index("\n\n")].replace("total = 36", "total = 35")
    (tmp_path / "expected.toml").write_text(block + "\n")
    status, out, err, doc = run(capsys, tmp_path, "-e", "dlx,cpsat", str(tmp_path / "dominoes_4x4.txt"))
    assert status == 1
    assert "MISMATCH: dominoes_4x4.txt: dlx reports total=36, expected 35" in err
    assert "cpsat reports total=36, expected 35" in err
    assert "MISMATCH" in out


def test_engines_that_disagree_are_named(capsys, tmp_path, fakes):
    status, out, err, doc = run(capsys, tmp_path, "-e", "dlx,wrong", str(DEFS / "dominoes_4x4.txt"))
    assert status == 1
    assert "covers disagree (dlx: 36; wrong: 37)" in err


def test_crash_timeout_and_missing_library_each_get_a_status(capsys, tmp_path, fakes, monkeypatch):
    from bench.engines.cpsat import CpSatEngine

    monkeypatch.setattr(CpSatEngine, "available", lambda self: False)
    status, out, err, doc = run(capsys, tmp_path, "-e", "crash,hang,cpsat,dlx", "--timeout", "1",
                                str(DEFS / "dominoes_4x4.txt"))
    by_engine = {r["engine"]: r for r in doc["rows"]}
    assert by_engine["crash"]["status"] == "error" and "crashed" in by_engine["crash"]["message"]
    assert by_engine["hang"]["status"] == "timeout"
    assert by_engine["cpsat"]["status"] == "skipped" and "not installed" in by_engine["cpsat"]["message"]
    assert by_engine["dlx"]["status"] == "solved" and by_engine["dlx"]["total"] == 36
    assert status == 1 and "ERROR: dominoes_4x4.txt: crash" in err


def test_rounds_are_interleaved_and_first_mode_finds_one(capsys, tmp_path):
    nowhere = tmp_path / "nowhere.txt"
    nowhere.write_text("D:xDim=3:yDim=1:zDim=1\nC:name=V:layout=0 0 0, 1 0 0, 0 1 0\n~D\n")
    # a timeout wide enough for a loaded machine (each first solution takes well under a second when idle)
    status, out, err, doc = run(capsys, tmp_path, "-e", "dlx,cpsat:2,sat", "--rounds", "2", "--mode", "first",
                                "--timeout", "60", "--no-static-check", str(DEFS / "pentominoes_20x3.txt"), str(nowhere))
    assert status == 0, err
    first_round = [r["engine"] for r in doc["rows"] if r["puzzle"] == "pentominoes_20x3.txt"]
    assert first_round == ["dlx", "cpsat:2", "sat", "cpsat:2", "sat", "dlx"]
    assert all(r["status"] == "limit" and r["covers"] == 1 for r in doc["rows"] if r["puzzle"] == "pentominoes_20x3.txt")
    proved = [r for r in doc["rows"] if r["puzzle"] == "nowhere.txt"]
    assert len(proved) == 6 and all(r["status"] == "solved" and r["covers"] == 0 for r in proved)
    # the summary gives the median over the rounds and the fastest round
    lines = {(line["puzzle"], line["engine"]): line for line in report.summarize(doc)}
    for engine in ("dlx", "cpsat:2", "sat"):
        times = [r["solve"] for r in doc["rows"] if (r["puzzle"], r["engine"]) == ("pentominoes_20x3.txt", engine)]
        line = lines["pentominoes_20x3.txt", engine]
        assert (line["solve"], line["best"]) == (sum(times) / 2, min(times))
    assert "| fastest round " in render_markdown(doc) and "| slowest round " in render_markdown(doc)


def test_statically_unsolvable_puzzles_are_reported_without_search(capsys, tmp_path):
    status, out, err, doc = run(capsys, tmp_path, "-e", "dlx,sat", str(DEFS / "hexominoes_rectangles.txt"))
    assert status == 0, err
    proofs = [r for r in doc["rows"] if r["engine"] == "static-check"]
    assert len(proofs) == 6 and all(r["total"] == 0 and "parity" in r["message"] for r in proofs)
    assert {r["status"] for r in doc["rows"] if r["engine"] != "static-check"} == {"skipped"}


def test_report_and_compare_read_stored_files_only(capsys, tmp_path):
    status, _, _, doc = run(capsys, tmp_path, "-e", "dlx,sat", str(DEFS / "dominoes_4x4.txt"))
    a = tmp_path / "run.json"
    assert main(["report", str(a)]) == 0
    md = capsys.readouterr().out
    assert "| dominoes_4x4.txt" in md and "All engines that finished agree" in md and doc["machine"]["cpu"] in md
    assert main(["report", "--csv", str(a)]) == 0
    csv_text = capsys.readouterr().out
    assert csv_text.startswith("puzzle,cover_hash,engine") and csv_text.count("\n") == 3
    b = tmp_path / "b.json"
    # times above the resolution below which compare does not divide them
    first = json.loads(a.read_text())
    for r in first["rows"]:
        r["solve"] = 0.5
    a.write_text(json.dumps(first))
    changed = json.loads(a.read_text())
    for r in changed["rows"]:
        r["solve"] *= 3
    b.write_text(json.dumps(changed))
    assert main(["compare", str(a), str(b)]) == 0
    assert capsys.readouterr().out.count("slower") == 2
    for r in changed["rows"]:
        r["total"] += 1
    b.write_text(json.dumps(changed))
    assert main(["compare", str(a), str(b)]) == 1
    assert "COUNTS CHANGED" in capsys.readouterr().out


def test_bad_result_files_and_engine_names_are_clear_errors(capsys, tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    assert main(["report", str(bad)]) == 2
    assert "not a bench result file" in capsys.readouterr().err
    assert main(["run", "-e", "dlx,nope", str(DEFS / "dominoes_4x4.txt")]) == 2
    assert "unknown engine 'nope'" in capsys.readouterr().err


def test_native_engines_split_over_workers_and_say_so(capsys, tmp_path):
    status, out, err, doc = run(capsys, tmp_path, "-e", "dlx,fila,sat", "--workers", "2", "--timeout", "60",
                                str(DEFS / "pentominoes_20x3.txt"))
    assert status == 0, err
    by_engine = {r["engine"]: r for r in doc["rows"]}
    assert by_engine["dlx"]["workers"] == 2 and by_engine["fila"]["workers"] == 2
    assert by_engine["sat"]["workers"] == 1  # an engine that cannot split runs as it always does
    # the matrix has fila's piece, X, whose flip along the long side still maps each solution onto another: every
    # engine finds 4 covers of 2 unique solutions
    assert {(r["covers"], r["unique"], r["total"]) for r in doc["rows"]} == {(4, 2, 8)}
    assert doc["puzzles"][0]["redundancy"] == "X" and doc["puzzles"][0]["autoconfig"]["engine"] == "fila"
    assert by_engine["fila"]["stats"]["parallel"]["subproblems"] >= 2
    assert "on 2 workers: dlx, fila" in out
    assert doc["run_settings"]["workers"] == 2 and doc["run_settings"]["split_every_search"]


def test_a_timed_out_split_solve_leaves_no_worker_behind():
    import psutil

    import bench
    from bench.models.cover import Cover
    from bench.parallel.runner import ParallelOptions
    from bench.comparison.rounds import solve_isolated

    [puzzle] = bench.load(DEFS / "tetriscube.txt")
    me = psutil.Process()
    started = time.time()
    result = solve_isolated("fila", Cover.from_puzzle(puzzle), "count", 1.0, ParallelOptions(workers=2, progress=False))
    assert result.status.value == "timeout"
    time.sleep(0.5)
    # forks of this process made by the solve: same command line (an orphan is no child any more), started after it,
    # and not descended from another process of that command line (pytest-xdist's other worker and what it forks)
    def others_own(p) -> bool:
        try:
            return any(q.pid != me.pid and q.cmdline() == me.cmdline() for q in p.parents())
        except psutil.Error:
            return True

    left = [p for p in psutil.process_iter(["cmdline", "status", "create_time"])
            if p.pid != me.pid and p.info["cmdline"] == me.cmdline() and p.info["status"] != psutil.STATUS_ZOMBIE
            and p.info["create_time"] >= started - 0.01 and not others_own(p)]
    assert left == []


def test_an_untuned_fila_configures_the_matrix_every_engine_shares(capsys, tmp_path):
    # no -r and no filter: fila's estimates pick the piece (X on 12x5, where polycube's rule picks V) and, in 2-D,
    # the one-shot volume filter; every engine solves that matrix, fila with the hand-off and schedule it chose
    status, out, err, doc = run(capsys, tmp_path, "-e", "dlx,fila", "--timeout", "60",
                                str(DEFS / "pentominoes_12x5.txt"))
    assert status == 0, err
    [entry] = doc["puzzles"]
    assert entry["redundancy"] == "X" and entry["filters"]["VOLUME_FILTER_ONE_SHOT"] > 0
    choice = entry["autoconfig"]
    assert choice["engine"] == "fila" and choice["redundancy"] == "X" and len(choice["candidates"]) == 12
    assert doc["run_settings"]["redundancy"] == "auto" and doc["run_settings"]["configured_by"] == "fila"
    fila, dlx = rows_of(doc, "fila")[0], rows_of(doc, "dlx")[0]
    assert fila["variant"] == f"f{choice['fila']}/o{choice['order']}/n1/c1"
    # the automatic configuration's tree, the isolated-cell trigger's 259,578 undone placements no nodes
    assert fila["stats"]["nodes"] == 505_486 and fila["stats"]["isolated_backtracks"] == 259_578
    assert (fila["unique"], fila["total"]) == (dlx["unique"], dlx["total"]) == (1010, 4040)
    assert "chosen per puzzle by fila's own configuration" in render_markdown(doc)


def test_the_configuring_engine_runs_with_the_settings_it_chose(capsys, tmp_path):
    # the 30-ball pyramid: the race of schedules finds the scan faster than e, the rule's schedule elsewhere
    status, out, err, doc = run(capsys, tmp_path, "-e", "fila,dlx", str(DEFS / "polyspheres_square_pyramid_30.txt"))
    assert status == 0, err
    assert doc["puzzles"][0]["autoconfig"]["order"] == "f=6"
    assert rows_of(doc, "fila")[0]["variant"] == "f6/of=6/n1/c1"


@pytest.mark.parametrize("argv", [["-e", "dlx,fila", "-r", "#"], ["-e", "dlx,fila", "-V"], ["-e", "dlx"],
                                  ["-e", "dlx,fila:f11"]])
def test_a_tuned_run_or_one_without_an_untuned_fila_keeps_polycubes_rule(capsys, tmp_path, argv):
    status, out, err, doc = run(capsys, tmp_path, *argv, "--timeout", "60", str(DEFS / "pentominoes_12x5.txt"))
    assert status == 0, err
    [entry] = doc["puzzles"]
    assert entry["redundancy"] == "V" and "autoconfig" not in entry
    assert doc["run_settings"]["redundancy"] == "#" and doc["run_settings"]["configured_by"] is None
    assert {(r["unique"], r["total"]) for r in doc["rows"]} == {(1010, 4040)}


def test_the_configuration_benchmark_reads_a_runs_medians_nodes_and_piece(capsys, tmp_path):
    import copy

    from benchmarks.configuration import compare_modes, figures, markdown

    status, out, err, doc = run(capsys, tmp_path, "-e", "dlx,fila", "--rounds", "3", str(DEFS / "pentominoes_20x3.txt"))
    assert status == 0, err
    got = figures(doc)["pentominoes_20x3.txt"]
    fila = [r for r in rows_of(doc, "fila")]
    assert got["piece"] == "X" and got["counts"] == [(2, 8)]
    assert got["engines"]["fila"]["seconds"] == sorted(r["solve"] for r in fila)[1]
    assert got["engines"]["fila"]["nodes"] == fila[0]["stats"]["nodes"] > 0
    engines = {e: {"automatic": 0.02, "rule": 0.05, "ratio": 2.5, "nodes": {"automatic": 10, "rule": 30},
                   "variant": v["variant"]} for e, v in got["engines"].items()}
    record = {"pairs": 1, "rounds": 3, "engines": "dlx,fila",
              "puzzles": {"pentominoes_20x3.txt": {"pieces": {"automatic": "X", "rule": "V"}, "engines": engines}}}
    row = "| pentominoes_20x3.txt | fila | X / V | f11/of=11/n1/c1 | 0.0200 | 0.0500 | 2.50 | 10 | 30 |"
    assert row in markdown(record)
    # an engine without a node count (a SAT solver) prints a dash, not a traceback
    engines["dlx"]["nodes"] = {"automatic": None, "rule": None}
    assert f"| pentominoes_20x3.txt | dlx | X / V | {got['engines']['dlx']['variant']} | 0.0200 | 0.0500 | 2.50 | - | - |" \
        in markdown(record)
    # the same run as both modes compares to itself; a run counting otherwise stops the benchmark
    same = compare_modes({"automatic": [figures(doc)], "rule": [figures(doc)]})["pentominoes_20x3.txt"]
    assert same["engines"]["fila"]["ratio"] == 1.0 and same["pieces"] == {"automatic": "X", "rule": "X"}
    other = copy.deepcopy(figures(doc))
    other["pentominoes_20x3.txt"]["counts"] = [(2, 9)]
    with pytest.raises(SystemExit, match="count differently"):
        compare_modes({"automatic": [figures(doc)], "rule": [other]})


def test_puzzles_of_the_same_file_name_keep_keys_of_their_own(capsys, tmp_path):
    for folder, name in (("a", "somacube.txt"), ("b", "dominoes_4x4.txt")):
        (tmp_path / folder).mkdir()
        shutil.copy(DEFS / name, tmp_path / folder / "puz.txt")
    status, out, err, doc = run(capsys, tmp_path, "-e", "dlx,fila", str(tmp_path / "a" / "puz.txt"),
                                str(tmp_path / "b" / "puz.txt"))
    assert status == 0, err
    assert [p["key"] for p in doc["puzzles"]] == ["a/puz.txt", "b/puz.txt"]
    assert {(r["puzzle"], r["total"]) for r in doc["rows"]} == {("a/puz.txt", 11520), ("b/puz.txt", 36)}
    assert out.strip().splitlines()[-1].startswith("2 puzzles, 2 engines")
    edited = json.loads((tmp_path / "run.json").read_text())
    next(r for r in edited["rows"] if r["puzzle"] == "a/puz.txt" and r["engine"] == "dlx")["covers"] = 35
    (tmp_path / "edited.json").write_text(json.dumps(edited))
    assert main(["compare", str(tmp_path / "run.json"), str(tmp_path / "edited.json")]) == 1
    assert re.search(r"a/puz.txt\s+dlx .*COUNTS CHANGED", capsys.readouterr().out)
    # a file given twice is one puzzle, not two rows per round
    status, out, err, doc = run(capsys, tmp_path, "-e", "dlx", str(tmp_path / "b" / "puz.txt"),
                                str(tmp_path / "b" / "." / "puz.txt"))
    assert status == 0 and [p["key"] for p in doc["puzzles"]] == ["puz.txt"] and len(doc["rows"]) == 1


def test_the_picture_is_the_solution_an_engine_sent_back_so_nothing_is_solved_twice(capsys, tmp_path, monkeypatch):
    from bench.engines.dlx import DlxEngine
    from bench.engines.xcover import XcoverEngine

    pytest.importorskip("xcover")
    calls = []
    real = XcoverEngine.solve

    def counted(self, *args, **kwargs):
        calls.append(self.name)
        return real(self, *args, **kwargs)

    def refused(*args, **kwargs):
        raise AssertionError("bench run solved the puzzle again in DLX to draw it")

    # patched before the children are forked, so a solve in the child or in the parent would be seen
    monkeypatch.setattr(XcoverEngine, "solve", counted)
    monkeypatch.setattr(DlxEngine, "solve", refused)
    status, _, err, doc = run(capsys, tmp_path, "-e", "xcover,exact-cover", "--timeout", "60", str(DEFS / "somacube.txt"))
    assert status == 0, err
    assert calls == []  # xcover solved in its child only: the parent never ran an engine
    [entry] = doc["puzzles"]
    pieces = entry["solution"]["pieces"]
    assert sorted(c for p in pieces for c in map(tuple, p["cells"])) == sorted(
        (x, y, z) for x in range(3) for y in range(3) for z in range(3))
    # an engine that only counts sends no solution back, and the run says why there is no picture
    status, _, err, doc = run(capsys, tmp_path, "-e", "exact-cover", "--timeout", "60", str(DEFS / "somacube.txt"))
    assert status == 0, err
    [entry] = doc["puzzles"]
    assert "solution" not in entry and "counting engines" in entry["solution_note"]


EVERY_ENGINE = "dlx,fila,cpsat,sat,ganak,xcover,exact-cover"


def test_a_run_prints_the_table_and_the_verdict_only_and_no_line_over_120_columns(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "120")
    paths = [str(DEFS / name) for name in ("pentominoes_20x3.txt", "dominoes_4x4.txt", "hexominoes_rectangles.txt")]
    status = main(["run", "--no-save", "-e", EVERY_ENGINE, "--timeout", "1", *paths])
    out, err = capsys.readouterr()
    assert status == 0, err
    assert err == ""  # no bar without a terminal, no warning, no line per engine
    lines = out.splitlines()
    # header, rule, 8 puzzles (6 rectangles of hexominoes in one file), verdict
    assert len(lines) == 11 and lines[-1].startswith("8 puzzles, 7 engines: counts agree on 8")
    assert max(map(len, lines)) <= 120 and lines[0].split()[1:8] == EVERY_ENGINE.split(",")


def test_verbose_lines_are_words_within_120_columns_and_a_timed_out_row_counts_nothing(capsys, tmp_path):
    # DLX counts the 10x6 in about a second; CP-SAT needs minutes
    status, out, err, doc = run(capsys, tmp_path, "-v", "--no-html", "-e", "dlx,cpsat", "--timeout", "8",
                                str(DEFS / "pentominoes_10x6.txt"), str(DEFS / "hexominoes_rectangles.txt"))
    assert status == 0, err
    lines = out.splitlines() + err.splitlines()
    assert max(map(len, lines)) <= 120
    assert not any(word in line for line in lines for word in ("None", "nan", "covers="))
    assert "pentominoes_10x6.txt: " in err and "  dlx            round 1: solved   " in err
    assert err.count("unsolvable without search: parity: ") == 6
    [cpsat] = rows_of(doc, "cpsat")[:1]
    assert cpsat["status"] == "timeout" and cpsat["unique"] is None and cpsat["total"] is None


def test_the_quick_run_leaves_out_the_engines_a_puzzle_marks_slow(capsys, tmp_path):
    (tmp_path / "a.txt").write_text((DEFS / "tetrahexes_4x7.txt").read_text())
    (tmp_path / "b.txt").write_text((DEFS / "dominoes_4x4.txt").read_text())
    (tmp_path / "expected.toml").write_text(
        '["a.txt"]\nslow_engines = ["sat"]\nunique_mirror = 9\ntotal = 18\ngroup_mirror = 2\nsymmetry = "x"\n'
        'source = "a test"\n\n["b.txt"]\nquick = false\nunique_mirror = 9\ntotal = 36\ngroup_mirror = 8\n'
        'symmetry = "x"\nsource = "a test"\n')
    status, out, err, doc = run(capsys, tmp_path, "--skip-slow", "--no-html", "-e", "dlx,sat", str(tmp_path))
    assert status == 0, err
    assert [p["key"] for p in doc["puzzles"]] == ["a.txt"]  # b.txt: quick = false
    [sat] = rows_of(doc, "sat")
    assert sat["status"] == "skipped" and "slow_engines" in sat["message"]
    assert [line.split()[2] for line in out.splitlines() if line.startswith("a ")] == ["slow"]
    # without --skip-slow (a path given, as here) every engine runs on every puzzle
    status, out, err, doc = run(capsys, tmp_path, "--no-html", "-e", "dlx,sat", str(tmp_path))
    assert status == 0 and {r["status"] for r in doc["rows"]} == {"solved"} and len(doc["puzzles"]) == 2
