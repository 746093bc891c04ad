// ClassicCuckoo: textbook two-table cuckoo hashing (Pagh & Rodler 2001), the baseline
// that the other exact tables are measured against.
//
// Design
// ------
// Storage. Two tables T0 and T1 of table_size() buckets each, one slot per bucket. A
// slot is empty or holds one (key, value) entry. capacity() = 2 * table_size().
//
// Hashing. A key is hashed once, h = Hasher{}(key, seed()), and its two candidate
// buckets are derived from that one value:
//     p0 = reduce32(uint32(h >> 32), table_size())        its bucket in T0
//     p1 = reduce32(uint32(mix64(h)), table_size())       its bucket in T1
// (reduce32 is Lemire's multiply-shift onto [0, n); mix64 decorrelates the two halves so
// that a hasher that is weak in its low bits still gives independent p0, p1.)
// positions_of(key) returns exactly this pair; hash_with_positions() inverts it for
// tests that want to place keys in chosen buckets through an injected Hasher.
//
// Invariants (check_invariants() verifies all of them):
//   I1. every entry in T0 sits at its p0 and every entry in T1 at its p1;
//   I2. no key is stored twice (given I1, a key can only be duplicated across its own
//       p0 and p1, which check_invariants() tests for every entry);
//   I3. size() equals the number of occupied slots.
//
// Insert. If the key is at p0 or p1 the insert reports kExists (or, for
// insert_or_assign, replaces the value: kUpdated). Otherwise it goes to T0[p0] if that
// is empty, else to T1[p1] if that is empty. Otherwise the random walk runs: the new
// entry evicts the occupant of T0[p0]; the evicted entry moves to its bucket in the
// other table, evicting that occupant, and so on, alternating T0, T1, T0, ... With one
// slot per bucket each entry has exactly one other place to go, so the walk is
// deterministic given the layout (the "random" in random walk comes from the hash).
// The walk stops when an entry lands in an empty slot, or after config.max_kicks
// evictions (the named bound of the walk).
//
// Failure. Every eviction is recorded on a path; when the bound is reached the path is
// undone in reverse order, which restores the exact previous layout (byte for byte:
// every entry back in its old slot) and hands the new entry back. Then the policy:
//   kReport  return kFull; the table is exactly as before the call.
//   kRehash  rebuild all entries plus the new one, same table size, with a fresh seed;
//            up to max_rehashes seeds; then grow x2 as kGrow does.
//   kGrow    rebuild at twice the table size with the current seed; if even that
//            layout fails, try up to max_rehashes fresh seeds at that size, and then
//            double again, at most kMaxGrowthsPerInsert doublings per insert.
// A rebuild first computes a complete placement plan over item ids (no entry is moved
// while planning) and moves the entries only once the plan holds every one of them,
// so a failed rebuild changes nothing, and only the existing distinct entries plus the
// one new entry are ever placed: no key can be stored twice. A doubling that would make
// capacity() exceed max_capacity is not attempted; when no attempt is left the insert
// returns kFull with nothing changed (layout, seed and capacity as before).
//
// Seeds. Fresh seeds are derived deterministically: next = derive_seed(current), so the
// seed after g changes is derive_seed^g(initial_seed()) and any run replays from its
// initial seed. seed_generation() counts the committed changes.
//
// Bounds. Lookups touch two slots. An insert does at most max_kicks evictions plus as
// many undo swaps; a rebuild at most (size()+1) * max_kicks evictions; an insert at most
// max_rehashes + kMaxGrowthsPerInsert * (1 + max_rehashes) rebuilds.
//
// REQUIRES of the type parameters: Hasher and KeyEqual do not throw (lookups are
// noexcept, and the undo of a failed walk relies on it); K and V move without throwing
// (static_asserts below). Allocation failure (std::bad_alloc) during a walk's first use
// of its path buffer or during a rebuild leaves the table unchanged.
//
// Thread safety: none. Concurrent const calls (find, contains, size, positions_of,
// check_invariants, stats, ...) are safe with each other; any non-const call needs
// exclusive access.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "error.hpp"
#include "hash.hpp"
#include "status.hpp"

