#!/usr/bin/env python3
"""Tests of bench/report.py's performance targets: each target row says met on one side of
its limit and MISSED on the other, --strict exits 1 on a miss, and a run without the rows'
benchmarks prints no such target. Synthetic Google Benchmark JSON; no benchmark runs.

usage: report_test.py  (exit 0: every check held; 1: a check failed, named on stderr)
"""
import json
import os
import subprocess
import sys
import tempfile

REPORT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "report.py")


def bench(name, ns=None, mops=None, **counters):
    """One benchmark result whose figure is ns per op or Mops/s."""
    rate = 1e9 / ns if ns is not None else mops * 1e6
    b = {"name": name, "run_name": name, "run_type": "iteration", "real_time": 1.0,
         "cpu_time": 1.0, "items_per_second": rate}
    b.update(counters)
    return b


def run(benchmarks, context=None, strict=False):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "r.json")
        with open(path, "w") as f:
            json.dump({"context": context or {}, "benchmarks": benchmarks}, f)
        cmd = [sys.executable, REPORT] + (["--strict"] if strict else []) + [path]
        p = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if p.returncode not in (0, 1):
        raise AssertionError(f"report.py failed ({p.returncode}): {p.stderr}")
    return p.returncode, p.stdout


def row_status(text, *fragments):
    """The status column of the one row whose figure holds every fragment."""
    rows = [line for line in text.splitlines()
            if line.startswith("| ") and all(f in line.split(" | ")[0] for f in fragments)]
    if len(rows) != 1:
        raise AssertionError(f"expected one row with {fragments}, found {len(rows)}:\n{text}")
    return cells(rows[0])[-1]


def cells(line):
    """A markdown row's cells: "| a | b |  |" -> ["a", "b", ""]."""
    return [c.strip() for c in line.strip()[1:-1].split("|")]


FAILURES = []


def check(what, got, want):
    if got != want:
        FAILURES.append(f"{what}: got {got!r}, want {want!r}")


def filter_peers():
    # Reference code: 42.0 ns negative, 38.9 positive, target <= 0.9x; fastfilter at 10M:
    # 43.7 / 43.9, <= 1.0x.
    for ns, want in ((37.7, "met"), (37.9, "MISSED")):
        _, out = run([bench("peer_shape/lookup_negative/f12/2^22buckets", ns=ns,
                            bits_per_item=12.63)])
        check(f"reference negative lookup at {ns} ns", row_status(out, "negative", "2^22"), want)
    for ns, want in ((35.0, "met"), (35.1, "MISSED")):
        _, out = run([bench("peer_shape/lookup_positive/f12/2^22buckets", ns=ns)])
        check(f"reference positive lookup at {ns} ns", row_status(out, "positive", "2^22"), want)
    for kind, limit in (("negative", 43.7), ("positive", 43.9)):
        for ns, want in ((limit - 0.1, "met"), (limit + 0.1, "MISSED")):
            _, out = run([bench(f"filter/lookup_{kind}/f12/10M", ns=ns)])
            check(f"fastfilter {kind} lookup at {ns} ns",
                  row_status(out, kind, "one key at a time, 10M keys"), want)


