// MultisetModel: a std::multiset and linear scans. Identity counts are recomputed on
// every call rather than cached, so that changing the identity function can never leave
// a stale count behind; the models are written to be obviously right, not fast.
#include "cuckoo/model/multiset_model.hpp"

#include <utility>

namespace cuckoo::model {

MultisetModel::MultisetModel(Identity identity) : identity_(std::move(identity)) {}

void MultisetModel::set_identity(Identity identity) { identity_ = std::move(identity); }

std::uint64_t MultisetModel::identity_of(std::uint64_t key) const {
  return identity_ ? identity_(key) : key;
}

InsertResult MultisetModel::insert(std::uint64_t key, std::uint64_t max_copies) {
  const key::MultisetInsert step = key::multiset_insert(identity_count(key), max_copies);
  if (step.result == InsertResult::kInserted) items_.insert(key);
  return step.result;
}

bool MultisetModel::contains(std::uint64_t key) const {
  return key::multiset_must_contain(identity_count(key));
}

std::size_t MultisetModel::count(std::uint64_t key) const { return items_.count(key); }

std::size_t MultisetModel::identity_count(std::uint64_t key) const {
  if (!identity_) return items_.count(key);
  const std::uint64_t wanted = identity_(key);
  std::size_t copies = 0;
  for (const std::uint64_t stored : items_) {
    if (identity_(stored) == wanted) ++copies;
  }
  return copies;
}

bool MultisetModel::erase(std::uint64_t key) {
  // Which copy goes (below) is the model's choice; whether one goes is key::multiset_erase.
  if (!key::multiset_erase(identity_count(key)).erased) return false;
  auto victim = items_.find(key);
  if (victim == items_.end() && identity_) {
    // The filter cannot tell aliasing keys apart; take the smallest, to be deterministic.
    const std::uint64_t wanted = identity_(key);
    for (auto it = items_.begin(); it != items_.end(); ++it) {
      if (identity_(*it) == wanted) {
        victim = it;
        break;
      }
    }
  }
  if (victim == items_.end()) return false;
  items_.erase(victim);  // one copy: erase(iterator), never erase(key)
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
