// CuckooMap: an exact key/value hash table using bucketized cuckoo hashing.
//
// Design
// ------
// Storage is one flat array of slots: bucket_count() buckets of SlotsPerBucket slots
// each, followed by kStashSlots stash slots. A slot is empty or holds one (key, value)
// pair, constructed in place; a separate byte per bucket says which slots are occupied
// (detail/map_slots.hpp). A bucket of four uint64 -> uint64 pairs is one cache line.
//
// Each key is hashed once, h = hasher(key, seed()). Its two candidate buckets are
//     first  = reduce32(uint32(h >> 32), bucket_count())
//     second = reduce32(uint32(h),       bucket_count())
// (detail/map_layout.hpp; any bucket count works; first may equal second). The
// invariant that every operation keeps, and check_invariants() verifies:
//     every stored key sits in one of its two candidate buckets or in the stash, and
//     no key is stored twice.
// So find() looks at 2 * SlotsPerBucket slots and, only when the stash is not empty,
// at the kStashSlots stash slots. It prefetches the second bucket before comparing the
// first, so the two cache misses of a key found in its second bucket (or absent)
// overlap; for trivially copyable items and std::equal_to it compares a bucket's keys
// without branching on occupancy and masks the result.
//
// insert() of a new key takes a free slot in either candidate bucket (the hot path,
// inline below); failing that, a bounded cuckoo path search, a free stash slot, then
// growth into twice the buckets, all or nothing; a map kGrowLoadPercent full that may
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
// Iterator, pointer and reference invalidation: an insert or insert_or_assign that
// returns kInserted, an erase that returns true, clear(), reserve() that grows, and
// assignment may move any item and invalidate every iterator and every pointer returned
// by find(). Calls that return kExists, kUpdated or kFull move nothing (kUpdated changes
// the value in place).
//
// Complexity: find / contains / erase look at most 2 * SlotsPerBucket + kStashSlots
// slots. insert is expected O(1) amortized; a single insert costs at most one search of
// kMapMaxBfsNodes nodes (each node hashes up to SlotsPerBucket keys) plus, when it
// grows, O(capacity()) per rebuild attempt. Iteration is O(capacity()).
#pragma once

#include <algorithm>
#include <bit>
#include <cassert>
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

struct CuckooMapConfig {
  // Default growth limit: 2^30 slots (24 GiB of uint64 -> uint64 slots). Raise it
  // explicitly, up to CuckooMap::kMaxCapacity, for bigger tables.
  static constexpr std::size_t kDefaultMaxCapacity = std::size_t{1} << 30;
  // The longest cuckoo path a map may be configured to search.
  static constexpr unsigned kMaxPathLengthLimit = detail::kMapMaxPathLength;

  // Slots of the first table, rounded up to whole buckets (any bucket count: no rounding
  // to powers of two). Must be >= 1, and once rounded, fit in max_capacity.
  std::size_t initial_capacity = 64;
  // Growth limit in slots: the table never has more than max_capacity / SlotsPerBucket
  // buckets; an insert that would need more returns kFull. Must hold at least one bucket
  // and be at most CuckooMap::kMaxCapacity.
  std::size_t max_capacity = kDefaultMaxCapacity;
  // Most items one insert may displace along a cuckoo path, 1..kMaxPathLengthLimit.
  unsigned max_path_length = 5;
  // Hash seed; absent: random_seed(). The map stores the seed it used (config().seed is
  // always set), so any map can be rebuilt exactly.
  std::optional<std::uint64_t> seed;
  // Back the slot array with transparent huge pages when it is at least 2 MiB (2 MiB
  // aligned, madvise(MADV_HUGEPAGE) on Linux; ordinary pages elsewhere or if the kernel
  // refuses), for every table the map allocates. Saves most TLB misses of random
  // lookups in tables far larger than the cache. Off by default, as for the filter (see
  // CuckooFilterConfig::huge_pages). Not serialized: a deserialized map has it off.
  bool huge_pages = false;

  friend bool operator==(const CuckooMapConfig&, const CuckooMapConfig&) = default;
};