namespace cuckoo {

/// What an insert does when the kick walk reaches its bound.
enum class OnInsertFailure : std::uint8_t {
  kRehash,  ///< rebuild with fresh seeds at the same size (max_rehashes), then grow x2
  kGrow,    ///< rebuild at twice the size
  kReport,  ///< undo the walk and return kFull; the table is unchanged
};

/// The configuration of a ClassicCuckoo: initial capacity, kick bound, failure policy and
/// seed.
struct ClassicCuckooConfig {
  /// Largest capacity (slots over both tables) a table may have: 2^31 slots, i.e. 2^30
  /// buckets per table, so that bucket indices and rebuild item ids fit in 32 bits.
  static constexpr std::size_t kMaxCapacity = std::size_t{1} << 31;
  /// Largest allowed max_kicks.
  static constexpr unsigned kMaxKicksLimit = 1U << 20;
  /// Largest allowed max_rehashes.
  static constexpr unsigned kMaxRehashesLimit = 1024;

  /// Total slots, split over two tables of one slot per bucket: each table gets
  /// ceil(capacity / 2) buckets, so capacity() is capacity rounded up to even.
  /// Range [2, kMaxCapacity].
  std::size_t capacity = 64;
  /// Evictions one insert may make before it counts as failed. Range [1, kMaxKicksLimit].
  unsigned max_kicks = 500;
  /// What an insert does when its kick walk reaches max_kicks (default: rehash).
  OnInsertFailure on_failure = OnInsertFailure::kRehash;
  /// Fresh seeds tried per size before doubling (kRehash), or after a failed doubling
  /// (kGrow). Range [0, kMaxRehashesLimit].
  unsigned max_rehashes = 8;
  /// Growth limit: a doubling that would make capacity() exceed it is not done. Range
  /// [capacity, kMaxCapacity]. (capacity() may exceed it by one when capacity is odd.)
  std::size_t max_capacity = kMaxCapacity;
  /// Initial seed; drawn with random_seed() when absent.
  std::optional<std::uint64_t> seed;
};

/// Instrumentation. Counters only grow (clear() keeps them; reset_stats() zeroes them).
struct ClassicCuckooStats {
  /// Histogram bucket i counts inserts whose walk made kicks in [2^(i-1), 2^i); bucket 0
  /// counts inserts with no eviction. The last bucket also takes everything above.
  static constexpr std::size_t kKickHistogramBuckets = 22;

  std::uint64_t insert_calls = 0;       ///< insert + insert_or_assign calls
  std::uint64_t inserted = 0;           ///< calls that returned kInserted
  std::uint64_t full = 0;               ///< calls that returned kFull
  std::uint64_t total_kicks = 0;        ///< evictions of the callers' walks (incl. undone)
  std::uint64_t last_insert_kicks = 0;  ///< evictions of the last walk (0: placed directly)
  std::uint64_t max_insert_kicks = 0;   ///< most evictions of one walk
  std::uint64_t failures = 0;           ///< walks that reached max_kicks (and were undone)
  std::uint64_t rehashes = 0;           ///< rebuild attempts with a fresh seed
  std::uint64_t grows = 0;              ///< committed doublings
  std::uint64_t rebuild_kicks = 0;      ///< evictions spent planning rebuilds
  /// Over the calls that reached placement (inserted + full), by walk length.
  std::array<std::uint64_t, kKickHistogramBuckets> kick_histogram{};
};

template <class K = std::uint64_t, class V = std::uint64_t, class Hasher = DefaultHasher,
          class KeyEqual = std::equal_to<K>>
  /// Textbook two-table cuckoo hashing (Pagh & Rodler 2001): one slot a bucket,
  /// random-walk kick-out up to max_kicks, and on failure the configured OnInsertFailure
  /// policy. A failed walk is undone. stats() counts kicks, failures, rehashes and
  /// growths (claim C9).
  /// Thread safety: none; concurrent const calls are safe with each other. See the design
  /// comment at the top of classic_cuckoo.hpp.
  requires HasherFor<Hasher, K>
class ClassicCuckoo {
  static_assert(std::is_nothrow_move_constructible_v<K> && std::is_nothrow_move_assignable_v<K>,
                "ClassicCuckoo moves keys during kicks and undo; K must move without throwing");
  static_assert(std::is_nothrow_move_constructible_v<V> && std::is_nothrow_move_assignable_v<V>,
                "ClassicCuckoo moves values during kicks and undo; V must move without throwing");

 public:
  /// The key type K.
  using key_type = K;
  /// The value type V.
  using mapped_type = V;
  /// The Hasher (hash.hpp).
  using hasher = Hasher;
  /// The key equality.
  using key_equal = KeyEqual;

  /// One stored item: a key and its value.
  struct Entry {
    /// The key.
    K key;
    /// Its value.
    V value;
  };

  /// Doublings one insert may attempt under kRehash / kGrow.
  static constexpr unsigned kMaxGrowthsPerInsert = 4;
  /// Bound of the search in hash_with_positions().
  static constexpr std::uint64_t kPlacementSearchBound = std::uint64_t{1} << 24;

