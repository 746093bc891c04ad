// CuckooFilter: a partial-key cuckoo filter (Fan, Andersen, Kaminsky, Mitzenmacher,
// "Cuckoo Filter: Practically Better Than Bloom", CoNEXT 2014) with a small stash.
//
// An approximate-membership multiset. insert(x) stores an f-bit fingerprint of x in one
// of x's two candidate buckets of b slots; contains(x) answers "maybe present" when a
// candidate bucket (or the stash) holds that fingerprint, and never answers "absent" for
// an item that was inserted and not erased (no false negatives, claim C1). erase(x)
// removes one copy. The fingerprint width f (4..32) and the slots per bucket b (1, 2, 4,
// 8) are runtime parameters, so one binary serves every configuration read from a
// config or from serialized bytes.
//
// Design
// ------
// Hash derivation. Each key is hashed once to 64 bits: an integer or enum key under
// DefaultHasher by one mix round, h = mix64(uint64(key) ^ (seed * c)), any other key
// by h = seeded_hash(hasher, key, seed); why, and the constant c, in hash.hpp
// (detail::one_round_key_hash). (A filter read from bytes of format version 4 or older
// hashes every key by seeded_hash, as they were written: legacy_key_hash().) With n the
// bucket count and f the fingerprint width:
//     i1 = reduce32(uint32(h >> 32), n)               (Lemire multiply-shift, hash.hpp)
//     fp = h & (2^f - 1), and fp = 1 if that is 0     (0 marks an empty slot)
//     t(fp) = reduce32(uint32(fp * 0x9e3779b9), n)      (Fibonacci hashing)
//     alt_bucket(i, fp) = (t(fp) - i) mod n
//     i2 = alt_bucket(i1, fp)
// alt_bucket is an involution for every n (alt_bucket(alt_bucket(i, fp), fp) == i), so a
// fingerprint evicted from either of its buckets finds the other one from the
// fingerprint alone; unlike Fan et al.'s i1 xor H(fp) it needs no power-of-two bucket
// count. When i1 == i2 the item has a single bucket. The index uses the high 32 bits of
// h and the fingerprint the low f bits, so the two are independent.
//
// Nested placement (CuckooFilterConfig::nested_prefix_bits = p, off by default; taken by
// GrowingCuckooFilter's levels). With n a power of two:
//     fp = max(1, uint32(h) >> (32 - f))     (the high f of the low 32 bits)
//     i1 = uint32(h >> 32) & (n - 1)
//     alt_bucket(i, fp) = i xor (mix64(max(1, fp >> (f - p))) & (n - 1))
// Filters with one seed, p and hash but wider f and more buckets then refine each other:
// equal fingerprints at width f imply equal ones at any narrower width, and a bucket
// pair at n buckets, reduced mod a smaller power of two, is the pair there (the offset
// hashes the first p bits only, and masking commutes with xor).
//
// Storage. detail::PackedTable: buckets contiguous in one bit-packed byte array (f * b
// bits per bucket, no per-bucket padding), matched with a SWAR word test; see
// detail/packed_table.hpp. With CuckooFilterConfig::semi_sorted, a b = 4 bucket is
// 4f - 4 bits (detail/semi_sorted.hpp), probed by a compiled semi-sorted shape at f = 8,
// 12 and 16 (below) and by PackedTable::semi_contains() on the out-of-line generic path
// otherwise.
//
// Insert. A fast path stores the item in bucket i1 without reading i2 when that cannot
// take it past its copy limit; otherwise the copy limit is checked, then an empty slot
// in i1 or i2, then a bounded kick-out walk whose last homeless fingerprint goes to the
// stash (detail/filter_kick.hpp). A kick-out never loses an item (claim C6).
//
// Batched lookup. contains_many() keeps many keys' cache misses in flight instead of one
// key's, which is what bounds one-key-at-a-time lookup in a table larger than the cache.
// For compiled and one-word shapes (below) with an empty stash it is a pipeline: while
// key i is probed, key i + kBatchAhead is hashed, placed and both its buckets
// prefetched; a ring of kBatchAhead entries keeps each key's bucket positions and
// fingerprint between the two, and the probe is the compiled shape's or
// PackedTable::OneWordProbe::holds, contains_one_word's own test (one dispatch per
// batch). Otherwise (wider buckets, or stashed items) it hashes and prefetches a group
// of kBatchGroup keys, then probes the group with holds_fingerprint(), the code contains()
// runs. Either way the answers are contains()'s (tested for every shape and length).
//
// Compiled shapes. f and b are runtime values, but the shapes in common use (f = 8, 12,
// 16 with b = 2 and 4; f = 8, b = 8; f = 32, b = 2; semi-sorted buckets at f = 8, 12
// and 16) have a lookup compiled with f and b as constants (detail/filter_shapes.hpp):
// the fingerprint mask and SWAR masks are immediates and a bucket is one load (at a
// whole byte; a semi-sorted one at bit 0 or 4 of its first byte). The constructor and deserialize()
// pick the shape once (detail::filter_shape_id; the table's layout and bytes are the
// same whatever is picked); contains() switches on it (a jump table that a caller's loop
// hoists or predicts), contains_many() once per batch. The compiled probes read no
// stash: while the stash holds items, lookups dispatch to the generic path (every change
// of the stash between empty and not calls stash_changed()). contains() and
// contains_hash() are always inline, so a caller's loop keeps the shape, the table
// pointer and the seed in registers at -O2 as at -O3.
//
// One-word probes. The other shapes: when a bucket with its offset within a byte fits
// one 64-bit word (f * b <= 57, or f * b a multiple of 8 up to 64), the generic path
// reads each bucket with one load and tests it with the SWAR match using the table's
// masks (PackedTable::contains_one_word), both buckets without a branch between them.
// Wider buckets take the chunked loop. The answer is the same on every path (tested
// against the per-slot reference, and compiled against generic in
// engine/tests/filter_shapes_test.cpp); hashing and placement are shared code.
//
// Stash. kStashSlots entries of (fingerprint, bucket1, bucket2). contains() consults it
// after both buckets, on the generic path (which every lookup takes while the stash is
// not empty) behind one "stash empty" branch; erase() removes from it when
// neither bucket holds the fingerprint. After an erase frees a table slot, every stash
// entry is offered its two buckets again (direct placement only, no kicks), so the stash
// drains as the table empties.
//
// Guarantees and caveats
// ----------------------
// - No false negatives (C1) in every configuration, across duplicates, erases, failed
//   inserts and serialization.
// - False positive rate: a query compares its fingerprint with the occupied slots of two
//   buckets (at most 2b) and with stash entries of the same bucket pair. Because hash
//   value 0 maps to fingerprint 1, fingerprint 1 has probability 2/2^f and every other
//   nonzero value 1/2^f, so one occupied slot matches a random absent key with
//   probability q = (2^f + 2) / 4^f (about 2^-f; 12.5% above it for f = 4, under 1%
//   for f >= 8). The rate is about 1 - (1 - q)^(2b * load): about 2b / 2^f at full load
//   and load * 2b / 2^f below it (C2).
// - Reachable load before the first kick failure, for large tables and max_kicks = 500:
//   about 50% (b = 1), 84% (b = 2), 95% (b = 4), 98% (b = 8) (C3). Bits per item =
//   f / load, or (f - 1) / load with semi-sorted buckets (C4).
// - Duplicates: one item may be stored at most max_copies(key) times (C5).
// - Erasing a key that was never inserted can remove a copy of another key that shares
//   its fingerprint and a bucket: erase only keys you inserted (the standard cuckoo
//   filter caveat). Such an erase can then cause that other key to be reported absent.
// - Thread safety: none. Const member functions may run concurrently with each other;
//   anything that runs concurrently with a non-const call needs external locking.
// - A moved-from filter may only be assigned to or destroyed.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <ranges>
#include <span>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "detail/filter_hash_rule.hpp"
#include "detail/filter_key_ops.hpp"
#include "detail/filter_shapes.hpp"
#include "detail/packed_table.hpp"
#include "detail/rng.hpp"
#include "detail/serial.hpp"
#include "error.hpp"
#include "hash.hpp"
#include "status.hpp"

