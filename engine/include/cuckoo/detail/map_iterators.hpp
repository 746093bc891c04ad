// CuckooMap's iterators and node handle (declared, with their contract, in
// cuckoo/cuckoo_map.hpp): an iterator is a position in the slot array, table slots in
// bucket order, then the stash. Invariant: pos_ is an occupied slot or slots_->size()
// (end); skip_empty() restores it after every move, bounded by the slot count. `*it` is
// the slot's std::pair<const K, V> itself (see detail/map_slots.hpp for why that object
// has exactly that type), so both iterators model std::forward_iterator with real
// references: `auto& [k, v]` binds to the item, `auto [k, v]` copies it.
#pragma once

#ifndef CUCKOO_MAP
#error "map_iterators.hpp holds out-of-line members of CuckooMap: include cuckoo/cuckoo_map.hpp"
#endif

namespace cuckoo {

CUCKOO_MAP_TEMPLATE
class CUCKOO_MAP::iterator {
 public:
  /// std::forward_iterator_tag.
  using iterator_category = std::forward_iterator_tag;
  /// std::forward_iterator_tag.
  using iterator_concept = std::forward_iterator_tag;
  /// std::pair<const K, V>.
  using value_type = CuckooMap::value_type;
  /// std::ptrdiff_t.
  using difference_type = std::ptrdiff_t;
  /// value_type*.
  using pointer = value_type*;
  /// value_type&.
  using reference = value_type&;

  /// A singular iterator (compares equal only to other singular iterators).
  iterator() = default;
  /// The item. REQUIRES: dereferenceable.
  reference operator*() const { return slots_->item(pos_); }
  /// The item's address. REQUIRES: dereferenceable.
  pointer operator->() const { return &slots_->item(pos_); }
  /// The next item, or end().
  iterator& operator++() {
    ++pos_;
    skip_empty();
    return *this;
  }
  /// Advances; returns the iterator as it was.
  iterator operator++(int) {
    iterator old = *this;
    ++*this;
    return old;
  }
  /// Same map and position.
  friend bool operator==(const iterator& a, const iterator& b) noexcept {
    return a.slots_ == b.slots_ && a.pos_ == b.pos_;
  }

 private:
  friend class CuckooMap;
  friend class const_iterator;
  struct Exact {};
  static constexpr Exact kExact{};
  // The first item at or after pos.
  iterator(Slots* slots, std::size_t pos) : slots_(slots), pos_(pos) { skip_empty(); }
  // The item at pos, or end (pos == slots->size()).
  iterator(Slots* slots, std::size_t pos, Exact) noexcept : slots_(slots), pos_(pos) {}
  void skip_empty() {
    // Bounded by slots_->size().
    while (pos_ != slots_->size() && !slots_->occupied(pos_)) ++pos_;
  }
  Slots* slots_ = nullptr;
  std::size_t pos_ = 0;
};

CUCKOO_MAP_TEMPLATE
class CUCKOO_MAP::const_iterator {
 public:
  /// std::forward_iterator_tag.
  using iterator_category = std::forward_iterator_tag;
  /// std::forward_iterator_tag.
  using iterator_concept = std::forward_iterator_tag;
  /// std::pair<const K, V>.
  using value_type = CuckooMap::value_type;
  /// std::ptrdiff_t.
  using difference_type = std::ptrdiff_t;
  /// const value_type*.
  using pointer = const value_type*;
  /// const value_type&.
  using reference = const value_type&;

  /// A singular iterator.
  const_iterator() = default;
  /// The same position as it, as in the standard containers.
  // NOLINTNEXTLINE(google-explicit-constructor): iterator converts, as in std containers
  const_iterator(const iterator& it) noexcept : slots_(it.slots_), pos_(it.pos_) {}
  /// The item. REQUIRES: dereferenceable.
  reference operator*() const { return slots_->item(pos_); }
  /// The item's address. REQUIRES: dereferenceable.
  pointer operator->() const { return &slots_->item(pos_); }
  /// The next item, or end().
  const_iterator& operator++() {
    ++pos_;
    skip_empty();
    return *this;
  }
  /// Advances; returns the iterator as it was.
  const_iterator operator++(int) {
    const_iterator old = *this;
    ++*this;
    return old;
  }
  /// Same map and position (an iterator converts, so iterators compare with these).
  friend bool operator==(const const_iterator& a, const const_iterator& b) noexcept {
    return a.slots_ == b.slots_ && a.pos_ == b.pos_;
  }

