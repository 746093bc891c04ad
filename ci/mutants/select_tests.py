#!/usr/bin/env python3
"""Which executables a mutant changes, and which fast-suite tests can observe it: the
mutation lane's selection.

    select_tests.py index --build DIR --executables A,B,... --out INDEX
        records, for each executable, every source and header its objects (and the
        objects of the static libraries it links) were compiled from (ninja's deps log)
    select_tests.py affected --index INDEX --files F,G,...
        prints the executables built from any of the (absolute) files, comma-separated,
        in the order to try them: the engine's unit tests first, those whose names share
        a word with a changed file first within a group
    select_tests.py executable-of --build DIR --all-executables A,B,... --test NAME
        prints the executable the test NAME runs or is handed (nothing for a script)
    select_tests.py executables-of --build DIR --all-executables A,B,... --test NAME...
        prints every executable the tests (--test is repeatable) run or are handed,
        comma-separated; DIR may be another build tree of the same sources (its
        executables are named by their paths relative to DIR)
    select_tests.py select ... (below)

A test runs a program: a test executable of the build (gtest cases, fuzz corpus
replays), or a script (cmake -P, python) that may be handed an executable of the build
as an argument (the cuckoo-audit CLI tests). A mutant can change a test's outcome only
if it changes the executable the test runs or is handed, or if the test runs no
executable of the build at all (a script that reads the sources: always selected).

    select_tests.py select --build DIR --labels REGEX --executables A,B,...
                           --all-executables A,B,... [--only NAME]...

Prints a ctest -I specification ("0,0,0,n1,n2,...") of the tests whose labels match
REGEX and that are bound to one of the given executables (paths relative to DIR) or
to none; with --only (repeatable), just the tests of those exact names (those that
match the labels).
Prints nothing when no test is selected.
"""
import argparse
import json
import os
import re
import subprocess
import sys


def load_tests(build):
    out = subprocess.run(["ctest", "--test-dir", build, "--show-only=json-v1"],
                         check=True, capture_output=True, text=True).stdout
    return json.loads(out)["tests"]


def labels_of(test):
    for prop in test.get("properties", []):
        if prop.get("name") == "LABELS":
            return prop.get("value", [])
    return []


def bound_executables(test, executables):
    """The build's executables among the test's command and arguments."""
    found = set()
    for word in test.get("command", []):
        for part in (word, word.split("=", 1)[-1]):
            path = os.path.realpath(part)
            if path in executables:
                found.add(path)
    return found


def ninja(build, *args):
    return subprocess.run(["ninja", "-C", build, *args], check=True, capture_output=True,
                          text=True).stdout


def object_deps(build):
    """object path (relative to build) -> the files it was compiled from (absolute)."""
    deps, current = {}, None
    for line in ninja(build, "-t", "deps").splitlines():
        if line and not line.startswith(" "):
            current = line.split(":", 1)[0]
            deps[current] = set()
        elif line.strip() and current is not None:
            # ninja writes paths relative to the build directory
            deps[current].add(os.path.realpath(os.path.join(build, line.strip())))
    return deps


def inputs_of(build, target):
    """The explicit and implicit inputs of a link step (objects, static libraries)."""
    found, in_inputs = [], False
    for line in ninja(build, "-t", "query", target).splitlines():
        if line.startswith("  input:"):
            in_inputs = True
            continue
        if line.startswith("  outputs:"):
            break
        if in_inputs:
            word = line.strip().lstrip("|").strip()
            if word and not word.startswith("/"):
                found.append(word)
    return found


def cmd_index(args):
    deps = object_deps(args.build)
    index, libraries = {}, {}

    def files_of(target):
        if target in deps:
            return deps[target]
        if target.endswith(".a"):
            if target not in libraries:
                libraries[target] = set()
                for part in inputs_of(args.build, target):
                    libraries[target] |= files_of(part)
            return libraries[target]
        return set()

    for exe in filter(None, args.executables.split(",")):
        files = set()
        for part in inputs_of(args.build, exe):
            files |= files_of(part)
        index[exe] = sorted(files)
    with open(args.out, "w") as f:
        json.dump(index, f)
    return 0


# The order in which affected executables are tried: the engine's own unit tests first
# (small translation units, quick to build, most kills), the suite's heavier layers last.
GROUP_ORDER = ["engine/tests/", "model/", "subjects/", "fuzz/", "properties/", "audit/"]