namespace cuckoo {

/// The configuration of a CuckooFilter: capacity, fingerprint bits f, slots per bucket b,
/// the kick bound, the seed and the table's layout and pages. Checked at construction
/// (before anything is allocated): an invalid value throws ConfigError naming the field.
struct CuckooFilterConfig {
  /// The smallest fingerprint_bits, 4.
  static constexpr unsigned kMinFingerprintBits = detail::PackedTable::kMinBits;
  /// The largest fingerprint_bits, 32.
  static constexpr unsigned kMaxFingerprintBits = detail::PackedTable::kMaxBits;
  /// The largest max_kicks, 2^20.
  static constexpr unsigned kMaxKicksLimit = 1U << 20;
  /// The most buckets a filter may have, 2^32 - 1 (bucket indices are 32-bit).
  static constexpr std::uint64_t kMaxBucketCount = 0xffffffffULL;
  /// The largest table the constructor allocates (data plus padding), 64 GiB.
  static constexpr std::uint64_t kMaxTableBytes = std::uint64_t{1} << 36;

  /// Fingerprint slots wanted; rounded up to whole buckets, bucket_count =
  /// ceil(capacity / slots_per_bucket). Any bucket count from 1 to kMaxBucketCount whose
  /// table fits in kMaxTableBytes (ConfigError naming "capacity" otherwise, and for 0).
  std::uint64_t capacity = 0;
  /// Fingerprint bits f: kMinFingerprintBits..kMaxFingerprintBits.
  unsigned fingerprint_bits = 12;
  /// Slots per bucket b: 1, 2, 4 or 8.
  unsigned slots_per_bucket = 4;
  /// Evictions per insert before the last homeless fingerprint goes to the stash;
  /// 1..kMaxKicksLimit.
  unsigned max_kicks = 500;
  /// The hash seed. Absent: random_seed() at construction, readable through seed().
  std::optional<std::uint64_t> seed;
  /// Back the table with transparent huge pages when it is at least 2 MiB: 2 MiB aligned
  /// and madvise(MADV_HUGEPAGE) on Linux (elsewhere, or if the kernel refuses, ordinary
  /// pages). A lookup touches two random buckets, so at 10M items with 4 KiB pages almost
  /// every probe also misses the TLB; huge pages remove most of those walks. Off by
  /// default: with THP in "madvise" mode the first touch of each huge page may compact
  /// memory (a latency spike at construction), and the table may keep up to 2 MiB more
  /// resident than it uses. Not serialized and not compared: a deserialized filter uses
  /// ordinary pages, and equal contents compare equal whatever this says.
  bool huge_pages = false;
  /// Semi-sorted buckets (Fan et al., section 5.2): each bucket's fingerprints are kept
  /// sorted by their low 4 bits and those 4 nibbles stored as one 12-bit code, so a slot
  /// costs f - 1 bits instead of f (bits_per_item() about (f - 1) / load). Same answers,
  /// same false-positive rate, same load at the first failure; lookups decode the nibble
  /// code through an 8 KiB table (one load for f <= 16) and inserts and erases re-encode
  /// the bucket. Requires slots_per_bucket = 4 and fingerprint_bits >= 5 (ConfigError
  /// naming "semi_sorted" otherwise). Serialized. Slot numbers (fingerprint_at) follow the
  /// sorted order. The coarse concurrent filter (a CuckooFilter under a lock) has it too;
  /// the striped concurrent filter rejects it.
  bool semi_sorted = false;
  /// The nested placement rule (design comment, "Nested placement") with a p-bit prefix:
  /// 0, the default, keeps the standard rule; otherwise 4..fingerprint_bits, and the
  /// bucket count ceil(capacity / slots_per_bucket) must be a power of two (ConfigError
  /// naming "nested_prefix_bits" otherwise). For GrowingCuckooFilter's levels. Serialized
  /// (the nested_prefix_bits byte, format version 5; version 4 bytes are read). The
  /// striped and lock-free concurrent filters reject it.
  unsigned nested_prefix_bits = 0;

  /// The load at which for_items() plans a table to hold its items, in thousandths:
  /// slightly below the loads reachable before the first kick failure (50%, 84%, 95%,
  /// 98% for b = 1, 2, 4, 8), so that the planned items fit with margin: 450, 800, 920
  /// and 950 for b = 1, 2, 4 and 8 (450 for any other b, which the constructor rejects).
  static constexpr unsigned planning_load_permille(unsigned slots_per_bucket) noexcept {
    switch (slots_per_bucket) {
      case 2: return 800;
      case 4: return 920;
      case 8: return 950;
      default: return 450;  // b = 1 (and invalid values, which the constructor rejects)
    }
  }

