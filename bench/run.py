"""``bench run``: every engine on the same matrix, counts cross-validated, results stored.

Each puzzle is encoded once.  Every engine then solves that cover in a child
process (forked, so it shares the cover without copying and inherits the JIT
code the parent compiled while warming up), under a hard timeout: a hung or
crashing engine costs its own row, never the run.  Engines are interleaved
across rounds, each round starting one engine later, so slow drift of the
machine does not favour one of them; reports use the median over rounds.

After each puzzle the rows are validated (see :func:`validate`) and the
result file is rewritten, so an interrupted run keeps every finished puzzle.
The exit status is 1 when any count disagrees or an engine failed.
"""

from __future__ import annotations

import faulthandler
import multiprocessing
import os
import signal
import sys
import time
import traceback
from dataclasses import replace
from pathlib import Path

from bench import results
from bench.engines import Limits, Result, Settings, Status, get_engine
from bench.errors import BenchError, UsageError
from bench.expected import expected_for
from bench.inputs import definition_files, load_puzzles
from bench.models.cover import Cover
from bench.models.diagnose import unsolvable_reasons
from bench.models.filters import add_filter_arguments, apply_one_shot, one_shot_requests
from bench.parallel.cli import add_parallel_arguments, parallel_options, solve_maybe_parallel
from bench.parallel.runner import ParallelOptions
from bench.report import render_run
from bench.solve import redundancy_choice

DEFAULT_ENGINES = "dlx,fila,cpsat,sat,ganak"



def add_parser(sub) -> None:
    """Register ``bench run``."""
    p = sub.add_parser("run", help="solve every puzzle with several engines, cross-validate counts, store results",
                       description=__doc__.split("\n\n")[0])
    p.add_argument("paths", nargs="+", metavar="PATH", help="definition files or directories (searched for *.txt)")
    p.add_argument("-e", "--engine", default=DEFAULT_ENGINES, metavar="E1,E2,...",
                   help=f"engines, each NAME[:VARIANT] (default {DEFAULT_ENGINES}; known: dlx, cpsat, sat, ganak, "
                        "xcover, exact-cover)")
    p.add_argument("--timeout", type=float, default=60.0, metavar="S", help="seconds per engine and puzzle (default 60)")
    p.add_argument("--rounds", type=int, default=1, metavar="R", help="runs of each engine per puzzle; medians reported")
    p.add_argument("--mode", choices=("count", "first"), default="count", help="count all covers, or find one")
    p.add_argument("-r", "--redundancy", default="#", metavar="PIECE",
                   help="rotational-redundancy filter: # picks a piece (default), . turns it off, or a piece name")
    p.add_argument("--redundancy-method", default="orientation", choices=("orientation", "orbit"),
                   help="which image of each orbit the filter keeps (default orientation, as polycube)")
    add_filter_arguments(p, in_search=False)
    add_parallel_arguments(p)
    p.add_argument("--skip-slow", action="store_true", help="leave out puzzles marked slow in expected.toml")
    p.add_argument("--no-static-check", action="store_true",
                   help="run the engines even on puzzles that a static check proves unsolvable (parity, volume, ...)")
    p.add_argument("-o", "--results", metavar="FILE", help="result file (default results/run-DATE-TIME.json)")
    p.add_argument("--no-save", action="store_true", help="do not write a result file")
    p.set_defaults(func=cmd_run)


def parse_engines(text: str) -> list[str]:
    """The engine specs of ``--engine``, each checked now so a typo fails before any work."""
    specs = [s.strip() for s in text.split(",") if s.strip()]
    if not specs:
        raise UsageError("--engine needs at least one engine")
    if len(set(specs)) != len(specs):
        raise UsageError("--engine names an engine twice")
    for spec in specs:
        get_engine(spec)
    return specs


