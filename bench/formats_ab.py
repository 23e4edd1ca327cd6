"""Two tally builds over bench/run.sh's formats rows, in interleaved rounds.

    python3 bench/formats_ab.py ROUNDS DIR OLD_TALLY NEW_TALLY

DIR is a bench/run.sh work directory (BENCH_DIR) that holds its generated
logs, documents and status.py. Each round runs, for each row, the old then
the new build (the new first every other round), pinned to core 0, and
then the Python script once; the figures are medians of CPU seconds (user
+ system, from wait4): on a shared machine wall time varies 3x between
runs of one command, CPU time a few percent.
"""

import os
import statistics
import subprocess
import sys

ROWS = [  # name, document, log
    ("builtin", "apache-combined", "fcombined.log"),
    ("apache combined", "lf-combined.tally", "fcombined.log"),
    ("combined + %D %v XFF", "lf-timed.tally", "timed.log"),
    ("nginx + $request_time", "nginx.tally", "nginx.log"),
    ("json", "json.tally", "json.log"),
    ("logfmt", "logfmt.tally", "logfmt.log"),
]


def cpu(args):
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    if status != 0:
        sys.exit(f"formats_ab: {' '.join(args)} failed ({status})")
    return ru.ru_utime + ru.ru_stime


def main():
    if len(sys.argv) != 5:
        sys.exit(__doc__)
    rounds, d, builds = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    path = lambda f: f if f == "apache-combined" else os.path.join(d, f)
    t = {(b, r[0]): [] for b in builds for r in ROWS}
    py = []
    for k in range(rounds):
        for name, doc, log in ROWS:
            for b in builds if k % 2 == 0 else builds[::-1]:
                t[(b, name)].append(cpu(["taskset", "-c", "0", b, "--try", "--doc", path(doc), path(log)]))
        py.append(cpu(["taskset", "-c", "0", "python3", path("status.py"), path("json.log")]))
    size = {r[0]: os.path.getsize(path(r[2])) for r in ROWS}
    print(f"{'row':24s} {'old CPU s':>9s} {'new CPU s':>9s} {'new/old':>7s}  goal ratio old -> new")
    for name, _, _ in ROWS:
        o, n = (statistics.median(t[(b, name)]) for b in builds)
        bo, bn = (statistics.median(t[(b, "builtin")]) for b in builds)
        if name in ("json", "logfmt"):  # bytes/s against the built-in's
            g = lambda m, base: (size[name] / m) / (size["builtin"] / base)
        else:  # the built-in's CPU an entry over this row's
            g = lambda m, base: base / m
        print(f"{name:24s} {o:9.4f} {n:9.4f} {n / o:7.3f}  {g(o, bo):.2f} -> {g(n, bn):.2f}")
    p = statistics.median(py)
    jo, jn = (statistics.median(t[(b, "json")]) for b in builds)
    print(f"{'python3 json':24s} {p:9.4f}  (median of {rounds}): / json {p / jo:.2f} -> {p / jn:.2f}")


main()