  /// A configuration sized to hold `items` items: capacity = max(1, ceil(items /
  /// planning load)), with the given f and b and the other fields at their defaults.
  /// Never throws; an impossible size is reported by the constructor.
  static constexpr CuckooFilterConfig for_items(std::uint64_t items,
                                                unsigned fingerprint_bits = 12,
                                                unsigned slots_per_bucket = 4) noexcept {
    CuckooFilterConfig c;
    c.fingerprint_bits = fingerprint_bits;
    c.slots_per_bucket = slots_per_bucket;
    const std::uint64_t permille = planning_load_permille(slots_per_bucket);
    if (items > std::numeric_limits<std::uint64_t>::max() / 1000) {
      c.capacity = std::numeric_limits<std::uint64_t>::max();
    } else {
      const std::uint64_t scaled = items * 1000;
      c.capacity = std::max<std::uint64_t>(
          1, scaled / permille + (scaled % permille != 0 ? 1 : 0));
    }
    return c;
  }
};

// CuckooFilterPlacement, where an item lives (its two buckets and its fingerprint), is
// defined beside the placement rule in detail/filter_hash_rule.hpp.

/// Counters since construction, clear() or the serialization they were read from.
struct CuckooFilterStats {
  /// Inserts that returned kInserted (a copy stored).
  std::uint64_t inserts = 0;
  /// Evictions (moves and swaps of kick walks), over all inserts.
  std::uint64_t kicks = 0;
  /// The most evictions one insert made.
  std::uint64_t max_kicks_in_insert = 0;
  /// Inserts that needed a kick walk (both buckets full, the stash not full).
  std::uint64_t kick_walks = 0;
  /// Walks that ended after max_kicks evictions: stash entries made.
  std::uint64_t kick_failures = 0;
  /// Stash entries moved back into the table by erase.
  std::uint64_t stash_rehomes = 0;
  /// Inserts that returned kFull.
  std::uint64_t full_rejections = 0;
  /// Inserts that returned kDuplicateLimit.
  std::uint64_t duplicate_rejections = 0;
  friend bool operator==(const CuckooFilterStats&, const CuckooFilterStats&) = default;
};

/// What info() reports about a filter: its shape, its fill and its false-positive bound,
/// in one struct (RedisBloom's CF.INFO). For a GrowingCuckooFilter the counts are summed
/// over its levels.
struct CuckooFilterInfo {
  /// Fingerprint slots (all levels): bucket_count * slots_per_bucket.
  std::uint64_t capacity = 0;
  /// Stored copies, stash entries included.
  std::uint64_t size = 0;
  /// Buckets (all levels).
  std::uint64_t buckets = 0;
  /// Slots per bucket b.
  unsigned slots_per_bucket = 0;
  /// Fingerprint bits f (the newest level's for a growing filter).
  unsigned fingerprint_bits = 0;
  /// Fingerprint bits of the oldest level (equal to fingerprint_bits for one filter).
  unsigned min_fingerprint_bits = 0;
  /// size / capacity.
  double load_factor = 0;
  /// Sub-filters: 1 for a CuckooFilter.
  unsigned levels = 1;
  /// memory_bytes(): the tables and the filter objects.
  std::size_t memory_bytes = 0;
  /// An upper bound on the probability that contains() answers true for a key never
  /// inserted, whatever the load: filter_false_positive_bound() (claim C2's
  /// 1 - (1 - q)^(2b), q = (2^f + 2) / 4^f, plus the stash's share); for a growing filter
  /// the sum of that bound over its levels (docs/growing-filter.md).
  double false_positive_bound = 0;
  friend bool operator==(const CuckooFilterInfo&, const CuckooFilterInfo&) = default;
};

/// What insert_many() did: keys[0, inserted) were stored, in order. If inserted is less
/// than the number of keys, keys[inserted] was refused with `refusal` (kFull or
/// kDuplicateLimit, which changed nothing) and the keys after it were not tried, so the
/// caller can resume from keys[inserted]; otherwise refusal is kInserted.
struct InsertManyResult {
  /// The number of keys stored, a prefix of the range.
  std::size_t inserted = 0;
  /// Why the insert of keys[inserted] was refused; kInserted when every key was stored.
  InsertResult refusal = InsertResult::kInserted;
  /// True when every key was stored.
  bool complete() const noexcept { return refusal == InsertResult::kInserted; }
  friend bool operator==(const InsertManyResult&, const InsertManyResult&) = default;
};

/// The probability that one occupied slot of f-bit fingerprints matches a key never
/// inserted: q = (2^f + 2) / 4^f (hash value 0 is stored as fingerprint 1).
/// REQUIRES: 1 <= f <= 32.
inline double fingerprint_match_probability(unsigned fingerprint_bits) noexcept {
  const double slot_values = std::ldexp(1.0, static_cast<int>(fingerprint_bits));
  return (slot_values + 2.0) / (slot_values * slot_values);
}

/// An upper bound on the false-positive rate of one cuckoo filter at any load, for keys
/// whose hashes behave as random (averaged over the stored keys, as claim C2 is):
///     1 - (1 - q)^(2b) + stash_slots * q * (2 / n + 2^-31)
/// The first term is claim C2's: a query compares its fingerprint with at most 2b
/// occupied slots of its two buckets. The second is the stash: an entry is compared only
/// when its bucket pair is the query's, which needs the fingerprint to match (q) and the
/// query's first bucket, independent of its fingerprint, to be one of the entry's two
/// (at most 2 / n + 2^-31 with Lemire's reduction of 32 bits to n buckets). The second
/// term matters only for tiny tables (n the bucket count). At most 1.
/// REQUIRES: 1 <= f <= 32, b >= 1, n >= 1.
inline double filter_false_positive_bound(unsigned fingerprint_bits, unsigned slots_per_bucket,
                                          std::uint64_t bucket_count, unsigned stash_slots) noexcept {
  const double q = fingerprint_match_probability(fingerprint_bits);
  const double slots = -std::expm1(2.0 * slots_per_bucket * std::log1p(-q));
  const double stash =
      stash_slots * q * (2.0 / static_cast<double>(bucket_count) + std::ldexp(1.0, -31));
  return std::min(1.0, slots + stash);
}

}  // namespace cuckoo

#include "detail/filter_config.hpp"

