"""``shellgate fuzz``: generate, ask the gate, execute what it auto-allows, report side effects.

The parent builds the material once (seeds, policy rules, each program's harvested flags) and
starts ``jobs`` worker processes; each owns a sandboxed world (:class:`~.oracle.Oracle`) and a
gate for it, and loops until the deadline: generate -> ``Gate.check`` -> if allowed, run in the
oracle -> on an effect, minimize, name the cause, report. The parent shows a progress bar,
deduplicates causes across workers, writes the findings as JSON lines and prints a summary.

Exit status: 0 no findings, 1 findings, 2 the campaign could not run (no sandbox, bad config).
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing as mp
import os
import queue
import re
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

from .._record import asdict, field, record
from . import generators, minimize, policy_seeds, programs
from .dialects import DIALECTS
from .flags import harvest_all
from .oracle import KINDS, Oracle, OracleUnavailable, preflight

# The kind a finding is minimized and named by, when a command shows several.
PRIORITY = ("exec", "connect", "secret-read", "delete", "write")
assert set(PRIORITY) == set(KINDS)

STATS_EVERY = 0.25          # seconds between a worker's progress messages
MINIMIZE_TESTS = 120        # oracle runs one minimization may spend
GRACE = 90.0                # seconds a worker may overrun the deadline to finish a minimization


def project_root() -> Path:
    return Path(__file__).resolve().parent.parent.parent


def seed_dirs() -> list[Path]:
    root = project_root()
    return [root / "corpus", root / "fuzz" / "seeds"]


@record(frozen=False, slots=False)
class Stats:
    generated: int = 0
    checked: int = 0          # gate checks (the generated commands, and minimization's)
    allowed: int = 0
    executed: int = 0
    timeouts: int = 0
    effects: int = 0          # executions that showed any effect (before dedup)
    duplicates: int = 0
    gate_errors: int = 0
    minimize_runs: int = 0
    gen_seconds: float = 0.0  # time spent generating + checking (not executing)
    exec_seconds: float = 0.0

    def add(self, other: Stats) -> None:
        for k, v in asdict(other).items():
            setattr(self, k, getattr(self, k) + v)


@record(frozen=False, slots=False)
class WorkerSpec:
    index: int
    seed: int
    deadline: float
    mode: str
    config: str | None
    timeout: float
    material: generators.Material
    gate_factory: Callable[[Oracle, str, str | None], Any] | None = None
    max_tests: int = MINIMIZE_TESTS
    max_commands: int | None = None   # stop after this many generated commands (tests, benches)
    dialect: str = "bash"             # a key of dialects.DIALECTS
    round: int = 0                    # a resumed campaign's round: fresh streams, same seed
    known: tuple[tuple[str, str], ...] = ()   # (kind, cause) already found: never reported again


def stream_seed(seed: int, index: int, round: int = 0) -> str:
    """The generator seed of partition ``index``: a campaign is the same commands whatever runs
    it (processes or Ray, this machine or a cluster) for the same seed and partition count. A
    resumed campaign's later rounds get new streams (round 0 keeps the historical spelling)."""
    return f"{seed}/{index}" if round == 0 else f"{seed}/{index}/r{round}"


def default_gate(oracle: Oracle, mode: str, config: str | None) -> Any:
    """The real gate for the oracle's world (its workspace, its fake HOME)."""
    from ..check import Gate

    return Gate(oracle.workspace, mode=mode, config=config, home=oracle.home)


def primary_kind(kinds: frozenset[str] | set[str]) -> str:
    return next(k for k in PRIORITY if k in kinds)


