// MapModel: a std::map, nothing more.
#include "cuckoo/model/map_model.hpp"

namespace cuckoo::model {

InsertResult MapModel::insert(std::uint64_t key, std::uint64_t value) {
  const bool inserted = entries_.try_emplace(key, value).second;
  return inserted ? InsertResult::kInserted : InsertResult::kExists;
}

InsertResult MapModel::insert_or_assign(std::uint64_t key, std::uint64_t value) {
  const bool inserted = entries_.insert_or_assign(key, value).second;
  return inserted ? InsertResult::kInserted : InsertResult::kUpdated;
}

std::optional<std::uint64_t> MapModel::find(std::uint64_t key) const {
  const auto it = entries_.find(key);
  if (it == entries_.end()) return std::nullopt;
  return it->second;
}

bool MapModel::contains(std::uint64_t key) const { return entries_.contains(key); }

bool MapModel::erase(std::uint64_t key) { return entries_.erase(key) == 1; }

}  // namespace cuckoo::model
