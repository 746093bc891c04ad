// CuckooMap: an exact key/value hash table using bucketized cuckoo hashing.
//
// Design
// ------
// Storage is one flat array of slots: bucket_count() buckets of SlotsPerBucket slots
// each, followed by kStashSlots stash slots. A slot is empty or holds one (key, value)
// pair, constructed in place; a separate group of tag bytes per bucket says which slots
// are occupied and by which tags, and summarizes the items displaced from the bucket
// (detail/map_slots.hpp). A bucket of four uint64 -> uint64 pairs is one cache line.
//
// Each key is hashed once, h = hasher(key, seed()). Its two candidate buckets are
//     first  = reduce32(uint32(h >> 32), bucket_count())
//     second = reduce32(uint32(h),       bucket_count())
// (detail/map_layout.hpp; any bucket count works; first may equal second). The
// invariant that every operation keeps, and check_invariants() verifies:
//     every stored key sits in one of its two candidate buckets or in the stash, and
//     no key is stored twice.
// and, kept with it, every bucket's summary names (in an 8-bit filter of tags) every item
// whose first bucket it is and which is stored in its second. So find() looks at the
// first bucket's slots whose tag matches the key's, at the second bucket's only when the
// first one's filter has the key's tag bit (most misses read one line of tags), and at
// the kStashSlots stash slots only when the stash is not empty.
//
// insert() of a new key takes a free slot in either candidate bucket, the first when it
// has one (the hot path, inline below); failing that, a bounded cuckoo path search, a
// free stash slot, then
// growth into twice the buckets, all or nothing; a map max_load_percent() full that may
// still grow grows before it searches (detail/map_insert.hpp and detail/map_growth.hpp
// describe each step and its bound). erase() empties the slot and
// lets a stashed item whose candidate bucket got room move back into the table.
//
// Every loop has a named bound: SlotsPerBucket per bucket, kStashSlots for the stash,
// kMaxPathLength and detail::kMapMaxBfsNodes for the search, kMaxGrowthSteps and
// kSeedsPerSize for growth, the slot count for rebuilds and iteration.
//
// Thread safety: none. Calls on const objects (find, contains, iteration, serialize,
// check_invariants, ...) may run concurrently with each other; any non-const call needs
// exclusive access.
//
// Iterator, pointer and reference invalidation: an insert that stores a new key (any
// form), erase(key) that removes one (it may move a stashed item into the freed slot),
// extract, merge, clear(), reserve() and rehash() that rebuild, and assignment may move
// any item and invalidate every iterator, pointer and reference. An insert that finds
// its key present, assigns a value, or is refused (kFull, CapacityError) moves nothing;
// erase(iterator), erase(first, last) and erase_if move nothing else, so only the erased
// items' iterators are invalidated, as in std::unordered_map.
//
// Items are std::pair<const K, V> objects in place in the slot array, so `*it` is a
// value_type& exactly as in the standard containers; the map moves them between slots
// through the layout-compatible std::pair<K, V>, as abseil does (detail/map_slots.hpp
// explains why that is confined to one function, relocate()).
//
// Complexity: find / contains / erase look at most 2 * SlotsPerBucket + kStashSlots
// slots. insert is expected O(1) amortized; a single insert costs at most one search of
// kMapMaxBfsNodes nodes (each node hashes up to SlotsPerBucket keys) plus, when it
// grows, O(capacity()) per rebuild attempt. Iteration is O(capacity()).
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <iterator>
#include <limits>
#include <new>
#include <optional>
#include <ranges>
#include <span>
#include <stdexcept>
#include <string>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/map_codec.hpp"
#include "detail/map_config.hpp"
#include "detail/map_layout.hpp"
#include "detail/map_search.hpp"
#include "detail/map_slots.hpp"
#include "detail/serial.hpp"
#include "error.hpp"
#include "hash.hpp"
#include "status.hpp"

namespace cuckoo {

namespace detail {
// abseil's key_arg rule: heterogeneous lookup takes the caller's key type only when
// the hasher and the equality are both transparent.
template <bool Transparent>
struct KeyArg {
  template <class Q, class Key>
  using type = Q;
};
template <>
struct KeyArg<false> {
  template <class Q, class Key>
  using type = Key;
};

// Whether T is Template<...> (emplace's decomposable forms: std::pair, std::tuple).
template <class T, template <class...> class Template>
inline constexpr bool kIsSpecializationOf = false;
template <template <class...> class Template, class... Ts>
inline constexpr bool kIsSpecializationOf<Template<Ts...>, Template> = true;
}  // namespace detail

/// The tag of the range constructor, CuckooMap(cuckoo::from_range, range): C++23's
/// std::from_range_t, which C++20 lacks.
struct FromRange {
  /// Explicit, as std::from_range_t's.
  explicit FromRange() = default;
};
/// The FromRange value.
inline constexpr FromRange from_range{};

/// CuckooMap's runtime options: initial and maximum capacity, seed, path-search limits.
/// Checked at construction: an invalid value throws ConfigError naming the field.
struct CuckooMapConfig {
  /// Default growth limit: 2^30 slots (24 GiB of uint64 -> uint64 slots). Raise it
  /// explicitly, up to CuckooMap::kMaxCapacity, for bigger tables.
  static constexpr std::size_t kDefaultMaxCapacity = std::size_t{1} << 30;
  /// The longest cuckoo path a map may be configured to search.
  static constexpr unsigned kMaxPathLengthLimit = detail::kMapMaxPathLength;

  /// Slots of the first table, rounded up to whole buckets (any bucket count: no rounding
  /// to powers of two). Must be >= 1, and once rounded, fit in max_capacity.
  std::size_t initial_capacity = 64;
  /// Growth limit in slots: the table never has more than max_capacity / SlotsPerBucket
  /// buckets; an insert that would need more returns kFull. Must hold at least one bucket
  /// and be at most CuckooMap::kMaxCapacity.
  std::size_t max_capacity = kDefaultMaxCapacity;
  /// Most items one insert may displace along a cuckoo path, 1..kMaxPathLengthLimit.
  unsigned max_path_length = 5;
  /// Hash seed; absent: random_seed(). The map stores the seed it used (config().seed is
  /// always set), so any map can be rebuilt exactly.
  std::optional<std::uint64_t> seed;
  /// The load, in percent of the slots, the map plans for: reserve(n) and rehash() size
  /// the table so that n items fill it to at most this, and an insert that finds both its
  /// buckets full grows the table once the map is this full instead of searching a cuckoo
  /// path. An insert that finds a free slot stores the item there whatever the load, so
  /// a table grows at the first insert past this load that finds both buckets full: in
  /// tables of a few thousand buckets or more that is within a few points of it (at 30,
  /// 60 and 90 %: 30.0, 60.0 and 90.0 from 2^16 slots up), a small table at a low plan
  /// may fill further first. 0 (the default): CuckooMap::kReserveLoadPercent, 90 at 4
  /// slots a bucket, a little below the load at which path searches start to fail.
  /// Otherwise kMinMaxLoadPercent up to that default: a lower load trades memory for
  /// inserts that rarely search (at 60 %, one insert in ninety searches a path, against
  /// one in eleven at 90 %; absl::flat_hash_map's reserve(10M) leaves its table 60 %
  /// full). CuckooMap::max_load_factor(float) changes it on a live map. Not serialized (a
  /// deserialized map plans the default). StripedConcurrentMap accepts only 0.
  unsigned max_load_percent = 0;
  /// The lowest max_load_percent other than 0.
  static constexpr unsigned kMinMaxLoadPercent = 10;
  /// Back the slot array with transparent huge pages when it is at least 2 MiB (2 MiB
  /// aligned, madvise(MADV_HUGEPAGE) on Linux; ordinary pages elsewhere or if the kernel
  /// refuses), for every table the map allocates. Saves most TLB misses of random
  /// lookups in tables far larger than the cache. Off by default, as for the filter (see
  /// CuckooFilterConfig::huge_pages). Not serialized: a deserialized map has it off.
  bool huge_pages = false;

