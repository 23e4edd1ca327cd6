"""What feed + tally cost at a store's live edge, in turns for each build.

    python3 bench/live.py ROUNDS SECONDS LOG BINDIR [BINDIR...]

For each build (a directory holding feed and tally) in turn, each round: a
writer appends LOG's lines to a fresh store at 200 lines a second, `feed -q
--follow` runs `tally --run` on it, and after a 3 s warm-up both processes'
CPU time is read for SECONDS from /proc (the nanoseconds on a CPU of every
thread, /proc/PID/task/TID/schedstat: /proc/PID/stat's ticks are 10 ms,
coarser than what is measured). It prints the median, over the rounds, of
the share of one core the two took together (the issue 21 goal: <= 0.2%),
and of each process's seconds. The builds take turns, the order swapped
every other round, so that the machine's load falls on all of them alike.
"""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

RATE = 200  # lines a second
WARMUP = 3.0


def cpu_seconds(pid):
    total = 0
    for tid in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{tid}/schedstat") as f:
                total += int(f.read().split()[0])
        except OSError:
            pass  # a thread that ended meanwhile
    return total / 1e9


def children(pid):
    kids = []
    for tid in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{tid}/children") as f:
            kids += [int(k) for k in f.read().split()]
    return kids


def writer(src, dst, stop):
    start, n = time.monotonic(), 0
    with open(src, "rb") as lines, open(dst, "ab", buffering=0) as out:
        while not stop.is_set():
            line = lines.readline()
            if not line:
                lines.seek(0)
                continue
            out.write(line)
            n += 1
            wait = start + n / RATE - time.monotonic()
            if wait > 0:
                time.sleep(wait)


def measure(bindir, log, seconds):
    work = tempfile.mkdtemp(prefix="timbertally-live-")
    try:
        store, path = os.path.join(work, "store"), os.path.join(work, "access.log")
        subprocess.run([f"{bindir}/tally", "--provision", "--doc", "apache-combined", store],
                       check=True, stderr=subprocess.DEVNULL)
        stop = threading.Event()
        w = threading.Thread(target=writer, args=(log, path, stop))
        w.start()
        feed = subprocess.Popen([f"{bindir}/feed", "-q", "--follow", "--cursor", os.path.join(work, "cursor"),
                                 path, "--", f"{bindir}/tally", "--run", store])
        try:
            time.sleep(WARMUP)
            tally = children(feed.pid)
            if len(tally) != 1:
                sys.exit(f"live.py: feed {feed.pid} has {len(tally)} children, not its one tally")
            before = (cpu_seconds(feed.pid), cpu_seconds(tally[0]), time.monotonic())
            time.sleep(seconds)
            after = (cpu_seconds(feed.pid), cpu_seconds(tally[0]), time.monotonic())
        finally:
            stop.set()
            w.join()
            feed.terminate()
            feed.wait()
        f, t, wall = (a - b for a, b in zip(after, before))
        return 100 * (f + t) / wall, f, t
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    rounds, seconds, log, builds = int(sys.argv[1]), float(sys.argv[2]), sys.argv[3], sys.argv[4:]
    runs = {b: [] for b in builds}
    for r in range(rounds):
        for b in builds if r % 2 == 0 else builds[::-1]:
            runs[b].append(measure(b, log, seconds))
    print(f"live edge, {RATE} lines/s, {seconds:g} s after {WARMUP:g} s, median of {rounds}:")
    for b in builds:
        share, f, t = (statistics.median(x[i] for x in runs[b]) for i in range(3))
        print(f"{b}: {share:.3f}% of a core (feed {f:.3f} s, tally {t:.3f} s; each round: "
              + ", ".join(f"{x[0]:.3f}%" for x in runs[b]) + ")")


if __name__ == "__main__":
    main()