@record(frozen=False, slots=False)
class _Worker:
    spec: WorkerSpec
    out: Any                                   # multiprocessing queue
    stats: Stats = field(default_factory=Stats)
    known: list[tuple[str, frozenset[str]]] = field(default_factory=list)
    stats_total: int = 0
    gate: Any = None
    oracle: Any = None
    universes: dict[tuple[str, ...], Any] = field(default_factory=dict)

    def run(self) -> None:
        spec = self.spec
        try:
            oracle = Oracle(timeout=spec.timeout, dialect=DIALECTS[spec.dialect])
        except OracleUnavailable as exc:
            self.out.put(("fatal", spec.index, str(exc)))
            return
        try:
            self.out.put(("ready", spec.index, str(oracle.base)))
            self._loop(oracle)
        except Exception as exc:  # a crashed worker must not hang the campaign
            import traceback

            self.out.put(("fatal", spec.index, f"{type(exc).__name__}: {exc}\n{traceback.format_exc()}"))
        finally:
            self.out.put(("stats", spec.index, asdict(self.stats)))
            oracle.close()
            self.out.put(("done", spec.index, None))

    def _loop(self, oracle: Oracle) -> None:
        spec = self.spec
        factory = spec.gate_factory or default_gate
        self.gate = factory(oracle, spec.mode, spec.config)
        self.oracle = oracle
        material = spec.material
        material.home, material.workspace = str(oracle.home), str(oracle.workspace)
        gen = generators.Generator(material,
                                   generators.SeededRng(stream_seed(spec.seed, spec.index, spec.round)),
                                   focus=DIALECTS[spec.dialect].focus)
        self.universes = material.universes
        for kind, cause in spec.known:
            self.known.append((kind, frozenset(cause.split(":", 1)[-1].split())))
        last = time.monotonic()
        while time.time() < spec.deadline:
            if spec.max_commands is not None and self.stats_total >= spec.max_commands:
                break
            self.stats_total += 1
            t0 = time.perf_counter()
            g = gen.command()
            verdict = self._check(g.cmd)
            self.stats.generated += 1
            self.stats.gen_seconds += time.perf_counter() - t0
            if verdict is None or verdict.decision != "allow":
                continue
            self.stats.allowed += 1
            t1 = time.perf_counter()
            obs = oracle.run(g.cmd)
            self.stats.exec_seconds += time.perf_counter() - t1
            self.stats.executed += 1
            self.stats.timeouts += obs.timed_out
            if not obs.effects:
                # a command that ran out of time is no seed: its mutations (`tail -F x`,
                # `tail -F y`) would spend the campaign waiting on the timeout
                gen.feedback(g.cmd, not obs.timed_out)
            else:
                self.stats.effects += 1
                self._finding(g, verdict, obs)
            if time.monotonic() - last > STATS_EVERY:
                self.out.put(("stats", spec.index, asdict(self.stats)))
                self.stats = Stats()
                last = time.monotonic()

    def _check(self, cmd: str) -> Any:
        self.stats.checked += 1
        try:
            return self.gate.check(cmd, cwd=self.oracle.workspace)
        except Exception as exc:  # the gate must never raise: that is a bug worth reporting
            self.stats.gate_errors += 1
            if self.stats.gate_errors <= 3:
                err = {"cmd": cmd, "error": f"{type(exc).__name__}: {exc}"}
                self.out.put(("gate-error", self.spec.index, err))
            return None

    def _duplicate(self, cmd: str, kind: str) -> bool:
        """Is this already explained by a known cause (its program and flags all present)?"""
        words = set(minimize.cause(cmd, kind, self.universes).split(":", 1)[1].split())
        return any(k == kind and need <= words for k, need in self.known)

    def _finding(self, g: generators.Generated, verdict: Any, obs: Any) -> None:
        kind = primary_kind(obs.kinds)
        if self._duplicate(g.cmd, kind):
            self.stats.duplicates += 1
            return

        def still(cmd: str) -> bool:
            v = self._check(cmd)
            if v is None or v.decision != "allow":
                return False
            self.stats.minimize_runs += 1
            return kind in self.oracle.run(cmd).kinds

        small = minimize.minimize(g.cmd, still, self.spec.max_tests)
        final = self.oracle.run(small)
        v = self._check(small) or verdict
        if kind not in final.kinds:   # flaky effect: keep the original
            small, final, v = g.cmd, obs, verdict
        key = minimize.cause(small, kind, self.universes)
        self.known.append((kind, frozenset(key.split(":", 1)[1].split())))
        self.out.put(("finding", self.spec.index, {
            "cmd": small,
            "effects": [e.to_json() for e in final.effects],
            "kind": kind,
            "rule": getattr(v, "rule", ""),
            "reason": getattr(v, "reason", ""),
            "readonly": bool(getattr(getattr(v, "analysis", None), "readonly", False)),
            "decision": getattr(v, "decision", "allow"),
            "cause": key,
            "original": g.cmd,
            "origin": g.origin,
            "from": g.seed,
            "seed": self.spec.seed,
            "worker": self.spec.index,
            "round": self.spec.round,
            "dialect": self.spec.dialect,
            "world": {"workspace": str(self.oracle.workspace), "home": str(self.oracle.home)},
        }))