  /// Field by field.
  friend bool operator==(const CuckooMapConfig&, const CuckooMapConfig&) = default;
};

/// Counters since construction (or deserialization); clear() keeps them. Diagnostic only:
/// not serialized, not compared by operator==.
struct CuckooMapStats {
  std::uint64_t inserts = 0;          ///< new keys stored
  std::uint64_t updates = 0;          ///< values replaced by insert_or_assign
  std::uint64_t erases = 0;           ///< keys removed by erase
  std::uint64_t growths = 0;          ///< rebuilds into more buckets (insert or reserve)
  std::uint64_t reseeds = 0;          ///< rebuilds that had to change the seed
  std::uint64_t bfs_searches = 0;     ///< cuckoo path searches (inserts and rebuilds)
  std::uint64_t bfs_failures = 0;     ///< searches that found no path
  std::uint32_t longest_path = 0;     ///< most items displaced by one path
  std::size_t stash_high_water = 0;   ///< most items ever in the stash at once
  std::uint64_t full_rejections = 0;  ///< inserts answered kFull
};

// REQUIRES of the type parameters: K and V are nothrow move constructible; Hasher is a
// seeded full-avalanche 64-bit hash (both 32-bit halves are used as independent bucket
// hashes) or a standard hasher such as std::hash<K> or absl::Hash<K>, whose result the
// map mixes with its seed (hash.hpp, seeded_hash); Hasher and KeyEqual do not throw;
// equal keys hash equal. Allocator provides the slot array's memory (rebound to 64-byte
// cache lines); propagation follows std::allocator_traits as for the standard
// containers: copy construction uses select_on_container_copy_construction, copy and
// move assignment and swap propagate the allocator when propagate_on_container_* says
// so and otherwise keep each map's own (a move assignment between unequal,
// non-propagating allocators moves the items one by one; a swap between them is not
// allowed). So std::pmr::polymorphic_allocator works. The path search's and the
// rebuild's scratch memory comes from std::allocator. huge_pages works with
// std::allocator only (see detail/aligned_buffer.hpp).
//
// Heterogeneous lookup: when Hasher and KeyEqual both declare is_transparent (as
// DefaultHasher and std::equal_to<> do), find, find_value, contains, count, at,
// equal_range, erase and extract take any key type Q that both accept, e.g.
// find(std::string_view) on a std::string map, without constructing a K. Such a Q must
// hash like the K it equals. The defaults do this for std::string keys
// (DefaultKeyEqual<std::string> is std::equal_to<>), and DefaultHasher hashes any key
// type with a std::hash specialization or an AbslHashValue overload (hash.hpp).
//
// Two insert APIs (docs/map-api.md has the table against std::unordered_map and
// absl::flat_hash_map):
//   * the standard forms, for code written for std::unordered_map: insert, emplace,
//     emplace_hint, try_emplace, insert_or_assign, operator[] return what the standard
//     returns (std::pair<iterator, bool>, iterator, V&). They grow the table as needed;
//     when it cannot grow (max_capacity reached, growth failed, memory ran out) they
//     throw CapacityError (a std::length_error) having changed nothing and consumed none
//     of their arguments (an rvalue key or value is still intact), so the call can be
//     retried elsewhere;
//   * the outcome forms, which never throw for a full map: insert_outcome,
//     insert_or_assign_outcome, emplace_outcome, try_emplace_outcome return InsertResult
//     (kInserted, kUpdated, kExists, kFull) and are [[nodiscard]], so a kFull cannot be
//     dropped silently. find_value returns the value's address or nullptr.
/// An exact cuckoo hash map with the interface of std::unordered_map and
/// absl::flat_hash_map, plus outcome forms that report a full map instead of throwing
/// (see the comment above and docs/map-api.md). Not thread-safe: use
/// StripedConcurrentMap or CoarseConcurrentMap for concurrent access.
template <class K, class V, unsigned SlotsPerBucket = 4, class Hasher = DefaultHasher,
          class KeyEqual = DefaultKeyEqual<K>,
          class Allocator = std::allocator<std::pair<const K, V>>>
  requires HasherFor<Hasher, K>
class CuckooMap {
  static_assert(SlotsPerBucket == 1 || SlotsPerBucket == 2 || SlotsPerBucket == 4 ||
                    SlotsPerBucket == 8,
                "SlotsPerBucket must be 1, 2, 4 or 8");
  static_assert(std::is_nothrow_move_constructible_v<K> &&
                    std::is_nothrow_move_constructible_v<V>,
                "keys and values must be nothrow move constructible: items move during "
                "cuckoo paths and rebuilds, which must not fail half way");
  static_assert(std::is_invocable_r_v<bool, const KeyEqual&, const K&, const K&>,
                "KeyEqual must compare two keys");

 public:
  /// The key type K.
  using key_type = K;
  /// The mapped type V.
  using mapped_type = V;
  /// What iteration yields: std::pair<const K, V>, as in std::unordered_map (the key
  /// cannot be changed in place; its slot depends on its hash).
  using value_type = std::pair<const K, V>;
  /// Sizes and counts.
  using size_type = std::size_t;
  /// Iterator differences.
  using difference_type = std::ptrdiff_t;
  /// The Hasher template argument.
  using hasher = Hasher;
  /// The KeyEqual template argument.
  using key_equal = KeyEqual;
  /// The Allocator template argument (the slot array's memory).
  using allocator_type = Allocator;
  /// value_type&.
  using reference = value_type&;
  /// const value_type&.
  using const_reference = const value_type&;
  /// value_type*.
  using pointer = value_type*;
  /// const value_type*.
  using const_pointer = const value_type*;

  /// The SlotsPerBucket template argument.
  static constexpr unsigned kSlotsPerBucket = SlotsPerBucket;
  /// Items that fit nowhere in the table; searched by find / erase / insert.
  static constexpr std::size_t kStashSlots = 8;
  /// Hard limits: bucket indices are 32-bit, and doubling stays within them.
  static constexpr std::uint32_t kMaxBucketCount = std::uint32_t{1} << 31;
  /// The largest max_capacity, in slots.
  static constexpr std::uint64_t kMaxCapacity = std::uint64_t{kMaxBucketCount} * SlotsPerBucket;
  /// The longest cuckoo path any configuration may search.
  static constexpr unsigned kMaxPathLength = detail::kMapMaxPathLength;
  /// Growth bounds (see the design comment).
  static constexpr unsigned kMaxGrowthSteps = 3;
  /// Seeds tried per table size by a rebuild.
  static constexpr unsigned kSeedsPerSize = 2;
  /// Growth is refused (kFull) below this load: see detail/map_insert.hpp.
  static constexpr unsigned kMinGrowthLoadPercent = 5;
  /// reserve(n) sizes the table so that n items fill it to at most this load, a little
  /// below what the slot count reaches before the first failed insert (C3).
  static constexpr unsigned kReserveLoadPercent = SlotsPerBucket == 1   ? 45
                                                  : SlotsPerBucket == 2 ? 80
                                                  : SlotsPerBucket == 4 ? 90
                                                                        : 95;
  /// At or above this load an insert whose two buckets are full grows the table, when
  /// max_capacity allows, instead of searching for a cuckoo path (detail/map_insert.hpp).
  /// The reserve load: n items inserted after reserve(n) never grow the table early.
  /// Both are the defaults of CuckooMapConfig::max_load_percent (max_load_percent()).
  static constexpr unsigned kGrowLoadPercent = kReserveLoadPercent;
  /// Serialization format version (payload documented at serialize()).
  /// Version 3 added the key hash rule kProduct (integer and enum keys under DefaultHasher
  /// hashed by two multiply folds, hash.hpp), the rule of every map a constructor builds;
  /// version 2 added the key hash byte (kOneRound, one mix round); bytes of versions 1
  /// and 2 are still read, with the rule they were written with (key_hash_rule()).
  static constexpr std::uint8_t kFormatVersion = 3;
  /// The oldest version deserialize() reads.
  static constexpr std::uint8_t kOldestReadableVersion = 1;
  /// deserialize() refuses tables whose slot array would take more bytes than its
  /// max_table_bytes argument. The default, kTableBudgetFromInput, derives the limit from
  /// the input: kTableBytesPerInputByte bytes of table per input byte, and at least
  /// kMinTableBudget, so a few forged header bytes cannot allocate a large table. A map
  /// whose table grew by inserting has a table a small multiple of its serialized items
  /// and passes; a sparse one (a large capacity reserved, few items) needs an explicit
  /// max_table_bytes.
  static constexpr std::size_t kTableBudgetFromInput = 0;
  /// Table bytes allowed per input byte (see kTableBudgetFromInput).
  static constexpr std::size_t kTableBytesPerInputByte = 64;
  /// The smallest table budget kTableBudgetFromInput gives.
  static constexpr std::size_t kMinTableBudget = std::size_t{1} << 20;

 private:
  using Slots = detail::MapSlots<K, V, SlotsPerBucket, kStashSlots, Allocator>;
  using MutableItem = typename Slots::mutable_value_type;  // std::pair<K, V>
  using AllocTraits = std::allocator_traits<Allocator>;
  // The key parameter of lookups: any Q when the hasher and the equality are transparent
  // (deduced), else K (Q is then not deduced, so arguments convert to K as usual).
  template <class Q>
  using key_arg = typename detail::KeyArg<TransparentPair<Hasher, KeyEqual>>::template type<Q, K>;

 public:
  /// Forward iterator (std::forward_iterator) over the items, table slots in bucket
  /// order first, then the stash; `*it` is a value_type& (std::pair<const K, V>&), as in
  /// std::unordered_map: `for (auto& [k, v] : map) v += 1;` changes the values,
  /// `for (auto [k, v] : map)` works on copies.
  class iterator;
  /// The const forward iterator: `*it` is a const value_type&. An iterator converts to it.
  class const_iterator;
  /// What extract() returns and insert(node_type&&) takes: an item outside any map.
  class node_type;
  /// What insert(node_type&&) returns, as std::unordered_map's insert_return_type.
  struct insert_return_type;

  // ---- Construction -------------------------------------------------------------------

  /// Throws ConfigError naming the field if config is invalid (see CuckooMapConfig), before
  /// allocating anything; std::bad_alloc if the first table cannot be allocated.
  explicit CuckooMap(const CuckooMapConfig& config, Hasher hash_fn = {},
                     KeyEqual equal_fn = {}, const Allocator& alloc = Allocator())
      : config_(validated(config)),
        seed_(*config_.seed),
        bucket_count_(initial_bucket_count(config_)),
        slots_(bucket_count_, config_.huge_pages, alloc),
        hasher_(std::move(hash_fn)),
        key_eq_(std::move(equal_fn)) {}
  /// The default configuration (not explicit, as the standard containers' default
  /// constructors: `CuckooMap m = {};` and `return {};` work).
  CuckooMap() : CuckooMap(CuckooMapConfig{}) {}
  /// The default configuration with the slot memory from alloc.
  explicit CuckooMap(const Allocator& alloc) : CuckooMap(CuckooMapConfig{}, {}, {}, alloc) {}