// Counters since construction (or deserialization); clear() keeps them. Diagnostic only:
// not serialized, not compared by operator==.
struct CuckooMapStats {
  std::uint64_t inserts = 0;          // new keys stored
  std::uint64_t updates = 0;          // values replaced by insert_or_assign
  std::uint64_t erases = 0;           // keys removed by erase
  std::uint64_t growths = 0;          // rebuilds into more buckets (insert or reserve)
  std::uint64_t reseeds = 0;          // rebuilds that had to change the seed
  std::uint64_t bfs_searches = 0;     // cuckoo path searches (inserts and rebuilds)
  std::uint64_t bfs_failures = 0;     // searches that found no path
  std::uint32_t longest_path = 0;     // most items displaced by one path
  std::size_t stash_high_water = 0;   // most items ever in the stash at once
  std::uint64_t full_rejections = 0;  // inserts answered kFull
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
// DefaultHasher and std::equal_to<> do), find, contains, count, at and erase take any
// key type Q that both accept, e.g. find(std::string_view) on a std::string map, without
// constructing a K. Such a Q must hash like the K it equals.
template <class K, class V, unsigned SlotsPerBucket = 4, class Hasher = DefaultHasher,
          class KeyEqual = std::equal_to<K>,
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
  using key_type = K;
  using mapped_type = V;
  using value_type = std::pair<K, V>;
  using size_type = std::size_t;
  using hasher = Hasher;
  using key_equal = KeyEqual;
  using allocator_type = Allocator;

  static constexpr unsigned kSlotsPerBucket = SlotsPerBucket;
  // Items that fit nowhere in the table; searched by find / erase / insert.
  static constexpr std::size_t kStashSlots = 8;
  // Hard limits: bucket indices are 32-bit, and doubling stays within them.
  static constexpr std::uint32_t kMaxBucketCount = std::uint32_t{1} << 31;
  static constexpr std::uint64_t kMaxCapacity = std::uint64_t{kMaxBucketCount} * SlotsPerBucket;
  static constexpr unsigned kMaxPathLength = detail::kMapMaxPathLength;
  // Growth bounds (see the design comment).
  static constexpr unsigned kMaxGrowthSteps = 3;
  static constexpr unsigned kSeedsPerSize = 2;
  static constexpr unsigned kMinGrowthLoadPercent = 5;
  // reserve(n) sizes the table so that n items fill it to at most this load, a little
  // below what the slot count reaches before the first failed insert (C3).
  static constexpr unsigned kReserveLoadPercent = SlotsPerBucket == 1   ? 45
                                                  : SlotsPerBucket == 2 ? 80
                                                  : SlotsPerBucket == 4 ? 90
                                                                        : 95;
  // At or above this load an insert whose two buckets are full grows the table, when
  // max_capacity allows, instead of searching for a cuckoo path (detail/map_insert.hpp).
  // The reserve load: n items inserted after reserve(n) never grow the table early.
  static constexpr unsigned kGrowLoadPercent = kReserveLoadPercent;
  // Serialization format version (payload documented at serialize()).
  static constexpr std::uint8_t kFormatVersion = 1;
  // deserialize() refuses tables whose slot array would take more bytes than its
  // max_table_bytes argument. The default, kTableBudgetFromInput, derives the limit from
  // the input: kTableBytesPerInputByte bytes of table per input byte, and at least
  // kMinTableBudget, so a few forged header bytes cannot allocate a large table. A map
  // whose table grew by inserting has a table a small multiple of its serialized items
  // and passes; a sparse one (a large capacity reserved, few items) needs an explicit
  // max_table_bytes.
  static constexpr std::size_t kTableBudgetFromInput = 0;
  static constexpr std::size_t kTableBytesPerInputByte = 64;
  static constexpr std::size_t kMinTableBudget = std::size_t{1} << 20;

 private:
  using Slots = detail::MapSlots<K, V, SlotsPerBucket, kStashSlots, Allocator>;
  using AllocTraits = std::allocator_traits<Allocator>;
  // The key parameter of lookups: any Q when the hasher and the equality are transparent
  // (deduced), else K (Q is then not deduced, so arguments convert to K as usual).
  template <class Q>
  using key_arg = typename detail::KeyArg<TransparentPair<Hasher, KeyEqual>>::template type<Q, K>;

