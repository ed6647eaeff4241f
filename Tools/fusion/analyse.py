#!/usr/bin/env python3
"""Why the fusion errs where it does: inclination error over time, mouse3d against VQF, on BROAD trials.

usage: analyse.py MOUSE3D TRIAL.csv [TRIAL.csv ...] --png OUT.png [-- FILTER FLAGS...]

For each trial: replays the log through `MOUSE3D replay --output csv --state` and through VQF (PyPI
package `vqf`, the online 6D filter with its defaults), and plots against the optical truth:
  1. inclination error of both filters (degrees; grey where BROAD's mask does not count),
  2. the accelerometer's deviation from 1 g and the true horizontal linear acceleration (m/s², from
     the optical truth, so it also holds the truth's own timing and alignment errors); in panel 1
     that acceleration through a second-order low-pass of 2 s, as the tilt it fakes (degrees),
  3. the filters' state: rest (both), accelerometer rejected (mouse3d), |gyro| (rad/s), and the
     time constant mouse3d's adaptive low-pass aims at (s).
Also prints, per trial, the RMS of each error over the counted samples.
Needs numpy, matplotlib, vqf (pip install vqf matplotlib).
"""
import argparse
import math
import subprocess
import sys

import numpy as np

G = 9.81


def qmul(a, b):
    w1, x1, y1, z1 = a.T
    w2, x2, y2, z2 = b.T
    return np.stack([w1 * w2 - x1 * x2 - y1 * y2 - z1 * z2, w1 * x2 + x1 * w2 + y1 * z2 - z1 * y2,
                     w1 * y2 - x1 * z2 + y1 * w2 + z1 * x2, w1 * z2 + x1 * y2 - y1 * x2 + z1 * w2], axis=1)


def conj(q):
    return q * np.array([1.0, -1.0, -1.0, -1.0])


def rotate(q, v):
    p = np.concatenate([np.zeros((len(v), 1)), v], axis=1)
    return qmul(qmul(q, p), conj(q))[:, 1:]


def inclination(q_est, q_true):
    e = qmul(q_est / np.linalg.norm(q_est, axis=1, keepdims=True), conj(q_true))
    return np.degrees(2 * np.arccos(np.clip(np.sqrt(e[:, 0] ** 2 + e[:, 3] ** 2), 0, 1)))


def lowpass(x, tau, ts):
    """First-order low-pass, forward only (what a causal filter sees)."""
    a = ts / (tau + ts)
    y = np.empty_like(x)
    acc = x[0]
    for i in range(len(x)):
        if np.all(np.isfinite(x[i])):
            acc = acc + a * (x[i] - acc)
        y[i] = acc
    return y


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("mouse3d")
    ap.add_argument("trials", nargs="+")
    ap.add_argument("--png", required=True)
    args, flags = ap.parse_known_args()
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import vqf

    fig, axes = plt.subplots(3 * len(args.trials), 1, figsize=(13, 3.2 * 3 * len(args.trials)), sharex=False)
    for k, path in enumerate(args.trials):
        d = np.genfromtxt(path, delimiter=",", names=True)
        t = d["t"] - d["t"][0]
        ts = float(np.median(np.diff(d["t"])))
        gyr = np.stack([d["gx"], d["gy"], d["gz"]], axis=1)
        acc = np.stack([d["ax"], d["ay"], d["az"]], axis=1)
        truth = np.stack([d["qw"], d["qx"], d["qy"], d["qz"]], axis=1)
        counted = d["movement"].astype(bool)
        out = subprocess.run([args.mouse3d, "replay", path, "--output", "csv", "--state", *flags],
                             check=True, capture_output=True, text=True).stdout
        m = np.genfromtxt(out.splitlines(), delimiter=",", names=True)
        q_m = np.stack([m["qw"], m["qx"], m["qy"], m["qz"]], axis=1)
        v = vqf.VQF(ts).updateBatch(np.ascontiguousarray(gyr), np.ascontiguousarray(acc))
        q_v, rest_v = v["quat6D"], v["restDetected"]
        e_m, e_v = inclination(q_m, truth), inclination(q_v, truth)
        rms = lambda e: math.sqrt(np.nanmean(e[counted] ** 2))
        name = path.rsplit("/", 1)[-1][:-4]
        # The true linear acceleration, in the Z-up frame: R·f − g·ẑ. Its horizontal part, low-passed the
        # way an inertial-frame accelerometer low-pass sees it, is the tilt such a filter is pulled to.
        lin = rotate(truth, acc) - np.array([0, 0, G])
        horiz = np.linalg.norm(lin[:, :2], axis=1)
        fake = {tau: np.degrees(np.arctan(np.linalg.norm(lowpass(lowpass(lin[:, :2], tau / 2, ts), tau / 2, ts), axis=1) / G))
                for tau in (2.0, 3.0)}
        print(f"{name}: inclination RMS mouse3d {rms(e_m):.3f}, VQF {rms(e_v):.3f}; "
              f"tilt faked by translation through a 2 s low-pass {rms(fake[2.0]):.3f}, 3 s {rms(fake[3.0]):.3f}; "
              f"rejected {np.mean(m['rejected']):.1%} of samples")
        ax = axes[3 * k]
        ax.plot(t, e_v, lw=0.7, label=f"VQF ({rms(e_v):.2f}° RMS)")
        ax.plot(t, e_m, lw=0.7, label=f"mouse3d ({rms(e_m):.2f}° RMS)")
        ax.plot(t, fake[2.0], lw=0.6, ls="--", color="grey", label="tilt faked by translation, 2 s low-pass")
        ax.fill_between(t, 0, 1, where=~counted, transform=ax.get_xaxis_transform(), color="0.9", label="not counted")
        ax.set_ylabel("inclination error (°)")
        ax.set_title(name)
        ax.legend(loc="upper right", fontsize=8)
        ax = axes[3 * k + 1]
        ax.plot(t, np.linalg.norm(acc, axis=1) - G, lw=0.5, label="|a| − 1 g")
        ax.plot(t, horiz, lw=0.5, label="true horizontal linear acceleration")
        ax.set_ylabel("m/s²")
        ax.legend(loc="upper right", fontsize=8)
        ax = axes[3 * k + 2]
        ax.plot(t, np.linalg.norm(gyr, axis=1), lw=0.5, color="0.5", label="|gyro| (rad/s)")
        ax.fill_between(t, 0, 0.3, where=rest_v.astype(bool), transform=ax.get_xaxis_transform(), color="C0", alpha=0.4, label="VQF rest")
        ax.fill_between(t, 0.3, 0.6, where=m["rest"].astype(bool), transform=ax.get_xaxis_transform(), color="C1", alpha=0.4, label="mouse3d rest")
        ax.fill_between(t, 0.6, 0.9, where=m["rejected"].astype(bool), transform=ax.get_xaxis_transform(), color="C3", alpha=0.4, label="mouse3d accelerometer rejected")
        ax.set_xlabel("time (s)")
        ax.legend(loc="upper left", fontsize=8)
        twin = ax.twinx()
        twin.plot(t, m["tau"], lw=0.8, color="k", label="mouse3d adaptive time constant (s)")
        twin.set_ylabel("τ (s)")
        twin.legend(loc="upper right", fontsize=8)
    fig.tight_layout()
    fig.savefig(args.png, dpi=80)
    return 0


if __name__ == "__main__":
    sys.exit(main())