def tokens(path):
    return set(re.split(r"[^a-z0-9]+", os.path.basename(path).lower())) - {"", "hpp", "cpp", "test", "h"}


def cmd_affected(args):
    with open(args.index) as f:
        index = json.load(f)
    changed = {os.path.realpath(p) for p in args.files.split(",") if p}
    words = set().union(*(tokens(p) for p in changed)) if changed else set()
    hit = [exe for exe, files in index.items() if changed & set(files)]

    def rank(exe):
        group = next((i for i, g in enumerate(GROUP_ORDER) if exe.startswith(g)), len(GROUP_ORDER))
        return (group, -len(words & tokens(exe)), exe)

    print(",".join(sorted(hit, key=rank)))
    return 0


def executables_by_path(build, all_executables):
    """real path -> the name given (relative to build) of each of the build's executables."""
    return {os.path.realpath(os.path.join(build, p)): p for p in all_executables.split(",") if p}


def cmd_executable_of(args):
    every = executables_by_path(args.build, args.all_executables)
    for test in load_tests(args.build):
        if test["name"] == args.test:
            bound = bound_executables(test, set(every))
            if bound:
                print(every[sorted(bound)[0]])
            return 0
    return 0


def cmd_executables_of(args):
    every = executables_by_path(args.build, args.all_executables)
    paths = set(every)
    wanted = set(args.test)
    found, seen = set(), set()
    for test in load_tests(args.build):
        if test["name"] in wanted:
            seen.add(test["name"])
            found |= bound_executables(test, paths)
    missing = wanted - seen
    if missing:
        print("select_tests.py: no test named " + ", ".join(sorted(missing)) + " in " + args.build,
              file=sys.stderr)
        return 1
    print(",".join(sorted(every[path] for path in found)))
    return 0


def cmd_select(args):
    def paths(text):
        return {os.path.realpath(os.path.join(args.build, p)) for p in text.split(",") if p}

    every = paths(args.all_executables)
    affected = paths(args.executables)
    label_re = re.compile(args.labels)
    chosen = []
    # ctest -L LABELS -I LIST numbers the tests of the label-filtered list, not of the
    # whole list: count only the tests the labels select (unlabelled tests, such as the
    # *_NOT_BUILT placeholders of executables the lane does not build, shift the rest).
    number = 0
    for test in load_tests(args.build):
        if not any(label_re.search(label) for label in labels_of(test)):
            continue
        number += 1
        if args.only:
            if test["name"] in args.only:
                chosen.append(number)
            continue
        bound = bound_executables(test, every)
        if args.unbound_only:
            take = not bound
        elif args.bound_only:
            take = bool(bound & affected)
        else:
            take = not bound or bool(bound & affected)
        if take:
            chosen.append(number)
    if chosen:
        print("0,0,0," + ",".join(str(n) for n in chosen))
    return 0


def main():
    parser = argparse.ArgumentParser()
    sub = parser.add_subparsers(dest="command", required=True)
    p = sub.add_parser("index")
    p.add_argument("--build", required=True)
    p.add_argument("--executables", required=True)
    p.add_argument("--out", required=True)
    p.set_defaults(run=cmd_index)
    p = sub.add_parser("affected")
    p.add_argument("--index", required=True)
    p.add_argument("--files", required=True)
    p.set_defaults(run=cmd_affected)
    p = sub.add_parser("executable-of")
    p.add_argument("--build", required=True)
    p.add_argument("--all-executables", required=True)
    p.add_argument("--test", required=True)
    p.set_defaults(run=cmd_executable_of)
    p = sub.add_parser("executables-of")
    p.add_argument("--build", required=True)
    p.add_argument("--all-executables", required=True)
    p.add_argument("--test", action="append", required=True)
    p.set_defaults(run=cmd_executables_of)
    p = sub.add_parser("select")
    p.add_argument("--build", required=True)
    p.add_argument("--labels", required=True)
    p.add_argument("--executables", default="", help="the affected executables")
    p.add_argument("--all-executables", required=True)
    p.add_argument("--only", action="append", default=[],
                   help="select only the test of this exact name (repeatable)")
    p.add_argument("--bound-only", action="store_true",
                   help="only the tests bound to one of --executables")
    p.add_argument("--unbound-only", action="store_true",
                   help="only the tests that run no executable of the build")
    p.set_defaults(run=cmd_select)
    args = parser.parse_args()
    return args.run(args)


if __name__ == "__main__":
    sys.exit(main())
