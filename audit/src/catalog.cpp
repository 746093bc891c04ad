// The claims of DESIGN.md section 4 as the auditor states them: what each claim says, how
// the audit checks it, and which engines it applies to. `cuckoo-audit list` prints this;
// the report writers take the titles from it.
#include <string>
#include <vector>

#include "cuckoo/audit/audit.hpp"

namespace cuckoo::audit {

namespace {

std::vector<ClaimInfo> make_catalog() {
  return {
      {"C1", "no false negatives",
       "Random op sequences (inserts with duplicates, erases, failed inserts, serialization "
       "round trips) run against the filter and a multiset model in lock step; every item "
       "inserted and not erased must be found. Failures are shrunk to a replayable trace. "
       "The concurrent filter's answers are checked under C10.",
       {"filter", "bloom"}},
      {"C2",
       "false positive rate at most 1-(1-q)^(2b), q = (2^f+2)/4^f the exact per-slot match "
       "probability (about 2b/2^f)",
       "Fills filters of each fingerprint width and bucket size to their first failed insert "
       "and to half that, then queries keys never inserted; the false positive count must "
       "stay under the binomial bound for 1-(1-q)^(2bL) at the load L reached, so a correct "
       "filter fails with probability below 1e-9. q is (2^f+2)/4^f, not DESIGN's 2^-f, "
       "because fingerprint 0 is stored as 1 (docs/engines.md); the report also shows "
       "the count against 2^-f, for information.",
       {"filter"}},
      {"C3", "reachable load: about 50% (b=1), 84% (b=2), 95% (b=4), 98% (b=8)",
       "Inserts distinct keys until the first failed insert, over many seeds per bucket "
       "size; the load factor at the first failure must reach the claimed level.",
       {"filter"}},
      {"C4",
       "bits per item = f / load (unsorted), (f - 1) / load (semi-sorted); semi-sorted is "
       "below Bloom's 1.44 log2(1/eps) for eps < 3%; unsorted only where f / 0.95 is "
       "(eps <= 0.1% at b=4)",
       "Measures the space per stored item of full filters and of Bloom filters built for "
       "the same false positive rate. Semi-sorted rows (b = 4; eps = 2.5%, 1%, 0.3%, 0.1%) "
       "must be below a Bloom filter of the rate the filter reaches (Fan et al.'s "
       "statement). Unsorted rows (b = 4; eps = 2.5% down to 0.01%) are checked against "
       "the side of the target's Bloom figure that f / 0.95 predicts: above it for eps of "
       "0.3% and more, below it from 0.1% (docs/engines.md).",
       {"filter", "bloom"}},
      {"C5", "erase removes one copy; at most 2b copies of one item",
       "Inserts one item repeatedly: 2b copies are accepted, the next insert answers "
       "duplicate_limit and changes nothing; each erase removes exactly one copy.",
       {"filter"}},
      {"C6", "a failed insert loses nothing",
       "Drives tables and filters into failed inserts (tiny tables, few kicks) and checks, "
       "against the model, that every item present before a failed insert is still found "
       "after it and that no answer for a present item changed.",
       {"filter", "map", "classic", "smart"}},
      {"C7", "exact tables answer as the map model; no key stored twice",
       "Random op sequences (insert, insert_or_assign, find, erase, size, clear, resizes) "
       "run against each table and MapModel in lock step, with the table's own invariant "
       "check after every op; failures are shrunk to a replayable trace.",
       {"map", "classic", "smart"}},
      {"C8", "SmartCuckoo predicts a failing insert iff no placement exists",
       "Before each insert, SmartCuckoo's prediction is compared with PlacementOracle (one "
       "slot per bucket); a predicted failure must spend no kicks.",
       {"smart"}},
      {"C9", "classic random-walk cuckoo: false failures per load factor",
       "Counts the inserts the random walk gives up on although PlacementOracle says the "
       "items fit, per load factor; reported as a measurement against the oracle, beside "
       "SmartCuckoo on the same keys for comparison.",
       {"classic", "smart"}},
      {"C10", "concurrent variants are linearizable, race-free and deadlock-free",
       "Several threads run recorded histories (call and return stamps) against the "
       "concurrent filter and map, including hardware-transaction paths that abort at any "
       "point; every history must be linearizable against the model, and every run must "
       "finish.",
       {"concurrent-filter", "concurrent-map"}},
      {"C11", "serialization round trips; corrupt input is rejected",
       "Serializes and deserializes structures of many shapes and checks equality, then "
       "feeds truncated and bit-flipped bytes to the deserializer, which must reject each "
       "one with an error.",
       {"filter", "map", "bloom"}},
      {"C12", "Bloom baseline: false positive rate matches (1-e^(-kn/m))^k",
       "Fills Bloom filters of several sizes and k and checks the measured false positive "
       "count of never-inserted keys against the formula with a two-sided binomial bound.",
       {"bloom"}},
  };
}

}  // namespace

const std::vector<ClaimInfo>& claim_catalog() {
  static const std::vector<ClaimInfo> catalog = make_catalog();
  return catalog;
}

}  // namespace cuckoo::audit