  /// std::unordered_map's bucket-count constructor: room for about capacity_hint items
  /// in the first table (CuckooMapConfig::initial_capacity; 0: the default), the other
  /// settings default. Throws ConfigError if capacity_hint exceeds the default
  /// max_capacity.
  explicit CuckooMap(size_type capacity_hint, const Hasher& hash_fn = Hasher(),
                     const KeyEqual& equal_fn = KeyEqual(), const Allocator& alloc = Allocator())
      : CuckooMap(config_for_hint(capacity_hint), hash_fn, equal_fn, alloc) {}
  /// The items of [first, last), inserted in order (a repeated key keeps its first
  /// value, as std::unordered_map does); capacity_hint as above. Throws CapacityError if
  /// they do not fit (see insert).
  template <std::input_iterator InputIt, std::sentinel_for<InputIt> Sentinel>
    requires std::is_constructible_v<value_type, std::iter_reference_t<InputIt>>
  CuckooMap(InputIt first, Sentinel last, size_type capacity_hint = 0,
            const Hasher& hash_fn = Hasher(), const KeyEqual& equal_fn = KeyEqual(),
            const Allocator& alloc = Allocator())
      : CuckooMap(config_for_hint(capacity_hint), hash_fn, equal_fn, alloc) {
    insert(std::move(first), std::move(last));
  }
  /// The same with a configuration.
  template <std::input_iterator InputIt, std::sentinel_for<InputIt> Sentinel>
    requires std::is_constructible_v<value_type, std::iter_reference_t<InputIt>>
  CuckooMap(InputIt first, Sentinel last, const CuckooMapConfig& config,
            const Hasher& hash_fn = Hasher(), const KeyEqual& equal_fn = KeyEqual(),
            const Allocator& alloc = Allocator())
      : CuckooMap(config, hash_fn, equal_fn, alloc) {
    insert(std::move(first), std::move(last));
  }
  /// The items of the list, inserted in order (a repeated key keeps its first value).
  /// Throws CapacityError if they do not fit.
  CuckooMap(std::initializer_list<value_type> items, size_type capacity_hint = 0,
            const Hasher& hash_fn = Hasher(), const KeyEqual& equal_fn = KeyEqual(),
            const Allocator& alloc = Allocator())
      : CuckooMap(items.begin(), items.end(), capacity_hint, hash_fn, equal_fn, alloc) {}
  /// The same with a configuration.
  CuckooMap(std::initializer_list<value_type> items, const CuckooMapConfig& config,
            const Hasher& hash_fn = Hasher(), const KeyEqual& equal_fn = KeyEqual(),
            const Allocator& alloc = Allocator())
      : CuckooMap(items.begin(), items.end(), config, hash_fn, equal_fn, alloc) {}
  /// The items of any input range (C++23's from_range constructor, spelt with a tag that
  /// C++20 has: cuckoo::from_range).
  template <std::ranges::input_range R>
  CuckooMap(FromRange, R&& range, size_type capacity_hint = 0, const Hasher& hash_fn = Hasher(),
            const KeyEqual& equal_fn = KeyEqual(), const Allocator& alloc = Allocator())
      : CuckooMap(config_for_hint(capacity_hint), hash_fn, equal_fn, alloc) {
    insert_range(std::forward<R>(range));
  }

  /// Copies use select_on_container_copy_construction of other's allocator.
  CuckooMap(const CuckooMap&) = default;
  /// Replaces the contents with the list's items (kept: configuration, seed, allocator).
  /// Throws CapacityError if they do not fit; the map is then cleared.
  CuckooMap& operator=(std::initializer_list<value_type> items) {
    clear();
    insert(items);
    return *this;
  }
  /// Keeps this map's allocator unless propagate_on_container_copy_assignment.
  CuckooMap& operator=(const CuckooMap& other);
  /// A moved-from map is empty with capacity() == 0; it allocates its initial table on
  /// the next insert and is otherwise fully usable.
  CuckooMap(CuckooMap&& other) noexcept(std::is_nothrow_move_constructible_v<Hasher> &&
                                        std::is_nothrow_move_constructible_v<KeyEqual>)
      : config_(other.config_),
        seed_(other.seed_),
        key_hash_rule_(other.key_hash_rule_),
        bucket_count_(std::exchange(other.bucket_count_, 0)),
        size_(std::exchange(other.size_, 0)),
        stash_count_(std::exchange(other.stash_count_, 0)),
        slots_(std::move(other.slots_)),
        stats_(other.stats_),
        hasher_(std::move(other.hasher_)),
        key_eq_(std::move(other.key_eq_)) {
    other.slots_.clear();
  }
  /// With propagate_on_container_move_assignment, takes other's storage and allocator.
  /// Otherwise keeps this map's allocator: takes other's storage when the allocators
  /// compare equal, else moves the items one by one into storage from this map's
  /// allocator (which may throw std::bad_alloc, leaving both maps unchanged).
  CuckooMap& operator=(CuckooMap&& other) noexcept(
      (AllocTraits::propagate_on_container_move_assignment::value ||
       AllocTraits::is_always_equal::value) &&
      std::is_nothrow_move_assignable_v<Hasher> && std::is_nothrow_move_assignable_v<KeyEqual>);

  /// Exchanges the contents; the allocators too when propagate_on_container_swap, else
  /// each map keeps its own allocator. REQUIRES: that, or allocators that compare equal
  /// (as for the standard containers, where swap is undefined otherwise; asserted in
  /// debug builds).
  void swap(CuckooMap& other) noexcept(std::is_nothrow_swappable_v<Hasher> &&
                                       std::is_nothrow_swappable_v<KeyEqual>) {
    using std::swap;
    swap(config_, other.config_);
    swap(seed_, other.seed_);
    swap(key_hash_rule_, other.key_hash_rule_);
    swap(bucket_count_, other.bucket_count_);
    swap(size_, other.size_);
    swap(stash_count_, other.stash_count_);
    slots_.swap(other.slots_);
    swap(stats_, other.stats_);
    swap(hasher_, other.hasher_);
    swap(key_eq_, other.key_eq_);
  }
  /// a.swap(b).
  friend void swap(CuckooMap& a, CuckooMap& b) noexcept(noexcept(a.swap(b))) { a.swap(b); }

  /// A copy of the slot array's allocator.
  allocator_type get_allocator() const noexcept { return allocator_type(slots_.allocator()); }
  /// Destroys the items and frees the slot array.
  ~CuckooMap() = default;

  // ---- Modifiers: the standard forms --------------------------------------------------

  // Argument convention: keys by const reference, or by forwarding reference where the
  // call may store them. The standard forms below return what std::unordered_map's do
  // and throw CapacityError when the map is full and cannot grow (the map and the
  // arguments unchanged: an rvalue key or value is moved from only when it is stored).
  // The outcome forms further down return InsertResult instead and never throw for a
  // full map. Any insert that stores a new key may invalidate every iterator and every
  // pointer or reference to an item; one that finds the key present (or assigns its
  // value) invalidates nothing.

  /// Inserts item unless its key is present. Returns the item with that key and whether
  /// it was inserted. Throws CapacityError if the key is absent and there is no room
  /// (see the class comment); nothing changed then.
  std::pair<iterator, bool> insert(const value_type& item) {
    static_assert(std::is_copy_constructible_v<V>,
                  "CuckooMap::insert(const value_type&): V is not copy constructible; "
                  "insert an rvalue (std::move) or use try_emplace");
    return std_result(try_emplace_impl(item.first, item.second), "insert");
  }
  /// As above; the value is moved from (the key, being const, is copied).
  std::pair<iterator, bool> insert(value_type&& item) {
    return std_result(try_emplace_impl(item.first, std::move(item.second)), "insert");
  }
  /// Inserts value_type(std::forward<P>(item)) as emplace does: a std::pair<K, V> is
  /// taken apart, its key and value moved from only when the item is stored.
  template <class P>
    requires std::is_constructible_v<value_type, P&&>
  std::pair<iterator, bool> insert(P&& item) {
    return std_result(emplace_impl(std::forward<P>(item)), "insert");
  }
  /// insert(item); the hint is ignored (a cuckoo table has no use for one). Returns the
  /// item with that key.
  iterator insert(const const_iterator& /*hint*/, const value_type& item) { return insert(item).first; }
  /// insert(std::move(item)); the hint is ignored.
  iterator insert(const const_iterator& /*hint*/, value_type&& item) {
    return insert(std::move(item)).first;
  }
  /// insert(std::forward<P>(item)); the hint is ignored.
  template <class P>
    requires std::is_constructible_v<value_type, P&&>
  iterator insert(const const_iterator& /*hint*/, P&& item) {
    return insert(std::forward<P>(item)).first;
  }
  /// Inserts each item of [first, last) in order (a key already present, or repeated,
  /// keeps its first value). Throws CapacityError at the first item that finds no room:
  /// the items before it stay inserted (as with std::unordered_map's basic guarantee).
  template <std::input_iterator InputIt, std::sentinel_for<InputIt> Sentinel>
    requires std::is_constructible_v<value_type, std::iter_reference_t<InputIt>>
  void insert(InputIt first, Sentinel last) {
    for (; first != last; ++first) emplace(*first);  ///< bounded by the range
  }
  /// Inserts each item of the list, as the iterator-pair insert.
  void insert(std::initializer_list<value_type> items) { insert(items.begin(), items.end()); }
  /// Inserts each item of range, as the iterator-pair insert (C++23's insert_range).
  template <std::ranges::input_range R>
  void insert_range(R&& range) {
    insert(std::ranges::begin(range), std::ranges::end(range));
  }