  /// Throws ConfigError naming the field when config is outside the ranges documented on
  /// ClassicCuckooConfig. Allocates capacity() slots.
  explicit ClassicCuckoo(ClassicCuckooConfig config = {}, Hasher hash = Hasher{},
                         KeyEqual equal = KeyEqual{})
      : config_(validated(config)),
        hash_(std::move(hash)),
        equal_(std::move(equal)),
        initial_seed_(config_.seed ? *config_.seed : random_seed()),
        seed_(initial_seed_),
        table_size_(static_cast<std::uint32_t>(config_.capacity / 2 + config_.capacity % 2)) {
    for (auto& table : tables_) table.resize(table_size_);
  }

  /// Inserts key -> value if the key is absent. Returns kInserted, kExists (the key was
  /// present; nothing changed, value not replaced) or kFull (the policy could not make
  /// room; nothing changed).
  InsertResult insert(K key, V value) {
    return insert_impl(std::move(key), std::move(value), /*assign=*/false);
  }

  /// Inserts key -> value, or replaces the value of a present key. Returns kInserted,
  /// kUpdated or kFull (nothing changed).
  InsertResult insert_or_assign(K key, V value) {
    return insert_impl(std::move(key), std::move(value), /*assign=*/true);
  }

  /// The value stored for key, or nullptr. The pointer is valid until the next non-const
  /// call.
  V* find(const K& key) noexcept { return const_cast<V*>(std::as_const(*this).find(key)); }
  /// The value stored for key, or nullptr; valid until the next non-const call.
  const V* find(const K& key) const noexcept {
    const std::uint64_t h = hash(key);
    if (const auto& s = tables_[0][pos0(h, table_size_)]; s && equal_(s->key, key)) [[likely]] {
      return &s->value;
    }
    if (const auto& s = tables_[1][pos1(h, table_size_)]; s && equal_(s->key, key)) {
      return &s->value;
    }
    return nullptr;
  }

  /// Whether key is stored.
  bool contains(const K& key) const noexcept { return find(key) != nullptr; }

  /// Removes key. Returns whether it was present.
  bool erase(const K& key) noexcept {
    const std::uint64_t h = hash(key);
    for (unsigned t = 0; t < kTables; ++t) {
      auto& s = tables_[t][position(h, t, table_size_)];
      if (s && equal_(s->key, key)) {
        s.reset();
        --size_;
        return true;
      }
    }
    return false;
  }

  /// Removes every entry. Keeps the current capacity, seed and stats.
  void clear() noexcept {
    for (auto& table : tables_) {
      for (auto& s : table) s.reset();
    }
    size_ = 0;
  }

  /// Number of stored keys.
  std::size_t size() const noexcept { return size_; }
  /// Whether no key is stored.
  bool empty() const noexcept { return size_ == 0; }
  /// Slots over both tables: 2 * table_size().
  std::size_t capacity() const noexcept { return std::size_t{kTables} * table_size_; }
  /// Buckets (= slots) per table.
  std::size_t table_size() const noexcept { return table_size_; }
  /// size() / capacity().
  double load_factor() const noexcept {
    return static_cast<double>(size_) / static_cast<double>(capacity());
  }

  /// The current seed; it changes when a rehash or rehashed growth commits.
  std::uint64_t seed() const noexcept { return seed_; }
  /// The seed the table was constructed with.
  std::uint64_t initial_seed() const noexcept { return initial_seed_; }
  /// Committed seed changes: seed() == derive_seed applied seed_generation() times to
  /// initial_seed().
  std::uint64_t seed_generation() const noexcept { return seed_generation_; }
  /// The fresh seed a rehash moves to from seed s.
  static constexpr std::uint64_t derive_seed(std::uint64_t s) noexcept {
    return detail::mix64(s + kSeedStep);
  }

  /// The configuration the table was built with.
  const ClassicCuckooConfig& config() const noexcept { return config_; }
  /// The kick and failure statistics since construction or reset_stats().
  const ClassicCuckooStats& stats() const noexcept { return stats_; }
  /// Sets every statistic to zero.
  void reset_stats() noexcept { stats_ = ClassicCuckooStats{}; }

  // ---- Introspection for the verification suite -----------------------------------

  /// The candidate buckets of key at the current seed and size: {p0 in T0, p1 in T1}.
  /// Defined for any key, present or not.
  std::pair<std::uint32_t, std::uint32_t> positions_of(const K& key) const noexcept {
    const std::uint64_t h = hash(key);
    return {pos0(h, table_size_), pos1(h, table_size_)};
  }

