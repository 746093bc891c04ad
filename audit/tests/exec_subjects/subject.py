#!/usr/bin/env python3
"""Test subjects of cuckoo-audit exec (audit/PROTOCOL.md, version 1).

    python3 subject.py MODE

One correct exact set ("set") and one correct filter ("filter": an exact multiset with a
copy limit, which is a valid filter with no false positives), and variants that break
the claims or the protocol, chosen by MODE (see MODES below). Every variant is
deterministic: the same requests after `new` get the same answers, so the auditor can
shrink and replay what it finds.

Input is read in chunks and the responses to all complete lines are written at once,
when no more input is buffered (what the protocol asks at least).
"""
import hashlib
import os
import sys
import time

CAPACITY = 64
SET_HANDSHAKE = "cuckoo-audit-subject 1 kind=set name=py.set capacity=%d" % CAPACITY
FILTER_HANDSHAKE = ("cuckoo-audit-subject 1 kind=filter name=py.filter capacity=%d "
                    "fingerprint_bits=12 slots_per_bucket=4" % CAPACITY)

MODES = {
    # correct
    "set": SET_HANDSHAKE,
    "filter": FILTER_HANDSHAKE,
    # size=absent: `size` is never sent (it would get an error)
    "filter-no-size": FILTER_HANDSHAKE.replace("py.filter", "py.nosize") + " size=absent clear=no deletes=no",
    # wrong answers (claims fail, exit 1)
    "forgetful": SET_HANDSHAKE.replace("py.set", "py.forgetful"),   # evicts a key on insert
    "leaky": FILTER_HANDSHAKE.replace("py.filter", "py.leaky"),     # too many false positives
    "hollow": FILTER_HANDSHAKE.replace("py.filter", "py.hollow"),   # stores nothing: contains is always no
    # no copy limit; the 9th copy of a key goes to a victim slot, after which every insert
    # is refused; size leaves the victim out (declared exact: a size finding; approximate: fine)
    "victim": FILTER_HANDSHAKE.replace("py.filter", "py.victim") + " max_copies=none",
    "victim-approx": FILTER_HANDSHAKE.replace("py.filter", "py.victim") + " max_copies=none size=approximate",
    "coin": SET_HANDSHAKE.replace("py.set", "py.coin"),             # every third instance forgets (3+ keys)
    # answers size with the right count plus 2^64: read modulo 2^64 it would be right
    "size-past-2-64": SET_HANDSHAKE.replace("py.set", "py.size64"),
    # identity=yes: `identity KEY` answers `item K` with K the key's SHA-256 (right: this
    # filter tells every key apart), or the key's length (a lie: keys of one length are
    # one item to it by that answer, yet it stores them apart), or a TEXT with a space
    "identity": FILTER_HANDSHAKE.replace("py.filter", "py.identity") + " identity=yes",
    "identity-lies": FILTER_HANDSHAKE.replace("py.filter", "py.identity_lies") + " identity=yes",
    "identity-spaced": FILTER_HANDSHAKE.replace("py.filter", "py.identity_spaced") + " identity=yes",
    "identity-set": SET_HANDSHAKE + " identity=yes",
    # protocol misbehaviour mid-trace (findings, exit 1)
    "crash": SET_HANDSHAKE.replace("py.set", "py.crash"),           # abort() with 5 keys stored
    # the same crash without flushing first: the answers it owes are lost with it
    "crash-buffered": SET_HANDSHAKE.replace("py.set", "py.crash"),
    "exit": SET_HANDSHAKE.replace("py.set", "py.exit"),             # exit(3) with 4 keys stored
    "hang": SET_HANDSHAKE.replace("py.set", "py.hang"),             # sleeps on the 30th request
    # sleeps on its first request, after creating the file $CUCKOO_TEST_HANG_MARK
    "hang-at-once": SET_HANDSHAKE.replace("py.set", "py.hang"),
    "garbage": SET_HANDSHAKE.replace("py.set", "py.garbage"),       # "banana" to a contains
    "binary": SET_HANDSHAKE.replace("py.set", "py.binary"),         # control bytes
    "swap": SET_HANDSHAKE.replace("py.set", "py.swap"),             # answers 2 requests out of order
    "extra": SET_HANDSHAKE.replace("py.set", "py.extra"),           # a second line after `new`
    "error": SET_HANDSHAKE.replace("py.set", "py.error"),           # `error ...` to erase
    "flaky": SET_HANDSHAKE.replace("py.set", "py.flaky"),           # answers differ between runs
    "chatty": SET_HANDSHAKE.replace("py.set", "py.chatty"),         # a line after the handshake
    "quit": SET_HANDSHAKE.replace("py.set", "py.quit"),             # exit(0) in its 2nd instance
    # handshake problems (bad usage, exit 2)
    "no-handshake": None,
    "silent": None,
    "bad-handshake": "hello, auditor",
    "version-2": "cuckoo-audit-subject 2 kind=set",
    "unknown-key": "cuckoo-audit-subject 1 kind=set capcity=64",
    "no-kind": "cuckoo-audit-subject 1 capacity=64",
    # numbers past 2^64 - 1 (read modulo 2^64: version 1, capacity 1) and a capacity no
    # auditor can fill
    "version-past-2-64": "cuckoo-audit-subject 18446744073709551617 kind=set",
    "capacity-past-2-64": "cuckoo-audit-subject 1 kind=set capacity=18446744073709551617",
    "huge-capacity": "cuckoo-audit-subject 1 kind=filter capacity=18446744073709551615 "
                     "fingerprint_bits=12 slots_per_bucket=4",
}

