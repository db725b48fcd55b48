"""The command line: polycube's syntax (optional values that never swallow a file, switches with values,
``--conf``), and one clear line for every bad command line."""

from __future__ import annotations

import argparse
import re

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bench.cli import build_parser, main, polycube_syntax
from bench.cli.syntax import normalize
from support import DEFS

P20 = str(DEFS / "pentominoes_20x3.txt")  # 2 covers with -r (2 unique, 8 total); 8 covers without
D44 = str(DEFS / "dominoes_4x4.txt")


def solve_parser():
    parser = build_parser()
    return next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices["solve"]


def parse(*argv):
    parser = build_parser()
    return parser.parse_args(polycube_syntax(parser, ["solve", *argv]))


@pytest.mark.parametrize("argv, expected", [
    (["-r", "defs/x.txt"], ["--redundancy=#", "defs/x.txt"]),
    (["-r", "X", "a.txt"], ["--redundancy=X", "a.txt"]),
    (["-r", "#", "a.txt"], ["--redundancy=#", "a.txt"]),
    (["-r", ".", "a.txt"], ["--redundancy=.", "a.txt"]),
    (["-rL", "a.txt"], ["--redundancy=L", "a.txt"]),
    (["-r=L"], ["--redundancy=L"]),
    (["-V", "-1", "a.txt"], ["--volume-filter=-1", "a.txt"]),
    (["-V", "a.txt"], ["--volume-filter=-1", "a.txt"]),
    (["-V13", "-P", "7"], ["--volume-filter=13", "--parity-filter=7"]),
    (["-p", "defs/x.txt"], ["--parity-backtrack=1", "defs/x.txt"]),
    (["-n0", "-i=1", "-u=0", "-R"], ["--nof=0", "--info=1", "--unique=0", "--redundancy-first=1"]),
    (["-qi", "a.txt"], ["--quiet=1", "--info=1", "a.txt"]),
    (["-i", "1"], ["--info=1", "1"]),  # a switch never takes the next word, as in polycube
    (["--info", "--quiet=0"], ["--info=1", "--quiet=0"]),
    (["-t", "-3", "-t"], ["--trace=-3", "--trace=1"]),
    (["-o", "-r", "-of=11"], ["-o", "-r", "-of=11"]),  # a required value is taken whatever it looks like
    (["--", "-r", "x"], ["--", "-r", "x"]),
])
def test_optional_values_follow_polycube(argv, expected):
    assert normalize(solve_parser(), argv) == expected


OPTION_WORDS = ["-r", "-V", "-P", "-F", "-p", "-i", "-q", "-u", "-n", "-n0", "-i=1", "-r#", "-V13", "-t", "-q=1",
                "--info", "--redundancy", "--volume-filter", "-R"]


@given(st.lists(st.sampled_from(OPTION_WORDS), max_size=6))
def test_no_option_swallows_the_definition_file(words):
    args = parse(*words, P20)
    assert args.files == [P20]


def test_solve_takes_options_as_a_user_means_them(capsys):
    assert main(["solve", "-q", "-r", P20]) == 0
    assert "pentominoes_20x3.txt: 2 covers, 2 unique, 8 total" in capsys.readouterr().err
    assert main(["solve", "-q", "-p", P20]) == 0
    assert main(["solve", "-q", "-V", P20]) == 0
    assert "pentominoes_20x3.txt: 8 covers, 2 unique, 8 total" in capsys.readouterr().err
    assert main(["solve", "-q", "-V", "-1", "-r", "#", P20]) == 0
    assert "2 covers, 2 unique, 8 total" in capsys.readouterr().err


def test_switches_take_polycube_values(capsys):
    assert main(["solve", "-n0", "-i=1", "-q=1", "-u=1", "-R=1", "-r", "-f11", "-of=11", P20]) == 0
    out = capsys.readouterr().out
    config = dict(line.split("=", 1) for line in out.splitlines() if "=" in line and not line.startswith("#"))
    assert (config["nof"], config["info"], config["quiet"], config["unique"], config["redundancyFilterFirst"]) == \
        ("0", "1", "1", "1", "1")
    assert config["engine"] == "fila" and config["SOLUTIONS"] == "2"