def cmd_run(args) -> int:
    """Run the comparison; returns 1 on a count mismatch or an engine error."""
    if args.rounds < 1 or args.timeout <= 0:
        raise UsageError("--rounds must be at least 1 and --timeout positive")
    specs = parse_engines(args.engine)
    options = {"engines": specs, "timeout": args.timeout, "rounds": args.rounds, "mode": args.mode,
               "redundancy": args.redundancy, "redundancy_method": args.redundancy_method,
               "volume_filter": args.volume_filter, "parity_filter": args.parity_filter, "fit_filter": args.fit_filter,
               "fit_rounds": args.fit_rounds}
    requests = one_shot_requests(args)
    for name in ("volume", "parity", "fit"):
        value = getattr(args, f"{name}_filter")
        if value is not None and value > 0:
            raise UsageError(f"bench run applies --{name}-filter once, to the matrix every engine shares; for "
                             f"filtering inside the search give the engines that do it a variant, e.g. "
                             f"dlx:{name[0].upper()}{value}")
    parallel = parallel_options(args)
    if parallel is not None:
        parallel = replace(parallel, progress=False)
        options["workers"] = parallel.workers if parallel.cluster is None else parallel.cluster
        options["split_every_search"] = parallel.explicit
    document = results.new_document(["bench", "run", *args.paths], options)
    path = None if args.no_save else Path(args.results) if args.results else results.default_path()
    compile_seconds = warm_up(specs)
    errors: list[str] = []
    interrupted = False
    try:
        for file in definition_files(args.paths):
            for puzzle, parse_seconds in load_puzzles(file, errors):
                try:
                    expected = expected_for(puzzle)
                    if args.skip_slow and expected is not None and expected.slow:
                        continue
                    start = time.perf_counter()
                    cover = Cover.from_puzzle(puzzle, redundancy=redundancy_choice(args.redundancy),
                                              method=args.redundancy_method)
                    cover, filter_counters = apply_one_shot(cover, requests["volume"], requests["fit_rounds"],
                                                            requests["parity"])
                    encode = time.perf_counter() - start
                except BenchError as exc:
                    errors.append(f"{puzzle.name}: {exc}")
                    continue
                entry = puzzle_entry(puzzle, cover, expected, parse_seconds, encode)
                entry["filters"] = filter_counters
                document["puzzles"].append(entry)
                print(f"{entry['key']}: {cover.n_options} options, {cover.n_items} items", file=sys.stderr, flush=True)
                reasons = [] if args.no_static_check else unsolvable_reasons(cover)
                if reasons:
                    rows = static_proof_rows(entry, specs, reasons)
                else:
                    rows = run_puzzle(entry, cover, specs, args, compile_seconds, parallel)
                document["rows"].extend(rows)
                document["validation"].extend(validate(entry, rows))
                if path is not None:
                    results.save(document, path)
    except KeyboardInterrupt:
        interrupted = True
    print(render_run(document))
    for message in errors:
        print(message, file=sys.stderr)
    if path is not None:
        results.save(document, path)
        print(f"results written to {path}", file=sys.stderr)
    if interrupted:
        print("bench: interrupted; the finished puzzles are kept", file=sys.stderr)
        return 130
    if document["validation"]:
        for problem in document["validation"]:
            print(f"{problem['kind'].upper()}: {problem['puzzle']}: {problem['message']}", file=sys.stderr)
        return 1
    return 2 if errors else 0


def warm_up(specs: list[str]) -> dict[str, float]:
    """Compile the JIT engines once in this process; forked children inherit the code."""
    out = {}
    for spec in specs:
        engine = get_engine(spec)
        if hasattr(engine, "warm_up") and engine.available():
            out[spec] = engine.warm_up()
    return out


def puzzle_entry(puzzle, cover, expected, parse_seconds: float, encode_seconds: float) -> dict:
    """The facts of one puzzle stored in the result file."""
    definition = puzzle.definition
    key = Path(definition.path).name + ("" if definition.index == 1 else f"#{definition.index}")
    return {
        "key": key, "file": str(definition.path), "index": definition.index, "name": puzzle.name,
        "cover_hash": cover.hash, "options": cover.n_options, "items": cover.n_items,
        "redundancy": cover.redundancy.piece if cover.redundancy else None, "group": puzzle.group.order,
        "parse_seconds": parse_seconds, "encode_seconds": encode_seconds,
        "expected": None if expected is None else {"unique": expected.unique, "total": expected.total,
                                                   "solvable": expected.solvable},
    }