def _worker_main(spec: WorkerSpec, out: Any) -> None:
    _Worker(spec, out).run()


# -- the parent -------------------------------------------------------------------------------

def build_material(config: str | None, harvest_jobs: int = 8) -> generators.Material:
    """Seeds, policy rules and flag universes: everything the workers generate from."""
    policy = policy_seeds.seeds(config)
    names = sorted(programs.readonly_programs())
    prefixes = generators.program_prefixes(names, policy)
    universes = harvest_all(prefixes, jobs=harvest_jobs)
    return generators.Material(programs=tuple(prefixes), universes=universes,
                               seeds=generators.load_seeds(*seed_dirs()), policy=tuple(policy))


@record(frozen=False, slots=False)
class Result:
    stats: Stats
    findings: list[dict[str, Any]]
    hits: dict[str, int]
    gate_errors: list[dict[str, Any]]
    fatal: list[str]
    seconds: float
    dialect: str = "bash"
    nodes: dict[str, Stats] = field(default_factory=dict)   # node name -> its workers' stats
    stopped: bool = False                                    # interrupted (Ctrl-C) before the end


def worker_specs(seconds: float, seed: int, partitions: int, config: str | None, mode: str,
                 timeout: float, material: generators.Material | None,
                 gate_factory: Callable[[Oracle, str, str | None], Any] | None = None,
                 max_commands: int | None = None, dialect: str = "bash", round: int = 0,
                 known: tuple[tuple[str, str], ...] = ()) -> list[WorkerSpec]:
    """One spec per partition; partition ``i`` always generates from :func:`stream_seed`."""
    deadline = time.time() + seconds
    return [WorkerSpec(i, seed, deadline, mode, config, timeout, material, gate_factory,   # type: ignore[arg-type]
                       max_commands=max_commands, dialect=dialect, round=round, known=known)
            for i in range(max(1, partitions))]