 private:
  friend class CuckooMap;
  struct Exact {};
  static constexpr Exact kExact{};
  const_iterator(const Slots* slots, std::size_t pos) : slots_(slots), pos_(pos) { skip_empty(); }
  const_iterator(const Slots* slots, std::size_t pos, Exact) noexcept : slots_(slots), pos_(pos) {}
  void skip_empty() {
    // Bounded by slots_->size().
    while (pos_ != slots_->size() && !slots_->occupied(pos_)) ++pos_;
  }
  const Slots* slots_ = nullptr;
  std::size_t pos_ = 0;
};

// The node handle: the item moved out of its slot (slots are not nodes, so there is no
// node to hand over; extract is a move of the key and the value, insert another).
CUCKOO_MAP_TEMPLATE
class CUCKOO_MAP::node_type {
 public:
  /// K.
  using key_type = K;
  /// V.
  using mapped_type = V;
  /// The map's allocator type.
  using allocator_type = Allocator;

  /// An empty handle.
  node_type() = default;
  /// Takes other's item; other is empty afterwards.
  node_type(node_type&& other) noexcept : item_(std::move(other.item_)) { other.item_.reset(); }
  /// Takes other's item (this one's is destroyed); other is empty afterwards.
  node_type& operator=(node_type&& other) noexcept {
    item_ = std::move(other.item_);
    other.item_.reset();
    return *this;
  }

  /// Whether the handle holds no item.
  [[nodiscard]] bool empty() const noexcept { return !item_.has_value(); }
  /// Whether the handle holds an item.
  explicit operator bool() const noexcept { return item_.has_value(); }
  /// The item's key; may be changed before the node is inserted. REQUIRES: !empty().
  K& key() const {
    assert(item_.has_value());
    return item_->first;
  }
  /// The item's value. REQUIRES: !empty().
  V& mapped() const {
    assert(item_.has_value());
    return item_->second;
  }
  /// A default-constructed allocator_type (the item lives in the handle, not in memory
  /// from the map's allocator).
  allocator_type get_allocator() const { return allocator_type(); }
  /// Exchanges the items.
  void swap(node_type& other) noexcept { item_.swap(other.item_); }
  /// Exchanges the items.
  friend void swap(node_type& a, node_type& b) noexcept { a.swap(b); }

 private:
  friend class CuckooMap;
  explicit node_type(MutableItem&& item) : item_(std::move(item)) {}
  mutable std::optional<MutableItem> item_;
};

CUCKOO_MAP_TEMPLATE
struct CUCKOO_MAP::insert_return_type {
  /// The item with the node's key, or end() for an empty node.
  iterator position;
  /// Whether the node's item was inserted.
  bool inserted;
  /// Empty if inserted (or given empty), else the node as it was given.
  node_type node;
};

CUCKOO_MAP_TEMPLATE
auto CUCKOO_MAP::extract(const_iterator pos) -> node_type {
  assert(pos.slots_ == &slots_ && pos.pos_ < slots_.size() && slots_.occupied(pos.pos_));
  const std::uint32_t home = displaced_home(pos.pos_);  // from the key, before it moves
  node_type node(std::move(slots_.mutable_item(pos.pos_)));
  slots_.reset(pos.pos_, home);
  --size_;
  ++stats_.erases;
  if (pos.pos_ >= table_slots()) --stash_count_;
  return node;
}

CUCKOO_MAP_TEMPLATE
auto CUCKOO_MAP::insert(node_type&& node) -> insert_return_type {
  if (node.empty()) return {end(), false, node_type()};
  MutableItem& item = *node.item_;
  const Placed placed = try_emplace_impl(std::move(item.first), std::move(item.second));
  if (placed.result == InsertResult::kFull) throw_full("insert(node_type&&)");
  if (placed.result == InsertResult::kInserted) {
    node.item_.reset();
    return {iterator_at(placed.pos), true, node_type()};
  }
  return {iterator_at(placed.pos), false, std::move(node)};
}

CUCKOO_MAP_TEMPLATE
template <unsigned B2, class H2, class E2>
void CUCKOO_MAP::merge(CuckooMap<K, V, B2, H2, E2, Allocator>& source) {
  assert(static_cast<const void*>(&source) != static_cast<const void*>(this));
  for (std::size_t pos = 0; pos < source.slots_.size(); ++pos) {  // bounded by the slots
    if (!source.slots_.occupied(pos)) continue;
    // Moved from only when stored (the outcome forms' guarantee); then the source slot
    // is emptied without reading the moved-from key again.
    const std::uint32_t home = source.displaced_home(pos);  // from the key, before it moves
    MutableItem& item = source.slots_.mutable_item(pos);
    const Placed placed = try_emplace_impl(std::move(item.first), std::move(item.second));
    if (placed.result == InsertResult::kFull) return;
    if (placed.result == InsertResult::kInserted) source.erase_at(pos, /*refill=*/false, home);
  }
}

}  // namespace cuckoo