 public:
  // Forward iterators over the items, table slots in bucket order first, then the
  // stash. const_iterator gives `const std::pair<K, V>&`. iterator gives a reference
  // object whose `first` is `const K&` and `second` is `V&`: values can be changed in
  // place, keys cannot (a key's slot depends on its hash). Bind it by value or by
  // forwarding reference: `for (auto [k, v] : map) v += 1;` or
  // `for (auto&& [k, v] : map)`; `it->second = x` works too.
  class iterator;
  class const_iterator;
  struct reference_proxy {
    const K& first;
    V& second;
  };

  // ---- Construction -------------------------------------------------------------------

  // Throws ConfigError naming the field if config is invalid (see CuckooMapConfig), before
  // allocating anything; std::bad_alloc if the first table cannot be allocated.
  explicit CuckooMap(const CuckooMapConfig& config = {}, Hasher hash_fn = {},
                     KeyEqual equal_fn = {}, const Allocator& alloc = Allocator())
      : config_(validated(config)),
        seed_(*config_.seed),
        bucket_count_(initial_bucket_count(config_)),
        slots_(bucket_count_, config_.huge_pages, alloc),
        hasher_(std::move(hash_fn)),
        key_eq_(std::move(equal_fn)) {}
  explicit CuckooMap(const Allocator& alloc) : CuckooMap(CuckooMapConfig{}, {}, {}, alloc) {}

  // Copies use select_on_container_copy_construction of other's allocator.
  CuckooMap(const CuckooMap&) = default;
  // Keeps this map's allocator unless propagate_on_container_copy_assignment.
  CuckooMap& operator=(const CuckooMap& other);
  // A moved-from map is empty with capacity() == 0; it allocates its initial table on
  // the next insert and is otherwise fully usable.
  CuckooMap(CuckooMap&& other) noexcept(std::is_nothrow_move_constructible_v<Hasher> &&
                                        std::is_nothrow_move_constructible_v<KeyEqual>)
      : config_(other.config_),
        seed_(other.seed_),
        bucket_count_(std::exchange(other.bucket_count_, 0)),
        size_(std::exchange(other.size_, 0)),
        stash_count_(std::exchange(other.stash_count_, 0)),
        slots_(std::move(other.slots_)),
        stats_(other.stats_),
        hasher_(std::move(other.hasher_)),
        key_eq_(std::move(other.key_eq_)) {
    other.slots_.clear();
  }
  // With propagate_on_container_move_assignment, takes other's storage and allocator.
  // Otherwise keeps this map's allocator: takes other's storage when the allocators
  // compare equal, else moves the items one by one into storage from this map's
  // allocator (which may throw std::bad_alloc, leaving both maps unchanged).
  CuckooMap& operator=(CuckooMap&& other) noexcept(
      (AllocTraits::propagate_on_container_move_assignment::value ||
       AllocTraits::is_always_equal::value) &&
      std::is_nothrow_move_assignable_v<Hasher> && std::is_nothrow_move_assignable_v<KeyEqual>);

  // Exchanges the contents; the allocators too when propagate_on_container_swap, else
  // each map keeps its own allocator. REQUIRES: that, or allocators that compare equal
  // (as for the standard containers, where swap is undefined otherwise; asserted in
  // debug builds).
  void swap(CuckooMap& other) noexcept(std::is_nothrow_swappable_v<Hasher> &&
                                       std::is_nothrow_swappable_v<KeyEqual>) {
    using std::swap;
    swap(config_, other.config_);
    swap(seed_, other.seed_);
    swap(bucket_count_, other.bucket_count_);
    swap(size_, other.size_);
    swap(stash_count_, other.stash_count_);
    slots_.swap(other.slots_);
    swap(stats_, other.stats_);
    swap(hasher_, other.hasher_);
    swap(key_eq_, other.key_eq_);
  }
  friend void swap(CuckooMap& a, CuckooMap& b) noexcept(noexcept(a.swap(b))) { a.swap(b); }

