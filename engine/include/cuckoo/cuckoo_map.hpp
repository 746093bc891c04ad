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
// insert() of a new key tries, in order:
//   1. a free slot in either candidate bucket (the hot path);
//   2. a bounded breadth-first search for a cuckoo path (detail/map_search.hpp): at most
//      config.max_path_length items each move to their other bucket, the last one into a
//      free slot. The moves run from the end of the path backwards, so each item leaves
//      its slot only after it has been put in its other bucket: it is never missing;
//   3. a free stash slot;
//   4. growth: rebuild everything into a table with twice the buckets (clamped to
//      max_capacity). A rebuild first places every item as a dry run on handles and
//      only moves items once all of them, the new key included, have a place; if the
//      dry run fails, it is retried with a derived seed, then at the next doubling, at
//      most kMaxGrowthSteps doublings and kSeedsPerSize seeds each. Growth moves the
//      distinct keys already stored plus the new key (which was checked absent), so it
//      can never store a key twice. If every attempt fails, or the table is already at
//      max_capacity, insert returns kFull and nothing has changed. Growth is refused
//      (kFull) below kMinGrowthLoadPercent load: failing to place a key in so empty a
//      table means the hasher gives many keys the same buckets, and doubling would not
//      help (libcuckoo's minimum_load_factor has the same role).
// erase() empties the slot; when the stash holds items, one whose candidate bucket just
// got a free slot moves back into the table, so the stash drains as the load falls.
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
#include <span>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "detail/map_codec.hpp"
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
// cache lines); propagation follows std::allocator_traits: copy construction uses
// select_on_container_copy_construction, copy and move assignment and swap propagate the
// allocator when propagate_on_container_* says so (a move assignment between unequal,
// non-propagating allocators moves the items one by one). The path search's and the
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
  class const_iterator;
  struct reference_proxy {
    const K& first;
    V& second;
  };
  class iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::pair<K, V>;
    using difference_type = std::ptrdiff_t;
    using reference = reference_proxy;
    // What operator-> returns: holds the reference object.
    struct pointer {
      reference_proxy ref;
      const reference_proxy* operator->() const noexcept { return &ref; }
    };

    iterator() = default;
    reference operator*() const {
      value_type& item = slots_->item(pos_);
      return reference{item.first, item.second};
    }
    pointer operator->() const { return pointer{**this}; }
    iterator& operator++() {
      ++pos_;
      skip_empty();
      return *this;
    }
    iterator operator++(int) {
      iterator old = *this;
      ++*this;
      return old;
    }
    friend bool operator==(const iterator& a, const iterator& b) {
      return a.slots_ == b.slots_ && a.pos_ == b.pos_;
    }

   private:
    friend class CuckooMap;
    friend class const_iterator;
    iterator(Slots* slots, std::size_t pos) : slots_(slots), pos_(pos) { skip_empty(); }
    void skip_empty() {
      // Bounded by slots_->size().
      while (pos_ != slots_->size() && !slots_->occupied(pos_)) ++pos_;
    }
    Slots* slots_ = nullptr;
    std::size_t pos_ = 0;
  };

  class const_iterator {
   public:
    using iterator_category = std::forward_iterator_tag;
    using value_type = std::pair<K, V>;
    using difference_type = std::ptrdiff_t;
    using pointer = const value_type*;
    using reference = const value_type&;

    const_iterator() = default;
    // NOLINTNEXTLINE(google-explicit-constructor): iterator converts, as in std containers
    const_iterator(const iterator& it) : slots_(it.slots_), pos_(it.pos_) {}
    reference operator*() const { return slots_->item(pos_); }
    pointer operator->() const { return &slots_->item(pos_); }
    const_iterator& operator++() {
      ++pos_;
      skip_empty();
      return *this;
    }
    const_iterator operator++(int) {
      const_iterator old = *this;
      ++*this;
      return old;
    }
    friend bool operator==(const const_iterator& a, const const_iterator& b) {
      return a.slots_ == b.slots_ && a.pos_ == b.pos_;
    }

   private:
    friend class CuckooMap;
    const_iterator(const Slots* slots, std::size_t pos) : slots_(slots), pos_(pos) { skip_empty(); }
    void skip_empty() {
      // Bounded by slots_->size().
      while (pos_ != slots_->size() && !slots_->occupied(pos_)) ++pos_;
    }
    const Slots* slots_ = nullptr;
    std::size_t pos_ = 0;
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
  CuckooMap& operator=(const CuckooMap& other) {
    if (this != &other) {
      Slots copy = AllocTraits::propagate_on_container_copy_assignment::value
                       ? Slots(other.slots_, other.slots_.allocator())
                       : Slots(other.slots_, slots_.allocator());
      config_ = other.config_;
      seed_ = other.seed_;
      bucket_count_ = other.bucket_count_;
      size_ = other.size_;
      stash_count_ = other.stash_count_;
      slots_.swap(copy);
      stats_ = other.stats_;
      hasher_ = other.hasher_;
      key_eq_ = other.key_eq_;
    }
    return *this;
  }
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
  // Takes other's storage when propagate_on_container_move_assignment or the allocators
  // compare equal; otherwise moves the items one by one into storage from this map's
  // allocator (which may throw std::bad_alloc, leaving both maps unchanged).
  CuckooMap& operator=(CuckooMap&& other) noexcept(
      (AllocTraits::propagate_on_container_move_assignment::value ||
       AllocTraits::is_always_equal::value) &&
      std::is_nothrow_move_assignable_v<Hasher> && std::is_nothrow_move_assignable_v<KeyEqual>) {
    if (this != &other) {
      if constexpr (AllocTraits::propagate_on_container_move_assignment::value ||
                    AllocTraits::is_always_equal::value) {
        slots_ = std::move(other.slots_);
      } else if (slots_.allocator() == other.slots_.allocator()) {
        slots_ = std::move(other.slots_);
      } else {
        // A moved-from source has no storage at all: then neither has this map.
        Slots moved = other.slots_.empty()
                          ? Slots(slots_.allocator())
                          : Slots(other.slots_.bucket_count(), other.config_.huge_pages,
                                  slots_.allocator());
        for (std::size_t pos = 0; pos < other.slots_.size(); ++pos) {  // bounded: positions
          if (other.slots_.occupied(pos)) moved.emplace(pos, std::move(other.slots_.item(pos)));
        }
        slots_.swap(moved);
        other.slots_ = Slots(other.slots_.allocator());
      }
      config_ = other.config_;
      seed_ = other.seed_;
      bucket_count_ = std::exchange(other.bucket_count_, 0);
      size_ = std::exchange(other.size_, 0);
      stash_count_ = std::exchange(other.stash_count_, 0);
      other.slots_.clear();
      stats_ = other.stats_;
      hasher_ = std::move(other.hasher_);
      key_eq_ = std::move(other.key_eq_);
    }
    return *this;
  }

  // Exchanges the contents; the allocators too when propagate_on_container_swap.
  // REQUIRES: that, or equal allocators (as for the standard containers).
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
  // every item is still stored and key is not. The arguments are moved from only when
  // the result is kInserted (or kUpdated for the value): a refused insert leaves the
  // caller's key and value as they were, so they can be retried or stored elsewhere.
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

  // Constructs std::pair<K, V>(args...) and inserts it as insert(key, value) would; the
  // pair is built first (as std::unordered_map::emplace does), so args are consumed
  // whatever the result.
  template <class... Args>
  InsertResult emplace(Args&&... args) {
    value_type item(std::forward<Args>(args)...);
    return insert_impl(std::move(item.first), std::move(item.second), false);
  }

  // Inserts key with V(args...) if key is absent. The value is constructed only then, and
  // key is moved from only when the result is kInserted. kExists and kFull change
  // nothing, args included.
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
  // full, see insert): operator[] has no result code to return. REQUIRES: V is default
  // constructible.
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

  struct ConfigProblem {
    const char* field;
    std::string message;
  };
  struct RestoreTag {};

  // Search adapter over the live table.
  struct LiveView {
    CuckooMap* map;
    std::uint32_t bucket_count() const { return map->bucket_count_; }
    bool occupied(std::uint32_t bucket, unsigned slot) const {
      return map->slots_.occupied(slot_index(bucket, slot));
    }
    std::uint32_t alt_bucket(std::uint32_t bucket, unsigned slot) const {
      const std::uint64_t hash = map->hash_key(map->slots_.item(slot_index(bucket, slot)).first);
      return detail::map_alt_bucket(hash, bucket, map->bucket_count_);
    }
    void move_item(detail::MapSlotRef from, detail::MapSlotRef to) {
      const std::size_t source = slot_index(from.bucket, from.slot);
      map->slots_.emplace(slot_index(to.bucket, to.slot), std::move(map->slots_.item(source)));
      map->slots_.reset(source);
    }
  };

  // Search adapter over the dry-run placement of a rebuild: handles instead of items.
  struct PlanView {
    std::vector<std::uint64_t>* placement;  // handle per new slot, or kNoHandle
    const std::vector<std::uint64_t>* hashes;  // hash per handle under the new seed
    std::uint32_t buckets;
    std::uint32_t bucket_count() const { return buckets; }
    bool occupied(std::uint32_t bucket, unsigned slot) const {
      return (*placement)[slot_index(bucket, slot)] != kNoHandle;
    }
    std::uint32_t alt_bucket(std::uint32_t bucket, unsigned slot) const {
      const std::uint64_t handle = (*placement)[slot_index(bucket, slot)];
      return detail::map_alt_bucket((*hashes)[handle], bucket, buckets);
    }
    void move_item(detail::MapSlotRef from, detail::MapSlotRef to) {
      std::uint64_t& source = (*placement)[slot_index(from.bucket, from.slot)];
      (*placement)[slot_index(to.bucket, to.slot)] = source;
      source = kNoHandle;
    }
  };

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
    return static_cast<std::uint32_t>(config.initial_capacity / SlotsPerBucket +
                                      (config.initial_capacity % SlotsPerBucket != 0 ? 1 : 0));
  }
  std::uint32_t max_bucket_count() const noexcept {
    return static_cast<std::uint32_t>(config_.max_capacity / SlotsPerBucket);
  }

  template <class Q>
  std::uint64_t hash_key(const Q& key) const { return hash_with(key, seed_); }
  template <class Q>
  std::uint64_t hash_with(const Q& key, std::uint64_t seed) const {
    return seeded_hash(hasher_, key, seed);
  }
  template <class Q>
  bool holds(std::size_t pos, const Q& key) const {
    return slots_.occupied(pos) && key_eq_(slots_.item(pos).first, key);
  }

  // Lookups may compare every key of a bucket without branching on occupancy (the zero
  // key of an empty slot is compared, then discarded by the mask). Only where that
  // comparison is plain bitwise equality with no side effects: the standard equality on
  // arithmetic, enum and pointer keys, whose all-zero bytes are a valid value. A class
  // key, even a trivially copyable one, may have an operator== that reads through a
  // member (a pointer) and must never see an empty slot.
  static constexpr bool kBitwiseKey =
      std::is_arithmetic_v<K> || std::is_enum_v<K> || std::is_pointer_v<K>;
  static constexpr bool kBranchFreeCompare =
      Slots::kTrivialItems && kBitwiseKey &&
      (std::is_same_v<KeyEqual, std::equal_to<K>> || std::is_same_v<KeyEqual, std::equal_to<>>);

  // The slot of bucket holding key, or SlotsPerBucket.
  template <class Q>
  unsigned slot_in(std::uint32_t bucket, const Q& key) const {
    const unsigned occupied = slots_.mask(bucket);
    if constexpr (kBranchFreeCompare) {
      unsigned hits = 0;
      for (unsigned s = 0; s < SlotsPerBucket; ++s) {
        hits |= static_cast<unsigned>(key_eq_(slots_.key_at(bucket, s), key)) << s;
      }
      hits &= occupied;
      return hits == 0 ? SlotsPerBucket : static_cast<unsigned>(std::countr_zero(hits));
    } else {
      for (unsigned s = 0; s < SlotsPerBucket; ++s) {
        if (((occupied >> s) & 1U) != 0 && key_eq_(slots_.key_at(bucket, s), key)) return s;
      }
      return SlotsPerBucket;
    }
  }

  // The hot lookup: two buckets (the second prefetched while the first is compared),
  // then the stash only if it holds anything.
  template <class Q>
  std::size_t position_of(const Q& key, std::uint64_t hash) const {
    if (size_ == 0) return kNoPosition;  // also covers a moved-from map (no buckets)
    const detail::MapBucketPair pair = detail::map_buckets(hash, bucket_count_);
    slots_.prefetch(pair.second);
    if (const unsigned s = slot_in(pair.first, key); s != SlotsPerBucket) {
      return slot_index(pair.first, s);
    }
    if (const unsigned s = slot_in(pair.second, key); s != SlotsPerBucket) {
      return slot_index(pair.second, s);
    }
    if (stash_count_ != 0) [[unlikely]] return stash_position_of(key);
    return kNoPosition;
  }
  template <class Q>
  [[gnu::noinline]] std::size_t stash_position_of(const Q& key) const {
    const std::size_t stash = table_slots();
    for (std::size_t i = 0; i < kStashSlots; ++i) {
      if (holds(stash + i, key)) return stash + i;
    }
    return kNoPosition;
  }

  // The position of the first free slot of bucket, or kNoPosition if it is full.
  std::size_t free_slot_in(std::uint32_t bucket) const noexcept {
    const unsigned s = slots_.free_slot(bucket);
    return s < SlotsPerBucket ? slot_index(bucket, s) : kNoPosition;
  }

  // The new item of an insert that is not stored yet: references to its key and value,
  // moved into a slot only once the item has a place, so that a refused insert leaves
  // them untouched. NoPending: a rebuild without a new item (reserve).
  template <class KK, class VV>
  struct Pending {
    KK&& key;
    VV&& value;
  };
  struct NoPending {
    K key;  // never constructed: only names the member's type for rebuild
  };

  template <class KK, class VV>
  InsertResult insert_impl(KK&& key, VV&& value, bool assign) {
    const std::uint64_t hash = hash_key(key);
    const std::size_t pos = position_of(key, hash);
    // Memory running out anywhere below is a refused insert (kFull); every step below
    // either completes or changes nothing (see insert_slow).
    try {
      if (pos != kNoPosition) {
        if (!assign) return InsertResult::kExists;
        slots_.item(pos).second = std::forward<VV>(value);
        ++stats_.updates;
        return InsertResult::kUpdated;
      }
      if (bucket_count_ != 0) [[likely]] {
        const detail::MapBucketPair pair = detail::map_buckets(hash, bucket_count_);
        std::size_t slot = free_slot_in(pair.first);
        if (slot == kNoPosition) slot = free_slot_in(pair.second);
        if (slot != kNoPosition) [[likely]] {
          slots_.emplace(slot, std::forward<KK>(key), std::forward<VV>(value));
          ++size_;
          ++stats_.inserts;
          return InsertResult::kInserted;
        }
      }
      if constexpr (std::is_nothrow_constructible_v<value_type, KK&&, VV&&>) {
        // Moves only: the item goes in at the end, once it has a place.
        return insert_slow(Pending<KK, VV>{std::forward<KK>(key), std::forward<VV>(value)}, hash);
      } else {
        // A copy can throw: make it now, before any item moves, so that the steps that
        // place the item only move (nothrow). The arguments copied are the caller's const
        // ones, which stay as they were.
        value_type item(std::forward<KK>(key), std::forward<VV>(value));
        return insert_slow(Pending<K, V>{std::move(item.first), std::move(item.second)}, hash);
      }
    } catch (const std::bad_alloc&) {
      ++stats_.full_rejections;
      return InsertResult::kFull;
    }
  }

  template <class KK, class... Args>
  InsertResult try_emplace_impl(KK&& key, Args&&... args) {
    if (contains(key)) return InsertResult::kExists;
    try {
      V value(std::forward<Args>(args)...);
      return insert_impl(std::forward<KK>(key), std::move(value), false);
    } catch (const std::bad_alloc&) {
      ++stats_.full_rejections;
      return InsertResult::kFull;
    }
  }

  // operator[]: insert_impl's steps, keeping the new item's position (the key may be
  // moved from, so it cannot be looked up again).
  template <class KK>
  V& subscript(KK&& key) {
    const std::uint64_t hash = hash_key(key);
    if (const std::size_t pos = position_of(key, hash); pos != kNoPosition) {
      return slots_.item(pos).second;
    }
    InsertResult result = InsertResult::kFull;
    std::size_t slot = kNoPosition;
    try {
      if (bucket_count_ != 0) {
        const detail::MapBucketPair pair = detail::map_buckets(hash, bucket_count_);
        slot = free_slot_in(pair.first);
        if (slot == kNoPosition) slot = free_slot_in(pair.second);
      }
      if (slot != kNoPosition) {
        slots_.emplace(slot, std::forward<KK>(key), V());
        ++size_;
        ++stats_.inserts;
        return slots_.item(slot).second;
      }
      V value{};
      if constexpr (std::is_nothrow_constructible_v<value_type, KK&&, V&&>) {
        result = insert_slow(Pending<KK, V>{std::forward<KK>(key), std::move(value)}, hash);
      } else {
        value_type item(std::forward<KK>(key), std::move(value));
        result = insert_slow(Pending<K, V>{std::move(item.first), std::move(item.second)}, hash);
      }
    } catch (const std::bad_alloc&) {
      ++stats_.full_rejections;
    }
    if (result != InsertResult::kInserted) {
      throw std::length_error("CuckooMap::operator[]: the key is absent and the map is full");
    }
    return slots_.item(last_slow_position_).second;
  }

  // Slow paths, out of line.
  template <class KK, class VV>
  [[gnu::noinline]] InsertResult insert_slow(Pending<KK, VV>&& item, std::uint64_t hash);
  template <class KK, class VV>
  [[gnu::noinline]] InsertResult grow_and_insert(Pending<KK, VV>& item);
  [[gnu::noinline]] void refill_from_stash(std::uint32_t bucket);
  template <class P>
  bool rebuild_with_seeds(std::uint32_t bucket_count, P* pending);
  template <class P>
  bool rebuild(std::uint32_t bucket_count, std::uint64_t seed, P* pending);
  void note_stash_level() noexcept {
    stats_.stash_high_water = std::max(stats_.stash_high_water, stash_count_);
  }

  static std::optional<ConfigProblem> check_config(const CuckooMapConfig& config);
  static CuckooMapConfig validated(CuckooMapConfig config) {
    if (std::optional<ConfigProblem> problem = check_config(config)) {
      throw ConfigError(problem->field, problem->message);
    }
    if (!config.seed.has_value()) config.seed = random_seed();
    return config;
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

// ---- Out-of-line definitions ------------------------------------------------------------

#define CUCKOO_MAP_TEMPLATE                                                          \
  template <class K, class V, unsigned SlotsPerBucket, class Hasher, class KeyEqual, \
            class Allocator>                                                         \
    requires HasherFor<Hasher, K>
#define CUCKOO_MAP CuckooMap<K, V, SlotsPerBucket, Hasher, KeyEqual, Allocator>

CUCKOO_MAP_TEMPLATE
void CUCKOO_MAP::refill_from_stash(std::uint32_t bucket) {
  const std::size_t target = free_slot_in(bucket);
  assert(target != kNoPosition);
  const std::size_t stash = table_slots();
  for (std::size_t i = 0; i < kStashSlots; ++i) {
    const std::size_t pos = stash + i;
    if (!slots_.occupied(pos)) continue;
    const detail::MapBucketPair pair =
        detail::map_buckets(hash_key(slots_.item(pos).first), bucket_count_);
    if (pair.first == bucket || pair.second == bucket) {
      slots_.emplace(target, std::move(slots_.item(pos)));
      slots_.reset(pos);
      --stash_count_;
      return;
    }
  }
}

// Every step here either completes or changes nothing the caller can see: the path
// search only reads (and may throw std::bad_alloc before anything moved); the path moves
// are nothrow moves that keep every item in one of its buckets; the item itself goes in
// last, by a nothrow move (insert_impl copied it beforehand where a copy could throw);
// growth is all-or-nothing (rebuild).
CUCKOO_MAP_TEMPLATE
template <class KK, class VV>
InsertResult CUCKOO_MAP::insert_slow(Pending<KK, VV>&& item, std::uint64_t hash) {
  if (bucket_count_ != 0) {
    const detail::MapBucketPair pair = detail::map_buckets(hash, bucket_count_);
    LiveView view{this};
    detail::MapCuckooPath path;
    ++stats_.bfs_searches;
    if (search_.find_path(view, pair.first, pair.second, config_.max_path_length, path)) {
      detail::MapPathSearch<SlotsPerBucket>::apply(view, path);
      last_slow_position_ = slot_index(path.hops[0].bucket, path.hops[0].slot);
      slots_.emplace(last_slow_position_, std::forward<KK>(item.key),
                     std::forward<VV>(item.value));
      stats_.longest_path = std::max<std::uint32_t>(stats_.longest_path, path.length);
      ++size_;
      ++stats_.inserts;
      return InsertResult::kInserted;
    }
    ++stats_.bfs_failures;
    if (stash_count_ < kStashSlots) {
      const std::size_t stash = table_slots();
      for (std::size_t i = 0; i < kStashSlots; ++i) {
        if (!slots_.occupied(stash + i)) {
          last_slow_position_ = stash + i;
          slots_.emplace(stash + i, std::forward<KK>(item.key), std::forward<VV>(item.value));
          ++stash_count_;
          ++size_;
          ++stats_.inserts;
          note_stash_level();
          return InsertResult::kInserted;
        }
      }
    }
  }
  return grow_and_insert(item);
}

CUCKOO_MAP_TEMPLATE
template <class KK, class VV>
InsertResult CUCKOO_MAP::grow_and_insert(Pending<KK, VV>& item) {
  try {
    const std::uint32_t initial = initial_bucket_count(config_);
    if (bucket_count_ == 0 && rebuild_with_seeds(initial, &item)) {  // moved-from map
      ++stats_.inserts;
      return InsertResult::kInserted;
    }
    // size_ * 100 cannot overflow: size_ <= kMaxCapacity + kStashSlots < 2^35.
    const bool worth_growing =
        size_ * 100 >= std::size_t{kMinGrowthLoadPercent} * table_slots();
    std::uint32_t target = std::max(bucket_count_, initial);
    for (unsigned step = 0; worth_growing && step < kMaxGrowthSteps; ++step) {
      if (target >= max_bucket_count()) break;
      target = static_cast<std::uint32_t>(
          std::min<std::uint64_t>(std::uint64_t{target} * 2, max_bucket_count()));
      if (rebuild_with_seeds(target, &item)) {
        ++stats_.growths;
        ++stats_.inserts;
        return InsertResult::kInserted;
      }
    }
  } catch (const std::bad_alloc&) {
    // A rebuild allocates everything before it moves anything: nothing changed.
  }
  ++stats_.full_rejections;
  return InsertResult::kFull;
}

CUCKOO_MAP_TEMPLATE
bool CUCKOO_MAP::reserve(std::size_t n) {
  if (n > config_.max_capacity) return false;
  // n <= max_capacity <= kMaxCapacity < 2^35: no overflow.
  const std::uint64_t slots_needed =
      (std::uint64_t{n} * 100 + kReserveLoadPercent - 1) / kReserveLoadPercent;
  const std::uint64_t buckets_needed =
      std::max<std::uint64_t>((slots_needed + SlotsPerBucket - 1) / SlotsPerBucket,
                              bucket_count_ == 0 ? initial_bucket_count(config_) : 0);
  if (buckets_needed <= bucket_count_) return true;
  if (buckets_needed > max_bucket_count()) return false;
  try {
    if (rebuild_with_seeds(static_cast<std::uint32_t>(buckets_needed),
                           static_cast<NoPending*>(nullptr))) {
      ++stats_.growths;
      return true;
    }
  } catch (const std::bad_alloc&) {
    // Nothing changed.
  }
  return false;
}

CUCKOO_MAP_TEMPLATE
template <class P>
bool CUCKOO_MAP::rebuild_with_seeds(std::uint32_t bucket_count, P* pending) {
  for (unsigned attempt = 0; attempt < kSeedsPerSize; ++attempt) {
    const std::uint64_t seed = attempt == 0 ? seed_ : detail::mix64(seed_ + kSeedStep * attempt);
    if (rebuild(bucket_count, seed, pending)) {
      if (attempt != 0) ++stats_.reseeds;
      return true;
    }
  }
  return false;
}

// Rebuilds the table with bucket_count buckets and seed, adding *pending if given.
// Phase 1 (may fail, may throw std::bad_alloc) allocates everything and places handles
// (old slot positions; pending is handle slots_.size()) with the same search as insert.
// Phase 2 (cannot fail: nothrow moves only) moves the items to their planned slots and
// moves the pending item in. Returns false, having changed nothing but stats (pending
// included), when phase 1 cannot place every item.
CUCKOO_MAP_TEMPLATE
template <class P>
bool CUCKOO_MAP::rebuild(std::uint32_t bucket_count, std::uint64_t seed, P* pending) {
  const std::size_t old_positions = slots_.size();
  const std::size_t handle_count = old_positions + (pending != nullptr ? 1 : 0);
  const std::size_t new_table_slots = std::size_t{bucket_count} * SlotsPerBucket;
  Slots new_slots(bucket_count, config_.huge_pages, slots_.allocator());
  std::vector<std::uint64_t> hashes(handle_count, 0);
  std::vector<std::uint64_t> placement(new_table_slots + kStashSlots, kNoHandle);
  PlanView view{&placement, &hashes, bucket_count};
  std::size_t new_stash_count = 0;
  const auto key_of = [&](std::uint64_t handle) -> const K& {
    return handle == old_positions ? static_cast<const K&>(pending->key)
                                   : slots_.item(handle).first;
  };
  const auto place_in = [&](std::uint32_t bucket, std::uint64_t handle) {
    for (unsigned s = 0; s < SlotsPerBucket; ++s) {
      std::uint64_t& slot = placement[slot_index(bucket, s)];
      if (slot == kNoHandle) {
        slot = handle;
        return true;
      }
    }
    return false;
  };

  for (std::size_t handle = 0; handle < handle_count; ++handle) {  // bounded by the slots
    if (handle < old_positions && !slots_.occupied(handle)) continue;
    const std::uint64_t hash = hash_with(key_of(handle), seed);
    hashes[handle] = hash;
    const detail::MapBucketPair pair = detail::map_buckets(hash, bucket_count);
    if (place_in(pair.first, handle) || place_in(pair.second, handle)) continue;
    detail::MapCuckooPath path;
    ++stats_.bfs_searches;
    if (search_.find_path(view, pair.first, pair.second, config_.max_path_length, path)) {
      detail::MapPathSearch<SlotsPerBucket>::apply(view, path);
      placement[slot_index(path.hops[0].bucket, path.hops[0].slot)] = handle;
      stats_.longest_path = std::max<std::uint32_t>(stats_.longest_path, path.length);
      continue;
    }
    ++stats_.bfs_failures;
    if (new_stash_count == kStashSlots) return false;
    placement[new_table_slots + new_stash_count] = handle;
    ++new_stash_count;
  }

  for (std::size_t pos = 0; pos < placement.size(); ++pos) {  // bounded by the slots
    const std::uint64_t handle = placement[pos];
    if (handle == kNoHandle) continue;
    if (handle != old_positions) {
      new_slots.emplace(pos, std::move(slots_.item(handle)));
      continue;
    }
    if constexpr (!std::is_same_v<P, NoPending>) {
      using KK = decltype(pending->key);
      using VV = decltype(pending->value);
      new_slots.emplace(pos, std::forward<KK>(pending->key), std::forward<VV>(pending->value));
      last_slow_position_ = pos;
    }
  }
  slots_.swap(new_slots);
  bucket_count_ = bucket_count;
  seed_ = seed;
  stash_count_ = new_stash_count;
  if (pending != nullptr) ++size_;
  note_stash_level();
  return true;
}

CUCKOO_MAP_TEMPLATE
auto CUCKOO_MAP::check_config(const CuckooMapConfig& config) -> std::optional<ConfigProblem> {
  const auto problem = [](const char* field, const std::string& message) {
    return std::optional<ConfigProblem>(ConfigProblem{field, message});
  };
  const std::string b = std::to_string(SlotsPerBucket);
  if (config.initial_capacity == 0) return problem("initial_capacity", "is 0, must be >= 1");
  if (config.max_capacity < SlotsPerBucket) {
    return problem("max_capacity", "is " + std::to_string(config.max_capacity) +
                                       ", must hold at least one bucket of " + b + " slots");
  }
  if (config.max_capacity > kMaxCapacity) {
    return problem("max_capacity", "is " + std::to_string(config.max_capacity) +
                                       ", must be at most kMaxCapacity = " +
                                       std::to_string(kMaxCapacity) + " slots");
  }
  if (config.max_capacity > Slots::kMaxPositions - kStashSlots) {
    return problem("max_capacity", "is " + std::to_string(config.max_capacity) +
                                       " slots, more bytes than can be allocated");
  }
  if (config.initial_capacity > config.max_capacity) {
    return problem("initial_capacity", "is " + std::to_string(config.initial_capacity) +
                                           ", exceeds max_capacity " +
                                           std::to_string(config.max_capacity));
  }
  if (initial_bucket_count(config) > config.max_capacity / SlotsPerBucket) {
    return problem("initial_capacity",
                   "is " + std::to_string(config.initial_capacity) + ", rounded up to whole " +
                       b + "-slot buckets it exceeds max_capacity " +
                       std::to_string(config.max_capacity));
  }
  if (config.max_path_length == 0 || config.max_path_length > kMaxPathLength) {
    return problem("max_path_length", "is " + std::to_string(config.max_path_length) +
                                          ", must be in 1.." + std::to_string(kMaxPathLength));
  }
  return std::nullopt;
}

CUCKOO_MAP_TEMPLATE
std::string CUCKOO_MAP::check_invariants() const {
  if (bucket_count_ == 0) {
    return slots_.empty() && size_ == 0 && stash_count_ == 0
               ? std::string()
               : std::string("a map without buckets holds slots or items");
  }
  if (slots_.size() != table_slots() + kStashSlots) {
    return "slot array has " + std::to_string(slots_.size()) + " slots, expected " +
           std::to_string(table_slots() + kStashSlots);
  }
  std::size_t items = 0;
  std::size_t stashed = 0;
  for (std::size_t pos = 0; pos < slots_.size(); ++pos) {
    if (!slots_.occupied(pos)) continue;
    ++items;
    const std::uint64_t hash = hash_key(slots_.item(pos).first);
    if (pos < table_slots()) {
      const auto bucket = static_cast<std::uint32_t>(pos / SlotsPerBucket);
      const detail::MapBucketPair pair = detail::map_buckets(hash, bucket_count_);
      if (bucket != pair.first && bucket != pair.second) {
        return "the key at slot " + std::to_string(pos) + " is in bucket " +
               std::to_string(bucket) + ", its candidate buckets are " +
               std::to_string(pair.first) + " and " + std::to_string(pair.second);
      }
    } else {
      ++stashed;
    }
  }
  if (items != size_) {
    return std::to_string(items) + " slots hold items, size() is " + std::to_string(size_);
  }
  if (stashed != stash_count_) {
    return std::to_string(stashed) + " stash slots hold items, the stash count is " +
           std::to_string(stash_count_);
  }
  for (std::size_t pos = 0; pos < slots_.size(); ++pos) {
    if (!slots_.occupied(pos)) continue;
    const std::size_t found = position_of(slots_.item(pos).first, hash_key(slots_.item(pos).first));
    if (found != pos) {
      return "the key at slot " + std::to_string(pos) +
             (found == kNoPosition ? std::string(" is not found by a lookup")
                                   : " is also stored at slot " + std::to_string(found));
    }
  }
  return {};
}

CUCKOO_MAP_TEMPLATE
std::vector<std::uint8_t> CUCKOO_MAP::serialize() const
  requires detail::MapCodable<K> && detail::MapCodable<V>
{
  detail::ByteWriter w;
  w.u8(static_cast<std::uint8_t>(SlotsPerBucket));
  w.u64(config_.initial_capacity);
  w.u64(config_.max_capacity);
  w.u32(config_.max_path_length);
  w.u64(*config_.seed);
  w.u64(seed_);
  // A moved-from map has no buckets and no items: it is written as an empty initial table.
  w.u32(bucket_count_ == 0 ? initial_bucket_count(config_) : bucket_count_);
  w.u64(size_);
  for (std::size_t pos = 0; pos < slots_.size(); ++pos) {
    if (!slots_.occupied(pos)) continue;
    w.u64(pos);
    detail::MapCodec<K>::write(w, slots_.item(pos).first);
    detail::MapCodec<V>::write(w, slots_.item(pos).second);
  }
  return detail::seal_envelope(detail::StructureKind::kCuckooMap, kFormatVersion, w);
}

CUCKOO_MAP_TEMPLATE
CUCKOO_MAP CUCKOO_MAP::deserialize(std::span<const std::uint8_t> bytes, Hasher hash_fn,
                                   KeyEqual equal_fn, std::size_t max_table_bytes)
  requires detail::MapCodable<K> && detail::MapCodable<V>
{
  detail::ByteReader r =
      detail::open_envelope(bytes, detail::StructureKind::kCuckooMap, kFormatVersion, "CuckooMap");
  const std::uint8_t slots_per_bucket = r.u8("slots_per_bucket");
  detail::require_config(slots_per_bucket == SlotsPerBucket, "slots_per_bucket",
                         "is " + std::to_string(slots_per_bucket) + ", this map type has " +
                             std::to_string(SlotsPerBucket));
  CuckooMapConfig config;
  const std::uint64_t initial_capacity = r.u64("initial_capacity");
  const std::uint64_t max_capacity = r.u64("max_capacity");
  detail::require_config(initial_capacity <= std::numeric_limits<std::size_t>::max(),
                         "initial_capacity", "does not fit size_t");
  detail::require_config(max_capacity <= std::numeric_limits<std::size_t>::max(), "max_capacity",
                         "does not fit size_t");
  config.initial_capacity = static_cast<std::size_t>(initial_capacity);
  config.max_capacity = static_cast<std::size_t>(max_capacity);
  config.max_path_length = r.u32("max_path_length");
  config.seed = r.u64("config seed");
  if (std::optional<ConfigProblem> problem = check_config(config)) {
    detail::require_config(false, problem->field, problem->message);
  }
  const std::uint64_t seed = r.u64("seed");

  const std::uint32_t bucket_count = r.u32("bucket_count");
  detail::require_config(bucket_count >= 1, "bucket_count", "is 0, must be >= 1");
  detail::require_consistent(
      bucket_count >= initial_bucket_count(config) &&
          bucket_count <= config.max_capacity / SlotsPerBucket,
      "bucket_count " + std::to_string(bucket_count) + " is outside " +
          std::to_string(initial_bucket_count(config)) + ".." +
          std::to_string(config.max_capacity / SlotsPerBucket) +
          ", the range that initial_capacity and max_capacity allow");
  if (max_table_bytes == kTableBudgetFromInput) {
    max_table_bytes = bytes.size() > kMinTableBudget / kTableBytesPerInputByte
                          ? bytes.size() * kTableBytesPerInputByte
                          : kMinTableBudget;
  }
  const std::uint64_t positions = std::uint64_t{bucket_count} * SlotsPerBucket + kStashSlots;
  detail::require_config(positions <= max_table_bytes / Slots::kBytesPerPosition, "bucket_count",
                         std::to_string(bucket_count) + " buckets take more than the " +
                             std::to_string(max_table_bytes) + " bytes max_table_bytes allows");

  const std::uint64_t item_count = r.u64("item_count");
  constexpr std::size_t kMinItemBytes =
      8 + detail::MapCodec<K>::kMinBytes + detail::MapCodec<V>::kMinBytes;
  if (item_count > r.remaining() / kMinItemBytes) {
    throw DeserializeError(DeserializeErrc::kTruncated,
                           "item_count " + std::to_string(item_count) + " needs at least " +
                               std::to_string(kMinItemBytes) + " bytes per item, " +
                               std::to_string(r.remaining()) + " bytes left");
  }
  detail::require_consistent(item_count <= positions,
                             "item_count " + std::to_string(item_count) + " exceeds the " +
                                 std::to_string(positions) + " slots");

  CuckooMap map(RestoreTag{}, config, bucket_count, seed, std::move(hash_fn),
                std::move(equal_fn));
  const std::size_t table_slots = map.table_slots();
  std::uint64_t next_position = 0;
  for (std::uint64_t i = 0; i < item_count; ++i) {  // bounded by item_count <= positions
    const std::uint64_t pos = r.u64("item position");
    detail::require_consistent(pos >= next_position && pos < positions,
                               "item " + std::to_string(i) + " position " + std::to_string(pos) +
                                   " is not increasing or not below " +
                                   std::to_string(positions));
    next_position = pos + 1;
    K key = detail::MapCodec<K>::read(r, "item key");
    V value = detail::MapCodec<V>::read(r, "item value");
    const std::uint64_t hash = map.hash_key(key);
    if (pos < table_slots) {
      const auto bucket = static_cast<std::uint32_t>(pos / SlotsPerBucket);
      const detail::MapBucketPair pair = detail::map_buckets(hash, bucket_count);
      detail::require_consistent(bucket == pair.first || bucket == pair.second,
                                 "item " + std::to_string(i) + " is in bucket " +
                                     std::to_string(bucket) + ", its candidate buckets are " +
                                     std::to_string(pair.first) + " and " +
                                     std::to_string(pair.second));
    }
    detail::require_consistent(map.position_of(key, hash) == kNoPosition,
                               "item " + std::to_string(i) + " repeats a key");
    map.slots_.emplace(pos, std::move(key), std::move(value));
    ++map.size_;
    if (pos >= table_slots) ++map.stash_count_;
  }
  r.expect_end("the CuckooMap items");
  map.note_stash_level();
  return map;
}

#undef CUCKOO_MAP
#undef CUCKOO_MAP_TEMPLATE

}  // namespace cuckoo
