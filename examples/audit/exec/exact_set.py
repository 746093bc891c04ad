#!/usr/bin/env python3
"""An exact set of byte strings served over the `cuckoo-audit exec` protocol, version 1
(audit/PROTOCOL.md). Python 3, standard library only.

    exact_set.py [--capacity N] [--broken MODE]

A Python set of bytes. Without --capacity it is unbounded, never answers `full` and
declares no capacity; with --capacity N it holds at most N keys and answers `full` (and
changes nothing) for a new key beyond them, declaring capacity=N.

--broken MODE plants one bug (see README.md for the claim each one breaks):
  nul-terminated       a key is cut at its first zero byte, as a C string would be:
                       `x`, `x00` and `x0001` are one key, and so are `x61` and `x6100ff`
  hex-text-key         the key is its hex text, not its bytes: `x0a` and `x0A` are
                       different keys
  size-counts-inserts  `size` counts insert requests that answered inserted or exists,
                       minus successful erases
"""

import argparse
import os
import sys

PROTOCOL_VERSION = 1
BROKEN_MODES = ("nul-terminated", "hex-text-key", "size-counts-inserts")


def printable(text, limit=40):
    s = text[:limit].decode("ascii", "replace")
    return "".join(c if " " <= c <= "~" else "?" for c in s)


def parse_key(field):
    """bytes of `xHEX`, or None if malformed."""
    if not field.startswith(b"x") or len(field) % 2 == 0:
        return None
    try:
        key = bytes.fromhex(field[1:].decode("ascii"))
    except ValueError:
        return None
    if 2 * len(key) != len(field) - 1:  # fromhex skips whitespace; a key has none
        return None
    return key


def serve(args):
    broken = args.broken
    name = "py.exact_set" + ("" if broken is None else ".broken." + broken)
    decl = f"cuckoo-audit-subject {PROTOCOL_VERSION} kind=set name={name}"
    if args.capacity is not None:
        decl += f" capacity={args.capacity}"
    decl += " deletes=yes size=exact clear=yes\n"
    out = sys.stdout.buffer
    out.write(decl.encode("ascii"))
    out.flush()

    limit = args.capacity
    items = None
    fake_size = 0  # size-counts-inserts
    pending = b""
    responses = []
    fd = sys.stdin.buffer.fileno()
    while True:
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            lines = [pending] if pending else []
            pending = b""
        else:
            lines = (pending + chunk).split(b"\n")
            pending = lines.pop()
        for line in lines:
            if line.endswith(b"\r"):
                line = line[:-1]
            cmd, sep, arg = line.partition(b" ")
            if cmd in (b"insert", b"contains", b"erase"):
                key = parse_key(arg) if sep else None
                if key is None:
                    responses.append(b"error bad key: expected x followed by hex byte pairs\n")
                    continue
                if items is None:
                    responses.append(b"error no instance: send new first\n")
                    continue
                if broken == "nul-terminated":
                    key = key.split(b"\0", 1)[0]  # BUG: the key as a C string
                elif broken == "hex-text-key":
                    key = arg  # BUG: the text, not the bytes it spells
                if cmd == b"contains":
                    responses.append(b"yes\n" if key in items else b"no\n")
                elif cmd == b"insert":
                    if key in items:
                        fake_size += 1  # BUG (size-counts-inserts): an `exists` counted
                        responses.append(b"exists\n")
                    elif limit is not None and len(items) >= limit:
                        responses.append(b"full\n")
                    else:
                        items.add(key)
                        fake_size += 1
                        responses.append(b"inserted\n")
                elif key in items:
                    items.discard(key)
                    fake_size -= 1
                    responses.append(b"yes\n")
                else:
                    responses.append(b"no\n")
                continue
            if not sep and cmd == b"new":
                items = set()
                fake_size = 0
                responses.append(b"ok\n")
                continue
            if not sep and cmd in (b"size", b"clear"):
                if items is None:
                    responses.append(b"error no instance: send new first\n")
                elif cmd == b"size":
                    n = fake_size if broken == "size-counts-inserts" else len(items)
                    responses.append(b"%d\n" % n)
                else:
                    items.clear()
                    fake_size = 0
                    responses.append(b"ok\n")
                continue
            if not sep and cmd == b"close":
                responses.append(b"bye\n")
                out.write(b"".join(responses))
                out.flush()
                return 0
            responses.append(("error unknown request: %s\n" % printable(line)).encode("ascii"))
        if responses:
            out.write(b"".join(responses))
            out.flush()
            responses = []
        if not chunk:
            return 0  # stdin closed without `close`


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--capacity", type=int, default=None)
    ap.add_argument("--broken", choices=BROKEN_MODES)
    args = ap.parse_args()
    if args.capacity is not None and args.capacity < 1:
        ap.error("--capacity must be >= 1")
    try:
        return serve(args)
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    sys.exit(main())
