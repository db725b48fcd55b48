"""Reports from stored result files: the summary table and verdict, the HTML page, compare's differences, schema checks."""

from __future__ import annotations

import copy
import json
import re
import xml.etree.ElementTree as ET

import pytest
from hypothesis import given
from hypothesis import strategies as st
from tabulate import tabulate

from bench.cli import main
from bench.comparison import report, results, summary, tables
from bench.comparison.compare import compare
from bench.comparison.pages import render_markdown
from bench.errors import BenchError
from support import DEFS, ROOT

ENGINES = ["dlx", "fila:f11/of=11/n0", "fila:f11/of=11/n", "cpsat", "sat:cadical195:totalizer", "ganak", "xcover"]


def make_doc(timeout: float = 30.0, engines=ENGINES, times=None, rounds: int = 1, commit: str = "abc1234") -> dict:
    """A result document of two puzzles; ``times[puzzle][engine]`` is a list of round times, or 'timeout'."""
    times = times or {
        "pentominoes_tetrominoes_diamond_13x13.txt": {e: [0.5 + i] for i, e in enumerate(engines)},
        "dominoes_4x4.txt": {e: [0.0003 * (i + 1)] for i, e in enumerate(engines)},
    }
    doc = {"schema": results.SCHEMA, "created": "2026-11-24T00:00:00+0000", "command": ["bench", "run"],
           "run_settings": {"engines": list(engines), "timeout": timeout, "rounds": rounds, "mode": "count",
                       "redundancy": "#"},
           "machine": {"cpu": "Test CPU", "cores": 2, "commit": commit, "python": "3.11"},
           "libraries": {"numba": "0.60"}, "puzzles": [], "rows": [], "validation": []}
    for n, (puzzle, by_engine) in enumerate(times.items()):
        doc["puzzles"].append({"key": puzzle, "cover_hash": f"h{n}", "options": 100 * (n + 1) ** 3, "items": 10,
                               "expected": None})
        for engine, value in by_engine.items():
            for r, t in enumerate(value if isinstance(value, list) else [value]):
                out = t == "timeout"
                doc["rows"].append({"puzzle": puzzle, "cover_hash": f"h{n}", "engine": engine, "variant": "",
                                    "round": r, "status": "timeout" if out else "solved",
                                    "covers": None if out else 36, "unique": None if out else 9,
                                    "total": None if out else 36, "solve": None if out else t,
                                    "stats": {"attempts_by_remaining": [0, 36, 20, 8], "fits_by_remaining": [0, 36, 18, 8]}
                                    if engine == "dlx" and not out else {},
                                    "message": ""})
    return doc


def test_the_summary_fits_120_columns_and_ends_in_one_verdict():
    doc = make_doc()
    text = summary.table(doc)
    assert max(map(len, text.splitlines())) <= 120
    assert "pentominoes_t" in text and "agreed" in text and "9/36" in text
    verdict = summary.verdict(doc)
    # the dominoes' times all lie within a millisecond: only the diamond ranks
    assert verdict == ("2 puzzles, 7 engines: counts agree on 2; dlx fastest on 1 of 2 puzzles two engines finished, "
                       "1 too close to call")


def one_engine_doc(expected: dict | None = None) -> dict:
    """Three puzzles: fila alone finishes a, cpsat times out on b, and c is finished by both."""
    doc = make_doc(engines=["fila", "cpsat"], times={"a.txt": {"fila": [0.5], "cpsat": ["timeout"]},
                                                   "b.txt": {"fila": ["timeout"], "cpsat": ["timeout"]},
                                                   "c.txt": {"fila": [0.1], "cpsat": [2.0]}})
    for entry in doc["puzzles"]:
        entry["expected"] = expected
    return doc