  allocator_type get_allocator() const noexcept { return allocator_type(slots_.allocator()); }
  ~CuckooMap() = default;

  // ---- Modifiers ----------------------------------------------------------------------

  // Argument convention (every engine): keys by const reference, or by forwarding
  // reference where the call may store them; results as InsertResult / bool / pointer,
  // never exceptions, except where there is no result to return (operator[], at).

  // Stores (key, value) unless key is present. Returns kInserted; kExists if the key was
  // present (nothing changes, the stored value is kept); kFull if there is no room and
  // the table may not or cannot grow (max_capacity reached, growth bounds exhausted,
  // load below kMinGrowthLoadPercent, or memory ran out: std::bad_alloc from the
  // allocator, the path search or a copy of the key or value): then nothing changed,
  // every item is still stored and key is not. The stored item is constructed from the
  // arguments only where it is stored, once the insert is known to succeed, so the
  // arguments are moved from only when the result is kInserted (or kUpdated for the
  // value): kExists and kFull leave the caller's key and value as they were, in every
  // case (a full table, a growth that is impossible or runs out of memory, a moved-from
  // map that cannot allocate), so they can be retried or stored elsewhere.
  InsertResult insert(const K& key, const V& value) { return insert_impl(key, value, false); }
  InsertResult insert(K&& key, V&& value) {
    return insert_impl(std::move(key), std::move(value), false);
  }

  // As insert, but a present key gets the new value: returns kUpdated (nothing moves).
  InsertResult insert_or_assign(const K& key, const V& value) {
    return insert_impl(key, value, true);
  }
  InsertResult insert_or_assign(K&& key, V&& value) {
    return insert_impl(std::move(key), std::move(value), true);
  }

  // Inserts the item std::pair<K, V>(args...) unless its key is present, with insert's
  // results. The pair's forms (key, value), (a std::pair) and (std::piecewise_construct,
  // key arguments, value arguments) are taken apart as try_emplace does (abseil's
  // decomposition): the value is constructed only once the insert is known to succeed,
  // and a key argument that is a K is moved from only then, so kExists and kFull change
  // nothing, args included. A key given as anything else is converted to a K first (the
  // lookup needs one; an exception from that conversion propagates, the map unchanged).
  // Any other form builds the pair first, as std::unordered_map::emplace does, and so
  // consumes args whatever the result.
  template <class... Args>
  InsertResult emplace(Args&&... args) {
    return emplace_impl(std::forward<Args>(args)...);
  }

  // Inserts key with V(args...) if key is absent. V(args...) is constructed only once the
  // insert is known to succeed, in the slot that stores the item (or, when that
  // construction may throw and key is an rvalue, just before key is moved there), so key
  // and args are consumed only when the result is kInserted. kExists and kFull (for the
  // reasons insert gives) change nothing, args included. If constructing the key or the
  // value throws, nothing changed in the map and key is as it was: std::bad_alloc is
  // answered kFull, any other exception propagates (args are then as V's constructor
  // left them).
  template <class... Args>
  InsertResult try_emplace(const K& key, Args&&... args) {
    return try_emplace_impl(key, std::forward<Args>(args)...);
  }
  template <class... Args>
  InsertResult try_emplace(K&& key, Args&&... args) {
    return try_emplace_impl(std::move(key), std::forward<Args>(args)...);
  }

  // The value of key, inserting a value-initialized V first if key is absent.
  // Throws std::length_error if the key is absent and cannot be inserted (the map is
  // full, see insert; key is then as it was): operator[] has no result code to return.
  // REQUIRES: V is default constructible.
  V& operator[](const K& key) { return subscript(key); }
  V& operator[](K&& key) { return subscript(std::move(key)); }

  // The value of key; throws std::out_of_range if key is absent.
  template <class Q = K>
  V& at(const key_arg<Q>& key) {
    V* value = find(key);
    if (value == nullptr) throw std::out_of_range("CuckooMap::at: key not found");
    return *value;
  }
  template <class Q = K>
  const V& at(const key_arg<Q>& key) const {
    const V* value = find(key);
    if (value == nullptr) throw std::out_of_range("CuckooMap::at: key not found");
    return *value;
  }

