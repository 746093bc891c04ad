// MultisetModel: a std::multiset of the stored keys and, with an identity, an index
// identity -> stored copies kept in step with it (see the header). The index never
// outlives the identity it was built with: set_identity() rebuilds it, and every other
// mutation updates items_ and the index together, so the counts are exactly those a
// scan of items_ would give (model/tests/multiset_model_test.cpp checks this against a
// brute-force recount under random ops).
#include "cuckoo/model/multiset_model.hpp"

#include <utility>

namespace cuckoo::model {

MultisetModel::MultisetModel(Identity identity) : identity_(std::move(identity)) {}

void MultisetModel::set_identity(Identity identity) {
  identity_ = std::move(identity);
  rebuild_index();
}

void MultisetModel::rebuild_index() {
  by_identity_.clear();
  if (!identity_) return;
  for (const std::uint64_t stored : items_) by_identity_[identity_(stored)].insert(stored);
}

std::uint64_t MultisetModel::identity_of(std::uint64_t key) const {
  return identity_ ? identity_(key) : key;
}

InsertResult MultisetModel::insert(std::uint64_t key, std::uint64_t max_copies) {
  if (!identity_) {
    const key::MultisetInsert step = key::multiset_insert(items_.count(key), max_copies);
    if (step.result == InsertResult::kInserted) items_.insert(key);
    return step.result;
  }
  const std::uint64_t id = identity_(key);
  const auto found = by_identity_.find(id);
  const std::size_t copies = found == by_identity_.end() ? 0 : found->second.size();
  const key::MultisetInsert step = key::multiset_insert(copies, max_copies);
  if (step.result == InsertResult::kInserted) {
    items_.insert(key);
    by_identity_[id].insert(key);
  }
  return step.result;
}

bool MultisetModel::contains(std::uint64_t key) const {
  return key::multiset_must_contain(identity_count(key));
}

std::size_t MultisetModel::count(std::uint64_t key) const { return items_.count(key); }

std::size_t MultisetModel::identity_count(std::uint64_t key) const {
  if (!identity_) return items_.count(key);
  const auto found = by_identity_.find(identity_(key));
  return found == by_identity_.end() ? 0 : found->second.size();
}

bool MultisetModel::erase(std::uint64_t key) {
  // Which copy goes (below) is the model's choice; whether one goes is key::multiset_erase.
  if (!key::multiset_erase(identity_count(key)).erased) return false;
  std::uint64_t victim = key;
  if (identity_) {
    // The key itself if stored, else the smallest aliasing key: the filter cannot tell
    // them apart (the smallest, to be deterministic). Present: identity_count() > 0.
    const auto aliases = by_identity_.find(identity_(key));
    std::multiset<std::uint64_t>& copies = aliases->second;
    auto copy = copies.find(key);
    if (copy == copies.end()) copy = copies.begin();
    victim = *copy;
    copies.erase(copy);  // one copy, as below
    if (copies.empty()) by_identity_.erase(aliases);
  }
  items_.erase(items_.find(victim));  // one copy: erase(iterator), never erase(key)
  return true;
}

std::vector<std::uint64_t> MultisetModel::distinct_keys() const {
  std::vector<std::uint64_t> keys;
  for (auto it = items_.begin(); it != items_.end(); it = items_.upper_bound(*it)) {
    keys.push_back(*it);
  }
  return keys;
}

}  // namespace cuckoo::model