def run_puzzle(entry: dict, cover, specs: list[str], args, compile_seconds: dict,
               parallel: ParallelOptions | None = None) -> list[dict]:
    """All rounds of all engines on one cover (split over ``parallel`` for the engines that can split)."""
    rows = []
    for round_no in range(args.rounds):
        shift = round_no % len(specs)
        for spec in specs[shift:] + specs[:shift]:
            result = run_engine(spec, cover, args.mode, args.timeout, parallel)
            if result.status != Status.SKIPPED:
                result.timings.setdefault("compile", compile_seconds.get(spec, 0.0))
            rows.append(row(entry, spec, round_no, result))
            workers = rows[-1]["workers"]
            print(f"  {spec:<14} round {round_no + 1}: {result.status.value:<8} covers={result.covers} "
                  f"solve={rows[-1]['solve'] if rows[-1]['solve'] is not None else float('nan'):.3f}s"
                  f"{f' on {workers} workers' if workers != 1 else ''} {result.message}", file=sys.stderr, flush=True)
    return rows


def static_proof_rows(entry: dict, specs: list[str], reasons: list[str]) -> list[dict]:
    """Rows for a puzzle the model proves unsolvable before any search: the proof, and every engine not run."""
    proof = Result(engine="static-check", status=Status.SOLVED, covers=0, unique=0, total=0,
                   message="; ".join(reasons), timings={"solve": 0.0})
    rows = [row(entry, "static-check", 0, proof)]
    for spec in specs:
        skipped = Result(engine=spec, status=Status.SKIPPED, message="not run: the static check proves it unsolvable")
        rows.append(row(entry, spec, 0, skipped))
    print(f"  unsolvable without search: {proof.message}", file=sys.stderr, flush=True)
    return rows


def row(entry: dict, spec: str, round_no: int, result: Result) -> dict:
    """One result row of the file; a split solve's time includes its split."""
    solve = result.timings.get("solve")
    if solve is not None:
        solve += result.timings.get("split", 0.0)
    return {
        "puzzle": entry["key"], "cover_hash": entry["cover_hash"], "engine": spec, "variant": result.variant,
        "round": round_no, "status": result.status.value, "covers": result.covers, "unique": result.unique,
        "total": result.total, "solve": solve, "setup": result.timings.get("setup"),
        "workers": result.stats.get("parallel", {}).get("workers", 1),
        "compile": result.timings.get("compile"), "stats": result.stats, "message": result.message,
    }


def limits_for(engine, mode: str, timeout: float) -> Limits:
    """The limits an engine is given: the ones it supports, the hard timeout backing them up."""
    return Limits(max_solutions=1 if mode == "first" else None,
                  time_limit=timeout if "time_limit" in engine.supported else None)


def _child(spec: str, cover, mode: str, timeout: float, parallel: ParallelOptions | None, conn) -> None:
    faulthandler.disable()  # a crashing engine is reported as a status, not with a stack dump
    os.setpgid(0, 0)  # so that a hard timeout also stops the worker processes of a split solve
    try:
        engine = get_engine(spec)
        if not engine.available():
            result = Result(engine=spec, status=Status.SKIPPED, message="library not installed")
        elif mode == "first" and getattr(engine, "counts_only", False):
            result = Result(engine=spec, status=Status.SKIPPED, message="counts only; no first-solution mode")
        elif parallel is not None and mode == "count" and "prefix" in engine.supported:
            result = solve_maybe_parallel(cover, engine, Settings(), limits_for(engine, mode, timeout), parallel,
                                          printing=False)
        else:
            result = engine.solve(cover, Settings(), limits_for(engine, mode, timeout))
    except UsageError as exc:
        result = Result(engine=spec, status=Status.SKIPPED, message=str(exc))
    except BaseException as exc:
        last = traceback.format_exception_only(type(exc), exc)[-1].strip()
        result = Result(engine=spec, status=Status.ERROR, message=last)
    result.solutions = []
    conn.send(result)
    conn.close()


