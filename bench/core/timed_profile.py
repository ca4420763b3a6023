#!/usr/bin/env python3
"""Wall-clock profile of engine_bench's timed inputs only.

callgrind counts instructions and simulated misses; this counts where the time went, stalls
included, from `perf record -e cpu-clock` samples (a software clock: this VM exposes no hardware
counters). Only samples whose call stack passes through timedReplay are kept, so the workload
generator and the warm-up drop out. See README.md ("Where the time goes").

    perf record -g -e cpu-clock -F 10000 -o perf.data ./engine_bench --only b --flat --passive-adds
    perf script -i perf.data -F ip,sym > perf.txt
    bench/core/timed_profile.py perf.txt                 # functions by share of the timed samples
    bench/core/timed_profile.py perf.txt canOffer 2      # who calls functions matching 'canOffer'

Build with -fno-omit-frame-pointer, or the stacks stop at the first function without one.
"""
import collections
import re
import sys


def samples(path):
    """Yields each sample's call stack, innermost function first, names without arguments."""
    stack = []
    with open(path, errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line:
                if stack:
                    yield stack
                stack = []
                continue
            parts = line.split(None, 1)
            name = parts[1].replace("(anonymous namespace)", "{anon}") if len(parts) > 1 else "?"
            stack.append(re.sub(r"[(+].*", "", name))
    if stack:
        yield stack


def main():
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    pattern = sys.argv[2] if len(sys.argv) > 2 else None
    depth = int(sys.argv[3]) if len(sys.argv) > 3 else 1
    counts = collections.Counter()
    timed = 0
    for stack in samples(sys.argv[1]):
        if not any("timedReplay" in name for name in stack):
            continue
        timed += 1
        if pattern is None:
            counts[stack[0]] += 1
        elif re.search(pattern, stack[0]):
            counts[" <- ".join(stack[1:1 + depth])] += 1
    if timed == 0:
        sys.exit("no samples under timedReplay: was the bench built with frame pointers?")
    matched = sum(counts.values())
    print(f"{timed} timed samples" + (f", {matched} in '{pattern}' ({100 * matched / timed:.2f}%)" if pattern else ""))
    for name, n in counts.most_common(30):
        print(f"{100 * n / timed:6.2f}%  {name[:120]}")


if __name__ == "__main__":
    main()
