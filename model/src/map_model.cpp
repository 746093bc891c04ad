// MapModel: a std::map; what each operation returns and leaves behind is
// key_semantics.hpp's, applied to the key's entry.
#include "cuckoo/model/map_model.hpp"

namespace cuckoo::model {

namespace {

key::Value lookup(const std::map<std::uint64_t, std::uint64_t>& entries, std::uint64_t k) {
  const auto it = entries.find(k);
  if (it == entries.end()) return std::nullopt;
  return it->second;
}

// Stores the key's state after an operation: its value, or nothing.
void store(std::map<std::uint64_t, std::uint64_t>& entries, std::uint64_t k, const key::Value& v) {
  if (v) {
    entries.insert_or_assign(k, *v);
  } else {
    entries.erase(k);
  }
}

}  // namespace

InsertResult MapModel::insert(std::uint64_t k, std::uint64_t value) {
  const key::MapWrite step = key::map_insert(lookup(entries_, k), value);
  store(entries_, k, step.value);
  return step.result;
}

InsertResult MapModel::insert_or_assign(std::uint64_t k, std::uint64_t value) {
  const key::MapWrite step = key::map_insert_or_assign(lookup(entries_, k), value);
  store(entries_, k, step.value);
  return step.result;
}

std::optional<std::uint64_t> MapModel::find(std::uint64_t k) const {
  return key::map_find(lookup(entries_, k));
}

bool MapModel::contains(std::uint64_t k) const { return key::map_contains(lookup(entries_, k)); }

bool MapModel::erase(std::uint64_t k) {
  const key::MapErase step = key::map_erase(lookup(entries_, k));
  store(entries_, k, step.value);
  return step.result;
}

}  // namespace cuckoo::model