def test_f0_is_dlx_only(capsys):
    assert main(["solve", "-i", "-q", "-f", "0", P20]) == 0
    assert "engine=dlx" in capsys.readouterr().out
    assert main(["solve", "-q", "-f", "0", "-e", "fila", P20]) == 2
    assert "-f 0 turns FILA off" in capsys.readouterr().err


def test_info_prints_polycubes_keys(capsys):
    assert main(["solve", "-i", "-q", "-r", P20]) == 0
    out = capsys.readouterr().out
    for key in ("START_TIME", "VERSION", "GRIDBITFIELD_SIZE", "UNIQUE_PER_SEC", "STOP_TIME"):
        assert re.search(rf"^{key}=\S", out, re.M), key
    assert re.search(r"^NAME : TOTAL TIME : PERCENTAGE : NUM EVENTS : AVG TIME$", out, re.M)
    assert re.search(r"^solveAlgo : \d+\.\d{6} : \d+\.\d{3}% : 1: \d+\.\d{3}$", out, re.M)


def test_conf_reads_options_and_the_command_line_wins(capsys, tmp_path):
    conf = tmp_path / "polycube.conf"
    conf.write_text("# options as polycube's --conf takes them\nredundancyFilter=#\ninfo=1\nquiet=1\nfila=11\n"
                    "order=f=11  # comment\n")
    assert main(["solve", "--conf", str(conf), "--info=0", P20]) == 0
    out, err = capsys.readouterr()
    assert out == "" and "2 covers, 2 unique, 8 total" in err and "(fila, solved)" in err
    conf.write_text("fila=11\nnonsense=3\n")
    assert main(["solve", "--conf", str(conf), P20]) == 2
    assert f"{conf}:2: unknown option 'nonsense'" in capsys.readouterr().err


def test_version_on_solve(capsys):
    with pytest.raises(SystemExit) as exit_:
        main(["solve", "--version"])
    assert exit_.value.code == 0 and "polycube 2.0 command line" in capsys.readouterr().out