def test_fastest_counts_only_puzzles_two_engines_finished_and_open_puzzles_are_said():
    g = summary.grid(one_engine_doc())
    assert [r["check"] for r in g["rows"]] == ["unchecked", "open", "agreed"]
    assert [r["fastest"] for r in g["rows"]] == [None, None, "fila"]
    assert summary.verdict(one_engine_doc()) == ("3 puzzles, 2 engines: counts agree on 1, 1 open (no count yet), 1 "
                                                 "unchecked; fila fastest on 1 of 1 raced; 3 timeouts")
    assert summary.verdict(one_engine_doc(), width=200) == (
        "3 puzzles, 2 engines: counts agree on 1, 1 open (no count yet), 1 with one source; fila fastest on 1 of 1 "
        "puzzles two engines finished; 3 timeouts")


def test_expected_counts_are_a_second_source():
    doc = one_engine_doc({"unique": 9, "total": 36, "solvable": None})
    assert [r["check"] for r in summary.grid(doc)["rows"]] == ["agreed", "open", "agreed"]
    assert summary.verdict(doc).startswith("3 puzzles, 2 engines: counts agree on 2, 1 open (no count yet);")


def test_a_run_that_compared_nothing_says_so():
    doc = make_doc(engines=["fila"], times={"a.txt": {"fila": [0.5]}, "b.txt": {"fila": ["timeout"]}})
    assert summary.verdict(doc) == ("2 puzzles, 1 engine: nothing was compared, 1 open (no count yet), 1 with one "
                                    "source; 1 timeout")
    empty = make_doc()
    empty["puzzles"], empty["rows"] = [], []
    assert summary.verdict(empty) == "0 puzzles, 7 engines: nothing was compared"


def test_a_verdict_fits_120_columns_however_much_it_has_to_say():
    names = {f"a_rather_long_puzzle_name_number_{k}.txt": {e: [0.5 + i] for i, e in enumerate(ENGINES)} for k in range(9)}
    doc = make_doc(times=names)
    for k, key in enumerate(names):
        doc["validation"].append({"puzzle": key, "kind": "mismatch", "message": "covers disagree"})
        doc["validation"].append({"puzzle": key, "kind": "error", "message": "x"})
        doc["validation"].append({"puzzle": f"file{k}.txt", "kind": "input", "message": "bad"})
    verdict = summary.verdict(doc)
    assert len(verdict) <= 120 and verdict.startswith("9 puzzles, 7 engines: counts DISAGREE on 9 (")


def test_times_under_the_resolution_are_neither_ranked_nor_divided():
    doc = make_doc()
    g = summary.grid(doc)
    by_puzzle = {r["puzzle"]: r for r in g["rows"]}
    assert by_puzzle["dominoes_4x4.txt"]["fastest"] is None
    assert by_puzzle["pentominoes_tetrominoes_diamond_13x13.txt"]["fastest"] == "dlx"
    md = render_markdown(doc)
    detail = md[md.index("## Detail"):]
    dominoes = [line for line in detail.splitlines() if line.startswith("| dominoes_4x4.txt")]
    assert len(dominoes) == 7 and all(line.count("×") == 0 for line in dominoes)
    assert "<0.001" in summary.table(doc)


def test_the_spread_over_rounds_is_shown():
    doc = make_doc(engines=["dlx", "fila"], times={"a.txt": {"dlx": [1.0, 1.2, 1.1], "fila": [2.0, 2.0, 2.0]}},
                   rounds=3)
    text = summary.table(doc)
    assert "1.1 ±9%*" in text and "2 ±0%" in text


def test_a_mismatch_is_loud_in_table_and_verdict():
    doc = make_doc()
    doc["validation"].append({"puzzle": "dominoes_4x4.txt", "kind": "mismatch", "message": "covers disagree"})
    assert "MISMATCH" in summary.table(doc)
    assert "counts DISAGREE on 1 (dominoes_4x4)" in summary.verdict(doc)


