#!/usr/bin/env python3
"""A partial-key cuckoo filter served over the `cuckoo-audit exec` protocol, version 1
(audit/PROTOCOL.md). Python 3, standard library only.

    cuckoo_filter.py [--capacity N] [--fingerprint-bits F] [--slots B] [--identity]
                     [--broken MODE]

The filter (Fan et al. 2014): a power-of-two number n >= 2 of buckets of B slots, an
F-bit fingerprint per item, never 0. A key's bytes are hashed with BLAKE2b (fixed
personalisation, so the answers do not depend on PYTHONHASHSEED or the run); the hash
gives the fingerprint fp (uniform over 1..2^F-1) and the first bucket i1. The alternate
bucket is i XOR c(fp), where c(fp) is in 1..n-1: an involution that never maps a bucket
to itself, so an item always has two distinct buckets and 2B slots, and the copy limit
is exactly 2B. An insert that finds both buckets full does a random walk of at most
MAX_KICKS evictions; if it fails, the walk is undone swap by swap and the insert answers
`full` with the table exactly as before. The kick generator is reseeded by `new`, so a
trace replays identically.

--identity declares identity=yes and answers `identity KEY` with `item FP-BUCKET`: the
fingerprint and the smaller of the two buckets, which two keys share exactly when the
filter cannot tell them apart.

--broken MODE plants one bug (see README.md for the claim each one breaks):
  lose-on-kick-failure  a failed kick walk is not undone: the fingerprint evicted last
                        is dropped and the insert still answers `full`
  long-key-hash         only the first 8 bytes of a key are hashed
  crash-on-empty-key    the hash reads key[0] unconditionally: the empty key `x`
                        kills the process with an IndexError
  kick-wrong-bucket     a kicked fingerprint's next bucket comes from another hash of
                        it than the one lookups use: the item lands in a bucket its
                        lookups never check, and the insert still answers `inserted`
  short-fingerprint     fingerprints keep 4 bits fewer than the F declared (at least 2):
                        the false-positive rate is about 16 times the promised one
"""

import argparse
import hashlib
import os
import random
import sys

PROTOCOL_VERSION = 1
MAX_KICKS = 500
KICK_SEED = 0x6375636B6F6F  # "cuckoo"
PERSON = b"cuckoo-exec-v1"
BROKEN_MODES = ("lose-on-kick-failure", "long-key-hash", "crash-on-empty-key", "kick-wrong-bucket",
                "short-fingerprint")
MASK64 = (1 << 64) - 1


def load_target(slots):
    """Load the table is sized for, well below where random-walk kicks start to fail."""
    return {1: 0.45, 2: 0.8}.get(slots, 0.9)


class CuckooFilter:
    def __init__(self, capacity, fingerprint_bits, slots, broken):
        n = 2
        while n * slots * load_target(slots) < capacity:
            n *= 2
        self.n = n
        self.mask = n - 1
        self.b = slots
        self.max_copies = 2 * slots
        if broken == "short-fingerprint":
            fingerprint_bits = max(2, fingerprint_bits - 4)  # BUG: not the F declared
        self.fp_mod = (1 << fingerprint_bits) - 1
        self.table = [0] * (n * slots)  # flat: bucket i is table[i*b : i*b+b]; 0 = empty
        self.count = 0
        self.rng = random.Random(KICK_SEED)
        self.broken = broken

    # -- hashing -------------------------------------------------------------------
    def locate(self, key):
        """(fingerprint, first bucket) of a key."""
        if self.broken == "long-key-hash":
            key = key[:8]  # BUG: keys that agree on their first 8 bytes are one item
        elif self.broken == "crash-on-empty-key":
            _ = key[0]  # BUG: assumes a key has at least one byte
        h = int.from_bytes(hashlib.blake2b(key, digest_size=16, person=PERSON).digest(), "little")
        fp = (h & 0xFFFFFFFF) % self.fp_mod + 1
        return fp, (h >> 64) & self.mask

    def alt(self, i, fp):
        # c(fp) in 1..n-1 (n is a power of two >= 2): i ^ c stays in range, never equals i.
        return i ^ ((((fp * 0x9E3779B97F4A7C15) & MASK64) >> 32) % self.mask + 1)

    def kick_alt(self, i, fp):
        """The bucket a kicked fingerprint moves to: alt(), except in kick-wrong-bucket."""
        if self.broken == "kick-wrong-bucket":
            # BUG: another multiplier than alt()'s: the item leaves its bucket pair.
            return i ^ ((((fp * 0xC2B2AE3D27D4EB4F) & MASK64) >> 32) % self.mask + 1)
        return self.alt(i, fp)

    # -- operations ----------------------------------------------------------------
    def insert(self, key):
        fp, i1 = self.locate(key)
        i2 = self.alt(i1, fp)
        t, b = self.table, self.b
        s1, s2 = i1 * b, i2 * b
        if t[s1:s1 + b].count(fp) + t[s2:s2 + b].count(fp) >= self.max_copies:
            return b"duplicate_limit"
        for s in (s1, s2):
            for p in range(s, s + b):
                if t[p] == 0:
                    t[p] = fp
                    self.count += 1
                    return b"inserted"
        # Both buckets full: random walk, remembering every slot it swapped.
        rng = self.rng
        i = i1 if rng.getrandbits(1) else i2
        carry = fp
        path = []
        for _ in range(MAX_KICKS):
            p = i * b + rng.randrange(b)
            path.append(p)
            carry, t[p] = t[p], carry
            i = self.kick_alt(i, carry)
            s = i * b
            for q in range(s, s + b):
                if t[q] == 0:
                    t[q] = carry
                    self.count += 1
                    return b"inserted"
        if self.broken != "lose-on-kick-failure":
            # Undo: each swap is its own inverse; undone in reverse order, the table is
            # back to what it was and carry is the new item's fingerprint again.
            for p in reversed(path):
                carry, t[p] = t[p], carry
        # (lose-on-kick-failure: BUG: the new item stays in the table and `carry`, a
        # fingerprint stored before, is dropped.)
        return b"full"

    def item(self, key):
        """What the filter stores for a key: its fingerprint and bucket pair."""
        fp, i1 = self.locate(key)
        return b"%x-%x" % (fp, min(i1, self.alt(i1, fp)))

    def contains(self, key):
        fp, i1 = self.locate(key)
        t, b = self.table, self.b
        s1, s2 = i1 * b, self.alt(i1, fp) * b
        return fp in t[s1:s1 + b] or fp in t[s2:s2 + b]

    def erase(self, key):
        fp, i1 = self.locate(key)
        t, b = self.table, self.b
        for s in (i1 * b, self.alt(i1, fp) * b):
            for p in range(s, s + b):
                if t[p] == fp:
                    t[p] = 0
                    self.count -= 1
                    return True
        return False

    def clear(self):
        self.table = [0] * (self.n * self.b)
        self.count = 0


