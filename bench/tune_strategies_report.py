#!/usr/bin/env python3
"""tune_strategies_report.py JOURNAL_DIR OUT.json [REFERENCE_DIR]: compares squall tune's strategies.

For every kernel and size in the journals (one per strategy and seed), the best known
time is the fastest verified evaluation of any journal. Per strategy: the median over
seeds of the wall time until the best-so-far came within 5 % of it (seeds that never did
count as infinite), how many seeds got there, and the median best-so-far at the end
relative to the best known. Writes the table as JSON with the best known configuration
and the journal that found it. Journals in REFERENCE_DIR (e.g. a measurement of the
shipped wisdom's record) join the best known but are no strategy."""
import glob, json, math, os, statistics, sys


def read(path):
    lines = [l for l in open(path).read().splitlines() if l.strip()]
    head, evals = json.loads(lines[0]), []
    for l in lines[1:]:
        try:
            j = json.loads(l)
        except json.JSONDecodeError:
            break
        if "final" not in j:
            evals.append(j)
    return head, evals


def main():
    if len(sys.argv) not in (3, 4):
        sys.exit(__doc__)
    runs, refs = {}, {}
    dirs = [(sys.argv[1], runs)] + ([(sys.argv[3], refs)] if len(sys.argv) == 4 else [])
    for folder, into in dirs:
        for path in sorted(glob.glob(os.path.join(folder, "*.jsonl"))):
            head, evals = read(path)
            into.setdefault((head["key"], "x".join(map(str, head["problem"]))), []).append(
                (head, evals, os.path.relpath(path, os.path.dirname(folder))))
    report = []
    for (key, size), group in sorted(runs.items()):
        ok = [(e["seconds"], e, name) for _, evals, name in group + refs.get((key, size), [])
              for e in evals if e["status"] == "ok"]
        best, best_eval, best_name = min(ok, key=lambda x: x[0])
        default = next((e["seconds"] for _, evals, _ in group for e in evals if e.get("default")), None)
        total = sum(len(evals) for _, evals, _ in group)
        rejected = sum(1 for _, evals, _ in group for e in evals if e["status"] == "verify")
        row = {"kernel": key, "size": size, "best_known_ms": best * 1e3,
               "default_ms": default * 1e3 if default else None, "evaluations": total,
               "rejected": rejected, "best_config": best_eval["config"], "found_by": best_name,
               "strategies": {}}
        for head, evals, _ in group:
            label = head["strategy"] + (f"-if{head['in_flight']}" if "in_flight" in head else "")
            s = row["strategies"].setdefault(label, {"to_5pct_s": [], "end_ratio": [], "evals": []})
            so_far, reached = math.inf, math.inf
            for e in evals:
                if e["status"] == "ok":
                    so_far = min(so_far, e["seconds"])
                if so_far <= 1.05 * best and reached == math.inf:
                    reached = e["t"]
            s["to_5pct_s"].append(reached)
            s["end_ratio"].append(so_far / best)
            s["evals"].append(len(evals))
        report.append(row)
    print(f"| kernel | size | best known ms (default) | evaluations | strategy: median s to within 5 % (seeds there), median end / best |")
    print("|---|---|---|---|---|")
    for r in report:
        cells = []
        for name, s in sorted(r["strategies"].items()):
            med = statistics.median(s["to_5pct_s"])
            there = sum(1 for t in s["to_5pct_s"] if t < math.inf)
            cells.append(f"{name}: {med:.1f} s ({there}/{len(s['to_5pct_s'])}), {statistics.median(s['end_ratio']):.3f}"
                         if med < math.inf else
                         f"{name}: - ({there}/{len(s['to_5pct_s'])}), {statistics.median(s['end_ratio']):.3f}")
            s["median_to_5pct_s"] = med if med < math.inf else None
            s["to_5pct_s"] = [t if t < math.inf else None for t in s["to_5pct_s"]]
        default = f"{r['default_ms']:.4f}" if r["default_ms"] else "?"
        print(f"| {r['kernel']} | {r['size']} | {r['best_known_ms']:.4f} ({default}) | {r['evaluations']} | {'; '.join(cells)} |")
    json.dump(report, open(sys.argv[2], "w"), indent=1)


if __name__ == "__main__":
    main()
