// GrowingCuckooFilter: a cuckoo filter that grows by adding levels (RedisBloom's
// EXPANSION) while its false-positive rate stays below a bound fixed at construction.
//
// Design
// ------
// Levels. The filter is a chain of CuckooFilter sub-filters, levels 0..L-1. Level l has
//     n_l = the power of two at or above ceil(capacity * expansion^l / b) buckets and
//     f_l = fingerprint_bits + l fingerprint bits,
// the same slots per bucket b, kick bound and seed, and CuckooFilter's nested placement
// rule with a prefix of f_0 bits (below). Each n_l is a power of two at least n_{l-1},
// so it is a multiple of every older level's. A level is built only when the newest one
// refuses an insert with kFull (its stash is full, CuckooFilter's only kFull); the
// insert is then retried in the new, empty level, where it always succeeds. Growth
// stops at max_levels, at the first level whose table CuckooFilterConfig rejects (too
// many buckets), or at the first level that would take the tables' bytes above
// max_memory_bytes: beyond it insert returns kFull and changes nothing.
//
// Hashing: nested identities. A key is hashed once, h = hash_of(key) (CuckooFilter's key
// hash, cuckoo_filter.hpp, "Hash derivation"), and every level derives its item
// (fingerprint and bucket pair) from that h with CuckooFilter's nested rule
// (cuckoo_filter.hpp, "Nested placement"), p = f_0:
//     fp_l = max(1, uint32(h) >> (32 - f_l))                the first f_l of 32 bits
//     i1_l = uint32(h >> 32) & (n_l - 1)                    the same bits at every level
//     alt_l(i, fp) = i xor (mix64(max(1, fp >> (f_l - f_0))) & (n_l - 1))
// The alternate offset hashes only the first f_0 bits of a fingerprint, which are the
// level-0 fingerprint of the same key. So, for l < m:
//     fp_l = max(1, fp_m >> (m - l)),   i1_l = i1_m mod n_l,   off_l = off_m mod n_l,
// and a bucket pair at level m reduced mod n_l is the pair at level l. Two keys with the
// same item at level m (the same fingerprint and the same bucket pair, in either order)
// therefore have the same item at every older level: identities are nested. A lookup of
// L levels costs one hash and L probes.
//
// The false-positive bound. Let q(f) = (2^f + 2) / 4^f, the probability that one occupied
// slot holds the fingerprint of a key never inserted (CuckooFilter, claim C2), and
//     B(f, n) = 1 - (1 - q(f))^(2b) + 4 q(f) (2/n + 2^-31)
// the bound of one level of n buckets (filter_false_positive_bound(): at most 2b occupied
// slots are compared, plus the 4 stash entries, each only when its bucket pair is the
// query's). For a key x never inserted, with n_l the bucket count of level l (n_l >= n_0):
//     P(contains(x)) <= sum_{l < L} B(f + l, n_l)                                      (1)
//                    <  (2b + 8/n_0 + 2^-29) * (2^(1-f) + (8/3) * 4^(-f))               (2)
// whatever the number of levels L and the load of each. Proof. contains(x) is true iff
// some level matches, so (1) is the union bound over the levels, each at most its
// B(f_l, n_l) (the union bound needs no independence between levels, which share h). For
// (2): 1 - (1 - q)^m <= m q (Bernoulli's inequality) and n_l >= n_0, so
// B(f_l, n_l) <= (2b + 8/n_0 + 2^-29) q(f_l); and q(f + l) = 2^(-f-l) + 2 * 4^(-f-l), whose
// two geometric series over all l >= 0 sum to 2^(1-f) + (8/3) 4^(-f); the sum over l < L
// is strictly smaller. With one more bit per level each level's share halves (the target
// split geometrically, r = 1/2), so the total is below twice the first level's own bound:
// at f = 12, b = 4 and a large level 0 the limit (2) is 0.391% for any number of levels;
// a RedisBloom-style chain with equal fingerprints would instead reach L * B(f). The
// stash term matters only for tiny first levels (8/n_0 against 2b). The statement is, as
// claim C2's, for keys whose hashes behave as random, averaged over the stored keys.
// info().false_positive_bound and false_positive_bound() report (1) for the levels built;
// false_positive_limit() reports (2); for_error_rate() picks the smallest f whose limit
// (2) is at most the target.
//
// Why one more bit per level, not a runtime fingerprint split: CuckooFilter takes f at
// run time (4..32), so a level is an ordinary CuckooFilter and every guarantee of that
// engine (no false negatives, bounded kicks, the stash, a failed insert loses nothing,
// serialization checks) holds per level unchanged. One bit per level is the geometric
// split with r = 1/2; a level's bits per item grow by one while its share of the target
// halves. The cost is the fingerprint limit: f + max_levels - 1 <= 32.
//
// Order of the levels, and why erase cannot lose another key. contains() probes the
// newest level first: the answer does not depend on the order (true iff some level
// matches), and with expansion >= 2 the newest level is the largest and holds most
// items, so a present key is usually found in the first probe; an absent key probes
// every level either way. erase(x) also goes newest first and removes one copy of x's
// item from the first level that holds it. That copy may be another key's: y's, stored
// at level m, with y's item at m equal to x's. It loses nothing. x has a copy at some
// level j (x was inserted and not erased); level j holds x's item, and erase stopped at
// the newest level holding it, so j <= m. By nesting, y's item at level j is x's item
// there, so x's copy at j answers for y, and y stays found. Put as an invariant kept by
// every insert, kick and erase: the copies stored can be matched one to one with the
// copies inserted and not erased so that each stored copy at level l carries the item,
// at l, of the key matched to it. erase(x) removes the copy at m; if it was matched to
// y, y takes over the copy matched to x (at j <= m, whose item at j is y's too) and x's
// match goes. Both parts matter: oldest first could stop at a level older than x's
// copy, and without nesting y's item at j could differ from x's (the defect of the
// first version of this filter, format version 1).
//
// Guarantees and caveats
// ----------------------
// - No false negatives (C1): every key inserted and not erased is found, across growth,
//   duplicates, failed inserts, erases and serialization, provided every erase was of a
//   key that was inserted. Erasing a key never inserted can remove another key's copy
//   (the caveat of every cuckoo filter): erase only keys you inserted.
// - The alternate bucket of a level hashes only the first f_0 fingerprint bits, so an
//   item's second bucket is one of 2^f_0 offsets from its first at every level, as in a
//   single cuckoo filter with f_0-bit fingerprints. For f_0 >= 6 a level fills to the
//   standard rule's load; with f_0 = 4 and b = 2, levels of 2^15 buckets and more fill
//   to about 0.66 instead of 0.88 (docs/growing-filter.md has the measurements).
// - Bucket counts are powers of two: a level may hold up to twice the slots asked for.
// - Duplicates: insert stores the copy in the newest level, which holds at most 2b (b
//   when its buckets coincide) copies of a fingerprint; beyond that insert answers
//   kDuplicateLimit without growing (a repeated key must not build levels). Copies
//   stored in older levels before a growth do not count against the newest level's
//   limit: max_copies(key) says how many copies insert accepts now.
// - A failed insert loses nothing (C6): kFull and kDuplicateLimit change no level;
//   std::bad_alloc while a level is built is reported as kFull (stats().allocation_failures)
//   with the filter unchanged.
// - Thread safety: none, as CuckooFilter's.
// - A moved-from filter may only be assigned to or destroyed.
#pragma once

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <new>
#include <optional>
#include <ranges>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/detail/serial.hpp"
#include "cuckoo/error.hpp"
#include "cuckoo/hash.hpp"
#include "cuckoo/status.hpp"