  // Removes key; returns whether it was present. When the stash holds items, one whose
  // candidate bucket just got a free slot moves back into the table.
  template <class Q = K>
  bool erase(const key_arg<Q>& key) {
    const std::size_t pos = position_of(key, hash_key(key));
    if (pos == kNoPosition) return false;
    slots_.reset(pos);
    --size_;
    ++stats_.erases;
    if (pos >= table_slots()) {
      --stash_count_;
    } else if (stash_count_ != 0) [[unlikely]] {
      refill_from_stash(static_cast<std::uint32_t>(pos / SlotsPerBucket));
    }
    return true;
  }

  // Removes every item; keeps bucket_count(), seed() and stats().
  void clear() noexcept {
    slots_.clear();
    size_ = 0;
    stash_count_ = 0;
  }

  // Grows the table, if needed, so that n items fill it to at most kReserveLoadPercent.
  // Returns true if afterwards capacity() >= n * 100 / kReserveLoadPercent. Returns false,
  // changing nothing, if that needs more than max_capacity slots or the rebuild fails
  // (allocation failure, or a hasher that gives too many keys the same buckets). Never
  // shrinks.
  [[nodiscard]] bool reserve(std::size_t n);

  // ---- Lookup -------------------------------------------------------------------------

  // The value stored for key, or nullptr. The pointer is invalidated as described above.
  template <class Q = K>
  V* find(const key_arg<Q>& key) {
    const std::size_t pos = position_of(key, hash_key(key));
    return pos == kNoPosition ? nullptr : &slots_.item(pos).second;
  }
  template <class Q = K>
  const V* find(const key_arg<Q>& key) const {
    const std::size_t pos = position_of(key, hash_key(key));
    return pos == kNoPosition ? nullptr : &slots_.item(pos).second;
  }
  template <class Q = K>
  bool contains(const key_arg<Q>& key) const {
    return position_of(key, hash_key(key)) != kNoPosition;
  }
  // 1 if key is present, else 0.
  template <class Q = K>
  std::size_t count(const key_arg<Q>& key) const {
    return contains(key) ? 1 : 0;
  }

  // Batched find(): results[i] = find(keys[i]) (the value's address, or nullptr) for
  // every i < size(keys); the same answers, faster for many keys in a table larger than
  // the cache. Keys go through a pipeline (detail/map_lookup.hpp): hashed and their two
  // tag words prefetched, kFindAhead keys later their tags matched and the matching item
  // prefetched, kFindAhead keys after that probed; so the misses of many keys overlap,
  // and a hit reads three lines (a miss two) where find() reads four. keys: any
  // contiguous sized range of keys find() takes (with a transparent hasher and equality,
  // e.g. std::string_view on a std::string map); results: any sized random-access range
  // that `const V*` assigns to. Throws std::invalid_argument, writing nothing, if results
  // has fewer entries than keys. The pointers are invalidated as find()'s are.
  template <class Keys, class Results>
    requires std::ranges::contiguous_range<Keys> && std::ranges::sized_range<Keys> &&
             std::ranges::random_access_range<Results> &&
             std::ranges::sized_range<Results> &&
             std::assignable_from<std::ranges::range_reference_t<Results>, const V*>
  void find_many(const Keys& keys, Results&& results) const;
  // The distance between the pipeline's stages, in keys: at 10M items 8 and 32 gave the
  // same speed on the 2-vCPU bench machine (bench_map map/cuckoo_map/find_many_*; 32
  // leaves room for slower memory), 16 no better. kFindRing holds what the stages found
  // for the keys in flight (buckets, tag, tag matches).
  static constexpr std::size_t kFindAhead = 32;
  static constexpr std::size_t kFindRing = std::bit_ceil(2 * kFindAhead + 1);

  // ---- Size and shape -----------------------------------------------------------------