namespace cuckoo {

// Growing filters set a new level's key hash (use_legacy_key_hash()).
template <class Hasher, class Allocator>
class BasicGrowingCuckooFilter;

/// A partial-key cuckoo filter with a small stash: an approximate-membership multiset
/// with no false negatives; see the design comment at the top of cuckoo/cuckoo_filter.hpp
/// (hashing, placement, guarantees and caveats). Not thread-safe: const member functions
/// may run concurrently with each other; anything that runs concurrently with a non-const
/// call needs external locking (CoarseConcurrentFilter and StripedConcurrentFilter are
/// the concurrent filters). Hasher: hashes keys with the seed (DefaultHasher by default).
/// Allocator: the table's memory comes from it (rebound to 64-byte cache lines, see
/// detail/aligned_buffer.hpp); huge_pages applies with std::allocator only. Propagation
/// follows std::allocator_traits as for the standard containers, so a
/// std::pmr::polymorphic_allocator works: copies use select_on_container_copy_construction;
/// copy and move assignment bring the other filter's allocator along only when
/// propagate_on_container_copy_assignment / _move_assignment says so, else keep this
/// filter's. A move assignment takes the other filter's memory when the allocator
/// propagates or the two compare equal, and otherwise copies the table into memory of
/// this filter's allocator (which may throw std::bad_alloc, leaving the filter
/// unchanged). std::swap goes through those move operations, so each filter keeps its
/// allocator unless propagate_on_container_move_assignment.
template <class Hasher = DefaultHasher, class Allocator = std::allocator<std::uint8_t>>
class BasicCuckooFilter
    : public detail::FilterKeyOps<BasicCuckooFilter<Hasher, Allocator>, Hasher> {
  using KeyOps = detail::FilterKeyOps<BasicCuckooFilter, Hasher>;

 public:
  /// Where an item lives: its two buckets and its fingerprint (CuckooFilterPlacement).
  using Placement = CuckooFilterPlacement;
  /// Counters (CuckooFilterStats).
  using Stats = CuckooFilterStats;

  /// Homeless fingerprints held beside the table; see the design comment.
  static constexpr unsigned kStashSlots = 4;
  /// Serialization format version (payload layout documented at serialize()), the one
  /// every filter writes and the newest deserialize() reads. Version 5 added the key hash
  /// byte (integer and enum keys under DefaultHasher hashed by one mix round; see "Hash
  /// derivation") and writes the nested_prefix_bits byte for both placement rules.
  /// Older bytes are still read, each with the key hash it was written with
  /// (legacy_key_hash()): version 4 (the nested rule), 3 (the bucket layout byte,
  /// semi-sorted buckets), 2 (no layout byte, unsorted buckets). Version 1 bytes (an
  /// older alternate-bucket rule, filter_hash_rule.hpp) are rejected with
  /// kUnsupportedVersion, since their fingerprints sit in buckets today's rule does not
  /// probe.
  static constexpr std::uint8_t kFormatVersion = 5;
  /// The oldest version deserialize() reads: 2 (no bucket layout byte, unsorted buckets).
  static constexpr std::uint8_t kOldestReadableVersion = 2;
  /// Keys hashed and prefetched ahead of their probes by contains_many(): enough
  /// outstanding misses to cover memory latency (2 buckets each, so 48 lines, more than
  /// the ~12-20 line-fill buffers of a core), few enough that the prefetched lines are
  /// still cached when probed.
  static constexpr std::size_t kBatchGroup = 24;
  /// The same for the pipelined batched lookup (one-word shapes, empty stash): key
  /// i + kBatchAhead is hashed and prefetched while key i is probed. A power of two (the
  /// ring's index is a mask).
  static constexpr std::size_t kBatchAhead = 16;

  /// Builds an empty filter. Throws ConfigError (field() = "fingerprint_bits",
  /// "slots_per_bucket", "capacity", "semi_sorted", "nested_prefix_bits" or "max_kicks")
  /// if the configuration is invalid; nothing is allocated before the configuration is
  /// validated. The table's allocation may then throw std::bad_alloc (or what the
  /// allocator throws).
  explicit BasicCuckooFilter(const CuckooFilterConfig& config, Hasher hasher = Hasher(),
                             const Allocator& alloc = Allocator())
      : BasicCuckooFilter(detail::validate_cuckoo_filter_config(config), config.seed,
                          std::move(hasher), config.huge_pages, alloc) {}

  /// Copies the filter: contents, configuration, seed, stats and hasher. Copies use
  /// select_on_container_copy_construction (see the class comment); a move takes the table
  /// with its allocator. Assignment assigns the table first, the one step that may
  /// allocate and so throw (a copy, or a move between unequal non-propagating
  /// allocators), then the rest: a throwing assignment leaves this filter as it was.
  BasicCuckooFilter(const BasicCuckooFilter&) = default;
  /// Takes the other filter's table with its allocator, and the rest of its state. The
  /// moved-from filter may only be assigned to or destroyed.
  BasicCuckooFilter(BasicCuckooFilter&&) = default;
  /// Copy assignment: the table first (which may throw std::bad_alloc, leaving this filter
  /// as it was), then the hasher and the rest, which throw only if the Hasher's copy
  /// assignment does. The allocator follows propagate_on_container_copy_assignment (see
  /// the class comment).
  BasicCuckooFilter& operator=(const BasicCuckooFilter& other) {
    if (this != &other) {
      table_ = other.table_;
      hasher_ = other.hasher_;
      assign_state(other);
    }
    return *this;
  }
  /// Move assignment: takes the other filter's table when the allocator propagates or the
  /// two compare equal, else copies it into this filter's memory (which may throw
  /// std::bad_alloc, leaving this filter as it was); then the hasher and the rest, which
  /// throw only if the Hasher's move assignment does. The moved-from filter may only be
  /// assigned to or destroyed.
  BasicCuckooFilter& operator=(BasicCuckooFilter&& other) noexcept(
      std::is_nothrow_move_assignable_v<detail::BasicPackedTable<Allocator>> &&
      std::is_nothrow_move_assignable_v<Hasher>) {
    if (this != &other) {
      table_ = std::move(other.table_);
      hasher_ = std::move(other.hasher_);
      assign_state(other);
    }
    return *this;
  }
  ~BasicCuckooFilter() = default;

  /// The Allocator template argument (the table's memory).
  using allocator_type = Allocator;
  /// The allocator the table's memory comes from.
  allocator_type get_allocator() const noexcept { return allocator_type(table_.allocator()); }

  // ---- Key-level operations (detail/filter_key_ops.hpp). A key is anything the Hasher
  // accepts (DefaultHasher: any std::integral or enum, std::string_view, std::string,
  // const char*). Each hashes the key once and calls the hash-level operation below:
  //   insert(key): stores one more copy of key. Returns kInserted (possibly after moving
  //     some other fingerprint to the stash), kDuplicateLimit if max_copies(key) copies
  //     are already stored, or kFull if the item fits in neither bucket and the stash is
  //     full. On kDuplicateLimit and kFull the contents are unchanged (only stats() move).
  //   contains(key): true if key may be present: always true for a key inserted and not
  //     erased; true for other keys with probability about load_factor() * 2b / 2^f.
  //   erase(key): removes one copy of key's fingerprint from its buckets or the stash.
  //     Returns false (nothing changed) if there is none. REQUIRES (for the
  //     no-false-negative guarantee of other keys): key was inserted; see the caveat in
  //     the design comment.
  //   max_copies(key): the most copies of key the filter stores: 2b, or b when both
  //     buckets coincide.
  //   hash_of(key): the 64-bit hash the operations derive buckets and fingerprint from.
  using KeyOps::erase;
  using KeyOps::hash_of;
  using KeyOps::insert;
  using KeyOps::max_copies;

  /// True if key may be present (see above). The key's hash is taken inside the shape
  /// dispatch, so that a compiled shape hashes an integer key by the one-round rule with
  /// no test of legacy_key_hash(): a filter with that rule has no compiled shape
  /// (lookup_shape() is kGeneric) and hashes on the generic path. Always inline, as
  /// contains_hash().
  template <class Key>
    requires HasherFor<Hasher, Key>
  [[gnu::always_inline]] bool contains(const Key& key) const {
    if constexpr (detail::OneRoundKey<Hasher, Key>) {
      assert(!legacy_key_hash_ || table_shape_ == detail::FilterShapeId::kGeneric);
      return detail::visit_filter_shape(
          shape_,
          [&](auto shape) __attribute__((always_inline)) {
            return holds_compiled(shape, detail::one_round_key_hash(key, seed_));
          },
          [&]() __attribute__((always_inline)) { return contains_generic(hash_of(key)); });
    } else {
      return contains_hash(hash_of(key));
    }
  }

  /// The number of stored copies whose fingerprint matches key's in key's two buckets
  /// and in the stash entries of its bucket pair. Every copy of key counts, and so does
  /// every copy of another key with the same fingerprint and bucket pair (which the
  /// filter cannot tell from key): an upper bound on the copies of key inserted and not
  /// erased, exact when no other stored key shares key's fingerprint and buckets
  /// (RedisBloom's CF.COUNT). Never more than max_copies(key).
  template <class Key>
    requires HasherFor<Hasher, Key>
  std::uint64_t count(const Key& key) const {
    return count_hash(hash_of(key));
  }

  /// Inserts key unless contains(key) is already true (RedisBloom's CF.ADDNX): returns
  /// kExists, changing nothing, when contains(key) is true, which can be a false
  /// positive (a key never inserted is then not stored, with the probability of a false
  /// positive); otherwise what insert(key) returns. Repeated calls store at most one
  /// copy of a key.
  template <class Key>
    requires HasherFor<Hasher, Key>
  InsertResult insert_if_absent(const Key& key) {
    return insert_if_absent_hash(hash_of(key));
  }

  /// Inserts the keys of a range in order until one is refused: see InsertManyResult.
  /// The refused key and the keys after it are not stored (the refused insert changed
  /// nothing), so no key is lost: resume from keys[result.inserted] after making room.
  /// The range is read once, front to back (any std::ranges::input_range of keys).
  template <std::ranges::input_range Keys>
    requires HasherFor<Hasher, std::ranges::range_value_t<Keys>>
  InsertManyResult insert_many(Keys&& keys) {
    return this->template insert_each_until_refused<InsertManyResult>(std::forward<Keys>(keys));
  }

  /// The shape, fill, memory and false-positive bound in one struct (CF.INFO).
  CuckooFilterInfo info() const noexcept {
    CuckooFilterInfo i;
    i.capacity = slot_count();
    i.size = size_;
    i.buckets = bucket_count();
    i.slots_per_bucket = slots_per_bucket();
    i.fingerprint_bits = fingerprint_bits();
    i.min_fingerprint_bits = fingerprint_bits();
    i.load_factor = load_factor();
    i.levels = 1;
    i.memory_bytes = memory_bytes();
    i.false_positive_bound = filter_false_positive_bound(fingerprint_bits(), slots_per_bucket(),
                                                         bucket_count(), kStashSlots);
    return i;
  }

  /// Batched contains(): results[i] = contains(keys[i]) for every i < keys.size(), same
  /// answers, faster for many keys in a large table (see "Batched lookup" in the design
  /// comment at the top of this header). Entries of results beyond keys.size() are not
  /// touched. Throws std::invalid_argument, before touching anything, if results.size() <
  /// keys.size().
  /// REQUIRES: results.size() >= keys.size(); results does not overlap keys.
  template <class Key>
    requires HasherFor<Hasher, Key>
  void contains_many(std::span<const Key> keys, std::span<bool> results) const {
    require_result_room(keys.size(), results.size());
    contains_many_into(keys, results.begin());
  }

  /// The same for any contiguous range of keys (std::vector, std::array, a C array,
  /// std::span) and any sized random-access range whose elements take a bool (bool, char,
  /// std::uint8_t, int, ... and std::vector<bool>, whose proxy references do): results[i]
  /// = contains(keys[i]). Same errors and requirements as the std::span overload: throws
  /// std::invalid_argument, before touching anything, if results is shorter than keys.
  /// REQUIRES: results does not overlap keys.
  template <std::ranges::contiguous_range Keys, std::ranges::random_access_range Results>
    requires std::ranges::sized_range<Keys> && std::ranges::sized_range<Results> &&
             HasherFor<Hasher, std::ranges::range_value_t<Keys>> &&
             std::is_assignable_v<std::ranges::range_reference_t<Results>, bool>
  void contains_many(const Keys& keys, Results&& results) const {
    using Key = std::ranges::range_value_t<Keys>;
    const std::span<const Key> key_span(std::ranges::data(keys), std::ranges::size(keys));
    require_result_room(key_span.size(), static_cast<std::size_t>(std::ranges::size(results)));
    contains_many_into(key_span, std::ranges::begin(results));
  }

  /// contains_many() for precomputed hashes: results[i] = contains_hash(hashes[i]).
  /// Throws std::invalid_argument if results.size() < hashes.size().
  /// REQUIRES: results.size() >= hashes.size(); results does not overlap hashes.
  void contains_many_hash(std::span<const std::uint64_t> hashes, std::span<bool> results) const {
    require_result_room(hashes.size(), results.size());
    contains_many_by(hashes.size(), [&](std::size_t i) { return hashes[i]; }, results.begin());
  }

  // ---- Hash-level operations: the same as the key-level ones for a key whose hash is h.
  // For layers that hash on their own (and for tests that place items by hash).

  /// insert() for the key whose hash is h.
  InsertResult insert_hash(std::uint64_t h) {
    const Placement p = placement_of_hash(h);
    table_.prefetch(p.bucket2);
    // Fast path (see "Insert" in the design comment): bucket1 has a free slot and so few
    // copies that the item is below its copy limit whatever bucket2 holds; bucket2 is
    // then not read at all.
    const auto first = table_.scan(p.bucket1, p.fingerprint);
    if (first.free_slot != detail::PackedTable::kNoSlot &&
        first.copies + stash_size_ < table_.slots()) [[likely]] {
      table_.set(p.bucket1, static_cast<unsigned>(first.free_slot), p.fingerprint);
      ++size_;
      ++stats_.inserts;
      return InsertResult::kInserted;
    }
    return insert_checked(p);
  }

  /// contains() for the key whose hash is h (always inline).
  /// One switch on the compiled shape (see "Compiled shapes" in the design comment), then
  /// that shape's probe inline; uncommon shapes, and every shape while the stash holds
  /// items, call the generic runtime path.
  [[gnu::always_inline]] bool contains_hash(std::uint64_t h) const noexcept {
    assert(shape_ == (stash_size_ == 0 ? table_shape_ : detail::FilterShapeId::kGeneric));
    return detail::visit_filter_shape(
        shape_,
        [&](auto shape) __attribute__((always_inline)) { return holds_compiled(shape, h); },
        [&]() __attribute__((always_inline)) { return contains_generic(h); });
  }

  /// count() for the key whose hash is h.
  std::uint64_t count_hash(std::uint64_t h) const noexcept {
    return count_copies(placement_of_hash(h));
  }

  /// insert_if_absent() for the key whose hash is h.
  InsertResult insert_if_absent_hash(std::uint64_t h) {
    if (contains_hash(h)) return InsertResult::kExists;
    return insert_hash(h);
  }

  /// erase() for the key whose hash is h: removes one copy of its fingerprint from its
  /// first bucket, else its second, else the stash; false (nothing changed) if none holds
  /// it. After a removal from the table, every stash entry is offered its two buckets
  /// again. REQUIRES (for the no-false-negative guarantee of other keys): the key was
  /// inserted.
  bool erase_hash(std::uint64_t h) {
    const Placement p = placement_of_hash(h);
    if (table_.remove_one(p.bucket1, p.fingerprint) ||
        table_.remove_one(p.bucket2, p.fingerprint)) {
      --size_;
      if (stash_size_ != 0) [[unlikely]] rehome_stash();
      return true;
    }
    const unsigned k = stash_find(p);
    if (k == kNotInStash) return false;
    stash_remove(k);
    --size_;
    return true;
  }

  // ---- Size and configuration.

  /// Stored copies, in the table and the stash.
  std::uint64_t size() const noexcept { return size_; }
  /// size() == 0.
  bool empty() const noexcept { return size_ == 0; }
  /// size() / slot_count(). Counts stash entries, so it can exceed 1 by at most
  /// kStashSlots / slot_count().
  double load_factor() const noexcept {
    return static_cast<double>(size_) / static_cast<double>(slot_count());
  }
  /// Table data bits (bucket_count() * bits per bucket, without padding) per stored copy:
  /// f / load_factor(), or (f - 1) / load_factor() with semi-sorted buckets. +infinity
  /// when the filter is empty.
  double bits_per_item() const noexcept {
    if (size_ == 0) return std::numeric_limits<double>::infinity();
    return static_cast<double>(std::uint64_t{table_.bucket_count()} * table_.bucket_bits()) /
           static_cast<double>(size_);
  }
  /// The table allocation (data and padding) plus the filter object itself.
  std::size_t memory_bytes() const noexcept { return table_.allocated_bytes() + sizeof(*this); }
  /// Whether huge pages were requested for the table (CuckooFilterConfig::huge_pages).
  bool huge_pages() const noexcept { return table_.huge_pages(); }

  /// Buckets n: ceil(capacity / slots_per_bucket) of the configuration.
  std::uint32_t bucket_count() const noexcept { return table_.bucket_count(); }
  /// Fingerprint slots in the table: bucket_count() * slots_per_bucket().
  std::uint64_t slot_count() const noexcept {
    return std::uint64_t{table_.bucket_count()} * table_.slots();
  }
  /// Fingerprint bits f (CuckooFilterConfig::fingerprint_bits).
  unsigned fingerprint_bits() const noexcept { return table_.bits(); }
  /// Slots per bucket b (CuckooFilterConfig::slots_per_bucket).
  unsigned slots_per_bucket() const noexcept { return table_.slots(); }
  /// Whether buckets are semi-sorted (CuckooFilterConfig::semi_sorted).
  bool semi_sorted() const noexcept { return table_.semi_sorted(); }
  /// The nested rule's prefix width (CuckooFilterConfig::nested_prefix_bits); 0: standard.
  unsigned nested_prefix_bits() const noexcept { return rule_.nested_prefix_bits(); }
  /// Evictions per insert before the stash (CuckooFilterConfig::max_kicks).
  unsigned max_kicks() const noexcept { return max_kicks_; }
  /// The hash seed: the configured one, or the random_seed() drawn at construction (for a
  /// deserialized filter, the original's).
  std::uint64_t seed() const noexcept { return seed_; }
  /// The hasher that hash_of() applies to keys, with seed().
  const Hasher& hasher() const noexcept { return hasher_; }
  /// True for a filter read from bytes of format version 4 or older (or from a later
  /// serialization of such a filter): it hashes every key with seeded_hash, the rule
  /// those bytes were written with, where a filter built by a constructor hashes integer
  /// and enum keys under DefaultHasher by one mix round ("Hash derivation"). Copies and
  /// assignments carry it. Only integer and enum keys under DefaultHasher hash
  /// differently under the two rules; to move such a filter to the faster rule, insert
  /// its keys into a new filter.
  bool legacy_key_hash() const noexcept { return legacy_key_hash_; }
  /// Entries in the stash, 0..kStashSlots.
  unsigned stash_size() const noexcept { return stash_size_; }
  /// The counters (CuckooFilterStats).
  const Stats& stats() const noexcept { return stats_; }

  /// Empties the filter and resets stats(): afterwards it behaves exactly as a freshly
  /// constructed filter with the same configuration and seed.
  void clear() noexcept {
    table_.clear();
    stash_ = {};
    stash_size_ = 0;
    stash_changed();
    size_ = 0;
    stats_ = {};
  }

  // ---- Introspection, public for the verification suite (model checks, audit, fuzz).

  /// Where the key whose hash is h lives: its two buckets and its fingerprint (the
  /// derivation of the design comment).
  [[gnu::always_inline]] Placement placement_of_hash(std::uint64_t h) const noexcept {
    return rule_.placement(h);
  }

  /// Where key lives: placement_of_hash(hash_of(key)).
  template <class Key>
    requires HasherFor<Hasher, Key>
  Placement placement(const Key& key) const {
    return placement_of_hash(hash_of(key));
  }

  /// The other bucket of a fingerprint stored in bucket i; an involution in i.
  /// REQUIRES: i < bucket_count().
  std::uint32_t alt_bucket(std::uint32_t i, std::uint32_t fp) const noexcept {
    return rule_.alt_bucket(i, fp);
  }

  /// max_copies() for the key whose hash is h: 2b, or b when its two buckets coincide.
  unsigned max_copies_of_hash(std::uint64_t h) const noexcept {
    return max_copies_of(placement_of_hash(h));
  }

  /// The fingerprint stored in a slot, 0 if the slot is empty. Semi-sorted buckets number
  /// their slots in sorted order (by low 4 bits, then high bits), which any write to the
  /// bucket may change. REQUIRES: bucket < bucket_count(), slot < slots_per_bucket().
  std::uint32_t fingerprint_at(std::uint32_t bucket, unsigned slot) const noexcept {
    return table_.get(bucket, slot);
  }

  /// The stash entries, oldest first: each a fingerprint with its two buckets, bucket2 =
  /// alt_bucket(bucket1, fingerprint).
  std::span<const Placement> stash() const noexcept { return {stash_.data(), stash_size_}; }

  /// The compiled shape of this filter's lookups (detail/filter_shapes.hpp), used while
  /// the stash is empty; kGeneric when there is none for this f, b and layout, with the
  /// nested rule (the compiled shapes place by the standard one), with legacy_key_hash()
  /// (they hash by the one-round rule), or after use_generic_lookup().
  detail::FilterShapeId lookup_shape() const noexcept { return table_shape_; }
  /// For the verification suite: this filter's lookups take the generic runtime path,
  /// whatever its shape. Answers do not change (tests compare the two paths); nothing
  /// else does either. Copies keep it; an assignment takes the source's choice, and
  /// deserialize() picks the compiled shape again (if the bytes allow one).
  void use_generic_lookup() noexcept {
    table_shape_ = detail::FilterShapeId::kGeneric;
    stash_changed();
  }

  // ---- Serialization.
  /// The filter's bytes: the shared envelope (detail/serial.hpp), kind kCuckooFilter,
  /// version kFormatVersion (5). Payload, little-endian:
  ///   u8  fingerprint_bits      u8  slots_per_bucket
  ///   u8  bucket layout: 0 unsorted, 1 semi-sorted (absent in version 2: unsorted)
  ///   u8  nested_prefix_bits: 0 (the standard rule) or 4..fingerprint_bits (absent in
  ///       versions 2 and 3: the standard rule; never 0 in version 4)
  ///   u8  key hash: 1 the one-round hash of integer and enum keys under DefaultHasher,
  ///       0 seeded_hash for every key (legacy_key_hash(); absent before version 5: 0)
  ///   u32 bucket_count          u32 max_kicks
  ///   u64 seed                  u64 size
  ///   u64 x 8 stats: inserts, kicks, max_kicks_in_insert, kick_walks, kick_failures,
  ///       stash_rehomes, full_rejections, duplicate_rejections
  ///   u8  stash_size, then per entry u32 fingerprint, u32 bucket1, u32 bucket2
  ///   u64 table byte length, then the table's data bytes (no padding; semi-sorted
  ///       buckets in the code of detail/semi_sorted.hpp, each in its canonical form)
  /// A deserialized filter equals the original and, given the same hasher, behaves
  /// identically on every later operation (the kick sequence continues from kick_walks).
  /// Throws std::bad_alloc if the bytes cannot be allocated.
  std::vector<std::uint8_t> serialize() const;

  /// Rebuilds a filter from serialize() output. Throws DeserializeError: kTruncated,
  /// kBadMagic, kWrongKind, kUnsupportedVersion, kChecksumMismatch, kTrailingBytes from
  /// the envelope and payload reader; kBadConfig naming the field for f, b, the bucket
  /// layout (a value above 1, or semi-sorted buckets f and b cannot have), bucket count (0,
  /// or a table above CuckooFilterConfig::kMaxTableBytes), max_kicks or
  /// nested_prefix_bits out of range; kInconsistent when the table length differs from
  /// what the configuration implies (checked before anything is allocated), the size
  /// differs from the stored fingerprints, the stash size or a stash entry is invalid, the
  /// bits after the last bucket are not zero, or a semi-sorted bucket is not canonical (a
  /// code >= 3876, or slots out of sort order). The hasher must be the one the original
  /// used for key-level answers to match, and the filter hashes keys as the bytes say
  /// (legacy_key_hash() for bytes of version 4 and older). The filter uses ordinary pages
  /// (CuckooFilterConfig::huge_pages is not serialized) and its compiled lookup shape.
  /// The table's allocation may throw std::bad_alloc.
  static BasicCuckooFilter deserialize(std::span<const std::uint8_t> bytes,
                                       Hasher hasher = Hasher(),
                                       const Allocator& alloc = Allocator());

  /// Equal configuration (f, b, layout, placement rule, key hash, bucket count, max_kicks), seed and
  /// contents (table slots, stash entries in order, size). Stats and the hasher are not
  /// compared.
  friend bool operator==(const BasicCuckooFilter& a, const BasicCuckooFilter& b) noexcept {
    return a.seed_ == b.seed_ && a.max_kicks_ == b.max_kicks_ && a.size_ == b.size_ &&
           a.nested_prefix_bits() == b.nested_prefix_bits() &&
           a.legacy_key_hash_ == b.legacy_key_hash_ && a.stash_size_ == b.stash_size_ &&
           std::equal(a.stash().begin(), a.stash().end(), b.stash().begin()) &&
           a.table_ == b.table_;
  }

 private:
  // A growing filter's new level takes the key hash of the levels it read.
  template <class, class>
  friend class BasicGrowingCuckooFilter;

  static constexpr unsigned kNotInStash = kStashSlots;
  // Mixed into the seed for the kick walks' random source, so that it is not the
  // stream a caller seeding its own Rng with the same seed would see.
  static constexpr std::uint64_t kKickSeedSalt = 0x6b69636b2d77616cULL;

  BasicCuckooFilter(const detail::CuckooFilterShape& shape, std::optional<std::uint64_t> seed,
                    Hasher hasher, bool huge_pages = false, const Allocator& alloc = Allocator())
      : hasher_(std::move(hasher)),
        seed_(seed ? *seed : random_seed()),
        table_(shape.bucket_count, shape.slots_per_bucket, shape.fingerprint_bits, huge_pages,
               alloc, shape.layout),
        rule_(shape.bucket_count, shape.fingerprint_bits, shape.nested_prefix_bits),
        table_shape_(compiled_shape_of(table_, shape.nested_prefix_bits)),
        shape_(table_shape_),
        max_kicks_(shape.max_kicks) {}

  // The compiled shapes place items by the standard rule; the nested rule (growing
  // filters' levels) takes the generic path.
  static detail::FilterShapeId compiled_shape_of(const detail::BasicPackedTable<Allocator>& t,
                                                 unsigned nested_prefix_bits) noexcept {
    if (nested_prefix_bits != 0) return detail::FilterShapeId::kGeneric;
    return detail::filter_shape_id(t.bits(), t.slots(), t.layout());
  }

  // Every change of stash_size_ between 0 and not 0 calls this: the compiled lookups
  // read no stash, so a filter with stashed items dispatches to the generic path.
  void stash_changed() noexcept {
    shape_ = stash_size_ == 0 ? table_shape_ : detail::FilterShapeId::kGeneric;
  }

  // Takes the key hash of bytes of format version 4 and older (legacy_key_hash()): the
  // compiled lookups hash by the one-round rule only, so the generic path takes over.
  void use_legacy_key_hash() noexcept {
    legacy_key_hash_ = true;
    table_shape_ = detail::FilterShapeId::kGeneric;
    stash_changed();
  }

  // The members besides the table and the hasher (assignment's last step; no throw).
  void assign_state(const BasicCuckooFilter& other) noexcept {
    seed_ = other.seed_;
    rule_ = other.rule_;
    table_shape_ = other.table_shape_;
    shape_ = other.shape_;
    legacy_key_hash_ = other.legacy_key_hash_;
    max_kicks_ = other.max_kicks_;
    size_ = other.size_;
    stash_ = other.stash_;
    stash_size_ = other.stash_size_;
    stats_ = other.stats_;
  }

  unsigned max_copies_of(const Placement& p) const noexcept {
    return p.bucket1 == p.bucket2 ? table_.slots() : 2 * table_.slots();
  }

  // The batched lookup: out[i] = contains(keys[i]). REQUIRES: out has room for
  // keys.size() results.
  template <class Key, class Out>
  void contains_many_into(std::span<const Key> keys, Out out) const {
    contains_many_by(keys.size(), [&](std::size_t i) { return hash_of(keys[i]); }, out);
  }

  // out[i] = contains_hash(hash_at(i)) for i < n; see "Batched lookup" in the design
  // comment. One-word shapes with an empty stash take a pipeline, kBatchAhead keys deep;
  // the rest, groups of kBatchGroup keys. REQUIRES: out has room for n results.
  template <class HashAt, class Out>
  void contains_many_by(std::size_t n, HashAt hash_at, Out out) const;

  // The pipeline of contains_many_by: out[i] = whether either bucket of hash_at(i)
  // holds its fingerprint, through `lookup` (detail::CompiledLookup or
  // detail::RuntimeOneWordLookup). REQUIRES: the stash is empty.
  template <class Lookup, class HashAt, class Out>
  static void contains_many_pipelined(std::size_t n, HashAt& hash_at, Out out,
                                      const Lookup& lookup);

  static void require_result_room(std::size_t inputs, std::size_t results);

  // The placement of hash h, with both of its buckets prefetched.
  Placement prefetched(std::uint64_t h) const noexcept {
    const Placement p = placement_of_hash(h);
    table_.prefetch(p.bucket1);
    table_.prefetch(p.bucket2);
    return p;
  }

  // The lookup hot path: both buckets, then the stash if it is not empty. For one-word
  // shapes (PackedTable::is_one_word_shape: every shape with f * b <= 57, and f = 16 or
  // 32 with b = 4 or 2) each bucket is one load and the SWAR test, and both are tested
  // without a branch between them. Everything else is out of line and reached by a tail
  // call (wider buckets: the chunked loop; the stash), so the hot path keeps its values
  // in scratch registers and saves none (placements pass by value, in registers).
  [[gnu::always_inline]] bool holds_fingerprint(Placement p) const noexcept {
    const std::uint32_t fp = p.fingerprint;
    if (!table_.one_word()) [[unlikely]] {
      // Semi-sorted with f <= 16: inline too (an out-of-line call costs it about as much
      // as its probe); everything else out of line.
      if (!table_.semi_one_word()) return holds_fingerprint_chunked(p);
      if (table_.semi_contains_either(p.bucket1, p.bucket2, fp)) return true;
    } else if ((static_cast<unsigned>(table_.contains_one_word(p.bucket1, fp)) |
                static_cast<unsigned>(table_.contains_one_word(p.bucket2, fp))) != 0) {
      // Combined as integers: clang warns on | between bools.
      return true;
    }
    if (stash_size_ == 0) [[likely]] return false;
    return stash_holds(p);
  }

  // A compiled shape's lookup: placement and both buckets with f and b constants
  // (detail::CompiledFilterShape). REQUIRES: the stash is empty.
  template <class Shape>
  [[gnu::always_inline]] bool holds_compiled(Shape, std::uint64_t h) const noexcept {
    const Placement p = Shape::placement(h, table_.bucket_count());
    const typename Shape::Probe probe{table_.data().data()};
    // No stash check: shape_ names a compiled shape only while the stash is empty.
    return probe.holds_either(probe.position(p.bucket1), probe.position(p.bucket2),
                              p.fingerprint);
  }

  // Shapes without a compiled lookup: out of line, so that callers inline only the
  // compiled ones.
  [[gnu::noinline]] bool contains_generic(std::uint64_t h) const noexcept {
    return holds_fingerprint(placement_of_hash(h));
  }

  // Not one word: wider unsorted buckets, and semi-sorted ones with f > 16
  // (PackedTable::contains dispatches to semi_contains).
  [[gnu::noinline]] bool holds_fingerprint_chunked(Placement p) const noexcept {
    if (table_.contains(p.bucket1, p.fingerprint) || table_.contains(p.bucket2, p.fingerprint)) {
      return true;
    }
    return stash_size_ != 0 && stash_holds(p);
  }

  [[gnu::noinline, gnu::cold]] bool stash_holds(Placement p) const noexcept {
    return stash_find(p) != kNotInStash;
  }

  // The first stash entry holding p's fingerprint for p's bucket pair, or kNotInStash.
  // Equal fingerprints have equal alternates, so one shared bucket means the same pair.
  unsigned stash_find(const Placement& p) const noexcept;

  unsigned count_copies(const Placement& p) const noexcept;

  // Removes stash entry k, keeping the others in order.
  void stash_remove(unsigned k) noexcept;

  // After an erase: offers every stash entry its two buckets again (no kicks).
  [[gnu::noinline]] void rehome_stash() noexcept;

  // insert_hash() beyond its fast path: the copy limit needs bucket2, or bucket1 is full.
  InsertResult insert_checked(const Placement& p);

  // Both candidate buckets are full and the item is below its copy limit.
  [[gnu::noinline]] InsertResult insert_with_kicks(const Placement& p);

  Hasher hasher_;
  std::uint64_t seed_;
  detail::BasicPackedTable<Allocator> table_;
  detail::FilterHashRule rule_;  // placement of a hash: buckets and fingerprint
  // compiled_shape_of(table_, nested prefix), or kGeneric after use_generic_lookup().
  detail::FilterShapeId table_shape_;
  // What lookups dispatch to: table_shape_ while the stash is empty, else kGeneric.
  detail::FilterShapeId shape_;
  // legacy_key_hash(): set by deserialize() for bytes that say so.
  bool legacy_key_hash_ = false;
  unsigned max_kicks_;
  std::uint64_t size_ = 0;
  std::array<Placement, kStashSlots> stash_{};
  unsigned stash_size_ = 0;
  Stats stats_{};
};

/// BasicCuckooFilter with DefaultHasher and std::allocator.
using CuckooFilter = BasicCuckooFilter<>;

}  // namespace cuckoo

// ---- Out-of-line definitions (detail/filter_*.hpp) --------------------------------------

#define CUCKOO_FILTER_TEMPLATE template <class Hasher, class Allocator>
#define CUCKOO_FILTER BasicCuckooFilter<Hasher, Allocator>

#include "detail/filter_lookup.hpp"
#include "detail/filter_kick.hpp"
#include "detail/filter_serialize.hpp"

#undef CUCKOO_FILTER
#undef CUCKOO_FILTER_TEMPLATE