MODE = sys.argv[1] if len(sys.argv) > 1 else "set"
if MODE not in MODES:
    sys.stderr.write("subject.py: unknown mode %r (modes: %s)\n" % (MODE, ", ".join(MODES)))
    sys.exit(64)
KIND = "filter" if "kind=filter" in (MODES[MODE] or "") else "set"

out = []  # responses not yet written


def flush():
    data = "".join(out).encode("ascii")
    out.clear()
    while data:
        n = os.write(1, data)
        data = data[n:]


def say(line):
    out.append(line + "\n")


class Structure:
    def __init__(self, kind):
        self.kind = kind
        self.items = {}  # key bytes -> copies (1 for a set)
        self.order = []  # keys in insertion order (forgetful)
        self.requests = 0
        self.victim = None  # victim modes: the key in the victim slot

    def total(self):
        return sum(self.items.values())

    def insert(self, key):
        copies = self.items.get(key, 0)
        if self.kind == "set":
            if copies:
                return "exists"
            if len(self.items) >= CAPACITY:
                return "full"
            if MODE == "forgetful" and len(self.items) >= 3:
                victim = self.order.pop(0)
                del self.items[victim]
            self.items[key] = 1
            self.order.append(key)
            return "inserted"
        if MODE.startswith("victim"):
            if self.victim is not None or self.total() >= CAPACITY:
                return "full"
            if copies >= 8:  # its two buckets are full of its copies: kicked out for good
                self.victim = key
                return "inserted"
        if copies >= 8:  # 2 * slots_per_bucket
            return "duplicate_limit"
        if self.total() >= CAPACITY:
            return "full"
        self.items[key] = copies + 1
        return "inserted"

    def contains(self, key):
        if MODE == "leaky" and len(key) % 3 == 0:
            return "yes"
        if MODE == "hollow":
            return "no"
        if MODE == "coin" and RUNS[0] % 3 == 0 and len(self.items) >= 3:
            return "no"
        if self.victim is not None and self.victim == key:
            return "yes"
        return "yes" if self.items.get(key, 0) else "no"

    def erase(self, key):
        if self.victim is not None and self.victim == key:
            self.victim = None
            return "yes"
        copies = self.items.get(key, 0)
        if not copies:
            return "no"
        if copies == 1:
            del self.items[key]
            if key in self.order:
                self.order.remove(key)
        else:
            self.items[key] = copies - 1
        return "yes"


