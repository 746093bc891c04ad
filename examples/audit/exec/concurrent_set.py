#!/usr/bin/env python3
"""A thread-safe set (or multiset filter) of byte strings served over the
`cuckoo-audit exec` protocol with concurrent sessions (audit/PROTOCOL.md, "Concurrent
sessions"). Python 3, standard library only.

    concurrent_set.py [--kind set|filter] [--sessions N] [--broken MODE]

It declares concurrent=N (default 8): the auditor may send tagged requests `@S OP KEY`
for sessions S = 0..N-1 at once. Each session is served by its own thread, against one
shared structure guarded by one lock; the answer `@S ANSWER` is written when the thread
is done, so answers of different sessions come in any order. Untagged requests (`new`,
`clear`, `close`, and the untagged `insert`, `contains`, ... of the sequential claims)
are served by the main thread; the auditor sends them only while no tagged request is
outstanding.

Each answer is written a moment (0-2 ms, seeded per session) after the operation took
effect and released the lock: a real server's reply takes time to travel too, and the
audit must not blame the subject for answers that arrive out of order.

--kind filter serves an exact multiset (a filter without false positives, any number of
copies: max_copies=none); the default is an exact set.

--broken MODE plants a race (sequential requests are still answered correctly, so only
the concurrent audit, claim C10, can find it):
  check-then-act  insert looks the key up under the lock, pauses, then stores it under
                  the lock again: two concurrent inserts of one key into a set both
                  answer inserted (of a filter, one copy is lost)
  lost-erase      erase copies the contents under the lock, pauses, then writes the copy
                  (without the key, if it was there) back: an insert that lands in the
                  pause is lost
"""

import argparse
import os
import queue
import random
import sys
import threading
import time

BROKEN_MODES = ("check-then-act", "lost-erase")
PAUSE = 0.003  # seconds inside a broken mode's critical window


def parse_key(field):
    """bytes of `xHEX`, or None if malformed."""
    if not field.startswith("x") or len(field) % 2 == 0:
        return None
    try:
        key = bytes.fromhex(field[1:])
    except ValueError:
        return None
    return key if 2 * len(key) == len(field) - 1 else None


class Structure:
    def __init__(self, kind, broken):
        self.kind = kind
        self.broken = broken
        self.lock = threading.Lock()
        self.counts = {}  # key -> copies (a set holds 0 or 1)

    def reset(self):
        with self.lock:
            self.counts = {}

    def insert(self, key):
        if self.broken == "check-then-act":
            with self.lock:
                copies = self.counts.get(key, 0)
            time.sleep(PAUSE)
            if self.kind == "set" and copies > 0:
                return "exists"
            with self.lock:
                self.counts[key] = copies + 1
            return "inserted"
        with self.lock:
            copies = self.counts.get(key, 0)
            if self.kind == "set" and copies > 0:
                return "exists"
            self.counts[key] = copies + 1
            return "inserted"

    def erase(self, key):
        if self.broken == "lost-erase":
            with self.lock:
                copy = dict(self.counts)
            time.sleep(PAUSE)
            found = copy.get(key, 0) > 0
            if found:
                copy[key] -= 1
                if copy[key] == 0:
                    del copy[key]
            with self.lock:
                self.counts = copy  # written back even when nothing was erased
            return "yes" if found else "no"
        with self.lock:
            copies = self.counts.get(key, 0)
            if copies == 0:
                return "no"
            if copies == 1:
                del self.counts[key]
            else:
                self.counts[key] = copies - 1
            return "yes"

    def contains(self, key):
        with self.lock:
            return "yes" if self.counts.get(key, 0) > 0 else "no"

    def size(self):
        with self.lock:
            return str(sum(self.counts.values()))


def answer(structure, words):
    """The answer to one request (its words without a tag)."""
    op = words[0] if words else ""
    if op in ("insert", "contains", "erase"):
        key = parse_key(words[1]) if len(words) == 2 else None
        if key is None:
            return "error bad key"
        return getattr(structure, op)(key)
    if op == "size" and len(words) == 1:
        return structure.size()
    if op in ("new", "clear") and len(words) == 1:
        structure.reset()
        return "ok"
    return "error unknown request"


class Output:
    """Whole lines to stdout, one writer at a time."""

    def __init__(self):
        self.lock = threading.Lock()
        self.out = sys.stdout

    def line(self, text):
        with self.lock:
            self.out.write(text + "\n")
            self.out.flush()


def serve_session(index, structure, output, requests):
    rng = random.Random(1000 + index)
    while True:
        words = requests.get()
        text = answer(structure, words)
        time.sleep(rng.random() * 0.002)  # the answer travels after the lock is released
        output.line("@%d %s" % (index, text))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--kind", choices=("set", "filter"), default="set")
    parser.add_argument("--sessions", type=int, default=8)
    parser.add_argument("--broken", choices=BROKEN_MODES)
    args = parser.parse_args()
    name = "py.concurrent_" + args.kind + ("" if args.broken is None else ".broken." + args.broken)
    decl = "cuckoo-audit-subject 1 kind=%s name=%s concurrent=%d" % (args.kind, name, args.sessions)
    if args.kind == "filter":
        decl += " max_copies=none"
    output = Output()
    output.line(decl)
    structure = Structure(args.kind, args.broken)
    sessions = {}
    for raw in sys.stdin:
        words = raw.split()
        if words and words[0].startswith("@"):
            tag = words[0][1:]
            if not tag.isdigit() or int(tag) >= args.sessions:
                output.line("error no session %s" % tag)
                continue
            index = int(tag)
            if index not in sessions:
                requests = queue.Queue()
                threading.Thread(target=serve_session, args=(index, structure, output, requests),
                                 daemon=True).start()
                sessions[index] = requests
            sessions[index].put(words[1:])
        elif words == ["close"]:
            output.line("bye")
            break
        else:
            output.line(answer(structure, words))
    sys.stdout.flush()
    os._exit(0)  # the session threads are daemons


if __name__ == "__main__":
    main()