namespace cuckoo {

/// The configuration of a GrowingCuckooFilter: the first level's shape and the limits of
/// growth.
struct GrowingCuckooFilterConfig {
  /// The most levels any filter may have (f + max_levels - 1 <= 32 also bounds it).
  static constexpr unsigned kMaxLevelsLimit = 29;
  /// The largest expansion factor.
  static constexpr unsigned kMaxExpansion = 16;

  /// Fingerprint slots of level 0, rounded up to a power-of-two bucket count (level l:
  /// capacity * expansion^l, rounded the same way).
  std::uint64_t capacity = 0;
  /// Fingerprint bits of level 0, 4..32; level l has fingerprint_bits + l.
  unsigned fingerprint_bits = 12;
  /// Slots per bucket of every level: 1, 2, 4 or 8.
  unsigned slots_per_bucket = 4;
  /// Evictions per insert before the stash, every level; 1..kMaxKicksLimit.
  unsigned max_kicks = 500;
  /// Level l + 1 has expansion times the slots of level l; 1..kMaxExpansion (RedisBloom's
  /// EXPANSION; 1 adds levels of equal size).
  unsigned expansion = 2;
  /// The most levels, 1..kMaxLevelsLimit, with fingerprint_bits + max_levels - 1 <= 32.
  unsigned max_levels = 8;
  /// The most bytes the levels' tables may take together (CuckooFilter::memory_bytes()
  /// less the filter objects); 0: no limit. At least level 0's table.
  std::uint64_t max_memory_bytes = 0;
  /// Absent: random_seed(), readable through seed(). Every level uses this seed.
  std::optional<std::uint64_t> seed;

