#!/usr/bin/env python3
"""The tuner's benchmark (docs/performance.md, "Tuning"), resumable across device calls.

For each size and precision (COMBOS) and kernel (KERNELS), against one capture of one step
of drycbl_<size>:
  1. strategy runs: every strategy and seed for SECONDS from the default, each with an
     empty compile cache (the wall time until it is within 5 % of the best known), the
     seeds of a strategy in one process (`squall tune --seed 1,2,3 --cold-cache`);
  2. the shipped wisdom's record, measured once (it joins the best known);
  3. top-up runs (annealing, fresh seeds, a warm compile cache, as many as the missing
     evaluations need, in one process) until the kernel has TARGET verified,
     measured evaluations: the best known is the fastest of them all.
Strategy runs of the kernels in KERNEL_SECONDS take their own time (diff_uvw_smag 30 s:
in 8 s no guided strategy got within 5 % at 512^3). Every run's wisdom output merges into
STATE/wisdom (squall tune keeps the fastest record per device and size), so the best
records can be shipped with scripts/merge-wisdom.
Every run's journal is kept gzipped in STATE (strategies/, reference/, extra/), so a run
that is cut off (DEADLINE, the device's time limit) loses only its last tune, and the next
call goes on from there. At the end, tune_strategies_report.py compares the strategies
against the best known of all journals (REPORT.json), and the evaluations per kernel are
counted against TARGET.

Usage: tune_matrix.py --squall BIN [--state DIR] [--deadline S] [--seconds S]
                      [--target N] [--combos 512:double,...] [--kernels K,...]
                      [--strategies S,...] [--report OUT.json] [--pack STATE.tgz]
"""
import argparse, glob, gzip, json, os, re, shutil, subprocess, sys, tarfile, tempfile, time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def parse():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--squall", required=True)
    p.add_argument("--state", default=os.path.join(HERE, "tune_matrix"))
    p.add_argument("--deadline", type=float, default=1e9, help="seconds for this call")
    p.add_argument("--seconds", type=float, default=8, help="per strategy run")
    p.add_argument("--kernel-seconds", default="diff_uvw_smag=30",
                   help="per strategy run of these kernels (NAME=S,...) instead of --seconds")
    p.add_argument("--top-up-seconds", type=float, default=60, help="per top-up run")
    p.add_argument("--top-up-rate", type=float, default=15, help="evaluations per second a top-up run is counted on")
    p.add_argument("--target", type=int, default=3000)
    p.add_argument("--combos", default="512:double,512:float,256:double,256:float")
    p.add_argument("--kernels", default="advec_u_2i5,diff_uvw_smag")
    p.add_argument("--strategies", default="random,local,annealing,forest",
                   help="comma list; NAME:N runs NAME with N batches in flight (--in-flight)")
    p.add_argument("--seeds", default="1,2,3")
    p.add_argument("--report", default="")
    p.add_argument("--pack", default="", help="at the end, the state directory as this .tgz")
    return p.parse_args()