def run_engine(spec: str, cover, mode: str, timeout: float, parallel: ParallelOptions | None = None) -> Result:
    """Solve in a forked child with a hard timeout; a crash or a hang becomes a status."""
    ctx = multiprocessing.get_context("fork")
    receive, send = ctx.Pipe(duplex=False)
    # not daemonic: a daemonic process may not start the worker pool of a split solve
    proc = ctx.Process(target=_child, args=(spec, cover, mode, timeout, parallel, send), daemon=False)
    start = time.perf_counter()
    proc.start()
    try:
        os.setpgid(proc.pid, proc.pid)  # the child does it too: whichever runs first, no gap
    except (ProcessLookupError, PermissionError):
        pass
    send.close()
    grace = max(2.0, 0.1 * timeout)
    try:
        if receive.poll(timeout + grace):
            try:
                return receive.recv()
            except EOFError:
                proc.join(5)
                return Result(engine=spec, status=Status.ERROR, message=f"engine crashed (exit code {proc.exitcode})",
                              timings={"solve": time.perf_counter() - start})
        return Result(engine=spec, status=Status.TIMEOUT, message=f"killed after {timeout + grace:.0f} s",
                      timings={"solve": time.perf_counter() - start})
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # the child and any worker processes it left behind
        except (ProcessLookupError, PermissionError):
            pass
        if proc.is_alive():
            proc.kill()
        proc.join()
        receive.close()


def validate(entry: dict, rows: list[dict]) -> list[dict]:
    """Count disagreements and engine failures of one puzzle.

    Kinds: ``mismatch`` (two solved rows disagree on covers, unique or total,
    or a solved row disagrees with the expected counts) and ``error`` (an
    engine crashed or raised).  First-solution rows are checked against
    solvability only.
    """
    problems = []
    solved = [r for r in rows if r["status"] == Status.SOLVED.value]
    for r in rows:
        if r["status"] == Status.ERROR.value:
            problems.append({"puzzle": entry["key"], "kind": "error", "message": f"{r['engine']}: {r['message']}"})
    for field in ("covers", "unique", "total"):
        seen: dict[int, list[str]] = {}
        for r in solved:
            if r[field] is not None:
                seen.setdefault(r[field], [])
                if r["engine"] not in seen[r[field]]:
                    seen[r[field]].append(r["engine"])
        if len(seen) > 1:
            detail = "; ".join(f"{', '.join(engines)}: {value}" for value, engines in sorted(seen.items()))
            problems.append({"puzzle": entry["key"], "kind": "mismatch", "message": f"{field} disagree ({detail})"})
    expected = entry["expected"] or {}
    for r in solved:
        for field in ("unique", "total"):
            want = expected.get(field)
            if want is not None and r[field] is not None and r[field] != want:
                problems.append({"puzzle": entry["key"], "kind": "mismatch",
                                 "message": f"{r['engine']} reports {field}={r[field]}, expected {want}"})
    solvable = expected.get("solvable")
    if solvable is None and expected.get("total") is not None:
        solvable = expected["total"] > 0
    if solvable is not None:
        for r in rows:
            found = r["covers"] is not None and r["covers"] > 0
            proved_none = r["status"] == Status.SOLVED.value and r["covers"] == 0
            if (found and not solvable) or (proved_none and solvable):
                problems.append({"puzzle": entry["key"], "kind": "mismatch",
                                 "message": f"{r['engine']} finds {r['covers']} covers, expected "
                                            f"{'a solvable' if solvable else 'an unsolvable'} puzzle"})
    return problems