  std::size_t size() const noexcept { return size_; }
  bool empty() const noexcept { return size_ == 0; }
  // Table slots (bucket_count() * SlotsPerBucket); the stash is not counted.
  std::size_t capacity() const noexcept { return table_slots(); }
  std::uint32_t bucket_count() const noexcept { return bucket_count_; }
  // size() / capacity(); 0 for a moved-from map.
  double load_factor() const noexcept {
    return bucket_count_ == 0 ? 0.0
                              : static_cast<double>(size_) / static_cast<double>(table_slots());
  }
  // The seed in use. It is the configured seed unless a growth had to reseed
  // (stats().reseeds counts those).
  std::uint64_t seed() const noexcept { return seed_; }
  // The validated configuration; config().seed is the seed the map was created with.
  const CuckooMapConfig& config() const noexcept { return config_; }
  const CuckooMapStats& stats() const noexcept { return stats_; }
  // Bytes of the slot array and occupancy bytes taken from the allocator.
  std::size_t memory_bytes() const noexcept { return slots_.allocated_bytes(); }
  const Hasher& hash_function() const noexcept { return hasher_; }
  const KeyEqual& key_eq() const noexcept { return key_eq_; }

  // ---- Iteration ----------------------------------------------------------------------

  // Visits each item exactly once, stash included. The order depends only on the seed,
  // the configuration and the sequence of operations (deterministic).
  iterator begin() noexcept { return iterator(&slots_, 0); }
  iterator end() noexcept { return iterator(&slots_, slots_.size()); }
  const_iterator begin() const noexcept {
    return const_iterator(&slots_, 0);
  }
  const_iterator end() const noexcept {
    return const_iterator(&slots_, slots_.size());
  }
  const_iterator cbegin() const noexcept { return begin(); }
  const_iterator cend() const noexcept { return end(); }

  // ---- Introspection for the verification suite ---------------------------------------

  // The two candidate buckets of key at the current bucket count and seed (see the
  // design comment). {0, 0} for a moved-from map.
  std::pair<std::uint32_t, std::uint32_t> buckets_of(const K& key) const {
    if (bucket_count_ == 0) return {0, 0};
    const detail::MapBucketPair pair = detail::map_buckets(hash_key(key), bucket_count_);
    return {pair.first, pair.second};
  }

  // A hash value whose candidate buckets are {first, second} at bucket_count buckets, so
  // that a test Hasher can place keys in chosen buckets.
  // REQUIRES: first < bucket_count and second < bucket_count.
  static constexpr std::uint64_t hash_for_buckets(std::uint32_t first, std::uint32_t second,
                                                  std::uint32_t bucket_count) noexcept {
    return detail::map_hash_for_buckets(first, second, bucket_count);
  }

  // Items currently in the stash.
  std::size_t stash_size() const noexcept { return stash_count_; }

  // Verifies the invariants: every stored key sits in one of its two candidate buckets or
  // in the stash, no key is stored twice, and the item and stash counts match the slots.
  // Returns an empty string if they hold, else a description of the first violation.
  // O(capacity()); for tests and debugging.
  std::string check_invariants() const;

  // ---- Serialization (K and V integral or std::string) -------------------------------

  // The map in the shared envelope (kind kCuckooMap, version kFormatVersion). Payload,
  // little-endian:
  //   u8  SlotsPerBucket
  //   u64 initial_capacity, u64 max_capacity, u32 max_path_length, u64 config seed
  //   u64 seed in use
  //   u32 bucket_count
  //   u64 item count, then per item in iteration order:
  //       u64 position (bucket * SlotsPerBucket + slot; capacity() + i for stash slot i),
  //       key, value (detail/map_codec.hpp: integers as sizeof bytes, strings u64
  //       length + bytes)
  // Positions are stored, so the deserialized map has the same layout: equal iteration
  // order and byte-identical re-serialization.
  std::vector<std::uint8_t> serialize() const
    requires detail::MapCodable<K> && detail::MapCodable<V>;

