"""The A/B benchmarks' case selection (``--only``), shared by benchmarks.checkouts and benchmarks.startup."""

from pathlib import Path

import pytest

from benchmarks import checkouts, startup


@pytest.mark.parametrize("module", [checkouts, startup])
def test_an_only_that_no_case_holds_is_one_usage_line_before_anything_runs(module, tmp_path, capsys):
    with pytest.raises(SystemExit) as stop:
        module.main([str(tmp_path / "a"), str(tmp_path / "b"), "--only", "no-such-case", "--results", str(tmp_path)])
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err[-1].startswith(f"python -m benchmarks.{module.__name__.rsplit('.', 1)[1]}: error: --only "
                              "'no-such-case': no case holds it; the cases: ")
    assert "Traceback" not in "\n".join(err)
    assert list(tmp_path.iterdir()) == []


def test_only_keeps_the_cases_that_hold_one_of_its_texts():
    parser = checkouts.checkouts_parser("x", "doc", rounds=1)
    everything = checkouts.selected(parser, parser.parse_args(["a", "b"]), checkouts.CASES, checkouts.case_line)
    assert everything == checkouts.CASES
    some = checkouts.selected(parser, parser.parse_args(["a", "b", "--only", "meteor", "--only", "dlx:sets"]),
                              checkouts.CASES, checkouts.case_line)
    assert [(engine, path) for engine, path, _ in some] == [("dlx:sets", "defs/pentominoes_10x6.txt"),
                                                            ("fila", "defs/meteor.txt")]


def test_the_bundled_cases_are_bundled_puzzles_under_a_second_and_expected():
    from bench.models.expected import expected_for
    import bench

    root = Path(checkouts.__file__).resolve().parents[1]
    assert len({path for _, path, _ in checkouts.BUNDLED}) == len(checkouts.BUNDLED) >= 20
    for engine, path, options in checkouts.BUNDLED:
        assert engine == "fila" and options == []
        [puzzle] = bench.load(root / path)
        assert expected_for(puzzle) is not None, path
    # the slow ones stay out: a round of --bundled must not take minutes
    assert not {"defs/tetriscube.txt", "defs/dominoes_8x8.txt"} & {path for _, path, _ in checkouts.BUNDLED}