  /// insert(value_type(key, value)) without building the pair first, as abseil and
  /// earlier versions of this map allow: returns the item with key and whether it was
  /// inserted; throws CapacityError if there is no room (key and value untouched).
  std::pair<iterator, bool> insert(const K& key, const V& value) {
    return std_result(copy_insert(key, value), "insert");
  }
  /// As above, moving value only when the item is stored.
  std::pair<iterator, bool> insert(const K& key, V&& value) {
    return std_result(insert_impl(key, std::move(value), false), "insert");
  }
  /// As above, moving key only when the item is stored.
  std::pair<iterator, bool> insert(K&& key, const V& value) {
    return std_result(copy_insert(std::move(key), value), "insert");
  }
  /// As above, moving key and value only when the item is stored.
  std::pair<iterator, bool> insert(K&& key, V&& value) {
    return std_result(insert_impl(std::move(key), std::move(value), false), "insert");
  }

  /// Inserts the item std::pair<const K, V>(args...) unless its key is present; returns
  /// the item with that key and whether it was inserted. The pair's forms (key, value),
  /// (a std::pair) and (std::piecewise_construct, key arguments, value arguments) are
  /// taken apart as try_emplace does (abseil's decomposition): the value is constructed
  /// only once the insert is known to succeed, and a key argument that is a K is moved
  /// from only then. A key given as anything else is converted to a K first. Any other
  /// form builds the pair first, as std::unordered_map::emplace does. Throws
  /// CapacityError if there is no room (the decomposed forms leave args untouched).
  template <class... Args>
  std::pair<iterator, bool> emplace(Args&&... args) {
    return std_result(emplace_impl(std::forward<Args>(args)...), "emplace");
  }
  /// emplace(args...).first; the hint is ignored.
  template <class... Args>
  iterator emplace_hint(const const_iterator& /*hint*/, Args&&... args) {
    return emplace(std::forward<Args>(args)...).first;
  }

  /// Inserts key with V(args...) if key is absent; returns the item with key and whether
  /// it was inserted. V(args...) is constructed only once the insert is known to
  /// succeed, so key and args are consumed only when the item is inserted. Throws
  /// CapacityError if there is no room, nothing consumed. If constructing the key or the
  /// value throws, the map is unchanged and key is as it was (args as V's constructor
  /// left them).
  template <class... Args>
  std::pair<iterator, bool> try_emplace(const K& key, Args&&... args) {
    return std_result(checked_try_emplace(key, std::forward<Args>(args)...), "try_emplace");
  }
  /// As above, moving key only when the item is inserted.
  template <class... Args>
  std::pair<iterator, bool> try_emplace(K&& key, Args&&... args) {
    return std_result(checked_try_emplace(std::move(key), std::forward<Args>(args)...),
                      "try_emplace");
  }
  /// try_emplace(key, args...).first; the hint is ignored.
  template <class... Args>
  iterator try_emplace(const const_iterator& /*hint*/, const K& key, Args&&... args) {
    return try_emplace(key, std::forward<Args>(args)...).first;
  }
  /// try_emplace(std::move(key), args...).first; the hint is ignored.
  template <class... Args>
  iterator try_emplace(const const_iterator& /*hint*/, K&& key, Args&&... args) {
    return try_emplace(std::move(key), std::forward<Args>(args)...).first;
  }

  /// Inserts (key, value) if key is absent, else assigns value to the present item
  /// (nothing moves). Returns the item and whether it was inserted (false: assigned).
  /// Throws CapacityError if the key is absent and there is no room (nothing consumed).
  template <class M>
    requires std::is_assignable_v<V&, M&&> && std::is_constructible_v<V, M&&>
  std::pair<iterator, bool> insert_or_assign(const K& key, M&& value) {
    return std_result(insert_impl(key, std::forward<M>(value), true), "insert_or_assign");
  }
  /// As above, moving key only when the item is inserted.
  template <class M>
    requires std::is_assignable_v<V&, M&&> && std::is_constructible_v<V, M&&>
  std::pair<iterator, bool> insert_or_assign(K&& key, M&& value) {
    return std_result(insert_impl(std::move(key), std::forward<M>(value), true),
                      "insert_or_assign");
  }
  /// insert_or_assign(key, value).first; the hint is ignored.
  template <class M>
    requires std::is_assignable_v<V&, M&&> && std::is_constructible_v<V, M&&>
  iterator insert_or_assign(const const_iterator& /*hint*/, const K& key, M&& value) {
    return insert_or_assign(key, std::forward<M>(value)).first;
  }
  /// insert_or_assign(std::move(key), value).first; the hint is ignored.
  template <class M>
    requires std::is_assignable_v<V&, M&&> && std::is_constructible_v<V, M&&>
  iterator insert_or_assign(const const_iterator& /*hint*/, K&& key, M&& value) {
    return insert_or_assign(std::move(key), std::forward<M>(value)).first;
  }

  /// The value of key, inserting a value-initialized V first if key is absent. Throws
  /// CapacityError (a std::length_error) if the key is absent and cannot be inserted;
  /// key is then as it was. REQUIRES: V is default constructible.
  V& operator[](const K& key) { return subscript(key); }
  /// As above, moving key only when it is inserted.
  V& operator[](K&& key) { return subscript(std::move(key)); }

  /// The value of key; throws std::out_of_range if key is absent.
  template <class Q = K>
  V& at(const key_arg<Q>& key) {
    V* value = find_value(key);
    if (value == nullptr) throw std::out_of_range("CuckooMap::at: key not found");
    return *value;
  }
  /// The value of key; throws std::out_of_range if key is absent.
  template <class Q = K>
  const V& at(const key_arg<Q>& key) const {
    const V* value = find_value(key);
    if (value == nullptr) throw std::out_of_range("CuckooMap::at: key not found");
    return *value;
  }

  /// Removes the item at pos and returns the iterator to the next one. Invalidates only
  /// the iterators, pointers and references to the removed item, as in
  /// std::unordered_map (no item moves: unlike erase(key), a stashed item is not moved
  /// back into the freed slot), so erasing while iterating visits every other item once.
  /// REQUIRES: pos is a dereferenceable iterator of this map.
  iterator erase(const iterator& pos) { return erase(const_iterator(pos)); }
  /// As above.
  iterator erase(const const_iterator& pos) {
    assert(pos.slots_ == &slots_ && pos.pos_ < slots_.size() && slots_.occupied(pos.pos_));
    erase_at(pos.pos_, /*refill=*/false);
    return iterator(&slots_, pos.pos_ + 1);
  }
  /// Removes the items of [first, last); returns last. Nothing else moves.
  /// REQUIRES: a valid range of this map's iterators.
  iterator erase(const const_iterator& first, const const_iterator& last) {
    for (const_iterator it = first; it != last; it = erase(it)) {  // bounded by the range
    }
    return iterator(&slots_, last.pos_);
  }
  /// Removes key; returns the number of items removed (0 or 1). When the stash holds
  /// items, one whose candidate bucket just got a free slot moves into that slot, so the
  /// stash drains as the load falls: that item's iterators are invalidated too.
  template <class Q = K>
  size_type erase(const key_arg<Q>& key) {
    const std::uint64_t hash = hash_key(key);
    const std::size_t pos = position_for_write(key, hash);
    if (pos == kNoPosition) return 0;
    // The key's first bucket, from the hash at hand (read only if the item is displaced).
    erase_at(pos, /*refill=*/true, detail::map_buckets(hash, bucket_count_).first);
    return 1;
  }

  /// Moves the item at pos out of the map into a node handle (the item is moved, not
  /// unlinked: slots are not nodes). Invalidates what erase(pos) invalidates.
  /// REQUIRES: pos is a dereferenceable iterator of this map.
  node_type extract(const_iterator pos);
  /// extract(find(key)) if key is present, else an empty node handle.
  template <class Q = K>
  node_type extract(const key_arg<Q>& key) {
    const std::size_t pos = position_of(key, hash_key(key));
    if (pos == kNoPosition) return node_type();
    return extract(const_iterator(&slots_, pos));
  }
  /// Inserts the node's item unless its key is present. Returns {the item with that key
  /// (end() for an empty node), whether it was inserted, the node: empty if inserted,
  /// else still holding the item}. Throws CapacityError if there is no room: node keeps
  /// its item.
  insert_return_type insert(node_type&& node);
  /// insert(std::move(node)).position; the hint is ignored.
  iterator insert(const const_iterator& /*hint*/, node_type&& node) {
    return insert(std::move(node)).position;
  }
  /// Moves every item of source whose key is absent here into this map (as abseil and
  /// std::unordered_map do; the items whose key is present stay in source). A full map
  /// does not throw: at the first item that finds no room, merging stops and that item
  /// and the rest stay in source. REQUIRES: &source != this.
  template <unsigned B2, class H2, class E2>
  void merge(CuckooMap<K, V, B2, H2, E2, Allocator>& source);
  /// As above.
  template <unsigned B2, class H2, class E2>
  void merge(CuckooMap<K, V, B2, H2, E2, Allocator>&& source) {
    merge(source);
  }