def test_compare_states_what_differs_before_its_table():
    a = make_doc(timeout=30.0, times={"p.txt": {"dlx": [1.0], "sat": "timeout", "cpsat": [0.5]}},
                 engines=["dlx", "sat", "cpsat"])
    b = make_doc(timeout=60.0, times={"p.txt": {"dlx": [1.0], "sat": [45.0], "fila": [0.8]}},
                 engines=["dlx", "sat", "fila"], commit="def5678")
    text, changed = compare(a, b)
    head, table = text.split("\n\n", 1)
    assert "timeout: 30 s -> 60 s" in head and "commit: abc1234 -> def5678" in head
    assert "engines only in A: cpsat" in head and "engines only in B: fila" in head
    lines = {line.split()[1]: line for line in table.splitlines()[2:]}
    assert set(lines) == {"dlx", "sat", "cpsat", "fila"}
    assert "timeout -> solved (caused by the timeout: 30 s -> 60 s)" in lines["sat"]
    assert "only in A" in lines["cpsat"] and "only in B" in lines["fila"]
    assert not changed


def test_a_status_change_the_timeouts_do_not_explain_is_not_excused():
    a = make_doc(timeout=30.0, times={"p.txt": {"sat": "timeout"}}, engines=["sat"])
    b = make_doc(timeout=60.0, times={"p.txt": {"sat": [12.0]}}, engines=["sat"])
    text, _ = compare(a, b)
    assert "timeout -> solved" in text and "caused by the timeout" not in text