class Collector:
    """The central side of a campaign, whatever carries the workers' messages: sums the stats
    (in all and per node), deduplicates findings by cause (the shortest command wins, ties by
    its text, so the result does not depend on arrival order) and gathers errors."""

    def __init__(self, workers: int, known: tuple[tuple[str, str], ...] = ()) -> None:
        self.workers = workers
        self.total = Stats()
        self.nodes: dict[str, Stats] = {}
        self.node_of: dict[int, str] = {}
        self.findings: dict[str, dict[str, Any]] = {}
        self.hits: dict[str, int] = {}
        self.known = {cause for _, cause in known}
        self.gate_errors: list[dict[str, Any]] = []
        self.fatal: list[str] = []
        self.bases: list[str] = []
        self.done = 0
        self.start = time.time()

    def take(self, msg: str, idx: int, payload: Any) -> None:
        if msg == "stats":
            st = Stats(**payload)
            self.total.add(st)
            self.nodes.setdefault(self.node_of.get(idx, "local"), Stats()).add(st)
        elif msg == "node":
            self.node_of[idx] = payload
        elif msg == "finding":
            key = payload["cause"]
            self.hits[key] = self.hits.get(key, 0) + 1
            if key in self.known:
                return
            old = self.findings.get(key)
            if old is None or (len(payload["cmd"]), payload["cmd"]) < (len(old["cmd"]), old["cmd"]):
                self.findings[key] = payload
        elif msg == "gate-error":
            self.gate_errors.append(payload)
        elif msg == "fatal":
            self.fatal.append(f"worker {idx}: {payload}")
        elif msg == "ready":
            self.bases.append(payload)
        elif msg == "done":
            self.done += 1

    @property
    def finished(self) -> bool:
        return self.done >= self.workers

    def result(self, dialect: str, stopped: bool = False) -> Result:
        findings = sorted(self.findings.values(), key=lambda f: (f["worker"], f["cause"]))
        return Result(self.total, findings, self.hits, self.gate_errors, self.fatal,
                      time.time() - self.start, dialect, self.nodes, stopped)

    def remove_worlds(self) -> None:
        """A killed worker leaves its world behind (those on this machine are removed)."""
        from .fixture import remove_tree

        for b in self.bases:
            if os.path.isdir(b):
                remove_tree(Path(b))


Progress = Callable[[Collector, float], None]


def run(seconds: float, seed: int = 0, jobs: int = 2, config: str | None = None, mode: str = "balanced",
        timeout: float = 3.0, gate_factory: Callable[[Oracle, str, str | None], Any] | None = None,
        progress: Progress | None = None,
        material: generators.Material | None = None, max_commands: int | None = None,
        dialect: str = "bash", round: int = 0, known: tuple[tuple[str, str], ...] = ()) -> Result:
    """Run a campaign in ``jobs`` local processes and return its results (no printing;
    :func:`main` prints). Ctrl-C stops it with what was found so far (``Result.stopped``)."""
    material = material or build_material(config)
    ctx = mp.get_context("fork")
    out = ctx.Queue()
    specs = worker_specs(seconds, seed, jobs, config, mode, timeout, material, gate_factory,
                         max_commands, dialect, round, known)
    procs = []
    for spec in specs:
        p = ctx.Process(target=_worker_main, args=(spec, out), daemon=True)
        p.start()
        procs.append(p)
    col = Collector(len(procs), known)
    deadline = specs[0].deadline
    stopped = False
    try:
        while not col.finished:
            try:
                msg, idx, payload = out.get(timeout=0.2)
            except queue.Empty:
                if time.time() > deadline + GRACE or not any(p.is_alive() for p in procs):
                    break
                if progress:
                    progress(col, time.time() - col.start)
                continue
            col.take(msg, idx, payload)
            if progress:
                progress(col, time.time() - col.start)
    except KeyboardInterrupt:
        stopped = True
    finally:
        for p in procs:
            if stopped:
                p.kill()
            p.join(timeout=5)
            if p.is_alive():
                p.kill()
                p.join()
        col.remove_worlds()
    return col.result(dialect, stopped)


def write_findings(path: str | Path, findings: list[dict[str, Any]]) -> None:
    with open(path, "w", encoding="utf-8") as f:
        for item in findings:
            f.write(json.dumps(item, ensure_ascii=False) + "\n")


def read_findings(path: str | Path) -> list[dict[str, Any]]:
    """The findings a campaign wrote (none when the file does not exist yet)."""
    try:
        text = Path(path).read_text(encoding="utf-8")
    except FileNotFoundError:
        return []
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def state_path(findings_path: str | Path) -> Path:
    """Beside the findings: how many rounds the campaign has run (what ``--resume`` needs)."""
    return Path(str(findings_path) + ".state.json")