RUNS = [0]  # `new` requests served (flaky)


def handle(structure, line):
    """The response to one request line, or None after `close`."""
    words = line.split(" ")
    op = words[0]
    if op == "new":
        RUNS[0] += 1
        return Structure(KIND), "ok"
    if op == "identity" and len(words) == 2:  # may come before `new`; changes nothing
        key = bytes.fromhex(words[1][1:])
        if MODE == "identity-lies":
            return structure, "item %d" % len(key)
        if MODE == "identity-spaced":
            return structure, "item a b"
        return structure, "item " + hashlib.sha256(key).hexdigest()
    if structure is None:
        return structure, "error no instance: send new first"
    structure.requests += 1
    if op == "close":
        return structure, "bye"
    if op == "size":
        if MODE == "filter-no-size":
            return structure, "error size was asked although size=absent"
        if MODE == "size-past-2-64":
            return structure, str(structure.total() + 2 ** 64)
        return structure, str(structure.total())  # victim modes: leaves the victim out
    if op == "clear":
        structure.items.clear()
        structure.order.clear()
        structure.victim = None
        return structure, "ok"
    if len(words) != 2 or not words[1].startswith("x"):
        return structure, "error bad request %r" % line
    try:
        key = bytes.fromhex(words[1][1:])
    except ValueError:
        return structure, "error bad key %r" % words[1]
    if MODE.startswith("crash") and len(structure.items) >= 5:
        sys.stderr.write("py.crash: table corrupted with %d keys, aborting\n" % len(structure.items))
        sys.stderr.flush()
        if MODE == "crash":
            flush()
        os.abort()
    if MODE == "exit" and len(structure.items) >= 4:
        flush()
        sys.stderr.write("py.exit: giving up\n")
        sys.exit(3)
    if MODE == "hang-at-once":
        with open(os.environ["CUCKOO_TEST_HANG_MARK"], "w") as mark:
            mark.write("%d\n" % os.getpid())
        time.sleep(3600)
    if MODE == "hang" and structure.requests >= 30:
        flush()
        sys.stderr.write("py.hang: thinking very hard\n")
        sys.stderr.flush()
        time.sleep(3600)
    if MODE == "garbage" and op == "contains" and len(structure.items) >= 3:
        return structure, "banana"
    if MODE == "binary" and op == "contains" and len(structure.items) >= 3:
        return structure, "y\x01es"
    if MODE == "error" and op == "erase":
        return structure, "error erase is not implemented"
    if MODE == "flaky" and op == "insert" and RUNS[0] % 2 == 0 and len(structure.items) >= 2:
        return structure, "full"
    if op == "insert":
        return structure, structure.insert(key)
    if op == "contains":
        return structure, structure.contains(key)
    if op == "erase":
        return structure, structure.erase(key)
    return structure, "error unknown request %r" % op


def main():
    handshake = MODES[MODE]
    if MODE == "no-handshake":
        sys.stderr.write("py: cannot load the filter library\n")
        sys.exit(1)
    if MODE == "silent":
        time.sleep(3600)
    say(handshake)
    if MODE == "chatty":
        say("ready!")
    flush()
    structure = None
    pending = b""
    swapped = None  # swap: a response held back
    while True:
        chunk = os.read(0, 1 << 16)
        if not chunk:
            flush()
            return 0
        pending += chunk
        *lines, pending = pending.split(b"\n")
        for raw in lines:
            line = raw.decode("ascii").rstrip("\r")
            structure, response = handle(structure, line)
            if MODE == "swap" and structure is not None and structure.requests == 5:
                swapped = response
                continue
            say(response)
            if swapped is not None:
                say(swapped)
                swapped = None
            if MODE == "extra" and line == "new":
                say("ok")
            if response == "bye" or (MODE == "quit" and RUNS[0] == 2 and line == "size"):
                flush()
                return 0
        flush()


if __name__ == "__main__":
    sys.exit(main())