  /// The entry in slot `bucket` of table `table`, or nullptr when the slot is empty.
  /// REQUIRES: table < 2, bucket < table_size().
  const Entry* slot(unsigned table, std::size_t bucket) const noexcept {
    const auto& s = tables_[table][bucket];
    return s ? &*s : nullptr;
  }

  /// Calls fn(key, value) for every entry, T0 by bucket then T1 by bucket.
  template <class Fn>
  void for_each(Fn&& fn) const {
    for (const auto& table : tables_) {
      for (const auto& s : table) {
        if (s) fn(std::as_const(s->key), std::as_const(s->value));
      }
    }
  }

  /// True when invariants I1..I3 hold. O(capacity()).
  bool check_invariants() const { return !invariant_violation().has_value(); }

  /// A description of the first broken invariant, or nullopt. O(capacity()).
  std::optional<std::string> invariant_violation() const {
    std::size_t occupied = 0;
    for (unsigned t = 0; t < kTables; ++t) {
      for (std::uint32_t b = 0; b < table_size_; ++b) {
        const auto& s = tables_[t][b];
        if (!s) continue;
        ++occupied;
        const std::uint64_t h = hash(s->key);
        if (position(h, t, table_size_) != b) {
          return "I1: entry in T" + std::to_string(t) + "[" + std::to_string(b) +
                 "] belongs at " + std::to_string(position(h, t, table_size_));
        }
        const auto& other = tables_[t ^ 1U][position(h, t ^ 1U, table_size_)];
        if (t == 0 && other && equal_(other->key, s->key)) {
          return "I2: key in T0[" + std::to_string(b) + "] also stored in T1";
        }
      }
    }
    if (occupied != size_) {
      return "I3: size() is " + std::to_string(size_) + " but " + std::to_string(occupied) +
             " slots are occupied";
    }
    return std::nullopt;
  }

  /// A 64-bit hash value h whose positions in a table of table_size buckets are
  /// {p0, p1}, for injected Hashers that place keys in chosen buckets; nullopt when the
  /// search (kPlacementSearchBound tries, each succeeding with probability about
  /// 1/table_size) finds none. REQUIRES: p0, p1 < table_size.
  static std::optional<std::uint64_t> hash_with_positions(std::uint32_t p0, std::uint32_t p1,
                                                          std::uint32_t table_size) noexcept {
    // The smallest 32-bit x with reduce32(x, n) == p1.
    const std::uint64_t n = table_size;
    const auto low = static_cast<std::uint32_t>(((std::uint64_t{p1} << 32) + n - 1) / n);
    for (std::uint64_t high = 0; high < kPlacementSearchBound; ++high) {
      const std::uint64_t h = unmix64((high << 32) | low);
      if (pos0(h, table_size) == p0 && pos1(h, table_size) == p1) return h;
    }
    return std::nullopt;
  }

  /// Same contents and same layout (every entry in the same slot, compared with
  /// KeyEqual and V's operator==), and same size. Seeds and stats are not compared.
  bool same_layout(const ClassicCuckoo& other) const
    requires std::equality_comparable<V>
  {
    if (table_size_ != other.table_size_ || size_ != other.size_) return false;
    for (unsigned t = 0; t < kTables; ++t) {
      for (std::uint32_t b = 0; b < table_size_; ++b) {
        const auto& x = tables_[t][b];
        const auto& y = other.tables_[t][b];
        if (x.has_value() != y.has_value()) return false;
        if (x && (!equal_(x->key, y->key) || !(x->value == y->value))) return false;
      }
    }
    return true;
  }

 private:
  static constexpr unsigned kTables = 2;
  static constexpr std::uint64_t kSeedStep = 0x9e3779b97f4a7c15ULL;
  static constexpr std::uint32_t kNoItem = std::numeric_limits<std::uint32_t>::max();

  using Slot = std::optional<Entry>;
  using Table = std::vector<Slot>;

  struct PathStep {
    std::uint32_t table;
    std::uint32_t bucket;
  };

  // ---- hashing ------------------------------------------------------------------------

  std::uint64_t hash(const K& key) const noexcept {
    return seeded_hash(hash_, key, seed_);
  }
  static constexpr std::uint32_t pos0(std::uint64_t h, std::uint32_t n) noexcept {
    return detail::reduce32(static_cast<std::uint32_t>(h >> 32), n);
  }
  static constexpr std::uint32_t pos1(std::uint64_t h, std::uint32_t n) noexcept {
    return detail::reduce32(static_cast<std::uint32_t>(detail::mix64(h)), n);
  }
  static constexpr std::uint32_t position(std::uint64_t h, unsigned table,
                                          std::uint32_t n) noexcept {
    return table == 0 ? pos0(h, n) : pos1(h, n);
  }

