#!/usr/bin/env python3
"""Tune the fusion's adaptive time constant and gyroscope scale prior on BROAD trials, with leave-one-out.

usage: tune.py MOUSE3D DATA_DIR [REFERENCE_CSV]

Scores every setting of a small grid with `MOUSE3D bench accuracy DATA_DIR FLAGS` (each trial's
inclination error), then, for each trial, picks the setting with the lowest mean over the other
trials and reports that setting's error on the held-out one. A method that only fits shows up as
held-out errors well above the in-sample ones, or as a different setting chosen in every fold.
"""
import csv
import itertools
import subprocess
import sys


def score(binary, data, flags):
    out = subprocess.run([binary, "bench", "accuracy", data, "--python", "none", *flags], capture_output=True, text=True, check=True).stdout
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        if parts and parts[0][:2].isdigit() and len(parts) >= 4:
            rows[parts[0]] = (float(parts[1]), float(parts[2]))
    return rows


def main(binary, data, reference=None):
    grid = {"--adaptive-gain": [3, 3.5, 4], "--translation-filter": [0.1, 0.2, 0.3, 0.4], "--adaptive-high": [3.5, 4, 5], "--adaptive-low": [1.5, 2, 2.5], "--gyro-scale-sigma": [0.25, 0.5, 1]}
    settings = [dict(zip(grid, v)) for v in itertools.product(*grid.values())]
    results = []
    for s in settings:
        flags = [x for k, v in s.items() for x in (k, str(v))]
        results.append((s, score(binary, data, flags)))
    trials = sorted(results[0][1])
    mean = lambda r, ts: sum(r[t][0] for t in ts) / len(ts)
    best = min(results, key=lambda x: mean(x[1], trials))
    print("best on all ten:", best[0], f"mean inclination {mean(best[1], trials):.3f}")
    ref = {}
    if reference:
        for row in csv.DictReader(open(reference)):
            if row["algorithm"] == "vqf":
                ref[row["trial"]] = float(row["inclination_rmse_deg"])
    print(f"{'held-out trial':45s} {'in-sample':>9s} {'held-out':>9s} {'VQF':>6s}  setting chosen on the other nine")
    held = []
    for t in trials:
        others = [u for u in trials if u != t]
        s, r = min(results, key=lambda x: mean(x[1], others))
        held.append(r[t][0])
        print(f"{t:45s} {best[1][t][0]:9.3f} {r[t][0]:9.3f} {ref.get(t, float('nan')):6.3f}  {s}")
    print(f"{'mean':45s} {mean(best[1], trials):9.3f} {sum(held) / len(held):9.3f} "
          f"{sum(ref.values()) / len(ref) if ref else float('nan'):6.3f}")
    print("the ten best settings on all ten trials (inclination per trial; * worse than VQF):")
    for s, r in sorted(results, key=lambda x: mean(x[1], trials))[:10]:
        print(f"{mean(r, trials):.3f}", " ".join(f"{r[t][0]:.3f}{'*' if r[t][0] > ref.get(t, 1e9) else ' '}" for t in trials), s)
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