  // Rebuilds a map from serialize() output. Throws DeserializeError: envelope problems
  // (see detail/serial.hpp); kBadConfig naming the field for a SlotsPerBucket mismatch,
  // an invalid configuration, a bucket count of 0 or a table above max_table_bytes (by
  // default derived from the input size, see kTableBudgetFromInput);
  // kTruncated when the item count exceeds what the remaining bytes could hold (checked
  // before allocating) or a field or string runs past the end; kInconsistent for a
  // bucket count outside what the configuration allows, positions out of range or not
  // increasing, a key outside its candidate buckets, a duplicate key; kTrailingBytes.
  // Never reads out of bounds and never returns a half-built map.
  static CuckooMap deserialize(std::span<const std::uint8_t> bytes, Hasher hash_fn = {},
                               KeyEqual equal_fn = {},
                               std::size_t max_table_bytes = kTableBudgetFromInput)
    requires detail::MapCodable<K> && detail::MapCodable<V>;

  // Equal when both hold the same keys with equal values. Layout, capacity, seed,
  // configuration and stats do not matter.
  friend bool operator==(const CuckooMap& a, const CuckooMap& b)
    requires std::equality_comparable<V>
  {
    if (a.size_ != b.size_) return false;
    for (const value_type& item : a) {
      const V* other = b.find(item.first);
      if (other == nullptr || !(*other == item.second)) return false;
    }
    return true;
  }

