"""Helpers the Python scripts of this folder and of lab/ share (standard library only).

* `run_timed(args)`: one whole process, its stdout, its CPU time (user +
  system, from `wait4`, which other load disturbs less than wall time) and
  its exit code; stderr is discarded and stdin is /dev/null.
* `ensure_module(name, requirement, who)`: imports a package, installing it
  with pip first when it is missing.
* `read_epd(path, text_filter)`: the positions of an EPD suite, each with its
  id, FEN, `;Dn` counts and deepest depth; `EpdError` names what is wrong.
* `write_epd(path, positions, below)`: those positions, each with its one
  count `below` plies under its deepest (the ids of those without one are
  returned).
* `BINS`, `men(fen)`: the speed set's bins of men on the board;
  `geomean(xs)`: their per-bin geometric means.
"""

import importlib
import math
import os
import re
import subprocess
import sys


def run_timed(args):
    """(stdout text, CPU seconds, exit code) of `args` run as a child."""
    read, write = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read)
            os.dup2(write, 1)
            devnull = os.open(os.devnull, os.O_RDWR)
            os.dup2(devnull, 0)
            os.dup2(devnull, 2)
            os.execv(args[0], args)
        finally:
            os._exit(127)
    os.close(write)
    with os.fdopen(read, errors="replace") as out:
        text = out.read()
    _, status, usage = os.wait4(pid, 0)
    return text, usage.ru_utime + usage.ru_stime, os.waitstatus_to_exitcode(status)


def ensure_module(name, requirement, who):
    """Imports and returns module `name`, installing `requirement` with pip
    when the import fails; `who` names the calling script in messages."""
    try:
        return importlib.import_module(name)
    except ImportError:
        print(f"{who}: installing {requirement} (pip install)", file=sys.stderr)
        cmd = [sys.executable, "-m", "pip", "install", "--quiet", requirement]
        if subprocess.call(cmd) != 0:
            # Debian's Python refuses a system-wide pip install without this flag.
            cmd.append("--break-system-packages")
            if subprocess.call(cmd) != 0:
                sys.exit(f"{who}: could not install {requirement}")
        importlib.invalidate_caches()
        return importlib.import_module(name)


# The bins of men on the board of positions/speed.epd: (fewest, most, name).
BINS = [(2, 10, "up to 10"), (11, 16, "11-16"), (17, 24, "17-24"), (25, 32, "25-32")]


def signature_class(comment):
    """A position's class: the first item of its `c0` comment (the signature
    classes of positions/endings.epd), "(none)" without one."""
    return comment.split(",")[0].strip() or "(none)"


def groups(rows, kind):
    """Rows (dicts with "men" and "class") per bin of men (`bins`) or per class
    (`class`, in order of first appearance), then ("all", rows); empty groups
    are left out."""
    if kind == "class":
        names = list(dict.fromkeys(r["class"] for r in rows))
        out = [(name, [r for r in rows if r["class"] == name]) for name in names]
    else:
        out = [(name, [r for r in rows if lo <= r["men"] <= hi]) for lo, hi, name in BINS]
    return [(name, sel) for name, sel in out + [("all", rows)] if sel]


def geomean(xs):
    """The geometric mean of positive numbers (NaN for none)."""
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float("nan")


def men(fen):
    """The number of men on the board of `fen`."""
    return sum(c.isalpha() for c in fen.split()[0])


class EpdError(ValueError):
    """An EPD file that cannot be used (the message names the file and line)."""


def read_epd(path, text_filter=None):
    """The lines of `path` (those containing `text_filter`, if given) as
    dicts: `id` (the `id` operation, else "line N"), `fen` (six fields; the
    clocks default to 0 1), `counts` ({depth: count} from `;Dn count`),
    `depth` (the deepest) and `comment` (the `c0` operation, else empty). Raises EpdError for a line without a count or a
    file with no position left."""
    out = []
    with open(path) as f:
        for lineno, line in enumerate(f, 1):
            line = line.strip()
            if not line or line.startswith("#") or (text_filter and text_filter not in line):
                continue
            fields = line.split(";")
            full = fields[0].split()
            fen = " ".join(full[:6]) if len(full) >= 6 else " ".join(full[:4]) + " 0 1"
            counts, ident, comment = {}, f"line {lineno}", ""
            for op in fields[1:]:
                op = op.strip()
                m = re.fullmatch(r"D(\d+)\s+(\d+)", op)
                if m:
                    counts[int(m.group(1))] = int(m.group(2))
                elif op.startswith("id "):
                    ident = op[3:].strip().strip('"')
                elif op.startswith("c0 "):
                    comment = op[3:].strip().strip('"')
            if not counts:
                raise EpdError(f"{path}:{lineno}: no ;Dn count")
            out.append({"id": ident, "fen": fen, "counts": counts, "depth": max(counts),
                        "comment": comment})
    if not out:
        raise EpdError(f"{path}: no position (filter {text_filter!r})")
    return out


def write_epd(path, positions, below):
    """Writes each of `positions` (as `read_epd` returns them) with its one
    count `below` plies under its deepest; returns the ids of the positions
    that have no count there, which are left out."""
    missing = []
    with open(path, "w") as out:
        for p in positions:
            depth = p["depth"] - below
            if depth in p["counts"]:
                out.write(f'{p["fen"]} ;D{depth} {p["counts"][depth]} ;id "{p["id"]}";\n')
            else:
                missing.append(p["id"])
    return missing