def test_compare_exits_1_on_a_changed_count(tmp_path, capsys):
    a = make_doc()
    b = copy.deepcopy(a)
    b["rows"][0]["total"] += 1
    (tmp_path / "a.json").write_text(json.dumps(a))
    (tmp_path / "b.json").write_text(json.dumps(b))
    assert main(["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 1
    out = capsys.readouterr().out
    assert out.index("The runs were made the same way") < out.index("COUNTS CHANGED")


@pytest.mark.parametrize("where,field", [("rows", "status"), ("puzzles", "key"), ("run_settings", "timeout"), ("", "rows")])
def test_a_result_file_missing_a_field_is_one_clear_line(tmp_path, capsys, where, field):
    doc = make_doc()
    target = doc if where == "" else doc[where][1] if isinstance(doc[where], list) else doc[where]
    del target[field]
    path = tmp_path / "broken.json"
    path.write_text(json.dumps(doc))
    for command in (["report", str(path)], ["compare", str(path), str(path)], ["report", "--html", str(path)]):
        assert main(command) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and str(path) in err and f"'{field}'" in err and "Traceback" not in err
        if where in ("rows", "puzzles"):
            assert f"{where}[1]" in err


def test_a_field_of_the_wrong_type_is_named(tmp_path, capsys):
    doc = make_doc()
    doc["rows"][2]["solve"] = "fast"
    path = tmp_path / "typed.json"
    path.write_text(json.dumps(doc))
    assert main(["report", str(path)]) == 2
    assert "rows[2]: the field 'solve' is str 'fast'; expected an integer or a number or null" in capsys.readouterr().err


def svgs_of(page: str) -> list[ET.Element]:
    return [ET.fromstring(m) for m in re.findall(r"<svg.*?</svg>", page, flags=re.S)]


def test_the_html_report_has_the_table_and_plots_with_labelled_axes(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    doc = make_doc()
    path = tmp_path / "run.json"
    path.write_text(json.dumps(doc))
    assert main(["report", "--html", str(path), "--output-file", str(tmp_path / "run.html")]) == 0
    page = (tmp_path / "run.html").read_text()
    assert '<table class="summary">' in page and "pentominoes_tetrominoes_diamond_13x13.txt" in page
    # self-contained and static: nothing fetched, nothing run
    assert "<script" not in page and "<link" not in page and not re.search(r'(src|href)="(https?:|//)', page)
    plots = [svg for svg in svgs_of(page) if svg.find(".//{*}g[@id='axes_1']") is not None]
    assert len(plots) == 5  # time, ratio, size, and dlx's level profile of each puzzle
    for svg in plots:
        axes = {g.get("id") for g in svg.iter("{http://www.w3.org/2000/svg}g")}
        assert {"matplotlib.axis_1", "matplotlib.axis_2"} <= axes
        texts = " ".join(t.text or "" for t in svg.iter("{http://www.w3.org/2000/svg}text"))
        assert re.search(r"seconds|×|pieces remaining", texts), texts[:200]
    assert "No picture of:" in page and "predates stored solutions" in page


def test_bench_run_writes_the_html_report_beside_its_json(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    out_file = tmp_path / "run.json"
    status = main(["run", "-e", "dlx,sat", "--output-file", str(out_file), str(DEFS / "dominoes_4x4.txt"), str(DEFS / "somacube.txt")])
    out, err = capsys.readouterr()
    assert status == 0, err
    # the terminal gets the compact table and one verdict line
    assert out.splitlines()[0].split() == ["puzzle", "dlx", "sat", "unique/total", "counts"]
    assert out.strip().splitlines()[-1].startswith("2 puzzles, 2 engines: counts agree on 2")
    doc = json.loads(out_file.read_text())
    assert all(p["solution"]["pieces"] for p in doc["puzzles"])
    page = (tmp_path / "run.html").read_text()
    pictures = [svg for svg in svgs_of(page) if any(el.get("class") == "cell" for el in svg.iter())]
    assert len(pictures) == 2
    assert f"HTML report written to {tmp_path / 'run.html'}" in err


def test_bench_run_without_the_html_libraries_still_succeeds_and_says_how_to_get_them(tmp_path, capsys, monkeypatch):
    import bench.comparison.pages as html

    def missing(documents):
        raise ModuleNotFoundError("No module named 'matplotlib'", name="matplotlib")

    monkeypatch.setattr(html, "render_html", missing)
    out_file = tmp_path / "run.json"
    assert main(["run", "-e", "dlx", "--output-file", str(out_file), str(DEFS / "dominoes_4x4.txt")]) == 0
    err = capsys.readouterr().err
    assert out_file.exists() and not (tmp_path / "run.html").exists()
    assert "HTML report not written: matplotlib is not installed (pip install jinja2 matplotlib" in err


def test_compare_gives_no_ratio_under_the_resolution_but_a_clear_direction():
    a = make_doc(times={"p.txt": {"dlx": [0.07], "fila": [0.002]}}, engines=["dlx", "fila"])
    b = make_doc(times={"p.txt": {"dlx": [0.004], "fila": [0.005]}}, engines=["dlx", "fila"])
    text, _ = compare(a, b)
    lines = {line.split()[1]: line for line in text.split("\n\n", 1)[1].splitlines()[2:]}
    assert lines["dlx"].rstrip().endswith("faster (one time under 10 ms: no ratio)")
    assert lines["fila"].rstrip().endswith("under 10 ms: not compared")


_CELL = st.one_of(st.none(), st.integers(-10**6, 10**9),
                  st.text(st.characters(min_codepoint=32, max_codepoint=126), max_size=14))


@given(st.integers(1, 6).flatmap(lambda n: st.tuples(
    st.lists(st.text(st.characters(min_codepoint=33, max_codepoint=126), min_size=1, max_size=10), min_size=n, max_size=n),
    st.lists(st.lists(_CELL, min_size=n, max_size=n), min_size=1, max_size=6),
    st.lists(st.sampled_from(["left", "right"]), min_size=n, max_size=n) | st.none())),
    st.sampled_from(tables.FORMATS))
def test_tables_are_laid_out_as_tabulate_lays_them_out(table, fmt):
    headers, rows, colalign = table
    ours = tables.render_table(rows, headers, fmt, colalign)
    theirs = tabulate(rows, headers=headers, tablefmt=fmt, disable_numparse=True, colalign=colalign)
    assert ours == theirs


@pytest.mark.parametrize("fmt", tables.FORMATS)
def test_the_stored_runs_tables_are_tabulates(fmt):
    for name in ("fila-10x6.json", "all-engines.json"):
        doc = results.load(ROOT / "results" / name)
        headers, rows = report.detail(doc)
        assert rows
        assert report.render_run(doc, fmt) == tabulate(rows, headers=headers, tablefmt=fmt, disable_numparse=True)


def detail_table(page: str) -> tuple[list[str], list[list[str]]]:
    """The headers and cells of the HTML report's detail table."""
    table = ET.fromstring(re.search(r'<table class="detail">.*?</table>', page, flags=re.S).group(0))
    headers = [th.text for th in table.iter("th")]
    rows = [[td.text or "" for td in tr.iter("td")] for tr in table.find("tbody")]
    return headers, rows


def html_of(doc: dict) -> str:
    from bench.comparison.pages import render_html

    return render_html([("run.json", doc)])


def test_the_html_detail_keeps_whole_reasons_and_gives_every_time_its_unit():
    pytest.importorskip("matplotlib")
    doc = make_doc(times={"p.txt": {"dlx": [0.5], "sat": "timeout"}}, engines=["dlx", "sat"], timeout=2.0)
    reason = "time limit: the solver was still searching when the run's timeout of two seconds came, so it stopped"
    next(r for r in doc["rows"] if r["engine"] == "sat")["message"] = reason
    page = html_of(doc)
    headers, rows = detail_table(page)
    # one round: no columns for the fastest and slowest round, which would stay empty
    assert "fastest round" not in headers and "slowest round" not in headers
    by_engine = {row[1]: dict(zip(headers, row)) for row in rows}
    assert by_engine["sat"]["statistics or reason"] == reason
    assert by_engine["sat"]["median"] == ">2 s" and by_engine["dlx"]["median"] == "0.5 s"
    # the summary table's times carry their unit too
    summary_cells = re.findall(r'<td class="cell[^"]*">([^<]*)</td>', page)
    assert summary_cells == ["0.5 s", "&gt;2 s"]
    # the detail and the per-puzzle search profiles are folded, so the first screens stay readable
    assert re.search(r"<details><summary>\d+ rows", page) and "<details><summary>p.txt</summary>" in page


def test_the_html_detail_shows_the_rounds_range_when_there_were_rounds():
    pytest.importorskip("matplotlib")
    doc = make_doc(engines=["dlx", "fila"], times={"a.txt": {"dlx": [1.0, 1.2, 1.1], "fila": [2.0, 2.0, 2.0]}},
                   rounds=3)
    headers, rows = detail_table(html_of(doc))
    dlx = dict(zip(headers, rows[0]))
    assert (dlx["median"], dlx["fastest round"], dlx["slowest round"]) == ("1.1 s", "1 s", "1.2 s")


def marker_positions(svg: ET.Element, axes: str) -> list[tuple[float, float]]:
    """Where matplotlib placed the data markers of one axes (``axes_1``...) of an SVG plot."""
    group = svg.find(f".//{{*}}g[@id='{axes}']")
    return [(float(use.get("x")), float(use.get("y"))) for line in group.findall("{*}g")
            if (line.get("id") or "").startswith("line2d") for use in line.iter("{http://www.w3.org/2000/svg}use")]


def test_timeouts_are_drawn_side_by_side_never_stacked_at_the_timeout():
    pytest.importorskip("matplotlib")
    engines = ["dlx", "fila", "cpsat", "sat", "ganak", "xcover", "exact-cover"]
    times = {f"p{k}.txt": {e: [0.01 * (k + 1)] if e in ("dlx", "fila") else "timeout" for e in engines} for k in range(4)}
    doc = make_doc(times=times, engines=engines, timeout=1.0)
    plots = [svg for svg in svgs_of(html_of(doc)) if svg.find(".//{*}g[@id='axes_1']") is not None]

    def titled(words: str):
        # found by what it says, not by its place among the report's pictures
        return next(svg for svg in plots if any(words in (t.text or "") for t in svg.iter("{http://www.w3.org/2000/svg}text")))

    time_svg, size_svg = plots[0], titled("exact-cover matrix (log scale)")
    stopped = marker_positions(time_svg, "axes_2")
    assert len(stopped) == 4 * 5
    gaps = [((x1 - x2) ** 2 + (y1 - y2) ** 2) ** 0.5 for i, (x1, y1) in enumerate(stopped) for x2, y2 in stopped[i + 1:]]
    assert min(gaps) > 5.5  # apart by more than a marker (5.5 pt): none covers another
    texts = " ".join(t.text or "" for t in time_svg.iter("{http://www.w3.org/2000/svg}text"))
    assert "timed out" in texts and "bars" not in texts  # one round: no bars, so no word of them
    # the size plot shows finished solves only: no timeouts piled up at the timeout, no annotation over them
    assert len(marker_positions(size_svg, "axes_1")) == 4 * 2
    assert "timeout" not in " ".join(t.text or "" for t in size_svg.iter("{http://www.w3.org/2000/svg}text")
                                     if "time plot" not in (t.text or ""))


# -- reports and compare check the rows themselves -------------------------------------------------------------


def disagreeing_doc() -> dict:
    doc = make_doc(engines=["dlx", "fila"], times={"somacube.txt": {"dlx": [0.5], "fila": [0.4]}})
    doc["puzzles"][0]["expected"] = {"unique": 480, "total": 11520, "convention": "rotations", "solvable": True}
    dlx, fila = doc["rows"]
    dlx.update(covers=479, unique=479, total=11496)
    fila.update(covers=480, unique=480, total=11520)
    return doc


def test_report_revalidates_rows_whose_stored_validation_says_nothing(tmp_path, capsys):
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(disagreeing_doc()))
    assert main(["report", str(path)]) == 1
    out = capsys.readouterr().out
    assert "MISMATCH" in out and "All engines that finished agree" not in out
    assert "covers disagree (dlx: 479; fila: 480)" in out and "counts DISAGREE on 1" in out
    assert main(["report", "--csv", str(path)]) == 1 and "MISMATCH" in capsys.readouterr().out
    # written to a file, the exit status 1 comes with its reason on the terminal
    assert main(["report", str(path), "--output-file", str(tmp_path / "r.md")]) == 1
    err = capsys.readouterr().err
    assert f"MISMATCH in {path}: somacube.txt: covers disagree (dlx: 479; fila: 480)" in err


def test_two_conflicting_rows_of_one_round_are_a_mismatch_for_report_and_compare(tmp_path, capsys):
    doc = make_doc(engines=["dlx", "fila"], times={"somacube.txt": {"dlx": [0.5], "fila": [0.4]}})
    (tmp_path / "a.json").write_text(json.dumps(doc))
    second = dict(doc["rows"][0], total=99, covers=99)
    doc["rows"].append(second)
    (tmp_path / "b.json").write_text(json.dumps(doc))
    assert main(["report", str(tmp_path / "b.json")]) == 1
    assert "dlx: round 0 is stored twice with different results" in capsys.readouterr().out
    assert main(["compare", str(tmp_path / "a.json"), str(tmp_path / "b.json")]) == 1
    err = capsys.readouterr().err
    assert "MISMATCH in B: somacube.txt: dlx: round 0 is stored twice" in err


def test_compare_exits_1_when_one_run_disagrees_with_itself(tmp_path, capsys):
    good = disagreeing_doc()
    good["rows"][0].update(covers=480, unique=480, total=11520)
    (tmp_path / "good.json").write_text(json.dumps(good))
    (tmp_path / "bad.json").write_text(json.dumps(disagreeing_doc()))
    assert main(["compare", str(tmp_path / "bad.json"), str(tmp_path / "good.json")]) == 1
    captured = capsys.readouterr()
    assert "COUNTS CHANGED" in captured.out and "MISMATCH in A: somacube.txt" in captured.err


EDITS = {
    "a NaN time": (lambda d: d["rows"][0].update(solve=float("nan")), "NaN"),
    "an infinite time": (lambda d: d["rows"][0].update(solve=float("inf")), "Infinity"),
    "set-up seconds as text": (lambda d: d["rows"][0].update(setup="x"), "rows[0]: the field 'setup'"),
    "compile seconds as a list": (lambda d: d["rows"][0].update(compile=[1]), "rows[0]: the field 'compile'"),
    "engines that are no names": (lambda d: d["run_settings"].update(engines=[1, None]), "run_settings: the field 'engines'"),
    "a negative count": (lambda d: d["rows"][1].update(covers=-3), "rows[1]: the field 'covers'"),
    "level counts as text": (lambda d: d["rows"][0]["stats"].update(attempts_by_remaining="many"),
                             "rows[0]: stats: the field 'attempts_by_remaining'"),
    "expected counts as a number": (lambda d: d["puzzles"][0].update(expected=5), "puzzles[0]: the field 'expected'"),
    "a zero timeout": (lambda d: d["run_settings"].update(timeout=0), "run_settings: the field 'timeout'"),
}


@pytest.mark.parametrize("edit", list(EDITS))
def test_a_hand_edited_result_file_is_one_line_for_every_command(tmp_path, capsys, edit):
    change, fragment = EDITS[edit]
    doc = make_doc()
    change(doc)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(doc))
    for command in (["report", str(path)], ["report", "--html", str(path)], ["report", "--csv", str(path)],
                    ["compare", str(path), str(path)]):
        assert main(command) == 2, command
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and err.startswith(f"{path}: ") and fragment in err, err


def test_json_nested_beyond_reason_is_one_line(tmp_path, capsys):
    path = tmp_path / "deep.json"
    path.write_text('{"schema": 1, "rows": ' + "[" * 100_000 + "]" * 100_000 + "}")
    assert main(["report", str(path)]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "nested too deep" in err


def test_a_report_that_cannot_be_written_leaves_no_stale_one_beside_the_new_results(tmp_path, capsys):
    out_file = tmp_path / "run.json"
    (tmp_path / "run.html").write_text("<p>an earlier run's report</p>")
    # the disk is full for the report: a file too large for the process's file size limit (EFBIG, as ENOSPC)
    script = ("import resource, signal, sys; from bench.cli import main\n"
              "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
              "resource.setrlimit(resource.RLIMIT_FSIZE, (60_000, 60_000))\n"
              f"sys.exit(main(['run', '-e', 'dlx', '--output-file', {str(out_file)!r}, {str(DEFS / 'somacube.txt')!r}]))")
    import subprocess
    import sys

    child = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=300, cwd=ROOT)
    assert child.returncode == 0, child.stderr
    assert json.loads(out_file.read_text())["rows"]
    # messages are wrapped at 120 columns, where the path's length decides
    told = " ".join(child.stderr.split())
    assert "HTML report not written" in told and "the earlier report" in told
    assert not (tmp_path / "run.html").exists()


def test_a_schema_1_file_is_read_with_its_run_settings_under_their_new_name(tmp_path):
    doc = make_doc()
    doc["schema"] = 1
    doc["options"] = doc.pop("run_settings")
    path = tmp_path / "old.json"
    path.write_text(json.dumps(doc))
    loaded = results.load(str(path))
    assert loaded["schema"] == results.SCHEMA == 2 and "options" not in loaded
    assert loaded["run_settings"]["engines"] == list(ENGINES)
    assert summary.verdict(loaded) == summary.verdict(make_doc())
    doc["schema"] = 3
    path.write_text(json.dumps(doc))
    with pytest.raises(BenchError, match="result schema 3 is not supported; expected 2"):
        results.load(str(path))
