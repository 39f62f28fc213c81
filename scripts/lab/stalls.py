#!/usr/bin/env python3
"""Where CPU time exceeds instruction count: the stalls a model cannot see.

    scripts/lab/stalls.py --perft BIN --file EPD [--below K] [--plain] [--top N]
                      [--freq HZ] [--keep DIR] [--lines FILE]

Instruction counts (scripts/lab/icount_set.py) say what a change adds or
removes, not what each instruction costs; a stall (a load waiting for a
store it cannot forward from, a table miss, a long dependency chain behind
a mispredict) costs time without instructions. This script puts the two
side by side per instruction address of BIN:

1. `perf record` (timer sampling, `-F HZ`, default 10000; no hardware
   counters needed) of `perft suite EPD --threads 1 --no-hash`: where the
   time is;
2. callgrind (`--dump-instr=yes`) of the same suite with every ;Dn K plies
   shallower (default K=2, which keeps the side to move at each ply): how
   many instructions each address executes.

It prints the addresses whose share of the samples most exceeds their share
of the instructions (a sample usually lands on the instruction after the
one that stalled, so both are shown, with the inlined source lines of the
stalled one), then the same per function. BIN needs line tables for the
source lines:

    CARGO_PROFILE_RELEASE_DEBUG=line-tables-only cargo build --release \\
        --target-dir target/dbg
    scripts/lab/stalls.py --perft target/dbg/release/perft --file positions/speed.epd

`--lines tier.rs` adds the inclusive shares per source line of that file
(the leaf-parent counter is in src/perft/leaf/: `shortcut.rs` for its
set-up, `tier.rs` for the king tier, `sink.rs` for the makes); the line's
text is read from this tree, so BIN must be built from it.

Needs perf, valgrind, objdump and addr2line (binutils). Exit 2 on a usage
error, 1 when a tool fails.
"""

import argparse
import bisect
import collections
import os
import re
import shutil
import subprocess
import sys
import tempfile

# scriptlib.py lives in scripts/, one folder up.
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
from scriptlib import EpdError, read_epd, write_epd  # noqa: E402


def usage_error(msg):
    print(f"stalls.py: {msg}", file=sys.stderr)
    sys.exit(2)


def run(cmd, **kw):
    p = subprocess.run(cmd, **kw)
    if p.returncode != 0:
        print(f"stalls.py: {' '.join(cmd[:3])} ... failed (exit {p.returncode})",
              file=sys.stderr)
        sys.exit(1)
    return p


