"""The A/B benchmarks' case selection (``--only``), shared by benchmarks.checkouts and benchmarks.startup."""

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