 private:
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
            std::uint64_t seed, Hasher hash_fn, KeyEqual equal_fn)
      : config_(config),
        seed_(seed),
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
  std::uint32_t max_bucket_count() const noexcept {
    return static_cast<std::uint32_t>(config_.max_capacity / SlotsPerBucket);
  }

  // Inline everywhere: g++ 12 left hash_key out of line in bench_map's lookup loops (a
  // call a key, its constants reloaded after each), where the integer hash is 25
  // instructions; a string key's XXH3 stays a call of its own.
  template <class Q>
  [[gnu::always_inline]] std::uint64_t hash_key(const Q& key) const {
    return hash_with(key, seed_);
  }
  template <class Q>
  [[gnu::always_inline]] std::uint64_t hash_with(const Q& key, std::uint64_t seed) const {
    return seeded_hash(hasher_, key, seed);
  }
  template <class Q>
  bool holds(std::size_t pos, const Q& key) const {
    return slots_.occupied(pos) && key_eq_(slots_.item(pos).first, key);
  }

  // The slot of bucket holding key among the slots whose bit is set in candidates (the
  // slots whose tag matches the key's), or SlotsPerBucket.
  template <class Q>
  unsigned slot_among(std::uint32_t bucket, unsigned candidates, const Q& key) const;

  // The hot lookup: two buckets (tags first, keys only where a tag matches), then the
  // stash only if it holds anything.
  template <class Q>
  std::size_t position_of(const Q& key, std::uint64_t hash) const;
  // position_of() for a non-empty map whose buckets pair (of hash) are already
  // prefetched. REQUIRES: size() != 0, pair == map_buckets(hash, bucket_count_).
  template <class Q>
  std::size_t position_in(const Q& key, std::uint64_t hash, detail::MapBucketPair pair) const;
  // position_in() with the tag matches of the first bucket given, and those of the second
  // given too, or kMatchesUnknown (then computed if needed). REQUIRES: as position_in(),
  // tag == map_tag(hash), first_matches == slots_.matches(pair.first, tag), and
  // second_matches kMatchesUnknown or slots_.matches(pair.second, tag).
  template <class Q>
  std::size_t position_matched(const Q& key, detail::MapBucketPair pair, std::uint8_t tag,
                               unsigned first_matches, unsigned second_matches) const;
  // Not a set of slots (a bucket has at most 8).
  static constexpr unsigned kMatchesUnknown = ~0U;
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
    void place(Slots& slots, std::size_t pos, std::uint8_t tag) {
      std::apply(
          [&](auto&&... a) {
            emplace_item(slots, pos, tag, std::forward<KK>(key), std::forward<decltype(a)>(a)...);
          },
          std::move(args));
    }
    // The item, built from key and args (consuming them; as place() if that throws).
    value_type build() {
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

  // Constructs the item (key, V(args...)) in slot pos of slots. If that throws, pos stays
  // empty, key is as it was, and args are as V's constructor left them.
  template <class KK, class... Args>
  static void emplace_item(Slots& slots, std::size_t pos, std::uint8_t tag, KK&& key,
                           Args&&... args) {
    if constexpr (kValueFirst<KK, Args...>) {
      V value(std::forward<Args>(args)...);
      slots.emplace(pos, tag, std::forward<KK>(key), std::move(value));
    } else if constexpr (kOneValue<Args...>) {
      slots.emplace(pos, tag, std::forward<KK>(key), std::forward<Args>(args)...);
    } else {
      slots.emplace(pos, tag, std::piecewise_construct,
                    std::forward_as_tuple(std::forward<KK>(key)),
                    std::forward_as_tuple(std::forward<Args>(args)...));
    }
  }
  // The item (key, V(args...)), with emplace_item's guarantees if it throws.
  template <class KK, class... Args>
  static value_type make_item(KK&& key, Args&&... args) {
    if constexpr (kValueFirst<KK, Args...>) {
      V value(std::forward<Args>(args)...);
      return value_type(std::forward<KK>(key), std::move(value));
    } else {
      return value_type(std::piecewise_construct, std::forward_as_tuple(std::forward<KK>(key)),
                        std::forward_as_tuple(std::forward<Args>(args)...));
    }
  }

  template <class KK, class VV>
  InsertResult insert_impl(KK&& key, VV&& value, bool assign);
  // Stores (key, V(args...)) for a key that is absent (hash = hash_key(key)): the hot path
  // (a free slot in a candidate bucket), else insert_slow. std::bad_alloc is kFull.
  template <class KK, class... Args>
  InsertResult insert_absent(std::uint64_t hash, KK&& key, Args&&... args);

  template <class KK, class... Args>
  InsertResult try_emplace_impl(KK&& key, Args&&... args);

  // emplace's forms. (key, value); a std::pair; (std::piecewise_construct, key arguments,
  // value arguments): taken apart into try_emplace. Anything else: the pair built first.
  template <class KA, class VA>
  InsertResult emplace_impl(KA&& key, VA&& value) {
    return emplace_key(std::forward<KA>(key), std::forward<VA>(value));
  }
  template <class P>
    requires detail::kIsSpecializationOf<std::remove_cvref_t<P>, std::pair>
  InsertResult emplace_impl(P&& item) {
    return emplace_key(std::get<0>(std::forward<P>(item)), std::get<1>(std::forward<P>(item)));
  }
  template <class KT, class VT>
    requires detail::kIsSpecializationOf<std::remove_cvref_t<KT>, std::tuple> &&
             detail::kIsSpecializationOf<std::remove_cvref_t<VT>, std::tuple>
  InsertResult emplace_impl(std::piecewise_construct_t, KT&& key_args, VT&& value_args) {
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
  InsertResult emplace_impl(Args&&... args) {
    value_type item(std::forward<Args>(args)...);
    return insert_impl(std::move(item.first), std::move(item.second), false);
  }
  // try_emplace with a key argument: as it is when it is a K, else converted to one.
  template <class KA, class... Args>
  InsertResult emplace_key(KA&& key, Args&&... args) {
    if constexpr (std::is_same_v<std::remove_cvref_t<KA>, K>) {
      return try_emplace_impl(std::forward<KA>(key), std::forward<Args>(args)...);
    } else {
      return try_emplace_impl(K(std::forward<KA>(key)), std::forward<Args>(args)...);
    }
  }

  // operator[]: insert_absent's steps, keeping the new item's position (the key may be
  // moved from, so it cannot be looked up again).
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
  [[gnu::noinline]] void refill_from_stash(std::uint32_t bucket);
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
      SlotsPerBucket, kMaxCapacity, Slots::kMaxPositions - kStashSlots, kMaxPathLength};
  static CuckooMapConfig validated(const CuckooMapConfig& config) {
    return detail::validated_map_config(config, kConfigLimits);
  }

  CuckooMapConfig config_;
  std::uint64_t seed_ = 0;
  std::uint32_t bucket_count_ = 0;
  std::size_t size_ = 0;
  std::size_t stash_count_ = 0;
  Slots slots_;  // table_slots() table slots, then kStashSlots stash slots
  CuckooMapStats stats_;
  // Where the last insert that went through insert_slow put its item (for operator[]).
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
