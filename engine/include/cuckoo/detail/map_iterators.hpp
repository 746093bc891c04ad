// CuckooMap's iterators (declared, with their contract, in cuckoo/cuckoo_map.hpp): a
// position in the slot array, table slots in bucket order, then the stash. Invariant:
// pos_ is an occupied slot or slots_->size() (end); skip_empty() restores it after every
// move, bounded by the slot count.
#pragma once

#ifndef CUCKOO_MAP
#error "map_iterators.hpp holds out-of-line members of CuckooMap: include cuckoo/cuckoo_map.hpp"
#endif

namespace cuckoo {

CUCKOO_MAP_TEMPLATE
class CUCKOO_MAP::iterator {
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

CUCKOO_MAP_TEMPLATE
class CUCKOO_MAP::const_iterator {
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

}  // namespace cuckoo