class Matrix:
    def __init__(self, a):
        self.a, self.t0 = a, time.monotonic()
        self.dirs = {d: os.path.join(a.state, d) for d in ("strategies", "reference", "extra")}
        for d in self.dirs.values():
            os.makedirs(d, exist_ok=True)
        self.tmp = tempfile.mkdtemp(prefix="squall_tune_matrix_")

    def left(self):
        return self.a.deadline - (time.monotonic() - self.t0)

    def seconds_for(self, key):
        """A strategy run's seconds for kernel key (NAME_PRECISION)."""
        for item in filter(None, self.a.kernel_seconds.split(",")):
            name, sec = item.split("=")
            if key.startswith(name + "_"):
                return float(sec)
        return self.a.seconds

    def stored(self, kind, name):
        return os.path.join(self.dirs[kind], name + ".jsonl.gz")

    def evaluations(self, key, size):
        """Verified, measured evaluations of key at size in every stored journal."""
        n = 0
        for path in glob.glob(os.path.join(self.a.state, "*", f"{key}_{size}_*.jsonl.gz")):
            for line in gzip.open(path, "rt").read().splitlines()[1:]:
                try:
                    e = json.loads(line)
                except json.JSONDecodeError:
                    break
                n += "final" not in e and e.get("status") == "ok" and not e.get("same_program")
        return n

    def capture(self, size, precision):
        out = os.path.join(self.tmp, f"captures_{size}_{precision}")
        shutil.rmtree(out, ignore_errors=True)
        pattern = ",".join(f"{k}_{precision}" for k in self.a.kernels.split(","))
        env = dict(os.environ, SQUALL_CAPTURE=pattern, SQUALL_CAPTURE_DIR=out,
                   SQUALL_CAPTURE_MAX_MB="65536")
        run = [self.a.squall, "run", os.path.join(ROOT, "cases", f"drycbl_{size}.yaml"),
               "--backend", "gpu", "--set", f"model.precision={precision}",
               # the benchmark's kernels are the separate ones (auto runs the fused on the GPU)
               "--set", "model.tendencies=separate",
               "--set", "time.max_steps=1", "--set", "output.stats_every=0",
               "--set", f"output.dir={os.path.join(self.tmp, 'run')}"]
        r = subprocess.run(run, env=env, capture_output=True, text=True)
        if r.returncode != 0:
            sys.exit(f"capture of drycbl_{size} {precision} failed:\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
        return sorted(glob.glob(os.path.join(out, "*.json")))

    def tune(self, capture, kind, names, args, cache, env_extra=None):
        """One squall tune process on the capture (several strategies and seeds in it, each
        journal named as in `names`); each finished journal goes to STATE/kind/NAME.jsonl.gz.
        Cut off by the deadline, it keeps the runs that finished. True if all did."""
        journal = os.path.join(self.tmp, "journal")
        shutil.rmtree(journal, ignore_errors=True)
        env = dict(os.environ, SQUALL_CACHE_DIR=cache, SQUALL_WISDOM_USER_DIR="", **(env_extra or {}))
        cmd = [self.a.squall, "tune", capture, "--out", os.path.join(self.a.state, "wisdom"),
               "--journal", journal] + args
        try:
            r = subprocess.run(cmd, env=env, capture_output=True, text=True,
                               timeout=max(10, self.left() - 15))
            rc, out, err = r.returncode, r.stdout, r.stderr
        except subprocess.TimeoutExpired as e:
            rc, out, err = "timeout", e.stdout or "", e.stderr or ""
            out, err = (x.decode() if isinstance(x, bytes) else x for x in (out, err))
        for line in out.splitlines():
            if "compiled (" in line or line.startswith(("advec", "diff")):
                print(f"  {names[0]}..: {line}", flush=True)
        done = 0
        for name in names:
            path = os.path.join(journal, name + ".jsonl")
            lines = open(path).read().splitlines() if os.path.exists(path) else []
            # A top-up's evaluations count even when it was cut off; a strategy run must end.
            if len(lines) < 2 or (kind != "extra" and '"final"' not in lines[-1]):
                continue
            with open(path, "rb") as f, gzip.open(self.stored(kind, name), "wb") as z:
                shutil.copyfileobj(f, z)
            done += 1
        if rc != 0 or done != len(names):
            print(f"  {names[0]}..: {done} of {len(names)} runs finished (rc {rc}): {err[-500:]}", flush=True)
        return done == len(names)

    def combo(self, size, precision):
        kernels = [f"{k}_{precision}" for k in self.a.kernels.split(",")]
        grid = f"{size}x{size}x{size}"
        strategies, seeds = self.a.strategies.split(","), self.a.seeds.split(",")
        # NAME:N is strategy NAME with N batches in flight; squall journals it as NAME-ifN.
        label = lambda s: s.partition(":")[0] if s.partition(":")[2] in ("", "2") else s.replace(":", "-if")
        missing = [(k, s, n) for k in kernels for s in strategies for n in seeds
                   if not os.path.exists(self.stored("strategies", f"{k}_{grid}_{label(s)}_s{n}"))]
        short = [k for k in kernels if self.evaluations(k, grid) < self.a.target]
        if not missing and not short:
            return
        if self.left() < 90 + self.a.seconds:
            return
        print(f"drycbl_{size} {precision}: capturing ({self.left():.0f} s left)", flush=True)
        captures = {json.load(open(c))["key"]: c for c in self.capture(size, precision)}
        warm = os.path.join(self.tmp, f"cache_{size}_{precision}")
        for key in kernels:
            if key not in captures:
                sys.exit(f"no capture of {key} from drycbl_{size}")
            c = captures[key]
            ref = f"{key}_{grid}_shipped"
            if not os.path.exists(self.stored("reference", ref)) and self.left() > 30:
                self.tune(c, "reference", [f"{key}_{grid}_local_s1"], ["--strategy", "local", "--evals", "2"],
                          warm, {"SQUALL_WISDOM_PROJECT_DIR": os.path.join(ROOT, "wisdom")})
                staged = os.path.join(self.dirs["reference"], f"{key}_{grid}_local_s1.jsonl.gz")
                if os.path.exists(staged):
                    os.replace(staged, self.stored("reference", ref))
            # The strategy runs on the capture loaded once, each compiling from nothing.
            runs = [(s, n) for k, s, n in missing if k == key]
            sec = self.seconds_for(key)
            for s in strategies:
                name, _, in_flight = s.partition(":")
                flight = ["--in-flight", in_flight] if in_flight else []
                # As many seeds as fit before the deadline (a run cut off is lost).
                fit = int((self.left() - 30) // (sec + 5))
                seeds_left = [n for s2, n in runs if s2 == s][:max(0, fit)]
                if not seeds_left:
                    continue
                self.tune(c, "strategies", [f"{key}_{grid}_{label(s)}_s{n}" for n in seeds_left],
                          ["--strategy", name, "--seed", ",".join(seeds_left), "--time", str(sec),
                           "--from-default", "--cold-cache"] + flight, os.path.join(self.tmp, "unused"))
            # Top-ups: annealing with fresh seeds, as many runs as the evaluations still
            # missing need at TOP_UP_RATE, in one process (the capture loaded once). Not
            # random: its samples include the largest tiles, whose compiles take up to 14 s,
            # so it evaluated 7 per second where annealing near good points reaches 17.
            while self.evaluations(key, grid) < self.a.target and self.left() > self.a.top_up_seconds + 30:
                missing_evals = self.a.target - self.evaluations(key, grid)
                runs = -(-missing_evals // int(self.a.top_up_rate * self.a.top_up_seconds))
                runs = max(1, min(runs, int((self.left() - 30) // self.a.top_up_seconds)))
                seeds = []
                n = 101
                while len(seeds) < runs:
                    if not os.path.exists(self.stored("extra", f"{key}_{grid}_annealing_s{n}")):
                        seeds.append(str(n))
                    n += 1
                names = [f"{key}_{grid}_annealing_s{n}" for n in seeds]
                before = self.evaluations(key, grid)
                self.tune(c, "extra", names, ["--strategy", "annealing", "--seed", ",".join(seeds),
                                              "--time", str(self.a.top_up_seconds), "--from-default"], warm)
                if self.evaluations(key, grid) == before:
                    break
            print(f"{key} {grid}: {self.evaluations(key, grid)} verified evaluations "
                  f"(target {self.a.target})", flush=True)

    def report(self):
        def unzip(folder, into):
            os.makedirs(into, exist_ok=True)
            for z in glob.glob(os.path.join(self.a.state, folder, "*.jsonl.gz")):
                with gzip.open(z, "rb") as f, open(os.path.join(into, os.path.basename(z)[:-3]), "wb") as o:
                    shutil.copyfileobj(f, o)
        runs = os.path.join(self.tmp, "report", "strategies")
        unzip("strategies", runs)
        # The best known takes every other journal too: top-ups, references, and strategy
        # runs kept from earlier protocols (strategies_8s/: 8 s diff_uvw_smag runs;
        # strategies_batch_barrier/: before two batches were measured at once;
        # strategies_one_parameter_moves/: local search and annealing before the coupled
        # moves).
        known = os.path.join(self.tmp, "report", "known")
        for folder in ("reference", "extra", "strategies_*"):
            unzip(folder, known)
        out = self.a.report or os.path.join(self.tmp, "report.json")
        subprocess.run([sys.executable, os.path.join(HERE, "tune_strategies_report.py"),
                        runs, out, known])
        names = [os.path.basename(p) for p in glob.glob(os.path.join(self.a.state, "*", "*.jsonl.gz"))]
        for key, grid in sorted({m.groups() for m in map(re.compile(r"^(.*)_(\d+x\d+x\d+)_").match, names) if m}):
            print(f"{key} {grid}: {self.evaluations(key, grid)} verified evaluations in all")


def main():
    a = parse()
    m = Matrix(a)
    try:
        for combo in a.combos.split(","):
            size, precision = combo.split(":")
            m.combo(size, precision)
        if glob.glob(os.path.join(m.dirs["strategies"], "*.jsonl.gz")):
            m.report()
    finally:
        shutil.rmtree(m.tmp, ignore_errors=True)
        if a.pack:
            for lock in glob.glob(os.path.join(a.state, "wisdom", ".*.lock")):
                os.remove(lock)
            with tarfile.open(a.pack, "w:gz") as t:
                t.add(a.state, arcname=os.path.basename(os.path.normpath(a.state)))


if __name__ == "__main__":
    main()