  /// The configuration whose false-positive limit (false_positive_limit(), any number of
  /// levels, for this capacity and b) is at most error_rate: the smallest such fingerprint_bits, and max_levels
  /// as large as that leaves room for (at most the default 8). If even 32 bits are not
  /// enough, fingerprint_bits is the first width that would be (above 32), which the
  /// constructor rejects with a ConfigError naming fingerprint_bits. Never throws.
  static GrowingCuckooFilterConfig for_error_rate(double error_rate, std::uint64_t capacity,
                                                  unsigned slots_per_bucket = 4) noexcept;
};

/// The limit (2) of the design comment: (2b + 8/n + 2^-29) * (2^(1-f) + (8/3) * 4^(-f)),
/// above the false-positive rate of a growing filter whose level 0 has f-bit
/// fingerprints and n buckets, for any number of levels. REQUIRES: 1 <= f <= 60, b >= 1,
/// n >= 1.
inline double growing_false_positive_limit(unsigned fingerprint_bits, unsigned slots_per_bucket,
                                           std::uint64_t bucket_count) noexcept {
  const double half = std::ldexp(1.0, -static_cast<int>(fingerprint_bits));
  const double compared = 2.0 * slots_per_bucket + 8.0 / static_cast<double>(bucket_count) +
                          std::ldexp(1.0, -29);
  return compared * (2.0 * half + (8.0 / 3.0) * half * half);
}

inline GrowingCuckooFilterConfig GrowingCuckooFilterConfig::for_error_rate(
    double error_rate, std::uint64_t capacity, unsigned slots_per_bucket) noexcept {
  GrowingCuckooFilterConfig c;
  c.capacity = capacity;
  c.slots_per_bucket = slots_per_bucket;
  const unsigned b = std::max(1U, slots_per_bucket);
  // Level 0's bucket count: ceil(capacity / b) rounded up to a power of two (2^62 at most
  // here; the constructor rejects what does not fit).
  const std::uint64_t wanted = std::max<std::uint64_t>(1, capacity / b + (capacity % b != 0 ? 1 : 0));
  const std::uint64_t buckets = std::bit_ceil(std::min<std::uint64_t>(wanted, std::uint64_t{1} << 62));
  unsigned f = CuckooFilterConfig::kMinFingerprintBits;
  // Bound: f stops at 33, the first width above the limit.
  while (f <= CuckooFilterConfig::kMaxFingerprintBits &&
         !(growing_false_positive_limit(f, b, buckets) <= error_rate)) {
    ++f;
  }
  c.fingerprint_bits = f;
  if (f <= CuckooFilterConfig::kMaxFingerprintBits) {
    c.max_levels = std::min(c.max_levels, CuckooFilterConfig::kMaxFingerprintBits - f + 1);
  }
  return c;
}

/// Counters since construction, clear() or the serialization they were read from. Each
/// level's own counters are level(i).stats().
struct GrowingCuckooFilterStats {
  /// Levels built by inserts (not counting level 0).
  std::uint64_t levels_added = 0;
  /// Inserts that returned kFull: the newest level was full and no level could be added.
  std::uint64_t full_rejections = 0;
  /// Levels whose allocation threw std::bad_alloc (each also a full rejection).
  std::uint64_t allocation_failures = 0;
  friend bool operator==(const GrowingCuckooFilterStats&, const GrowingCuckooFilterStats&) = default;
};

/// A chain of cuckoo filters that grows on demand with a bounded total false-positive
/// rate; see the design comment at the top of cuckoo/growing_filter.hpp. Allocator: every
/// level's table and the level array come from it (rebound), as in BasicCuckooFilter;
/// copies and moves follow std::vector's rules for the level array and
/// BasicCuckooFilter's for each level.
template <class Hasher = DefaultHasher, class Allocator = std::allocator<std::uint8_t>>
class BasicGrowingCuckooFilter
    : public detail::FilterKeyOps<BasicGrowingCuckooFilter<Hasher, Allocator>, Hasher> {
  using KeyOps = detail::FilterKeyOps<BasicGrowingCuckooFilter, Hasher>;

 public:
  /// One level.
  using Level = BasicCuckooFilter<Hasher, Allocator>;
  /// Counters (GrowingCuckooFilterStats).
  using Stats = GrowingCuckooFilterStats;
  /// The allocator the tables come from.
  using allocator_type = Allocator;

  /// Serialization format version (layout at serialize()).
  static constexpr std::uint8_t kFormatVersion = 2;

  /// Builds a filter with level 0 only. Throws ConfigError naming the field
  /// (fingerprint_bits, slots_per_bucket, capacity, max_kicks as CuckooFilter does;
  /// expansion, max_levels, max_memory_bytes) before anything is allocated.
  explicit BasicGrowingCuckooFilter(const GrowingCuckooFilterConfig& config,
                                    Hasher hasher = Hasher(), const Allocator& alloc = Allocator())
      : BasicGrowingCuckooFilter(validated(config), std::move(hasher), alloc, kBuildLevelZero) {}

  /// Copies every level (select_on_container_copy_construction for the allocator).
  BasicGrowingCuckooFilter(const BasicGrowingCuckooFilter&) = default;
  /// Takes the levels.
  BasicGrowingCuckooFilter(BasicGrowingCuckooFilter&&) = default;
  /// Copies every level; a throwing copy (std::bad_alloc) leaves this filter unchanged.
  BasicGrowingCuckooFilter& operator=(const BasicGrowingCuckooFilter& other) {
    if (this != &other) {
      BasicGrowingCuckooFilter copy(other);
      *this = std::move(copy);
    }
    return *this;
  }
  /// Takes the levels.
  BasicGrowingCuckooFilter& operator=(BasicGrowingCuckooFilter&&) = default;
  ~BasicGrowingCuckooFilter() = default;

  /// The allocator of the tables.
  allocator_type get_allocator() const noexcept { return allocator_type(levels_.get_allocator()); }

  // ---- Key-level operations (detail/filter_key_ops.hpp): each hashes the key once and
  // calls the hash-level operation below.
  //   insert(key): stores one more copy of key in the newest level, adding a level when
  //     that one is full. Returns kInserted; kDuplicateLimit when the newest level holds
  //     max copies of key's fingerprint (see max_copies); kFull when the newest level is
  //     full and no level can be added (max_levels, max_memory_bytes, the table size
  //     limit, or std::bad_alloc). On kDuplicateLimit and kFull nothing changed (only
  //     stats() move).
  //   contains(key): true if some level may hold key: always for a key inserted and not
  //     erased; for other keys with probability below info().false_positive_bound.
  //   erase(key): removes one copy of key's item from the newest level holding it
  //     (possibly another key's copy with that item there, which loses no key: see the
  //     design comment). False (nothing changed) when no level does. REQUIRES: key was
  //     inserted (see the caveats of the design comment).
  //   max_copies(key): the number of copies count(key) may reach before insert(key)
  //     answers kDuplicateLimit: the copies in older levels plus the newest level's
  //     limit (2b, b when key's two buckets there coincide).
  //   hash_of(key): the 64-bit hash every level derives buckets and fingerprint from.
  using KeyOps::contains;
  using KeyOps::erase;
  using KeyOps::hash_of;
  using KeyOps::insert;
  using KeyOps::max_copies;

  /// The copies matching key summed over the levels (each level's CuckooFilter::count):
  /// an upper bound on the copies of key inserted and not erased, exact when no other
  /// stored key shares key's fingerprint and buckets at a level (CF.COUNT).
  template <class Key>
    requires HasherFor<Hasher, Key>
  std::uint64_t count(const Key& key) const {
    return count_hash(hash_of(key));
  }

  /// Inserts key unless contains(key) is already true (CF.ADDNX): kExists, changing
  /// nothing, when contains(key) is true, which may be a false positive at any level (a
  /// key never inserted is then not stored, with probability below
  /// info().false_positive_bound); otherwise what insert(key) returns.
  template <class Key>
    requires HasherFor<Hasher, Key>
  InsertResult insert_if_absent(const Key& key) {
    return insert_if_absent_hash(hash_of(key));
  }

  /// Inserts the keys of a range in order until one is refused (CF.INSERT): see
  /// InsertManyResult. Levels are added as inserts need them; the refused key (kFull:
  /// no level could be added; kDuplicateLimit) and the keys after it are not stored and
  /// nothing is lost, so the caller can resume from keys[result.inserted].
  template <std::ranges::input_range Keys>
    requires HasherFor<Hasher, std::ranges::range_value_t<Keys>>
  InsertManyResult insert_many(Keys&& keys) {
    return this->template insert_each_until_refused<InsertManyResult>(std::forward<Keys>(keys));
  }

  // ---- Hash-level operations: the same as the key-level ones for a key whose hash is h.

  /// insert() for the key whose hash is h.
  InsertResult insert_hash(std::uint64_t h) {
    const InsertResult r = levels_.back().filter.insert_hash(h);
    if (r != InsertResult::kFull) [[likely]] return r;
    return insert_in_new_level(h);
  }

  /// contains() for the key whose hash is h: the levels newest first.
  bool contains_hash(std::uint64_t h) const noexcept {
    for (auto it = levels_.rbegin(); it != levels_.rend(); ++it) {  // bound: level_count()
      if (it->filter.contains_hash(h)) return true;
    }
    return false;
  }

  /// erase() for the key whose hash is h: the levels newest first.
  bool erase_hash(std::uint64_t h) {
    for (auto it = levels_.rbegin(); it != levels_.rend(); ++it) {  // bound: level_count()
      if (it->filter.erase_hash(h)) return true;
    }
    return false;
  }

  /// count() for the key whose hash is h.
  std::uint64_t count_hash(std::uint64_t h) const noexcept {
    std::uint64_t n = 0;
    for (const LevelSlot& l : levels_) n += l.filter.count_hash(h);  // bound: level_count()
    return n;
  }

  /// insert_if_absent() for the key whose hash is h.
  InsertResult insert_if_absent_hash(std::uint64_t h) {
    if (contains_hash(h)) return InsertResult::kExists;
    return insert_hash(h);
  }

  /// max_copies() for the key whose hash is h.
  std::uint64_t max_copies_of_hash(std::uint64_t h) const noexcept {
    const Level& newest = levels_.back().filter;
    return count_hash(h) - newest.count_hash(h) + newest.max_copies_of_hash(h);
  }

  // ---- Size, shape and configuration.

  /// Stored copies over all levels.
  std::uint64_t size() const noexcept {
    std::uint64_t n = 0;
    for (const LevelSlot& l : levels_) n += l.filter.size();  // bound: level_count()
    return n;
  }
  /// size() == 0.
  bool empty() const noexcept { return size() == 0; }
  /// Fingerprint slots over the levels built.
  std::uint64_t slot_count() const noexcept {
    std::uint64_t n = 0;
    for (const LevelSlot& l : levels_) n += l.filter.slot_count();  // bound: level_count()
    return n;
  }
  /// size() / slot_count().
  double load_factor() const noexcept {
    return static_cast<double>(size()) / static_cast<double>(slot_count());
  }
  /// The levels built, 1..max_levels().
  unsigned level_count() const noexcept { return static_cast<unsigned>(levels_.size()); }
  /// Level i (0 the oldest). REQUIRES: i < level_count().
  const Level& level(unsigned i) const noexcept {
    assert(i < levels_.size());
    return levels_[i].filter;
  }
  /// The most levels this configuration can ever build: max_levels, or fewer when a
  /// level's table would exceed the table size limit or max_memory_bytes.
  unsigned reachable_levels() const noexcept { return reachable_levels_; }
  /// The configuration it was built with (seed filled in).
  const GrowingCuckooFilterConfig& config() const noexcept { return config_; }
  /// Level 0's fingerprint bits.
  unsigned fingerprint_bits() const noexcept { return config_.fingerprint_bits; }
  /// Slots per bucket of every level.
  unsigned slots_per_bucket() const noexcept { return config_.slots_per_bucket; }
  /// The configured level limit.
  unsigned max_levels() const noexcept { return config_.max_levels; }
  /// The seed of every level.
  std::uint64_t seed() const noexcept { return *config_.seed; }
  /// The hasher.
  const Hasher& hasher() const noexcept { return hasher_; }
  /// True for a filter read from bytes whose levels were written in CuckooFilter's
  /// format version 4 (or from a later serialization of such a filter): every key is
  /// hashed by seeded_hash, as those bytes were; see CuckooFilter::legacy_key_hash().
  /// Levels added later hash as the ones read.
  bool legacy_key_hash() const noexcept { return levels_.front().filter.legacy_key_hash(); }
  /// Counters of growth and refusals.
  const Stats& stats() const noexcept { return stats_; }
  /// The table bytes of the levels built (what max_memory_bytes limits).
  std::uint64_t table_bytes() const noexcept {
    std::uint64_t n = 0;
    for (unsigned l = 0; l < levels_.size(); ++l) n += level_table_bytes(l);  // bound: levels
    return n;
  }
  /// The tables, the level objects and this object.
  std::size_t memory_bytes() const noexcept {
    return static_cast<std::size_t>(table_bytes()) + levels_.capacity() * sizeof(LevelSlot) +
           sizeof(*this);
  }
  /// Bound (1) of the design comment for the levels built: the sum of each level's C2
  /// bound. Grows with the levels, always below false_positive_limit().
  double false_positive_bound() const noexcept {
    double sum = 0;
    for (const LevelSlot& l : levels_) {  // bound: level_count()
      sum += filter_false_positive_bound(l.filter.fingerprint_bits(), l.filter.slots_per_bucket(),
                                         l.filter.bucket_count(), Level::kStashSlots);
    }
    return sum;
  }
  /// Limit (2) of the design comment: above the false-positive rate for any number of
  /// levels.
  double false_positive_limit() const noexcept {
    return growing_false_positive_limit(config_.fingerprint_bits, config_.slots_per_bucket,
                                        levels_.front().filter.bucket_count());
  }
  /// Shape, fill, levels, memory and false_positive_bound() in one struct (CF.INFO).
  CuckooFilterInfo info() const noexcept {
    CuckooFilterInfo i;
    for (const LevelSlot& l : levels_) {  // bound: level_count()
      i.capacity += l.filter.slot_count();
      i.size += l.filter.size();
      i.buckets += l.filter.bucket_count();
    }
    i.slots_per_bucket = config_.slots_per_bucket;
    i.fingerprint_bits = levels_.back().filter.fingerprint_bits();
    i.min_fingerprint_bits = config_.fingerprint_bits;
    i.load_factor = static_cast<double>(i.size) / static_cast<double>(i.capacity);
    i.levels = level_count();
    i.memory_bytes = memory_bytes();
    i.false_positive_bound = false_positive_bound();
    return i;
  }

  /// The configuration of level l (capacity rounded to its power-of-two bucket count,
  /// fingerprint bits, b, kicks, seed, nested_prefix_bits = level 0's fingerprint bits),
  /// whether or not it is built; nothing when l >= reachable_levels().
  std::optional<CuckooFilterConfig> level_config(unsigned l) const noexcept {
    if (l >= reachable_levels_) return std::nullopt;
    return level_config_of(config_, l);
  }

  /// Where level l places the key whose hash is h (its buckets and fingerprint), whether
  /// or not level l is built; nothing when l >= reachable_levels(). For the verification
  /// suite (which keys a level can tell apart).
  std::optional<CuckooFilterPlacement> placement_at_level(unsigned l, std::uint64_t h) const noexcept {
    if (l >= reachable_levels_) return std::nullopt;
    if (l < levels_.size()) return levels_[l].filter.placement_of_hash(h);
    const CuckooFilterConfig c = level_config_of(config_, l);
    const auto buckets = static_cast<std::uint32_t>(bucket_count_for(c));
    return detail::FilterHashRule(buckets, c.fingerprint_bits, c.nested_prefix_bits).placement(h);
  }

  /// Empties the filter: level 0 cleared, the other levels freed, stats() reset; it then
  /// behaves as a freshly constructed filter with the same configuration and seed.
  void clear() noexcept {
    levels_.erase(levels_.begin() + 1, levels_.end());
    levels_.front().filter.clear();
    stats_ = {};
  }

  // ---- Serialization.
  //
  // The shared envelope (detail/serial.hpp), kind kGrowingCuckooFilter, version
  // kFormatVersion (2). Payload, little-endian:
  //   u8  fingerprint_bits (level 0)   u8 slots_per_bucket   u8 expansion   u8 max_levels
  //   u32 max_kicks    u64 capacity (level 0)    u64 max_memory_bytes    u64 seed
  //   u64 x 3 stats: levels_added, full_rejections, allocation_failures
  //   u8  level count
  //   per level: u8 level index, u64 byte length, then that many bytes: the level's own
  //       CuckooFilter serialization (its envelope and checksum included; the nested
  //       rule; version 5, or 4 in bytes written before CuckooFilter's version 5, whose
  //       keys are hashed by seeded_hash: legacy_key_hash()). Every level has level 0's
  //       key hash.
  // Version 1 (levels with CuckooFilter's standard rule, whose erase could lose a key)
  // is rejected with kUnsupportedVersion: its items sit where the nested rule does not
  // look.
  // A deserialized filter equals the original and, given the same hasher, behaves
  // identically on every later operation.

  /// The filter's bytes (layout above).
  std::vector<std::uint8_t> serialize() const {
    detail::ByteWriter w;
    w.u8(static_cast<std::uint8_t>(config_.fingerprint_bits));
    w.u8(static_cast<std::uint8_t>(config_.slots_per_bucket));
    w.u8(static_cast<std::uint8_t>(config_.expansion));
    w.u8(static_cast<std::uint8_t>(config_.max_levels));
    w.u32(config_.max_kicks);
    w.u64(config_.capacity);
    w.u64(config_.max_memory_bytes);
    w.u64(*config_.seed);
    w.u64(stats_.levels_added);
    w.u64(stats_.full_rejections);
    w.u64(stats_.allocation_failures);
    w.u8(static_cast<std::uint8_t>(levels_.size()));
    for (unsigned l = 0; l < levels_.size(); ++l) {  // bound: level_count()
      const std::vector<std::uint8_t> bytes = levels_[l].filter.serialize();
      w.u8(static_cast<std::uint8_t>(l));
      w.u64(bytes.size());
      w.raw(bytes.data(), bytes.size());
    }
    return detail::seal_envelope(detail::StructureKind::kGrowingCuckooFilter, kFormatVersion, w);
  }

  /// Rebuilds a filter from serialize() output. Throws DeserializeError: kTruncated,
  /// kBadMagic, kWrongKind, kUnsupportedVersion, kChecksumMismatch, kTrailingBytes from
  /// the envelope and payload reader; kBadConfig naming the field when the stored
  /// configuration is one the constructor rejects; kInconsistent when the level count is
  /// 0 or above what the configuration can build, a level's index is out of order, its
  /// byte length overruns the payload, or its configuration (fingerprint bits, slots,
  /// bucket count, kicks, seed, nested rule) is not the one the configuration gives that level
  /// or its key hash (legacy_key_hash()) is not level 0's; a
  /// level's own error (CuckooFilter::deserialize) with "level i: " in front and its
  /// code kept. The hasher must be the original's for key-level answers to match.
  static BasicGrowingCuckooFilter deserialize(std::span<const std::uint8_t> bytes,
                                              Hasher hasher = Hasher(),
                                              const Allocator& alloc = Allocator()) {
    detail::ByteReader r = detail::open_envelope(bytes, detail::StructureKind::kGrowingCuckooFilter,
                                                 kFormatVersion, "growing cuckoo filter");
    GrowingCuckooFilterConfig c;
    c.fingerprint_bits = r.u8("fingerprint_bits");
    c.slots_per_bucket = r.u8("slots_per_bucket");
    c.expansion = r.u8("expansion");
    c.max_levels = r.u8("max_levels");
    c.max_kicks = r.u32("max_kicks");
    c.capacity = r.u64("capacity");
    c.max_memory_bytes = r.u64("max_memory_bytes");
    c.seed = r.u64("seed");
    Stats stats;
    stats.levels_added = r.u64("stats.levels_added");
    stats.full_rejections = r.u64("stats.full_rejections");
    stats.allocation_failures = r.u64("stats.allocation_failures");
    try {
      c = validated(c);
    } catch (const ConfigError& e) {
      throw DeserializeError(DeserializeErrc::kBadConfig, e.what());
    }
    const unsigned level_count = r.u8("level count");
    BasicGrowingCuckooFilter f(c, std::move(hasher), alloc, kNoLevels);
    detail::require_consistent(level_count >= 1 && level_count <= f.reachable_levels_,
                               "level count is " + std::to_string(level_count) +
                                   "; this configuration builds 1.." +
                                   std::to_string(f.reachable_levels_) + " levels");
    f.levels_.reserve(level_count);
    for (unsigned l = 0; l < level_count; ++l) {  // bound: level_count <= kMaxLevelsLimit
      const std::string which = "level " + std::to_string(l) + ": ";
      const unsigned index = r.u8("level index");
      detail::require_consistent(index == l, which + "index byte is " + std::to_string(index));
      const std::uint64_t length = r.u64("level byte length");
      detail::require_consistent(length <= r.remaining(),
                                 which + "byte length " + std::to_string(length) + " overruns the " +
                                     std::to_string(r.remaining()) + " bytes left");
      const auto level_bytes = r.raw(static_cast<std::size_t>(length), "level bytes");
      std::optional<Level> level;
      try {
        level.emplace(Level::deserialize(level_bytes, f.hasher_, alloc));
      } catch (const DeserializeError& e) {
        throw DeserializeError(e.code(), which + e.what());
      }
      const CuckooFilterConfig want = level_config_of(c, l);
      detail::require_consistent(
          level->fingerprint_bits() == want.fingerprint_bits &&
              level->slots_per_bucket() == want.slots_per_bucket &&
              level->bucket_count() == bucket_count_for(want) &&
              level->max_kicks() == want.max_kicks && level->seed() == *want.seed &&
              level->nested_prefix_bits() == want.nested_prefix_bits && !level->semi_sorted(),
          which + "its configuration (fingerprint_bits " + std::to_string(level->fingerprint_bits()) +
              ", slots_per_bucket " + std::to_string(level->slots_per_bucket()) + ", bucket_count " +
              std::to_string(level->bucket_count()) + ", max_kicks " +
              std::to_string(level->max_kicks()) + ", nested_prefix_bits " +
              std::to_string(level->nested_prefix_bits()) + ", its seed, unsorted) is not the one "
              "the filter's configuration gives level " + std::to_string(l) + " (fingerprint_bits " +
              std::to_string(want.fingerprint_bits) + ", bucket_count " +
              std::to_string(bucket_count_for(want)) + ", nested_prefix_bits " +
              std::to_string(want.nested_prefix_bits) + ")");
      detail::require_consistent(
          l == 0 || level->legacy_key_hash() == f.levels_.front().filter.legacy_key_hash(),
          which + "its key hash (" +
              std::string(level->legacy_key_hash() ? "seeded_hash for every key"
                                                   : "one round for integer keys") +
              ") is not level 0's");
      f.levels_.push_back(LevelSlot{std::move(*level)});
    }
    r.expect_end("the last level");
    f.stats_ = stats;
    return f;
  }

  /// Equal configuration, seed and levels (each compared as CuckooFilter's ==). Stats
  /// and the hasher are not compared.
  friend bool operator==(const BasicGrowingCuckooFilter& a, const BasicGrowingCuckooFilter& b) noexcept {
    const GrowingCuckooFilterConfig& x = a.config_;
    const GrowingCuckooFilterConfig& y = b.config_;
    if (x.capacity != y.capacity || x.fingerprint_bits != y.fingerprint_bits ||
        x.slots_per_bucket != y.slots_per_bucket || x.max_kicks != y.max_kicks ||
        x.expansion != y.expansion || x.max_levels != y.max_levels ||
        x.max_memory_bytes != y.max_memory_bytes || x.seed != y.seed ||
        a.levels_.size() != b.levels_.size()) {
      return false;
    }
    for (std::size_t l = 0; l < a.levels_.size(); ++l) {  // bound: level_count()
      if (!(a.levels_[l].filter == b.levels_[l].filter)) return false;
    }
    return true;
  }

 private:
  // A level in the array. The wrapper has no allocator_type, so a scoped allocator (a
  // std::pmr::polymorphic_allocator) does not try to pass itself to the level's move
  // constructor, which takes none.
  struct LevelSlot {
    Level filter;
  };
  using SlotAllocator = typename std::allocator_traits<Allocator>::template rebind_alloc<LevelSlot>;

  enum BuildLevelZero { kBuildLevelZero, kNoLevels };

  BasicGrowingCuckooFilter(const GrowingCuckooFilterConfig& valid, Hasher hasher,
                           const Allocator& alloc, BuildLevelZero build)
      : hasher_(std::move(hasher)), config_(valid), levels_(SlotAllocator(alloc)) {
    reachable_levels_ = count_reachable_levels(config_);
    if (build == kBuildLevelZero) {
      levels_.reserve(1);
      levels_.push_back(LevelSlot{Level(level_config_of(config_, 0), hasher_, alloc)});
    }
  }

  // The configuration with its seed drawn, or ConfigError naming the first invalid field.
  static GrowingCuckooFilterConfig validated(GrowingCuckooFilterConfig c) {
    using G = GrowingCuckooFilterConfig;
    if (!c.seed) c.seed = random_seed();
    // As given first, so that an error names the capacity the caller chose; then rounded.
    detail::validate_cuckoo_filter_config(requested_level_config(c, 0));
    detail::validate_cuckoo_filter_config(level_config_of(c, 0));
    if (c.expansion < 1 || c.expansion > G::kMaxExpansion) {
      throw ConfigError("expansion", "is " + std::to_string(c.expansion) + "; allowed 1.." +
                                         std::to_string(G::kMaxExpansion));
    }
    const unsigned room = CuckooFilterConfig::kMaxFingerprintBits - c.fingerprint_bits + 1;
    const unsigned most = std::min(G::kMaxLevelsLimit, room);
    if (c.max_levels < 1 || c.max_levels > most) {
      throw ConfigError("max_levels", "is " + std::to_string(c.max_levels) + "; allowed 1.." +
                                          std::to_string(most) + " (at most " +
                                          std::to_string(G::kMaxLevelsLimit) +
                                          ", and fingerprint_bits + max_levels - 1 <= 32)");
    }
    const std::uint64_t first = table_bytes_of(level_config_of(c, 0));
    if (c.max_memory_bytes != 0 && c.max_memory_bytes < first) {
      throw ConfigError("max_memory_bytes", "is " + std::to_string(c.max_memory_bytes) +
                                                ", below level 0's table of " +
                                                std::to_string(first) + " bytes; allowed 0 (no limit) or at least that");
    }
    return c;
  }

  // Level l's configuration. REQUIRES: l < kMaxLevelsLimit; the capacity saturates at
  // 2^64 - 1 (which the table size check then refuses).
  static CuckooFilterConfig level_config_of(const GrowingCuckooFilterConfig& c, unsigned l) noexcept {
    CuckooFilterConfig level = requested_level_config(c, l);
    level.capacity = nested_capacity(level.capacity, level.slots_per_bucket);
    level.nested_prefix_bits = c.fingerprint_bits;
    return level;
  }

  // Level l as requested: capacity * expansion^l slots, f + l bits, the standard rule.
  static CuckooFilterConfig requested_level_config(const GrowingCuckooFilterConfig& c,
                                                   unsigned l) noexcept {
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
    CuckooFilterConfig level;
    std::uint64_t capacity = c.capacity;
    for (unsigned i = 0; i < l; ++i) {  // bound: l < kMaxLevelsLimit
      capacity = capacity > kMax / c.expansion ? kMax : capacity * c.expansion;
    }
    level.capacity = capacity;
    level.fingerprint_bits = c.fingerprint_bits + l;
    level.slots_per_bucket = c.slots_per_bucket;
    level.max_kicks = c.max_kicks;
    level.seed = c.seed;
    return level;
  }

  // The capacity of ceil(capacity / b) buckets rounded up to a power of two (the nested
  // rule's bucket counts, each dividing the next level's); saturates at 2^64 - 1, which
  // the table size check refuses. 0 and an invalid b are returned as they are, for the
  // validation to name.
  static std::uint64_t nested_capacity(std::uint64_t capacity, unsigned b) noexcept {
    constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();
    if (capacity == 0 || !detail::valid_slots_per_bucket(b)) return capacity;
    const std::uint64_t buckets = capacity / b + (capacity % b != 0 ? 1 : 0);
    if (buckets > (std::uint64_t{1} << 62)) return kMax;
    const std::uint64_t rounded = std::bit_ceil(buckets);
    return rounded > kMax / b ? kMax : rounded * b;
  }

  static std::uint64_t bucket_count_for(const CuckooFilterConfig& c) noexcept {
    return c.capacity / c.slots_per_bucket + (c.capacity % c.slots_per_bucket != 0 ? 1 : 0);
  }

  // Level's table bytes (data and padding), or the maximum when it has too many buckets.
  static std::uint64_t table_bytes_of(const CuckooFilterConfig& c) noexcept {
    const std::uint64_t buckets = bucket_count_for(c);
    if (buckets > CuckooFilterConfig::kMaxBucketCount) return std::numeric_limits<std::uint64_t>::max();
    return detail::cuckoo_filter_table_bytes(buckets, c.slots_per_bucket, c.fingerprint_bits);
  }

  std::uint64_t level_table_bytes(unsigned l) const noexcept {
    return table_bytes_of(level_config_of(config_, l));
  }

  // Levels 0..n-1 can all be built: each within max_levels, CuckooFilter's table limit
  // and, together, max_memory_bytes. REQUIRES: a validated configuration.
  static unsigned count_reachable_levels(const GrowingCuckooFilterConfig& c) noexcept {
    std::uint64_t total = 0;
    unsigned n = 0;
    for (; n < c.max_levels; ++n) {  // bound: max_levels <= kMaxLevelsLimit
      const std::uint64_t bytes = table_bytes_of(level_config_of(c, n));
      if (bytes > detail::cuckoo_filter_table_byte_limit()) break;
      if (c.max_memory_bytes != 0 && (bytes > c.max_memory_bytes || total > c.max_memory_bytes - bytes)) break;
      total += bytes;
    }
    return n;
  }

  // The newest level answered kFull: add a level and insert there, or kFull.
  [[gnu::noinline]] InsertResult insert_in_new_level(std::uint64_t h) {
    if (levels_.size() >= reachable_levels_) {
      ++stats_.full_rejections;
      return InsertResult::kFull;
    }
    try {
      // Built before the array changes, and the array's room reserved before the level
      // goes in: std::bad_alloc from either leaves the filter as it was.
      Level fresh(level_config_of(config_, static_cast<unsigned>(levels_.size())), hasher_,
                  get_allocator());
      if (legacy_key_hash()) fresh.use_legacy_key_hash();
      levels_.reserve(levels_.size() + 1);
      levels_.push_back(LevelSlot{std::move(fresh)});
    } catch (const std::bad_alloc&) {
      ++stats_.allocation_failures;
      ++stats_.full_rejections;
      return InsertResult::kFull;
    }
    ++stats_.levels_added;
    const InsertResult r = levels_.back().filter.insert_hash(h);
    assert(r == InsertResult::kInserted);  // an empty level takes any item
    return r;
  }

  Hasher hasher_;
  GrowingCuckooFilterConfig config_;
  unsigned reachable_levels_ = 0;
  std::vector<LevelSlot, SlotAllocator> levels_;
  Stats stats_{};
};

/// The growing filter with the default hasher and allocator.
using GrowingCuckooFilter = BasicGrowingCuckooFilter<>;

}  // namespace cuckoo
