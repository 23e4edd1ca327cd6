"""Builds of feed and tally side by side: the extractor and the pipeline, in turns.

    python3 bench/pipeline_ab.py ROUNDS LOG BINDIR [BINDIR...]
    BATCH=512,65536 python3 bench/pipeline_ab.py 7 access.log old/ new/

Each BINDIR holds a build's feed and tally. Each round runs, for each
build in turn (the order reversed every other round), `taskset -c 0 tally
--try --doc apache-combined LOG` and then, for each batch size of BATCH
(default 512), `feed -q --cursor C --batch-size B LOG -- tally --run S`
on a freshly provisioned S (provisioning outside the time). It prints the
medians of wall and CPU seconds (user + system of the command and what
it waited for, from wait4), with the two ratios issue 21's goal is stated
in: the pipeline's speed against the extractor's and its CPU against the
extractor's. Two builds measured in the same rounds are comparable on a
loaded machine, where figures of separate runs are not.
"""

import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def run(args):
    t0 = time.perf_counter()
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    if status != 0:
        sys.exit(f"pipeline_ab.py: {' '.join(args)} failed ({status})")
    return wall, ru.ru_utime + ru.ru_stime


def pipeline(bindir, log, batch, work):
    store, cursor = os.path.join(work, "store"), os.path.join(work, "cursor")
    shutil.rmtree(store, ignore_errors=True)
    for f in (cursor, cursor + ".lock"):
        if os.path.exists(f):
            os.remove(f)
    subprocess.run([f"{bindir}/tally", "--provision", "--doc", "apache-combined", store],
                   check=True, stderr=subprocess.DEVNULL)
    return run([f"{bindir}/feed", "-q", "--cursor", cursor, "--batch-size", batch, log,
                "--", f"{bindir}/tally", "--run", store])


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    rounds, log, builds = int(sys.argv[1]), sys.argv[2], sys.argv[3:]
    batches = os.environ.get("BATCH", "512").split(",")
    runs = {}
    work = tempfile.mkdtemp(prefix="timbertally-ab-")
    try:
        for r in range(rounds):
            for b in builds if r % 2 == 0 else builds[::-1]:
                runs.setdefault((b, "try"), []).append(
                    run(["taskset", "-c", "0", f"{b}/tally", "--try", "--doc", "apache-combined", log]))
                for n in batches:
                    runs.setdefault((b, n), []).append(pipeline(b, log, n, work))
    finally:
        shutil.rmtree(work, ignore_errors=True)

    def med(key, i):
        return statistics.median(x[i] for x in runs[key])

    print(f"medians of {rounds} rounds; wall s, CPU s; ratios against the extractor (goal: speed >= 0.95, CPU <= 1.3)")
    for b in builds:
        tw, tc = med((b, "try"), 0), med((b, "try"), 1)
        line = f"{b}: tally --try {tw:.3f} {tc:.3f}"
        for n in batches:
            w, c = med((b, n), 0), med((b, n), 1)
            line += f" | {n}: {w:.3f} {c:.3f} speed {tw / w:.2f} CPU {c / tc:.2f}"
        print(line)


if __name__ == "__main__":
    main()