def resume_point(findings_path: str | Path) -> tuple[int, list[dict[str, Any]]]:
    """(the next round, the findings so far) of a campaign to resume."""
    previous = read_findings(findings_path)
    try:
        rounds = int(json.loads(state_path(findings_path).read_text(encoding="utf-8"))["rounds"])
    except (OSError, ValueError, KeyError, TypeError):
        rounds = 1 + max((int(f.get("round", 0)) for f in previous), default=-1)
    return rounds, previous


Runner = Callable[..., Result]   # campaign.run's signature: the local processes, or Ray's


def main(seconds: float = 60.0, seed: int = 0, jobs: int = 0, config: str | None = None,
         findings_path: str | None = None, *, mode: str = "balanced", timeout: float = 3.0,
         console: Any = None, material: generators.Material | None = None,
         gate_factory: Callable[[Oracle, str, str | None], Any] | None = None,
         max_commands: int | None = None, dialect: str = "bash", resume: bool = False,
         runner: Runner | None = None, engine: str = "") -> int:
    """Entry point of ``shellgate fuzz``. ``jobs=0`` means one worker per core (with a Ray
    ``runner``: one per CPU of the cluster); ``dialect`` names the reading the commands execute
    under (:mod:`.dialects`). ``resume`` continues the campaign of ``findings_path``: its
    causes are not reported again, and the next round's streams are new."""
    from rich.console import Console
    from rich.progress import BarColumn, Progress, TextColumn, TimeRemainingColumn

    console = console or Console(stderr=True)
    jobs = jobs or (0 if runner else os.cpu_count() or 1)
    if resume and not findings_path:
        console.print("[red]shellgate fuzz: --resume needs --findings FILE")
        return 2
    try:  # before anything runs: the harvest asks the policy's own programs for --help
        preflight()
    except OracleUnavailable as exc:
        console.print(f"[red]shellgate fuzz: {exc}")
        return 2
    try:
        if material is None:
            with console.status("harvesting flag universes…"):
                material = build_material(config)
    except OracleUnavailable as exc:
        console.print(f"[red]shellgate fuzz: {exc}")
        return 2
    except (OSError, ValueError) as exc:
        console.print(f"[red]cannot read the policy: {exc}")
        return 2
    if dialect not in DIALECTS:
        console.print(f"[red]shellgate fuzz: no dialect {dialect!r} (one of {', '.join(DIALECTS)})")
        return 2
    if missing := DIALECTS[dialect].missing():
        console.print(f"[red]shellgate fuzz: the {dialect} dialect needs {', '.join(missing)}")
        return 2
    round, previous = resume_point(findings_path) if resume and findings_path else (0, [])
    known = tuple((f["kind"], f["cause"]) for f in previous if "cause" in f)
    console.print(f"fuzzing for {seconds:g}s with {jobs or 'one per CPU'} worker(s){engine}, "
                  f"seed {seed}{f' round {round}' if round else ''}, mode {mode}, "
                  f"dialect {dialect}, "
                  f"policy {config or '(default)'}: {len(material.programs)} program prefixes, "
                  f"{sum(len(u.flags) for u in material.universes.values())} harvested flags, "
                  f"{len(material.seeds)} seeds, {len(material.policy)} allow rule(s)"
                  + (f", {len(known)} known finding(s)" if known else ""))
    columns = (TextColumn("[bold]fuzz"), BarColumn(), TextColumn("{task.fields[line]}"),
               TimeRemainingColumn())
    # No refresh thread: the workers are forked while the bar is live.
    with Progress(*columns, console=console, transient=False, auto_refresh=False) as bar:
        task = bar.add_task("fuzz", total=seconds, line="")

        def progress(col: Collector, elapsed: float) -> None:
            bar.update(task, completed=min(elapsed, seconds), line=progress_line(col, elapsed))
            bar.refresh()

        result = (runner or run)(seconds, seed, jobs, config, mode, timeout,
                                 gate_factory=gate_factory, progress=progress, material=material,
                                 max_commands=max_commands, dialect=dialect, round=round,
                                 known=known)
        bar.update(task, completed=seconds)
        bar.refresh()
    if result.fatal:
        for f in result.fatal:
            console.print(f"[red]{f}")
        if result.stats.generated == 0:
            return 2
    if findings_path:
        write_findings(findings_path, previous + result.findings)
        state_path(findings_path).write_text(json.dumps(
            {"seed": seed, "rounds": round + 1, "stopped": result.stopped}) + "\n", encoding="utf-8")
    print_summary(console, result, findings_path)
    if result.stopped:
        console.print("stopped: continue with --resume" + (f" --findings {findings_path}"
                                                            if findings_path else ""))
    return 1 if result.findings else 0