  /// std::erase_if for this map: removes every item for which pred(item) is true
  /// (pred gets a const value_type&) and returns how many. Visits each item once (erase
  /// by iterator moves nothing), then lets stashed items whose candidate buckets now
  /// have room move back into the table.
  template <class Pred>
  friend size_type erase_if(CuckooMap& map, Pred pred) {
    const size_type before = map.size_;
    for (auto it = map.cbegin(); it != map.cend();) {  // bounded by the slots
      if (pred(*it)) {
        it = map.erase(it);
      } else {
        ++it;
      }
    }
    map.drain_stash();
    return before - map.size_;
  }

  /// Removes every item; keeps bucket_count(), seed() and stats().
  void clear() noexcept {
    slots_.clear();
    size_ = 0;
    stash_count_ = 0;
  }

  /// Grows the table, if needed, so that n items fill it to at most max_load_percent().
  /// Returns true if afterwards capacity() >= n * 100 / max_load_percent(). Returns
  /// false, changing nothing, if that needs more than max_capacity slots or the rebuild
  /// fails (allocation failure, or a hasher that gives too many keys the same buckets).
  /// Never shrinks. Not [[nodiscard]], as std::unordered_map::reserve returns nothing: a
  /// failed reserve costs only the early growth (inserts still grow, or refuse).
  bool reserve(size_type n);
  /// std::unordered_map::rehash: a table of at least ceil(n / SlotsPerBucket) buckets
  /// that holds size() items within max_load_percent(), growing or shrinking to that
  /// size. Throws CapacityError if that needs more than max_capacity slots or a growing
  /// rebuild fails; the map is then unchanged. A shrink (rehash(0): the smallest table
  /// that reserve(size()) would accept) that no rebuild can place keeps the table.
  void rehash(size_type n);

  // ---- Modifiers: the outcome forms ---------------------------------------------------

  /// Stores (key, value) unless key is present. Returns kInserted; kExists if the key
  /// was present (nothing changes, the stored value is kept); kFull if there is no room
  /// and the table may not or cannot grow (max_capacity reached, growth bounds
  /// exhausted, load below kMinGrowthLoadPercent, or memory ran out: std::bad_alloc from
  /// the allocator, the path search or a copy of the key or value): then nothing
  /// changed, every item is still stored and key is not. The stored item is constructed
  /// from the arguments only where it is stored, once the insert is known to succeed,
  /// so the arguments are moved from only when the result is kInserted: kExists and
  /// kFull leave the caller's key and value as they were, in every case, so they can be
  /// retried or stored elsewhere. Never throws for a full map.
  [[nodiscard]] InsertResult insert_outcome(const K& key, const V& value) {
    return copy_insert(key, value).result;
  }
  /// As above, moving value only when the result is kInserted.
  [[nodiscard]] InsertResult insert_outcome(const K& key, V&& value) {
    return insert_impl(key, std::move(value), false).result;
  }
  /// As above, moving key only when the result is kInserted.
  [[nodiscard]] InsertResult insert_outcome(K&& key, const V& value) {
    return copy_insert(std::move(key), value).result;
  }
  /// As above, moving key and value only when the result is kInserted.
  [[nodiscard]] InsertResult insert_outcome(K&& key, V&& value) {
    return insert_impl(std::move(key), std::move(value), false).result;
  }

  /// As insert_outcome, but a present key gets the new value: returns kUpdated (nothing
  /// moves). kFull also when assigning the value ran out of memory (value unchanged).
  template <class M>
    requires std::is_assignable_v<V&, M&&> && std::is_constructible_v<V, M&&>
  [[nodiscard]] InsertResult insert_or_assign_outcome(const K& key, M&& value) {
    return insert_impl(key, std::forward<M>(value), true).result;
  }
  /// As above, moving key only when the result is kInserted.
  template <class M>
    requires std::is_assignable_v<V&, M&&> && std::is_constructible_v<V, M&&>
  [[nodiscard]] InsertResult insert_or_assign_outcome(K&& key, M&& value) {
    return insert_impl(std::move(key), std::forward<M>(value), true).result;
  }

  /// emplace(args...) with insert_outcome's results instead of an iterator or an
  /// exception.
  template <class... Args>
  [[nodiscard]] InsertResult emplace_outcome(Args&&... args) {
    return emplace_impl(std::forward<Args>(args)...).result;
  }

  /// try_emplace(key, args...) with insert_outcome's results: kInserted, kExists, kFull
  /// (std::bad_alloc while constructing the key or value is kFull too; any other
  /// exception propagates, the map and key unchanged).
  template <class... Args>
  [[nodiscard]] InsertResult try_emplace_outcome(const K& key, Args&&... args) {
    return checked_try_emplace(key, std::forward<Args>(args)...).result;
  }
  /// As above, moving key only when the result is kInserted.
  template <class... Args>
  [[nodiscard]] InsertResult try_emplace_outcome(K&& key, Args&&... args) {
    return checked_try_emplace(std::move(key), std::forward<Args>(args)...).result;
  }

  // ---- Lookup -------------------------------------------------------------------------

  /// The item with key, or end(). Invalidated as described at insert.
  template <class Q = K>
  [[gnu::always_inline]] iterator find(const key_arg<Q>& key) {
    return iterator_at(position_of(key, hash_key(key)));
  }
  /// The item with key, or end().
  template <class Q = K>
  [[gnu::always_inline]] const_iterator find(const key_arg<Q>& key) const {
    return const_iterator_at(position_of(key, hash_key(key)));
  }
  /// The value stored for key, or nullptr (no iterator to compare: the lookup
  /// find_many batches). The pointer is invalidated as iterators are.
  template <class Q = K>
  [[gnu::always_inline]] V* find_value(const key_arg<Q>& key) {
    const std::size_t pos = position_of(key, hash_key(key));
    return pos == kNoPosition ? nullptr : &slots_.item(pos).second;
  }
  /// As above.
  template <class Q = K>
  [[gnu::always_inline]] const V* find_value(const key_arg<Q>& key) const {
    const std::size_t pos = position_of(key, hash_key(key));
    return pos == kNoPosition ? nullptr : &slots_.item(pos).second;
  }
  /// Whether key is present.
  template <class Q = K>
  [[gnu::always_inline]] bool contains(const key_arg<Q>& key) const {
    return position_of(key, hash_key(key)) != kNoPosition;
  }
  /// 1 if key is present, else 0.
  template <class Q = K>
  size_type count(const key_arg<Q>& key) const {
    return contains(key) ? 1 : 0;
  }
  /// {find(key), the iterator after it}, or {end(), end()}.
  template <class Q = K>
  std::pair<iterator, iterator> equal_range(const key_arg<Q>& key) {
    const iterator it = find(key);
    if (it == end()) return {it, it};
    return {it, std::next(it)};
  }
  /// As above.
  template <class Q = K>
  std::pair<const_iterator, const_iterator> equal_range(const key_arg<Q>& key) const {
    const const_iterator it = find(key);
    if (it == end()) return {it, it};
    return {it, std::next(it)};
  }

  /// Batched find_value(): results[i] = find_value(keys[i]) (the value's address, or
  /// nullptr) for
  /// every i < size(keys); the same answers, faster for many keys in a table larger than
  /// the cache. Keys go through a pipeline (detail/map_lookup.hpp): hashed and their two
  /// tag words prefetched, kFindAhead keys later their tags matched and the matching item
  /// prefetched, kFindAhead keys after that probed; so the misses of many keys overlap,
  /// and a hit reads three lines (a miss two) where find() reads four. keys: any
  /// contiguous sized range of keys find() takes (with a transparent hasher and equality,
  /// e.g. std::string_view on a std::string map); results: any sized random-access range
  /// that `const V*` assigns to. Throws std::invalid_argument, writing nothing, if results
  /// has fewer entries than keys. The pointers are invalidated as find()'s are.
  template <class Keys, class Results>
    requires std::ranges::contiguous_range<Keys> && std::ranges::sized_range<Keys> &&
             std::ranges::random_access_range<Results> &&
             std::ranges::sized_range<Results> &&
             std::assignable_from<std::ranges::range_reference_t<Results>, const V*>
  void find_many(const Keys& keys, Results&& results) const;
  /// The distance between the pipeline's stages, in keys: at 10M items 8 and 32 gave the
  /// same speed on the 2-vCPU bench machine (bench_map map/cuckoo_map/find_many_*; 32
  /// leaves room for slower memory), 16 no better. kFindRing holds what the stages found
  /// for the keys in flight (buckets, tag, tag matches).
  static constexpr std::size_t kFindAhead = 32;
  /// Entries of find_many's ring of keys in flight.
  static constexpr std::size_t kFindRing = std::bit_ceil(2 * kFindAhead + 1);

  // ---- Size and shape -----------------------------------------------------------------