# -- protocol --------------------------------------------------------------------------
def printable(text, limit=40):
    """Part of a request, safe to echo in an `error` line (printable ASCII only)."""
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
    name = "py.cuckoo_filter" + ("" if args.broken is None else ".broken." + args.broken)
    out = sys.stdout.buffer
    out.write(
        (
            f"cuckoo-audit-subject {PROTOCOL_VERSION} kind=filter name={name} "
            f"capacity={args.capacity} fingerprint_bits={args.fingerprint_bits} "
            f"slots_per_bucket={args.slots} max_copies={2 * args.slots} "
            f"deletes=yes size=exact clear=yes"
            + (" identity=yes" if args.identity else "")
            + "\n"
        ).encode("ascii")
    )
    out.flush()

    flt = None
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
            pending = lines.pop()  # an incomplete last line waits for the next chunk
        for line in lines:
            if line.endswith(b"\r"):
                line = line[:-1]
            cmd, sep, arg = line.partition(b" ")
            if cmd == b"close" and not sep:
                responses.append(b"bye\n")
                out.write(b"".join(responses))
                out.flush()
                return 0
            if cmd == b"new" and not sep:
                flt = CuckooFilter(args.capacity, args.fingerprint_bits, args.slots, args.broken)
                responses.append(b"ok\n")
                continue
            if cmd == b"identity" and args.identity:
                key = parse_key(arg) if sep else None
                if key is None:
                    responses.append(b"error bad key: expected x followed by hex byte pairs\n")
                else:
                    # An item depends on the key alone, not on an instance's contents.
                    probe = flt or CuckooFilter(args.capacity, args.fingerprint_bits, args.slots, args.broken)
                    responses.append(b"item " + probe.item(key) + b"\n")
                continue
            if cmd in (b"insert", b"contains", b"erase"):
                key = parse_key(arg) if sep else None
                if key is None:
                    responses.append(b"error bad key: expected x followed by hex byte pairs\n")
                elif flt is None:
                    responses.append(b"error no instance: send new first\n")
                elif cmd == b"contains":
                    responses.append(b"yes\n" if flt.contains(key) else b"no\n")
                elif cmd == b"insert":
                    responses.append(flt.insert(key) + b"\n")
                else:
                    responses.append(b"yes\n" if flt.erase(key) else b"no\n")
                continue
            if cmd in (b"size", b"clear") and not sep:
                if flt is None:
                    responses.append(b"error no instance: send new first\n")
                elif cmd == b"size":
                    responses.append(b"%d\n" % flt.count)
                else:
                    flt.clear()
                    responses.append(b"ok\n")
                continue
            responses.append(("error unknown request: %s\n" % printable(line)).encode("ascii"))
        # No complete line left: answer everything before blocking on the next read.
        if responses:
            out.write(b"".join(responses))
            out.flush()
            responses = []
        if not chunk:
            return 0  # stdin closed without `close`


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--capacity", type=int, default=1000)
    ap.add_argument("--fingerprint-bits", type=int, default=12)
    ap.add_argument("--slots", type=int, default=4)
    ap.add_argument("--identity", action="store_true")
    ap.add_argument("--broken", choices=BROKEN_MODES)
    args = ap.parse_args()
    if args.capacity < 1:
        ap.error("--capacity must be >= 1")
    if not 1 <= args.fingerprint_bits <= 32:
        ap.error("--fingerprint-bits must be in 1..32")
    if not 1 <= args.slots <= 64:
        ap.error("--slots must be in 1..64")
    try:
        return serve(args)
    except BrokenPipeError:
        return 1


if __name__ == "__main__":
    sys.exit(main())
