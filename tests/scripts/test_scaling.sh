#!/usr/bin/env bash
# scripts/scaling on 1, 2 and 4 CPU ranks at 16^3: the table, JSON, CSV and PNGs of both
# studies exist and agree (speed-up of the fewest ranks exactly 1, efficiency = speed-up /
# ranks, points per step from the grid, time per step from ns per point); a transfer-free
# 1-rank run has no communication time and split runs have some; the strong-scaling runs in
# double end in the same state on every layout (fields bitwise equal, as
# numerics.mpi_equivalence asserts), so their max-reduced diagnostics print the same. An
# impossible decomposition and a crashing run are one clear message each, no traceback.
# Usage: test_scaling.sh SCALING SQUALL MPIRUN
set -euo pipefail
tool=$1 squall=$2 mpirun=$3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
py=python3
[[ -x /usr/bin/python3 ]] && py=/usr/bin/python3
common=(--backend cpu --squall "$squall" --mpirun "$mpirun" --steps 4)

"$tool" "${common[@]}" --ranks 1,2,4 --grid 16 --weak-grid 16 -o "$dir/ok" >"$dir/ok.log" 2>&1 ||
    fail "scaling failed: $(cat "$dir/ok.log")"
for study in strong_16 weak_16; do
    for f in $study.json $study.csv $study.md; do [[ -s $dir/ok/$f ]] || fail "no $f"; done
    for f in ${study}_speedup.png ${study}_efficiency.png; do
        [[ $(head -c 8 "$dir/ok/$f" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] ||
            fail "$f is not a PNG"
        (($(stat -c %s "$dir/ok/$f") > 10000)) || fail "$f is nearly empty"
    done
done
"$py" - "$dir/ok" <<'EOF' || fail "inconsistent results (above)"
import csv, json, math, re, sys
d = sys.argv[1]
errors = []
def check(cond, what):
    if not cond:
        errors.append(what)
for study in ("strong", "weak"):
    meta = json.load(open(f"{d}/{study}_16.json"))
    runs = meta["runs"]
    check(meta["study"] == study, f"{study}: study is {meta['study']}")
    check(sorted((r["precision"], r["ranks"]) for r in runs) ==
          sorted((p, n) for p in ("float", "double") for n in (1, 2, 4)), f"{study}: runs")
    rows = list(csv.DictReader(open(f"{d}/{study}_16.csv")))
    table = open(f"{d}/{study}_16.md").read().splitlines()
    check(len(rows) == len(runs), f"{study}: {len(rows)} CSV rows for {len(runs)} runs")
    for r, c in zip(runs, rows):
        name = f"{study} {r['precision']} {r['ranks']} ranks"
        check(r["status"] == "ok", f"{name}: {r.get('error')}")
        check(r["npx"] * r["npy"] == r["ranks"], f"{name}: layout {r['npx']}x{r['npy']}")
        grid = (16, 16, 16) if study == "strong" else (16 * r["npx"], 16 * r["npy"], 16)
        check((r["itot"], r["jtot"], r["ktot"]) == grid, f"{name}: grid")
        check(r["points"] == 16 ** 3 * (1 if study == "strong" else r["ranks"]), f"{name}: points")
        check(math.isclose(r["ns_per_point_step"] * r["points"] * 1e-9, r["s_per_step"],
                           rel_tol=1e-12), f"{name}: ns per point does not give the step time")
        check(r["efficiency"] == r["speedup"] / r["ranks"], f"{name}: efficiency")
        base = next(b for b in runs if b["precision"] == r["precision"] and b["ranks"] == 1)
        want = base["s_per_step"] / r["s_per_step"] * (1 if study == "strong" else r["ranks"])
        check(math.isclose(r["speedup"], want, rel_tol=1e-12), f"{name}: speed-up")
        if r["ranks"] == 1:
            check(r["speedup"] == 1.0, f"{name}: speed-up {r['speedup']}, not 1")
            check(r["halo_ms"] == 0 and r["transpose_ms"] == 0, f"{name}: transfers on 1 rank")
        else:
            check(r["halo_ms"] > 0 and r["transpose_ms"] > 0, f"{name}: no transfer time")
        check(0 <= r["comm_share"] < 1, f"{name}: comm share {r['comm_share']}")
        check(r["final"]["step"] == 4, f"{name}: final step {r['final']['step']}")
        for k in ("ranks", "npx", "itot", "points"):
            check(int(c[k]) == r[k], f"{name}: CSV {k}")
        for k in ("s_per_step", "speedup", "efficiency", "comm_share"):
            check(float(c[k]) == r[k], f"{name}: CSV {k}")
        line = [l for l in table if re.match(rf"\| {r['precision']} \| {r['ranks']} \|", l)]
        check(len(line) == 1, f"{name}: {len(line)} table rows")
        cells = [x.strip() for x in line[0].split("|")[1:-1]] if line else []
        check(cells[3:5] == [f"{grid[0]}x{grid[1]}x{grid[2]}", f"{1e3 * r['s_per_step']:.3f}"]
              and cells[6] == f"{r['speedup']:.3f}" and cells[8] == f"{r['efficiency']:.3f}",
              f"{name}: table row {cells}")
    # Strong scaling in double: the same state on every layout.
    ref = next(r["final"] for r in runs if r["precision"] == "double" and r["ranks"] == 1)
    for r in runs:
        if study == "strong" and r["precision"] == "double":
            f = r["final"]
            for k in ("time", "cfl", "dn", "div"):
                check(f[k] == ref[k], f"{r['ranks']} ranks: final {k} {f[k]}, 1 rank {ref[k]}")
            # ke sums over ranks in another order: round-off, below the printed digits.
            check(math.isclose(float(f["ke"]), float(ref["ke"]), rel_tol=2e-4),
                  f"{r['ranks']} ranks: ke {f['ke']}, 1 rank {ref['ke']}")
    check(float(ref["cfl"]) > 0, "no motion: equality proves little")
for e in errors:
    print("  " + e)
sys.exit(1 if errors else 0)
EOF

# No decomposition of 16^3 on 3 ranks: refused before any run, naming the run.
rc=0
"$tool" "${common[@]}" --ranks 1,3 --grid 16 --study strong -o "$dir/bad" >"$dir/bad.log" 2>&1 || rc=$?
((rc == 2)) || fail "impossible decomposition: exit status $rc: $(cat "$dir/bad.log")"
grep -q "strong scaling of 16x16x16 on 3 rank(s): .*no decomposition" "$dir/bad.log" ||
    fail "impossible decomposition: $(cat "$dir/bad.log")"
grep -q Traceback "$dir/bad.log" && fail "traceback: $(cat "$dir/bad.log")"
[[ -e $dir/bad/strong_16.json ]] && fail "a refused study wrote results"

# A run that crashes (squall fails on 2 ranks): named, the others still run, status 1.
cat >"$dir/crashing" <<EOF
#!/usr/bin/env bash
if [[ \$1 == run && \${OMPI_COMM_WORLD_SIZE:-1} == 2 ]]; then
    echo "squall: error: injected crash" >&2
    exit 3
fi
exec "$squall" "\$@"
EOF
chmod +x "$dir/crashing"
rc=0
"$tool" --backend cpu --squall "$dir/crashing" --mpirun "$mpirun" --steps 2 --ranks 1,2 \
    --grid 16 --study strong --precision double -o "$dir/crash" >"$dir/crash.log" 2>&1 || rc=$?
((rc == 1)) || fail "crashing run: exit status $rc: $(cat "$dir/crash.log")"
grep -q "run strong 16x16x16 double on 2 rank(s) failed (exit status .*injected crash" \
    "$dir/crash.log" || fail "crashing run: $(cat "$dir/crash.log")"
grep -q Traceback "$dir/crash.log" && fail "traceback: $(cat "$dir/crash.log")"
grep -q "| double | 2 | 1x2 | 16x16x16 | failed |" "$dir/crash/strong_16.md" ||
    fail "the failed run's row: $(cat "$dir/crash/strong_16.md")"
echo "scaling: ok"