def progress_line(col: Collector, elapsed: float) -> str:
    """generated / checked / executed per second and findings, then executed/s per node."""
    t, secs = col.total, max(elapsed, 1e-9)
    line = (f"gen {t.generated / secs:5.0f}/s  checked {t.checked / secs:5.0f}/s  "
            f"exec {t.executed / secs:5.1f}/s  findings {len(col.findings)}")
    if len(col.nodes) > 1 or any(n != "local" for n in col.nodes):
        line += "  |" + "".join(f" {n} {s.executed / secs:.1f}/s" for n, s in sorted(col.nodes.items()))
    return line


def let_through_by(f: dict[str, Any]) -> str:
    """The allow rule named in the verdict's reason, else "read-only", else the chain step."""
    m = re.search(r"rule ([A-Za-z_]+\(.*\))", f.get("reason") or "")
    if m:
        return m.group(1)
    return "read-only" if f.get("readonly") else (f.get("rule") or "?")


def print_summary(console: Any, r: Result, findings_path: str | None) -> None:
    from rich.table import Table

    s, secs = r.stats, max(r.seconds, 1e-9)
    t = Table(title="fuzz summary", show_header=False)
    t.add_column("what")
    t.add_column("value", justify="right")
    t.add_row("dialect", r.dialect)
    t.add_row("commands generated", f"{s.generated}  ({s.generated / secs:.0f}/s)")
    t.add_row("auto-allowed", f"{s.allowed}  ({100 * s.allowed / max(s.generated, 1):.1f}%)")
    t.add_row("executed", f"{s.executed}  ({s.executed / secs:.1f}/s)")
    for node, ns in sorted(r.nodes.items()) if len(r.nodes) > 1 else ():
        t.add_row(f"  on {node}", f"{ns.executed}  ({ns.executed / secs:.1f}/s)")
    t.add_row("minimization runs", str(s.minimize_runs))
    t.add_row("timeouts", str(s.timeouts))
    t.add_row("executions with an effect", str(s.effects))
    t.add_row("gate errors", str(s.gate_errors))
    t.add_row("unique findings", str(len(r.findings)))
    console.print(t)
    if r.findings:
        ft = Table(title=f"findings{' -> ' + findings_path if findings_path else ''}")
        for col in ("kind", "command", "effect", "let through by", "hits"):
            ft.add_column(col)
        for f in sorted(r.findings, key=lambda f: (f["kind"], f["cmd"])):
            eff = next((e["detail"] for e in f["effects"] if e["kind"] == f["kind"]), "")
            ft.add_row(f["kind"], f["cmd"], eff, let_through_by(f), str(r.hits.get(f["cause"], 1)))
        console.print(ft)
    for e in r.gate_errors[:5]:
        console.print(f"[yellow]gate raised on {e['cmd']!r}: {e['error']}")
    console.print(f"{s.executed / secs:.1f} executed/s")


if __name__ == "__main__":  # python -m shellgate.fuzz.campaign SECONDS [SEED] [CONFIG]
    import sys

    a = sys.argv[1:]
    with contextlib.suppress(KeyboardInterrupt):
        sys.exit(main(float(a[0]) if a else 30, int(a[1]) if len(a) > 1 else 0, 0,
                      a[2] if len(a) > 2 else None, "fuzz-findings.jsonl"))