  /// The number of items.
  size_type size() const noexcept { return size_; }
  /// Whether there are no items.
  bool empty() const noexcept { return size_ == 0; }
  /// The most items the map may ever hold: config().max_capacity table slots plus the
  /// stash (the table refuses inserts, kFull or CapacityError, before it is that full).
  size_type max_size() const noexcept { return config_.max_capacity + kStashSlots; }
  /// Table slots (bucket_count() * SlotsPerBucket); the stash is not counted.
  std::size_t capacity() const noexcept { return table_slots(); }
  /// Buckets of SlotsPerBucket slots each (std::unordered_map's buckets hold one list).
  std::uint32_t bucket_count() const noexcept { return bucket_count_; }
  /// size() / capacity() (items per slot, not per bucket); 0 for a moved-from map.
  double load_factor() const noexcept {
    return bucket_count_ == 0 ? 0.0
                              : static_cast<double>(size_) / static_cast<double>(table_slots());
  }
  /// The load (items per slot) at which an insert that finds its buckets full grows the
  /// table, and that reserve(n) plans for: max_load_percent() / 100 (0.9 at
  /// SlotsPerBucket = 4 by default). A table at max_capacity fills beyond it.
  float max_load_factor() const noexcept {
    return static_cast<float>(max_load_percent()) / 100.0F;
  }
  /// Plans for load ml from now on (CuckooMapConfig::max_load_percent): ml is rounded to
  /// a whole percent and clamped to kMinMaxLoadPercent..kReserveLoadPercent percent (a
  /// cuckoo table cannot plan beyond the load its path searches reach); NaN changes
  /// nothing. Moves no item: a map already fuller than ml grows at its next insert that
  /// finds both buckets full, or at reserve() / rehash().
  void max_load_factor(float ml) noexcept {
    if (std::isnan(ml)) return;
    const float percent = std::clamp(ml * 100.0F, static_cast<float>(CuckooMapConfig::kMinMaxLoadPercent),
                                     static_cast<float>(kReserveLoadPercent));
    config_.max_load_percent = static_cast<unsigned>(std::lround(percent));
  }
  /// The load, in percent, the map plans for: config().max_load_percent, or
  /// kReserveLoadPercent when that is 0.
  unsigned max_load_percent() const noexcept {
    return config_.max_load_percent != 0 ? config_.max_load_percent : kReserveLoadPercent;
  }
  /// The most buckets config().max_capacity allows.
  std::uint32_t max_bucket_count() const noexcept {
    return static_cast<std::uint32_t>(config_.max_capacity / SlotsPerBucket);
  }
  /// The seed in use. It is the configured seed unless a growth had to reseed
  /// (stats().reseeds counts those).
  std::uint64_t seed() const noexcept { return seed_; }
  /// How the map hashes integer and enum keys under DefaultHasher (hash.hpp): kProduct
  /// for a map built by a constructor; for a map read from bytes (or from a later
  /// serialization of such a map), the rule those bytes were written with: kSeeded for
  /// format version 1, kOneRound for version 2. Copies, moves, swaps, assignments and
  /// rebuilds carry it. To move such a map to the current rule, insert its items into a
  /// new map.
  KeyHashRule key_hash_rule() const noexcept { return key_hash_rule_; }
  /// key_hash_rule() == KeyHashRule::kSeeded: a map read from bytes of format version 1,
  /// which hashes every key by seeded_hash.
  bool legacy_key_hash() const noexcept { return key_hash_rule_ == KeyHashRule::kSeeded; }
  /// The validated configuration; config().seed is the seed the map was created with.
  const CuckooMapConfig& config() const noexcept { return config_; }
  /// The counters since construction.
  const CuckooMapStats& stats() const noexcept { return stats_; }
  /// Bytes of the slot array and occupancy bytes taken from the allocator.
  std::size_t memory_bytes() const noexcept { return slots_.allocated_bytes(); }
  /// The hasher.
  const Hasher& hash_function() const noexcept { return hasher_; }
  /// The key equality.
  const KeyEqual& key_eq() const noexcept { return key_eq_; }

  // ---- Iteration ----------------------------------------------------------------------

  /// Visits each item exactly once, stash included. The order depends only on the seed,
  /// the configuration and the sequence of operations (deterministic).
  iterator begin() noexcept { return iterator(&slots_, 0); }
  /// Past the last item.
  iterator end() noexcept { return iterator(&slots_, slots_.size()); }
  /// The first item, or end().
  const_iterator begin() const noexcept {
    return const_iterator(&slots_, 0);
  }
  /// Past the last item.
  const_iterator end() const noexcept {
    return const_iterator(&slots_, slots_.size());
  }
  /// begin() of the const map.
  const_iterator cbegin() const noexcept { return begin(); }
  /// end() of the const map.
  const_iterator cend() const noexcept { return end(); }

  // ---- Introspection for the verification suite ---------------------------------------

  /// The two candidate buckets of key at the current bucket count and seed (see the
  /// design comment). {0, 0} for a moved-from map.
  std::pair<std::uint32_t, std::uint32_t> buckets_of(const K& key) const {
    if (bucket_count_ == 0) return {0, 0};
    const detail::MapBucketPair pair = detail::map_buckets(hash_key(key), bucket_count_);
    return {pair.first, pair.second};
  }

  /// A hash value whose candidate buckets are {first, second} at bucket_count buckets, so
  /// that a test Hasher can place keys in chosen buckets.
  /// REQUIRES: first < bucket_count and second < bucket_count.
  static constexpr std::uint64_t hash_for_buckets(std::uint32_t first, std::uint32_t second,
                                                  std::uint32_t bucket_count) noexcept {
    return detail::map_hash_for_buckets(first, second, bucket_count);
  }

  /// Items currently in the stash.
  std::size_t stash_size() const noexcept { return stash_count_; }

  /// Verifies the invariants: every stored key sits in one of its two candidate buckets or
  /// in the stash, no key is stored twice, and the item and stash counts match the slots.
  /// Returns an empty string if they hold, else a description of the first violation.
  /// O(capacity()); for tests and debugging.
  std::string check_invariants() const;

  // ---- Serialization (K and V integral or std::string) -------------------------------

  /// The map in the shared envelope (kind kCuckooMap, version kFormatVersion). Payload,
  /// little-endian:
  ///   u8  SlotsPerBucket
  ///   u8  key hash (key_hash_rule()): 2 two multiply folds of integer and enum keys under
  ///       DefaultHasher (from version 3), 1 one mix round of them, 0 seeded_hash for
  ///       every key (absent in version 1: 0)
  ///   u64 initial_capacity, u64 max_capacity, u32 max_path_length, u64 config seed
  ///   u64 seed in use
  ///   u32 bucket_count
  ///   u64 item count, then per item in iteration order:
  ///       u64 position (bucket * SlotsPerBucket + slot; capacity() + i for stash slot i),
  ///       key, value (detail/map_codec.hpp: integers as sizeof bytes, strings u64
  ///       length + bytes)
  /// Positions are stored, so the deserialized map has the same layout: equal iteration
  /// order and byte-identical re-serialization.
  std::vector<std::uint8_t> serialize() const
    requires detail::MapCodable<K> && detail::MapCodable<V>;

  /// Rebuilds a map from serialize() output. Throws DeserializeError: envelope problems
  /// (see detail/serial.hpp); kBadConfig naming the field for a SlotsPerBucket mismatch,
  /// an invalid configuration, a bucket count of 0 or a table above max_table_bytes (by
  /// default derived from the input size, see kTableBudgetFromInput);
  /// kTruncated when the item count exceeds what the remaining bytes could hold (checked
  /// before allocating) or a field or string runs past the end; kInconsistent for a
  /// bucket count outside what the configuration allows, positions out of range or not
  /// increasing, a key outside its candidate buckets, a duplicate key; kTrailingBytes.
  /// Never reads out of bounds and never returns a half-built map.
  static CuckooMap deserialize(std::span<const std::uint8_t> bytes, Hasher hash_fn = {},
                               KeyEqual equal_fn = {},
                               std::size_t max_table_bytes = kTableBudgetFromInput)
    requires detail::MapCodable<K> && detail::MapCodable<V>;

  /// Equal when both hold the same keys with equal values. Layout, capacity, seed,
  /// configuration and stats do not matter.
  friend bool operator==(const CuckooMap& a, const CuckooMap& b)
    requires std::equality_comparable<V>
  {
    if (a.size_ != b.size_) return false;
    for (const value_type& item : a) {
      const V* other = b.find_value(item.first);
      if (other == nullptr || !(*other == item.second)) return false;
    }
    return true;
  }

 private:
  // merge() reads and empties the slots of maps of other parameters.
  template <class K2, class V2, unsigned B2, class H2, class E2, class A2>
    requires HasherFor<H2, K2>
  friend class CuckooMap;

  static constexpr std::size_t kNoPosition = std::numeric_limits<std::size_t>::max();
  static constexpr std::uint64_t kNoHandle = std::numeric_limits<std::uint64_t>::max();
  static constexpr std::uint64_t kSeedStep = 0x9e3779b97f4a7c15ULL;

  struct RestoreTag {};

  // Search adapters: over the live table (detail/map_insert.hpp) and over the dry-run
  // placement of a rebuild (detail/map_growth.hpp).
  struct LiveView;
  struct PlanView;

  // Restores a deserialized table: config already validated.
  CuckooMap(RestoreTag, const CuckooMapConfig& config, std::uint32_t bucket_count,
            std::uint64_t seed, KeyHashRule key_hash_rule, Hasher hash_fn, KeyEqual equal_fn)
      : config_(config),
        seed_(seed),
        key_hash_rule_(key_hash_rule),
        bucket_count_(bucket_count),
        slots_(bucket_count, config_.huge_pages),
        hasher_(std::move(hash_fn)),
        key_eq_(std::move(equal_fn)) {}