  /// Inverse of detail::mix64, for hash_with_positions().
  static constexpr std::uint64_t unxorshift(std::uint64_t y, int shift) noexcept {
    std::uint64_t x = y;
    const int rounds = 64 / shift + 1;  ///< each round fixes `shift` more high bits
    for (int i = 0; i < rounds; ++i) x = y ^ (x >> shift);
    return x;
  }
  static constexpr std::uint64_t odd_inverse(std::uint64_t c) noexcept {
    std::uint64_t inv = c;                          ///< correct to 3 bits for odd c
    constexpr int kNewtonRounds = 5;                ///< 3 -> 6 -> 12 -> 24 -> 48 -> 96 bits
    for (int i = 0; i < kNewtonRounds; ++i) inv *= 2 - c * inv;
    return inv;
  }
  static constexpr std::uint64_t unmix64(std::uint64_t y) noexcept {
    y = unxorshift(y, 31);
    y *= odd_inverse(0x94d049bb133111ebULL);
    y = unxorshift(y, 27);
    y *= odd_inverse(0xbf58476d1ce4e5b9ULL);
    return unxorshift(y, 30);
  }
  static_assert(detail::mix64(unmix64(0x0123456789abcdefULL)) == 0x0123456789abcdefULL,
                "unmix64 must invert detail::mix64 (hash.hpp changed?)");

  // ---- configuration ------------------------------------------------------------------

  static ClassicCuckooConfig validated(const ClassicCuckooConfig& c);

  // ---- insert -------------------------------------------------------------------------

  InsertResult insert_impl(K&& key, V&& value, bool assign);

  /// Both candidate slots of `carried` are occupied: the random walk, its undo, and the
  /// failure policy.
  [[gnu::noinline]] InsertResult insert_with_kicks(Entry carried, std::uint32_t first_bucket);

  void record_walk(std::uint64_t kicks) noexcept {
    stats_.total_kicks += kicks;
    stats_.last_insert_kicks = kicks;
    stats_.max_insert_kicks = std::max(stats_.max_insert_kicks, kicks);
    const auto bucket = std::min<std::size_t>(std::bit_width(kicks),
                                              ClassicCuckooStats::kKickHistogramBuckets - 1);
    ++stats_.kick_histogram[bucket];
  }

  // ---- rebuild (rehash / grow) --------------------------------------------------------

  /// Tries the policy's sequence of (size, seed) layouts for every entry plus `extra`;
  /// commits the first that holds them all. On false nothing has changed and `extra`
  /// is still the caller's.
  [[gnu::noinline]] bool rebuild_with(Entry& extra);

  /// Plans a layout of every entry plus `extra` in tables of `size` buckets with `seed`;
  /// if it holds them all, moves the entries into it and commits.
  bool try_layout(Entry& extra, std::uint32_t size, std::uint64_t seed, std::uint64_t generation);

  /// The insert walk of insert_with_kicks() on item ids, without undo.
  bool plan_item(std::uint32_t id,
                 const std::vector<std::array<std::uint32_t, kTables>>& candidates,
                 std::array<std::vector<std::uint32_t>, kTables>& plan);

  ClassicCuckooConfig config_;
  Hasher hash_;
  KeyEqual equal_;
  std::uint64_t initial_seed_;
  std::uint64_t seed_;
  std::uint64_t seed_generation_ = 0;
  std::uint32_t table_size_;
  std::size_t size_ = 0;
  std::array<Table, kTables> tables_;
  std::vector<PathStep> path_;  ///< scratch of insert_with_kicks, kept to avoid reallocation
  ClassicCuckooStats stats_;
};

}  // namespace cuckoo

// ---- Out-of-line definitions (detail/classic_*.hpp) -------------------------------------

#define CUCKOO_CLASSIC_TEMPLATE                                                      \
  template <class K, class V, class Hasher, class KeyEqual>                         \
    requires HasherFor<Hasher, K>
#define CUCKOO_CLASSIC ClassicCuckoo<K, V, Hasher, KeyEqual>

#include "detail/classic_config.hpp"
#include "detail/classic_insert.hpp"
#include "detail/classic_rebuild.hpp"

#undef CUCKOO_CLASSIC
#undef CUCKOO_CLASSIC_TEMPLATE