def samples_per_address(binary, epd, extra, freq, work):
    data = os.path.join(work, "perf.data")
    run(["perf", "record", "-q", "-F", str(freq), "-o", data, binary, "suite", epd,
         "--threads", "1", "--no-hash", "-q"] + extra,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    mmaps = run(["perf", "script", "-i", data, "--show-mmap-events"],
                capture_output=True, text=True).stdout
    m = re.search(r"\[0x([0-9a-f]+)\(0x[0-9a-f]+\) @ 0x([0-9a-f]+) [^\]]*\]: r-xp "
                  + re.escape(binary), mmaps)
    if not m:
        print("stalls.py: no executable mapping of BIN in the perf data", file=sys.stderr)
        sys.exit(1)
    start, offset = int(m.group(1), 16), int(m.group(2), 16)
    # The ELF address of file offset `offset` (the executable LOAD segment).
    delta = 0
    for line in run(["readelf", "-lW", binary], capture_output=True, text=True).stdout.split("\n"):
        f = line.split()
        if f and f[0] == "LOAD" and "E" in "".join(f[6:-1]):
            delta = int(f[2], 16) - int(f[1], 16)
    counts = collections.Counter()
    ips = run(["perf", "script", "-i", data, "-F", "ip"], capture_output=True, text=True).stdout
    for ip in ips.split():
        addr = int(ip, 16) - start + offset + delta
        if addr > 0:
            counts[addr] += 1
    return counts


def instructions_per_address(binary, epd, extra, work):
    out = os.path.join(work, "callgrind.out")
    run(["valgrind", "--tool=callgrind", "--dump-instr=yes", "--callgrind-out-file=" + out,
         binary, "suite", epd, "--threads", "1", "--no-hash", "-q"] + extra,
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    counts = collections.Counter()
    addr = 0
    after_call = False

    def rel(tok, cur):
        if tok == "*":
            return cur
        if tok[0] in "+-":
            return cur + int(tok, 0)
        return int(tok, 0)

    with open(out) as f:
        for line in f:
            if not line or line[0].isalpha():
                after_call = line.startswith("calls=")
                continue
            if line[0] not in "0123456789+-*":
                continue
            parts = line.split()
            addr = rel(parts[0], addr)
            if after_call:  # the inclusive cost of a call: not this address's own
                after_call = False
                continue
            if len(parts) > 2:
                counts[addr] += int(parts[2])
    return counts


def disassembly(binary):
    text = run(["objdump", "-d", "--no-show-raw-insn", binary],
               capture_output=True, text=True).stdout
    order, ins, funcs = [], {}, []
    for line in text.split("\n"):
        m = re.match(r"\s+([0-9a-f]+):\s+(.*)", line)
        if m:
            a = int(m.group(1), 16)
            order.append(a)
            ins[a] = m.group(2).replace("\t", " ")
            continue
        m = re.match(r"([0-9a-f]+) <(.*)>:", line)
        if m:
            funcs.append((int(m.group(1), 16), m.group(2)))
    return order, ins, funcs


def source_lines(binary, addrs):
    out = run(["addr2line", "-a", "-i", "-e", binary],
              input="\n".join(hex(a) for a in addrs) + "\n",
              capture_output=True, text=True).stdout.split("\n")
    lines, cur = {}, None
    for line in out:
        if line.startswith("0x"):
            cur = int(line, 16)
            lines[cur] = []
        elif line and cur is not None:
            lines[cur].append(line.split("/")[-1].split(" ")[0])
    return lines


def main():
    ap = argparse.ArgumentParser(add_help=True, description=__doc__.split("\n")[0])
    ap.add_argument("--perft", required=True, help="perft binary (with line tables)")
    ap.add_argument("--file", required=True, help="EPD set (each line's deepest ;Dn is timed)")
    ap.add_argument("--below", type=int, default=2,
                    help="plies below the timed depth for callgrind (default 2)")
    ap.add_argument("--plain", action="store_true", help="count with --plain")
    ap.add_argument("--top", type=int, default=30, help="addresses to list (default 30)")
    ap.add_argument("--freq", type=int, default=10000, help="perf sampling rate (default 10000)")
    ap.add_argument("--keep", help="keep perf.data and callgrind.out in this directory")
    ap.add_argument("--lines", metavar="FILE",
                    help="also list the inclusive shares per source line of FILE "
                         "(a file name such as tier.rs, one file under src/): a sample or an instruction "
                         "counts for every line of FILE in its chain of inlined calls")
    try:
        a = ap.parse_args()
    except SystemExit as e:
        sys.exit(0 if e.code == 0 else 2)
    binary = os.path.realpath(a.perft)
    if not os.access(binary, os.X_OK):
        usage_error(f"--perft {a.perft}: not an executable file")
    if not os.path.isfile(a.file):
        usage_error(f"--file {a.file}: no such file")
    try:
        positions = read_epd(a.file)
    except EpdError as e:
        usage_error(str(e))
    source = None
    if a.lines:
        root = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "src")
        found = [os.path.join(d, a.lines) for d, _, fs in os.walk(root) if a.lines in fs]
        if len(found) != 1:
            usage_error(f"--lines {a.lines}: not the name of exactly one file under src/")
        with open(found[0]) as f:
            source = f.read().split("\n")
    if a.below < 0 or a.top < 1 or a.freq < 1:
        usage_error("--below must be >= 0, --top and --freq >= 1")
    for tool in ("perf", "valgrind", "objdump", "addr2line", "readelf"):
        if shutil.which(tool) is None:
            print(f"stalls.py: {tool} is not installed", file=sys.stderr)
            sys.exit(1)
    extra = ["--plain"] if a.plain else []
    work = a.keep or tempfile.mkdtemp(prefix="stalls.")
    os.makedirs(work, exist_ok=True)
    timed = os.path.join(work, "timed.epd")
    counted = os.path.join(work, "counted.epd")
    write_epd(timed, positions, 0)
    if len(write_epd(counted, positions, a.below)) == len(positions):
        usage_error(f"--below {a.below}: no line has a count that many plies shallower")

    samples = samples_per_address(binary, timed, extra, a.freq, work)
    instrs = instructions_per_address(binary, counted, extra, work)
    order, ins, funcs = disassembly(binary)
    where = {addr: i for i, addr in enumerate(order)}
    total_s = sum(samples.values())
    total_i = sum(instrs.values())
    if total_s == 0 or total_i == 0:
        print("stalls.py: no samples or no instructions recorded", file=sys.stderr)
        sys.exit(1)

    rows = []
    for addr, s in samples.items():
        i = where.get(addr)
        if i is None or i == 0:
            continue
        prev = order[i - 1]
        # Expected samples: the two instructions' mean share of the instructions.
        expected = total_s * (instrs.get(prev, 0) + instrs.get(addr, 0)) / 2 / total_i
        rows.append((s - expected, addr, prev, s))
    rows.sort(reverse=True)
    top = rows[: a.top]
    lines = source_lines(binary, [prev for _, _, prev, _ in top])
    print(f"{total_s} samples, {total_i:,} instructions (at --below {a.below})")
    print("excess = share of the samples minus share of the instructions")
    print(f"{'address':>10} {'excess':>7} {'samples':>7}  stalled instruction -> sampled one; source")
    for excess, addr, prev, s in top:
        src = " < ".join(lines.get(prev, [])[:3])
        print(f"{addr:#10x} {100 * excess / total_s:6.2f}% {100 * s / total_s:6.2f}%  "
              f"{ins[prev][:40]:40} -> {ins[addr][:30]:30} {src}")

    starts = [f[0] for f in funcs]

    def function(addr):
        k = bisect.bisect_right(starts, addr) - 1
        return funcs[k] if k >= 0 else (0, "?")

    fs, fi = collections.Counter(), collections.Counter()
    for addr, s in samples.items():
        fs[function(addr)] += s
    for addr, n in instrs.items():
        fi[function(addr)] += n
    print("\nper function: share of the samples / share of the instructions")
    for f in sorted(fs, key=lambda f: -fs[f])[:10]:
        ts, ti = fs[f] / total_s, fi[f] / total_i
        ratio = f"{ts / ti:5.2f}" if ti else "    -"
        print(f"{f[0]:#10x} {100 * ts:6.2f}% {100 * ti:6.2f}% {ratio}  {f[1][-60:]}")
    if source is not None:
        inclusive(binary, samples, instrs, a.lines, source, a.top)
    if not a.keep:
        shutil.rmtree(work, ignore_errors=True)


def inclusive(binary, samples, instrs, name, source, top):
    """Samples and instructions per source line of `name`, each counted for
    every line of that file in its address's chain of inlined calls (so a
    call's line holds all that was inlined into it)."""
    chains = source_lines(binary, sorted(set(samples) | set(instrs)))
    per_line = {}
    for counts, k in ((samples, 0), (instrs, 1)):
        for addr, n in counts.items():
            for f in {x for x in chains.get(addr, []) if x.startswith(name + ":")}:
                per_line.setdefault(f, [0, 0])[k] += n
    total_s, total_i = sum(samples.values()), sum(instrs.values())
    print(f"\ninclusive per line of {name}: share of the samples / share of the instructions")
    rows = sorted(per_line.items(), key=lambda kv: -kv[1][0])[:top]
    for f, (s, i) in rows:
        n = f.split(":")[1]
        text = source[int(n) - 1].strip()[:70] if n.isdigit() and 0 < int(n) <= len(source) else ""
        print(f"{100 * s / total_s:6.2f}% {100 * i / total_i:6.2f}%  {f:16} {text}")


if __name__ == "__main__":
    main()