  static constexpr std::size_t slot_index(std::uint32_t bucket, unsigned slot) noexcept {
    return std::size_t{bucket} * SlotsPerBucket + slot;
  }
  std::size_t table_slots() const noexcept { return std::size_t{bucket_count_} * SlotsPerBucket; }
  static std::uint32_t initial_bucket_count(const CuckooMapConfig& config) noexcept {
    return static_cast<std::uint32_t>(detail::map_initial_buckets(config, SlotsPerBucket));
  }
  // Inline everywhere: g++ 12 left hash_key out of line in bench_map's lookup loops (a
  // call a key, its constants reloaded after each), where the integer hash is 25
  // instructions; a string key's XXH3 stays a call of its own.
  template <class Q>
  [[gnu::always_inline]] std::uint64_t hash_key(const Q& key) const {
    return hash_with(key, seed_);
  }
  // The key hash (hash.hpp, detail::map_key_hash) under key_hash_rule().
  template <class Q>
  [[gnu::always_inline]] std::uint64_t hash_with(const Q& key, std::uint64_t seed) const {
    return detail::map_key_hash(hasher_, key, seed, key_hash_rule_);
  }
  template <class Q>
  bool holds(std::size_t pos, const Q& key) const {
    return slots_.occupied(pos) && key_eq_(slots_.item(pos).first, key);
  }

  // The slot of bucket holding key among the slots whose bit is set in candidates (the
  // slots whose tag matches the key's), or SlotsPerBucket.
  template <class Q>
  [[gnu::always_inline]] unsigned slot_among(std::uint32_t bucket, unsigned candidates, const Q& key) const;

  // The hot lookup: the first bucket, the second when the first one's summary names the
  // key's tag (tags first, keys only where a tag matches), then the stash only if it
  // holds anything. Always inlined, as g++ at -O2 would not inline it into a caller's
  // loop (a call costs more than the rest of a miss).
  template <class Q>
  [[gnu::always_inline]] std::size_t position_of(const Q& key, std::uint64_t hash) const;
  // position_of() for an insert, which stores in the second bucket when the first is
  // full, or an erase, whose key is more often in the second bucket than a lookup's
  // (erased keys are mostly present): both buckets' items and tags are prefetched, so
  // that neither the lookup nor the write waits for a second round of misses.
  template <class Q>
  [[gnu::always_inline]] std::size_t position_for_write(const Q& key, std::uint64_t hash) const;
  // position_of() for a non-empty map whose buckets pair (of hash) are already
  // prefetched. REQUIRES: size() != 0, pair == map_buckets(hash, bucket_count_).
  template <class Q>
  [[gnu::always_inline]] std::size_t position_in(const Q& key, std::uint64_t hash, detail::MapBucketPair pair) const;
  // position_in() with the tag matches of the first bucket given, and those of the second
  // given too, or kMatchesUnknown (then computed if the first bucket's summary says the
  // key may be in the second). REQUIRES: as position_in(),
  // tag == map_tag(hash), first_matches == slots_.matches(pair.first, tag), and
  // second_matches kMatchesUnknown or slots_.matches(pair.second, tag).
  template <class Q>
  [[gnu::always_inline]] std::size_t position_matched(const Q& key, detail::MapBucketPair pair, std::uint8_t tag,
                               unsigned first_matches, unsigned second_matches) const;
  // Not a set of slots (a bucket has at most 8).
  static constexpr unsigned kMatchesUnknown = ~0U;
  // check_invariants()'s part for the buckets' summaries of displaced items.
  std::string check_summaries() const;
  template <class Q>
  [[gnu::noinline]] std::size_t stash_position_of(const Q& key) const;

  // The position of the first free slot of bucket, or kNoPosition if it is full.
  std::size_t free_slot_in(std::uint32_t bucket) const noexcept {
    return free_slot_of(slots_, bucket);
  }
  // The same in slots (the live slots, or a rebuild's new ones).
  static std::size_t free_slot_of(const Slots& slots, std::uint32_t bucket) noexcept {
    const unsigned s = slots.free_slot(bucket);
    return s < SlotsPerBucket ? slot_index(bucket, s) : kNoPosition;
  }

  // The new item of an insert that is not stored yet: a reference to its key and the
  // arguments of its value, V(args...). The item is constructed from them only where it
  // is stored, once the insert is known to succeed, so that a refused insert leaves them
  // untouched. NoPending: a rebuild without a new item (reserve).
  template <class KK, class... Args>
  struct Pending {
    KK&& key;
    std::tuple<Args&&...> args;

    // Constructing the item cannot throw: it may then be built in its slot after other
    // items moved for it (a cuckoo path). Else it is built before anything moves.
    static constexpr bool kNothrow = std::is_nothrow_constructible_v<K, KK&&> &&
                                     std::is_nothrow_constructible_v<V, Args&&...>;

    // Constructs the item in slot pos of slots, consuming key and args. If that throws,
    // pos stays empty, key is as it was and args are as V's constructor left them.
    // first: the item's first candidate bucket in slots.
    void place(Slots& slots, std::size_t pos, std::uint8_t tag, std::uint32_t first) {
      std::apply(
          [&](auto&&... a) {
            emplace_item(slots, pos, tag, first, std::forward<KK>(key),
                         std::forward<decltype(a)>(a)...);
          },
          std::move(args));
    }
    // The item, built from key and args (consuming them; as place() if that throws).
    MutableItem build() {
      return std::apply(
          [&](auto&&... a) {
            return make_item(std::forward<KK>(key), std::forward<decltype(a)>(a)...);
          },
          std::move(args));
    }
  };
  struct NoPending {
    K key;  // never constructed: only names the member's type for rebuild
  };

  // Whether the item (key, V(args...)) is built from a value constructed first: when
  // that construction may throw and building the key takes the caller's key (an rvalue),
  // since std::pair constructs its key first, and a value that then throws would leave
  // the caller's key moved from. Costs one move of the value, in that case only.
  template <class KK, class... Args>
  static constexpr bool kValueFirst =
      !std::is_lvalue_reference_v<KK> && !std::is_nothrow_constructible_v<V, Args&&...>;
  // Whether args is one V (the insert forms): then the item is std::pair(key, value).
  template <class... Args>
  static constexpr bool kOneValue =
      sizeof...(Args) == 1 && (std::is_same_v<std::remove_cvref_t<Args>, V> && ...);

  // Constructs the item (key, V(args...)) in slot pos of slots, first being its first
  // candidate bucket there. If that throws, pos stays empty, key is as it was, and args
  // are as V's constructor left them.
  template <class KK, class... Args>
  static void emplace_item(Slots& slots, std::size_t pos, std::uint8_t tag, std::uint32_t first,
                           KK&& key, Args&&... args) {
    if constexpr (kValueFirst<KK, Args...>) {
      V value(std::forward<Args>(args)...);
      slots.emplace(pos, tag, first, std::forward<KK>(key), std::move(value));
    } else if constexpr (kOneValue<Args...>) {
      slots.emplace(pos, tag, first, std::forward<KK>(key), std::forward<Args>(args)...);
    } else {
      slots.emplace(pos, tag, first, std::piecewise_construct,
                    std::forward_as_tuple(std::forward<KK>(key)),
                    std::forward_as_tuple(std::forward<Args>(args)...));
    }
  }
  // The item (key, V(args...)), with emplace_item's guarantees if it throws.
  template <class KK, class... Args>
  static MutableItem make_item(KK&& key, Args&&... args) {
    if constexpr (kValueFirst<KK, Args...>) {
      V value(std::forward<Args>(args)...);
      return MutableItem(std::forward<KK>(key), std::move(value));
    } else {
      return MutableItem(std::piecewise_construct, std::forward_as_tuple(std::forward<KK>(key)),
                        std::forward_as_tuple(std::forward<Args>(args)...));
    }
  }

  // What an insert did and where: the position of the key's item (kInserted, kExists,
  // kUpdated), or kNoPosition (kFull).
  struct Placed {
    InsertResult result;
    std::size_t pos;
  };

  // The standard forms' result: the item and whether it was inserted; kFull throws
  // CapacityError (nothing changed, nothing consumed).
  std::pair<iterator, bool> std_result(Placed placed, const char* operation) {
    if (placed.result == InsertResult::kFull) [[unlikely]] throw_full(operation);
    return {iterator_at(placed.pos), placed.result == InsertResult::kInserted};
  }
  [[noreturn, gnu::cold, gnu::noinline]] void throw_full(const char* operation) const {
    throw CapacityError(std::string("CuckooMap::") + operation, size_, table_slots(),
                        config_.max_capacity);
  }

  // The iterator at pos (an item, or kNoPosition: end()), without skipping.
  iterator iterator_at(std::size_t pos) noexcept {
    return iterator(&slots_, pos == kNoPosition ? slots_.size() : pos, iterator::kExact);
  }
  const_iterator const_iterator_at(std::size_t pos) const noexcept {
    return const_iterator(&slots_, pos == kNoPosition ? slots_.size() : pos,
                          const_iterator::kExact);
  }