def map_vs_absl():
    limits = {"find_hit": 1.1, "find_miss": 1.3, "insert_growing": 1.3, "erase": 1.0}
    for op, limit in limits.items():
        for ratio, want in ((limit - 0.01, "met"), (limit + 0.01, "MISSED")):
            _, out = run([bench(f"map/cuckoo_map/{op}/10M", ns=100 * ratio),
                          bench(f"map/absl_flat_hash_map/{op}/10M", ns=100)])
            check(f"map {op} at {ratio}x absl",
                  row_status(out, op.replace("_", " ")), want)
    # Presized: the target is on the row at the peers' planned load, none on reserve(n)'s.
    for ratio, want in ((1.29, "met"), (1.31, "MISSED")):
        _, out = run([bench("map/cuckoo_map/insert_presized/10M", ns=500),
                      bench("map/cuckoo_map/insert_presized_load60/10M", ns=100 * ratio),
                      bench("map/absl_flat_hash_map/insert_presized/10M", ns=100)])
        section = out.split("vs absl::flat_hash_map")[1].split("| **")[0]
        check(f"presized at 60 % load, {ratio}x absl",
              row_status(section, "60 % load"), want)
        default = [line for line in section.splitlines()
                   if line.startswith("| insert presized") and "60 %" not in line]
        check("rows of presized inserts at reserve(n)'s load", len(default), 1)
        check("presized at reserve(n)'s load has no target",
              cells(default[0])[-1] if default else None, "")
    # Growing at the peers' planned load: a context row with its ratio, no target; the
    # target stays on the default growing row.
    _, out = run([bench("map/cuckoo_map/insert_growing/10M", ns=200),
                  bench("map/cuckoo_map/insert_growing_load60/10M", ns=125),
                  bench("map/absl_flat_hash_map/insert_growing/10M", ns=100)])
    section = out.split("vs absl::flat_hash_map")[1].split("| **")[0]
    grown = [line for line in section.splitlines() if line.startswith("| insert growing")]
    check("rows of growing inserts", len(grown), 2)
    check("growing at 90 % keeps the target", cells(grown[0])[-1] if grown else None, "MISSED")
    check("growing at 60 % has its ratio", cells(grown[1])[4] if len(grown) > 1 else None,
          "1.25")
    check("growing at 60 % has no target", cells(grown[1])[-1] if len(grown) > 1 else None, "")
    # Lookups in huge pages: context rows with their ratio, no target; the targets stay on
    # the default rows.
    for op in ("find_hit", "find_miss"):
        _, out = run([bench(f"map/cuckoo_map/{op}/10M", ns=200),
                      bench(f"map/cuckoo_map/{op}_huge_pages/10M", ns=150),
                      bench(f"map/absl_flat_hash_map/{op}/10M", ns=100)])
        section = out.split("vs absl::flat_hash_map")[1].split("| **")[0]
        rows = [line for line in section.splitlines()
                if line.startswith(f"| {op.replace('_', ' ')}")]
        check(f"rows of {op}", len(rows), 2)
        check(f"{op} keeps the target", cells(rows[0])[-1] if rows else None, "MISSED")
        check(f"{op} in huge pages has its ratio", cells(rows[1])[4] if len(rows) > 1 else None,
              "1.5")
        check(f"{op} in huge pages has no target",
              cells(rows[1])[-1] if len(rows) > 1 else None, "")


def striped_map_vs_libcuckoo():
    ctx = {"prefill_items": "2000000", "large_items": "10000000"}
    for size, suffix in (("2M", ""), ("10M", "/10M")):
        for mix in ("r90-w10-random", "r50-w50-random"):
            for ratio, want in ((1.21, "met"), (1.19, "MISSED")):
                _, out = run([bench(f"concurrent/map/striped/{mix}{suffix}/threads:2",
                                    mops=10 * ratio),
                              bench(f"concurrent/map/libcuckoo/{mix}{suffix}/threads:2", mops=10),
                              bench(f"concurrent/map/striped/{mix}{suffix}/threads:1",
                                    mops=10 * ratio),
                              bench(f"concurrent/map/libcuckoo/{mix}{suffix}/threads:1",
                                    mops=10)], ctx)
                check(f"striped map {mix} {size} 2 threads at {ratio}x libcuckoo",
                      row_status(out, f"{size} keys, 2 threads"), want)
                check(f"striped map {mix} {size} 1 thread has no target",
                      row_status(out, f"{size} keys, 1 thread "), "")


def filters_vs_kcas_peer():
    ctx = {"prefill_items": "2000000", "large_items": "10000000"}
    for size, suffix, peer in (("2M", "", 26.2), ("10M", "/10M", 21.7)):
        for design, factor in (("striped", 1.0), ("lockfree", 1.2)):
            for fname, fbits in ((design, 12), (design + "_f8", 8)):
                for scale, want in ((1.01, "met"), (0.99, "MISSED")):
                    name = f"concurrent/filter/{fname}/r50-w50-random{suffix}/threads:2"
                    _, out = run([bench(name, mops=peer * factor * scale)], ctx)
                    check(f"{fname} {size} at {scale} of its limit",
                          row_status(out, f"{design} f={fbits} ", f"{size} keys"), want)


def strict_exit():
    code, _ = run([bench("filter/lookup_negative/f12/10M", ns=50.0)], strict=True)
    check("--strict with a missed target", code, 1)
    code, _ = run([bench("filter/lookup_negative/f12/10M", ns=30.0)], strict=True)
    check("--strict with every target met", code, 0)


def no_rows_without_benchmarks():
    _, out = run([bench("filter/lookup_negative/f12/1M", ns=50.0)])
    check("a 1M-key lookup has no peer target", "fastfilter" in out, False)
    check("the target count of a run without targeted rows", out.strip().splitlines()[-1],
          "0 of 0 targets met.")


def main():
    for test in (filter_peers, map_vs_absl, striped_map_vs_libcuckoo, filters_vs_kcas_peer,
                 strict_exit, no_rows_without_benchmarks):
        try:
            test()
        except AssertionError as e:
            FAILURES.append(f"{test.__name__}: {e}")
    for f in FAILURES:
        print(f"FAILED: {f}", file=sys.stderr)
    print(f"report_test: {len(FAILURES)} failure(s)")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