def test_solve_a_directory_as_run_and_check_do(capsys, tmp_path):
    for name in ("pentominoes_20x3.txt", "dominoes_4x4.txt"):
        (tmp_path / name).write_text((DEFS / name).read_text())
    assert main(["solve", "-q", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert "dominoes_4x4.txt: 36 covers" in err and "pentominoes_20x3.txt: 8 covers" in err


def test_help_is_grouped_by_purpose_with_examples_and_lists_every_engine(capsys):
    with pytest.raises(SystemExit):
        main(["solve", "--help"])
    out = capsys.readouterr().out
    for group in ("engine:", "filters:", "FILA:", "output:", "limits:", "parallel:"):
        assert re.search(rf"^{group}$", out, re.M), group
    assert out.count("examples:") == 6
    from bench.engines import engine_names
    with pytest.raises(SystemExit):
        main(["run", "--help"])
    out = capsys.readouterr().out
    assert "``" not in out and f"engines: {', '.join(engine_names())}" in out


def test_names_are_escaped_in_key_value_output(capsys, tmp_path):
    path = tmp_path / "a\nSOLUTIONS=0.txt"
    path.write_text((DEFS / "dominoes_4x4.txt").read_text())
    assert main(["solve", "-i", "-q", str(path)]) == 0
    out, err = capsys.readouterr()
    assert not re.search(r"^SOLUTIONS=0", out, re.M) and "a\\nSOLUTIONS=0.txt" in out
    assert re.search(r"^SOLUTIONS=36$", out, re.M)
    assert len(err.splitlines()) == 1


BAD = [
    # bench solve: limits
    (["solve", "--time-limit", "nan", P20], "--time-limit: expected a finite number of seconds > 0"),
    (["solve", "--time-limit", "inf", P20], "finite number of seconds"),
    (["solve", "--time-limit", "1e400", P20], "finite number of seconds"),
    (["solve", "--time-limit", "-1", P20], "finite number of seconds > 0"),
    (["solve", "--time-limit", "0", P20], "finite number of seconds > 0"),
    (["solve", "--time-limit", "soon", P20], "expected a number of seconds"),
    (["solve", "--node-limit", "-5", P20], "--node-limit: expected a number of nodes >= 1"),
    (["solve", "--node-limit", "0", P20], "a number of nodes >= 1"),
    (["solve", "--node-limit", "1.5", P20], "expected a number of nodes"),
    (["solve", "--node-limit", "nan", P20], "expected a number of nodes"),
    (["solve", "--max-solutions", "-1", P20], "--max-solutions: expected a number of solutions >= 1"),
    (["solve", "--max-solutions", "0", P20], "a number of solutions >= 1"),
    (["solve", "--max-solutions", "many", P20], "expected a number of solutions"),
    # goal, trace, sample
    (["solve", "-g", "-1", P20], "--goal: expected a count of pieces >= 0"),
    (["solve", "-g", "x", P20], "--goal: expected a count of pieces"),
    (["solve", "-g", "1000", P20], "--goal 1000: the puzzle has 12 pieces"),
    (["solve", "-t", "x", P20], "no such file or directory: x"),
    (["solve", "-s", "x", P20], "--sample: expected T[,R[,SEED]] as integers"),
    (["solve", "-s", "0", P20], "expected T >= 1 trials"),
    (["solve", "-s", "10,-1", P20], "expected T >= 1 trials"),
    # filters
    (["solve", "-V", "-2", P20], "--volumeFilter: expected a count of pieces (-1: once before the search) >= -1, got -2"),
    (["solve", "-P=-7", P20], "--parityFilter: expected a count of pieces"),
    (["solve", "-F", "-3", P20], "--fitFilter: expected a count of pieces"),
    (["solve", "--fit-rounds", "-1", P20], "--fit-rounds: expected a number of passes >= 0"),
    (["solve", "-p", "-1", P20], "--parityBacktrack: expected a count of pieces >= 0"),
    (["solve", "-v", "-1", P20], "--volumeBacktrack: expected a count of pieces >= 0"),
    (["solve", "-v", "x", P20], "--volumeBacktrack: expected a count of pieces"),
    (["solve", "-r", "NOPE", P20], "NOPE"),
    (["solve", "-R", D44], "--redundancy-first needs the redundancy filter"),
    (["solve", "--redundancy-method", "bogus", P20], "--redundancy-method: invalid choice"),
    # switches
    (["solve", "-n2", P20], "--nof: expected 1 or 0"),
    (["solve", "-i=maybe", P20], "--info: expected 1 or 0"),
    (["solve", "--quiet=", P20], "--quiet: expected 1 or 0"),
    # FILA
    (["solve", "-f", "-1", P20], "--fila: expected a count of pieces >= 0"),
    (["solve", "-f", "x", P20], "--fila: expected a count of pieces"),
    (["solve", "-f", "99", "-q", P20], "--fila must be between 1 and the number of pieces"),
    (["solve", "-f", "0", "-e", "fila", P20], "-f 0 turns FILA off"),
    # engine, order, output
    (["solve", "--engine", "", P20], "--engine: expected an engine name, got an empty value"),
    (["solve", "--engine", "nope", P20], "unknown engine 'nope'"),
    (["solve", "--engine", "dlx:bogus", P20], "bogus"),
    (["solve", "-q", "--engine", "sat:nosolver", P20], "unknown SAT solver 'nosolver'"),
    (["solve", "-q", "--engine", "sat:cadical195:noenc", P20], "unknown SAT cardinality encoding 'noenc'"),
    (["solve", "-q", "--engine", "ganak:noenc", P20], "unknown SAT cardinality encoding 'noenc'"),
    (["solve", "--engine", "ganak", P20], "add -q"),
    (["solve", "-q", "-e", "cpsat", "--node-limit", "5", P20], "does not implement: node_limit"),
    (["solve", "-o", "", P20], "--order: expected an ordering spec"),
    (["solve", "-o", "q", P20], "q"),
    (["solve", "-O", "", P20], "--output: expected a format such as BL, got an empty value"),
    (["solve", "-O", "XZ", P20], "output format 'XZ'"),
    (["solve", "-O", "BLX", P20], "output format 'BLX'"),
    # parallel
    (["solve", "-w", "0", P20], "--workers: expected a number of processes from 1 to 1024"),
    (["solve", "-w", "-1", P20], "--workers: expected a number of processes"),
    (["solve", "-w", "100000", P20], "from 1 to 1024"),
    (["solve", "-w", "x", P20], "--workers: expected a number of processes"),
    (["solve", "--cluster", "garbage", P20], "--cluster: expected a scheduler address"),
    (["solve", "--cluster", "tcp://host", P20], "--cluster: expected a scheduler address"),
    (["solve", "--cluster", "tcp://host:99999", P20], "--cluster: expected a scheduler address"),
    (["solve", "--cluster", "", P20], "--cluster: expected a scheduler address"),
    (["solve", "--split-depth", "0", P20], "--split-depth: expected a number of levels >= 1"),
    (["solve", "--split-depth", "-3", P20], "--split-depth: expected a number of levels >= 1"),
    (["solve", "-q", "-w", "2", "--split-depth", "500", P20], "--split-depth 500: this search has 12 pieces"),
    (["solve", "-w", "2", "--max-solutions", "1", P20], "cannot split this solve"),
    (["solve", "-w", "2", P20], "cannot split this solve: solutions are printed"),
    (["solve", "-q", "-w", "1", "--journal", "j.jsonl", P20], "--journal checkpoints the sub-problems"),
    (["solve", "-q", "--journal", "", P20], "--journal: expected a file name, got an empty one"),
    (["solve", "-q", "--journal", "defs", P20], "--journal: is a directory"),
    (["solve", "-q", "-w", "2", "--resume", "--journal", "no/such/journal.jsonl", P20], "--resume: no journal"),
    # paths and --conf
    (["solve", "no/such/file.txt"], "no such file or directory: no/such/file.txt"),
    (["solve", ""], "expected a definition file or directory, got an empty name"),
    (["solve", "tests/support/fake_engines.py"], "tests/support/fake_engines.py"),
    (["solve", "--conf", "no/such.conf", P20], "--conf no/such.conf: cannot read it"),
    (["solve", "--conf"], "--conf needs a file name"),
    (["solve"], "the following arguments are required: FILE"),
    (["solve", "--bogus", P20], "unknown option --bogus (see bench solve --help)"),
    (["solve", "--max-soluions", "2", P20], "unknown option --max-soluions (did you mean --max-solutions?)"),
    (["solve", "-e", "filla", P20], "unknown engine 'filla' (did you mean fila?)"),
    (["solve", "fila", P20], "no such file or directory: fila (to pick the engine, write -e fila)"),
    (["solve", "-x", P20], "unknown option -x"),
    (["solve", "--no", P20], "ambiguous option --no: it could be"),
    # bench run
    (["run", "--timout", "1", P20], "bench run: error: unknown option --timout (did you mean --timeout?)"),
    (["run", "-e", "dlx,filla", P20], "unknown engine 'filla' (did you mean fila?)"),
    (["run", "--timeout", "nan", P20], "--timeout: expected a finite number of seconds > 0"),
    (["run", "--timeout", "inf", P20], "finite number of seconds"),
    (["run", "--timeout", "1e400", P20], "finite number of seconds"),
    (["run", "--timeout", "0", P20], "finite number of seconds > 0"),
    (["run", "--timeout", "-1", P20], "finite number of seconds > 0"),
    (["run", "--rounds", "0", P20], "--rounds: expected a number of rounds >= 1"),
    (["run", "--rounds", "x", P20], "--rounds: expected a number of rounds"),
    (["run", "--mode", "all", P20], "--mode: invalid choice"),
    (["run", "-e", "", P20], "--engine: expected a list of engines, got an empty value"),
    (["run", "-e", ",", P20], "--engine needs at least one engine"),
    (["run", "-e", "dlx,dlx", P20], "--engine names an engine twice"),
    (["run", "-e", "dlx,nope", P20], "unknown engine 'nope'"),
    (["run", "-o", "x.json", P20], "-o is the ordering heuristic"),
    (["run", "--output-file", "defs", P20], "--results: is a directory, expected a file: defs"),
    (["run", "--output-file", "", P20], "--results: expected a file name"),
    (["run", "-V", "5", P20], "bench run applies --volume-filter once"),
    (["run", "-r=", P20], "--redundancyFilter: expected a piece name"),
    (["run", "-r", "", P20], "got an empty name"),
    (["run", "-w", "0", P20], "--workers: expected a number of processes"),
    (["run", "--cluster", "garbage", P20], "--cluster: expected a scheduler address"),
    (["run", "--split-depth", "0", P20], "--split-depth: expected a number of levels"),
    (["run", "no/such/dir"], "no such file or directory: no/such/dir"),
    (["run", ""], "got an empty name"),
    # bench estimate
    (["estimate", "--trials", "0", P20], "--trials: expected a number of paths >= 1"),
    (["estimate", "--repeat", "0", P20], "--repeat: expected a number of estimates >= 1"),
    (["estimate", "-g", "-1", P20], "--goal: expected a count of pieces >= 0"),
    (["estimate", "--seed", "-1", P20], "--seed: expected a seed from 0"),
    (["estimate", "--seed", "x", P20], "--seed: expected a seed"),
    (["estimate", "-o", "", P20], "--order: expected an ordering spec"),
    (["estimate", "-V", "-5", P20], "--volumeFilter: expected a count of pieces"),
    (["estimate", "missing.txt"], "no such file or directory: missing.txt"),
    # bench info and check
    (["info", "-r=", P20], "--redundancyFilter: expected a piece name"),
    (["info", "-r", "", P20], "got an empty name"),
    (["info", "missing.txt"], "no such file or directory: missing.txt"),
    (["check", ""], "got an empty name"),
    (["check", "no/such/dir"], "no such file or directory: no/such/dir"),
    # bench report and compare
    (["report", "missing.json"], "no such file: missing.json"),
    (["report", "defs"], "not a regular file: defs"),
    (["report", "-o", "out.md", "missing.json"], "-o is the ordering heuristic"),
    (["compare", "missing-a.json", "missing-b.json"], "no such file: missing-a.json"),
    (["compare", "--threshold", "nan", "a", "b"], "--threshold: expected a finite number >= 0"),
    (["compare", "--threshold", "-1", "a", "b"], "--threshold: expected a finite number >= 0"),
    (["compare", P20, D44, "stray"], "bench compare: error: unexpected argument(s) after the others: stray"),
    # bench itself
    ([], "the following arguments are required: COMMAND"),
    (["bogus"], "unknown command 'bogus'; expected one of"),
    (["slove", P20], "unknown command 'slove' (did you mean solve?)"),
]


@pytest.mark.parametrize("argv, message", BAD, ids=[" ".join(a)[:60] or "(none)" for a, _ in BAD])
def test_every_bad_command_line_gets_one_clear_line(capsys, argv, message):
    status = main(argv)
    out, err = capsys.readouterr()
    lines = [line for line in err.splitlines() if line.strip()]
    assert status == 2, err
    assert "Traceback" not in err
    assert len(lines) == 1, err
    assert message in lines[0], err


def test_a_refused_command_leaves_no_folder_behind(capsys, tmp_path):
    journal = tmp_path / "no" / "such" / "journal.jsonl"
    assert main(["solve", "-q", "-w", "2", "--resume", "--journal", str(journal), P20]) == 2
    assert "--resume: no journal" in capsys.readouterr().err
    assert main(["run", "--output-file", str(tmp_path / "out" / "r.json"), "--timeout", "nan", P20]) == 2
    assert list(tmp_path.iterdir()) == []


def test_an_empty_directory_is_an_error(capsys, tmp_path):
    for command in ("solve", "run", "check"):
        assert main([command, str(tmp_path)]) == 2
        assert f"{tmp_path}: no definition files (*.txt) or matrices (*.xcc, *.dlx) in this directory" in capsys.readouterr().err


def test_r_means_the_same_in_every_command(capsys):
    for command in ("info", "estimate", "run --no-save -e dlx"):
        assert main([*command.split(), "-r", P20]) == 0, command
    capsys.readouterr()
    assert main(["info", "-r", ".", P20]) == 0
    assert "REDUNDANCY_FILTER=.\n" in capsys.readouterr().out
    assert main(["info", "-r", P20]) == 0
    assert "REDUNDANCY_FILTER=V\n" in capsys.readouterr().out