  // The first candidate bucket of the item at pos when it is displaced (stored in its
  // second, see map_slots.hpp), which removing it must tell the summaries; else 0, unread.
  std::uint32_t displaced_home(std::size_t pos) const noexcept {
    if (!slots_.displaced(pos)) return 0;
    return detail::map_buckets(hash_key(slots_.item(pos).first), bucket_count_).first;
  }
  // Removes the item at pos. refill: let a stashed item whose candidate bucket is pos's
  // move into pos (erase by key); erase by iterator does not, so that nothing else moves.
  void erase_at(std::size_t pos, bool refill) noexcept {
    erase_at(pos, refill, displaced_home(pos));
  }
  // The same, home being the item's first bucket when it is displaced (from a hash at
  // hand, or displaced_home(pos) computed before the key was moved from: merge).
  void erase_at(std::size_t pos, bool refill, std::uint32_t home) noexcept {
    slots_.reset(pos, home);
    --size_;
    ++stats_.erases;
    if (pos >= table_slots()) {
      --stash_count_;
    } else if (refill && stash_count_ != 0) [[unlikely]] {
      refill_from_stash(pos);
    }
  }

  // The configuration of the capacity-hint constructors.
  static CuckooMapConfig config_for_hint(size_type capacity_hint) {
    CuckooMapConfig config;
    if (capacity_hint != 0) config.initial_capacity = capacity_hint;
    return config;
  }

  // The public entries that copy the value or build it from arguments, with the
  // diagnostic at the public API when V cannot be built so (a move-only value given as
  // an lvalue): the static_assert names the call; the detail code is not instantiated.
  template <class KK>
  Placed copy_insert(KK&& key, const V& value) {
    if constexpr (std::is_copy_constructible_v<V>) {
      return insert_impl(std::forward<KK>(key), value, false);
    } else {
      static_assert(std::is_copy_constructible_v<V>,
                    "CuckooMap::insert(key, value) / insert_outcome: V is not copy "
                    "constructible (a move-only value); pass the value as an rvalue: "
                    "insert(key, std::move(value))");
      return {InsertResult::kFull, kNoPosition};
    }
  }
  template <class KK, class... Args>
  Placed checked_try_emplace(KK&& key, Args&&... args) {
    if constexpr (std::is_constructible_v<V, Args&&...>) {
      return try_emplace_impl(std::forward<KK>(key), std::forward<Args>(args)...);
    } else {
      static_assert(std::is_constructible_v<V, Args&&...>,
                    "CuckooMap::try_emplace / try_emplace_outcome / emplace: V cannot be "
                    "constructed from these arguments (a move-only value given as an "
                    "lvalue needs std::move)");
      return {InsertResult::kFull, kNoPosition};
    }
  }

  template <class KK, class VV>
  Placed insert_impl(KK&& key, VV&& value, bool assign);
  // Stores (key, V(args...)) for a key that is absent (hash = hash_key(key)): the hot path
  // (a free slot in a candidate bucket), else insert_slow. std::bad_alloc is kFull.
  template <class KK, class... Args>
  Placed insert_absent(std::uint64_t hash, KK&& key, Args&&... args);

  template <class KK, class... Args>
  Placed try_emplace_impl(KK&& key, Args&&... args);

  // emplace's forms. (key, value); a std::pair; (std::piecewise_construct, key arguments,
  // value arguments): taken apart into try_emplace. Anything else: the pair built first.
  template <class KA, class VA>
  Placed emplace_impl(KA&& key, VA&& value) {
    return emplace_key(std::forward<KA>(key), std::forward<VA>(value));
  }
  template <class P>
    requires detail::kIsSpecializationOf<std::remove_cvref_t<P>, std::pair>
  Placed emplace_impl(P&& item) {
    return emplace_key(std::get<0>(std::forward<P>(item)), std::get<1>(std::forward<P>(item)));
  }
  template <class KT, class VT>
    requires detail::kIsSpecializationOf<std::remove_cvref_t<KT>, std::tuple> &&
             detail::kIsSpecializationOf<std::remove_cvref_t<VT>, std::tuple>
  Placed emplace_impl(std::piecewise_construct_t, KT&& key_args, VT&& value_args) {
    return std::apply(
        [&](auto&&... a) {
          if constexpr (std::tuple_size_v<std::remove_cvref_t<KT>> == 1) {
            return emplace_key(std::get<0>(std::forward<KT>(key_args)),
                               std::forward<decltype(a)>(a)...);
          } else {
            return emplace_key(std::make_from_tuple<K>(std::forward<KT>(key_args)),
                               std::forward<decltype(a)>(a)...);
          }
        },
        std::forward<VT>(value_args));
  }
  template <class... Args>
  Placed emplace_impl(Args&&... args) {
    if constexpr (std::is_constructible_v<MutableItem, Args&&...>) {
      MutableItem item(std::forward<Args>(args)...);
      return insert_impl(std::move(item.first), std::move(item.second), false);
    } else {
      static_assert(std::is_constructible_v<MutableItem, Args&&...>,
                    "CuckooMap::emplace / insert: std::pair<K, V> cannot be constructed from "
                    "these arguments (a move-only value given as an lvalue needs std::move)");
      return {InsertResult::kFull, kNoPosition};
    }
  }
  // try_emplace with a key argument: as it is when it is a K, else converted to one.
  template <class KA, class... Args>
  Placed emplace_key(KA&& key, Args&&... args) {
    if constexpr (std::is_same_v<std::remove_cvref_t<KA>, K>) {
      return checked_try_emplace(std::forward<KA>(key), std::forward<Args>(args)...);
    } else {
      return checked_try_emplace(K(std::forward<KA>(key)), std::forward<Args>(args)...);
    }
  }

  // operator[]: try_emplace(key) with a value-initialized V, the item's value or
  // CapacityError.
  template <class KK>
  V& subscript(KK&& key);

  // Slow paths, out of line.
  template <class KK, class... Args>
  [[gnu::noinline]] InsertResult insert_slow(Pending<KK, Args...>&& item, std::uint64_t hash);
  // Growth for item: true if a rebuild into more buckets stored it (stats counted);
  // false, having changed nothing (item included), if the map cannot grow or no rebuild
  // succeeds. std::bad_alloc from a rebuild is such a failure; any other exception from
  // constructing the item propagates, nothing changed.
  template <class KK, class... Args>
  bool grow_with(Pending<KK, Args...>& item);
  // Moves every stashed item that has a free slot in a candidate bucket there.
  void drain_stash() noexcept {
    if (stash_count_ == 0) return;
    const std::size_t stash = table_slots();
    for (std::size_t i = 0; i < kStashSlots; ++i) {  // bounded by the stash
      const std::size_t pos = stash + i;
      if (!slots_.occupied(pos)) continue;
      const detail::MapBucketPair pair =
          detail::map_buckets(hash_key(slots_.item(pos).first), bucket_count_);
      std::size_t to = free_slot_in(pair.first);
      if (to == kNoPosition) to = free_slot_in(pair.second);
      if (to == kNoPosition) continue;
      slots_.move_to(to, pos, pair.first);
      --stash_count_;
    }
  }
  // Moves a stashed item whose candidate bucket is pos's into pos, if there is one.
  // REQUIRES: pos is a free table slot.
  [[gnu::noinline]] void refill_from_stash(std::size_t pos);
  template <class P>
  bool rebuild_with_seeds(std::uint32_t bucket_count, P* pending);
  template <class P>
  bool rebuild_doubled(P* pending);
  template <class P>
  bool rebuild(std::uint32_t bucket_count, std::uint64_t seed, P* pending);
  void note_stash_level() noexcept {
    stats_.stash_high_water = std::max(stats_.stash_high_water, stash_count_);
  }

  // The maps' one configuration rule (detail/map_config.hpp) with this design's limits.
  static constexpr detail::MapConfigLimits kConfigLimits{
      SlotsPerBucket, kMaxCapacity, Slots::kMaxPositions - kStashSlots, kMaxPathLength,
      kReserveLoadPercent, /*load_configurable=*/true};
  static CuckooMapConfig validated(const CuckooMapConfig& config) {
    return detail::validated_map_config(config, kConfigLimits);
  }

  CuckooMapConfig config_;
  std::uint64_t seed_ = 0;
  // key_hash_rule(): set by deserialize() to the rule of the bytes read.
  KeyHashRule key_hash_rule_ = KeyHashRule::kProduct;
  std::uint32_t bucket_count_ = 0;
  std::size_t size_ = 0;
  std::size_t stash_count_ = 0;
  Slots slots_;  // table_slots() table slots, then kStashSlots stash slots
  CuckooMapStats stats_;
  // Where the last insert that went through insert_slow put its item (the std forms
  // return an iterator to it).
  std::size_t last_slow_position_ = 0;
  detail::MapPathSearch<SlotsPerBucket> search_;
  [[no_unique_address]] Hasher hasher_;
  [[no_unique_address]] KeyEqual key_eq_;
};

}  // namespace cuckoo

// ---- Out-of-line definitions (detail/map_*.hpp) -----------------------------------------

#define CUCKOO_MAP_TEMPLATE                                                          \
  template <class K, class V, unsigned SlotsPerBucket, class Hasher, class KeyEqual, \
            class Allocator>                                                         \
    requires HasherFor<Hasher, K>
#define CUCKOO_MAP CuckooMap<K, V, SlotsPerBucket, Hasher, KeyEqual, Allocator>

#include "detail/map_lookup.hpp"
#include "detail/map_iterators.hpp"
#include "detail/map_assignment.hpp"
#include "detail/map_insert.hpp"
#include "detail/map_growth.hpp"
#include "detail/map_invariants.hpp"
#include "detail/map_serialize.hpp"

#undef CUCKOO_MAP
#undef CUCKOO_MAP_TEMPLATE
