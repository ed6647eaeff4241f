#!/usr/bin/env python3
"""mouse3d's fusion against VQF on the same logs, with the same metrics.

usage: compare.py MOUSE3D DIR [-- FILTER FLAGS...]
       compare.py MOUSE3D --hand N [--seconds S] [--rate HZ] [-- FILTER FLAGS...]

Scores every log with ground truth in DIR (or N synthetic hand-motion logs that
`MOUSE3D simulate --motion hand --seed 1..N` writes into a temporary folder) with
`MOUSE3D bench accuracy` and with VQF (PyPI package `vqf`, its online filter in 6D with its
defaults), using BROAD's metrics as ../shared/tools/fusion_eval.py computes them. Prints one line
per log and the means. Needs numpy and vqf.
"""
import argparse
import math
import os
import subprocess
import sys
import tempfile

import numpy as np


def qmul(a, b):
    w1, x1, y1, z1 = a.T
    w2, x2, y2, z2 = b.T
    return np.stack([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2], axis=1)


def errors(q_est, q_gt, counted, fs):
    """Inclination, mean-aligned heading and start-aligned total error, degrees RMS (BROAD's)."""
    qe = qmul(q_est / np.linalg.norm(q_est, axis=1, keepdims=True),
              q_gt / np.linalg.norm(q_gt, axis=1, keepdims=True) * np.array([1.0, -1, -1, -1]))
    qe = qe * np.where(qe[:, :1] < 0, -1.0, 1.0)
    w, z = qe[:, 0], qe[:, 3]
    rms = lambda e: math.degrees(math.sqrt(np.nanmean(e[counted] ** 2)))
    incl = 2 * np.arccos(np.clip(np.sqrt(w ** 2 + z ** 2), 0, 1))
    psi = 2 * np.arctan2(z, w)
    idx = np.flatnonzero(counted & np.all(np.isfinite(qe), axis=1))
    circ = lambda x: math.atan2(np.nanmean(np.sin(x)), np.nanmean(np.cos(x)))

    def aligned(delta):
        qz = np.repeat(np.array([[math.cos(-delta / 2), 0.0, 0.0, math.sin(-delta / 2)]]), len(qe), axis=0)
        qa = qmul(qz, qe)
        qa = qa * np.where(qa[:, :1] < 0, -1.0, 1.0)
        return 2 * np.arctan(np.abs(qa[:, 3] / qa[:, 0])), 2 * np.arccos(np.clip(np.abs(qa[:, 0]), 0, 1))

    head, _ = aligned(circ(psi[idx]))
    _, total = aligned(circ(psi[idx[:max(1, int(round(fs)))]]))
    return rms(incl), rms(head), rms(total)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mouse3d")
    ap.add_argument("dir", nargs="?")
    ap.add_argument("--hand", type=int, default=0)
    ap.add_argument("--seconds", type=float, default=120)
    ap.add_argument("--rate", type=float, default=250)
    ap.add_argument("--first-seed", type=int, default=1)
    ap.add_argument("--simulate", default="", help="more `simulate` options, e.g. '--shake 4 --accel-range 4'")
    args, flags = ap.parse_known_args()
    flags = [f for f in flags if f != "--"]
    import vqf
    folder = args.dir
    if args.hand:
        folder = tempfile.mkdtemp(prefix="hand-motion-")
        for seed in range(args.first_seed, args.first_seed + args.hand):
            subprocess.run([args.mouse3d, "simulate", "--motion", "hand", "--seed", str(seed), "--seconds",
                            str(args.seconds), "--rate", str(args.rate), *args.simulate.split(), "--output",
                            os.path.join(folder, f"hand-{seed:02d}.csv")], check=True)
    out = subprocess.run([args.mouse3d, "bench", "accuracy", folder, "--python", "none", *flags], capture_output=True, text=True,
                         check=True).stdout
    ours = {}
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4 and not line.startswith("trial"):
            try:
                ours[parts[0]] = tuple(float(x) for x in parts[1:])
            except ValueError:
                pass
    rows = []
    print(f"{'log':45s} {'mouse3d incl':>12s} {'VQF incl':>9s} {'mouse3d head':>12s} {'VQF head':>9s}")
    for name in sorted(f for f in os.listdir(folder) if f.endswith(".csv")):
        d = np.genfromtxt(os.path.join(folder, name), delimiter=",", names=True)
        if "qw" not in d.dtype.names or name[:-4] not in ours:
            continue
        ts = float(np.median(np.diff(d["t"])))
        gyr = np.ascontiguousarray(np.stack([d["gx"], d["gy"], d["gz"]], axis=1))
        acc = np.ascontiguousarray(np.stack([d["ax"], d["ay"], d["az"]], axis=1))
        truth = np.stack([d["qw"], d["qx"], d["qy"], d["qz"]], axis=1)
        counted = d["movement"].astype(bool) if "movement" in d.dtype.names else np.ones(len(d), bool)
        v = errors(vqf.VQF(ts).updateBatch(gyr, acc)["quat6D"], truth, counted, 1 / ts)
        m = ours[name[:-4]]
        rows.append((m, v))
        print(f"{name[:-4]:45s} {m[0]:12.3f} {v[0]:9.3f} {m[1]:12.3f} {v[1]:9.3f}")
    n = len(rows)
    mean = lambda k, i: sum(r[k][i] for r in rows) / n
    print(f"{'mean of ' + str(n):45s} {mean(0, 0):12.3f} {mean(1, 0):9.3f} {mean(0, 1):12.3f} {mean(1, 1):9.3f}")
    ratios = sorted(r[0][0] / r[1][0] for r in rows)
    head = sorted(r[0][1] / r[1][1] for r in rows)
    print(f"inclination / VQF's: mean of means {mean(0, 0) / mean(1, 0):.3f}, per log min {ratios[0]:.3f} "
          f"median {ratios[n // 2]:.3f} max {ratios[-1]:.3f}; heading: mean of means {mean(0, 1) / mean(1, 1):.3f}, "
          f"per log max {head[-1]:.3f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
