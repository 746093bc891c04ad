// ClassicCuckoo's insert (out-of-line members of ClassicCuckoo, cuckoo/classic_cuckoo.hpp,
// included at its end): the lookup of both buckets, then the kick walk between the two
// tables (record_walk counts it).
#pragma once

#ifndef CUCKOO_CLASSIC
#error "classic_insert.hpp holds out-of-line members of ClassicCuckoo: include cuckoo/classic_cuckoo.hpp"
#endif

namespace cuckoo {

CUCKOO_CLASSIC_TEMPLATE
inline auto CUCKOO_CLASSIC::insert_impl(K&& key, V&& value, bool assign) -> InsertResult {
  ++stats_.insert_calls;
  const std::uint64_t h = hash(key);
  auto& first = tables_[0][pos0(h, table_size_)];
  auto& second = tables_[1][pos1(h, table_size_)];
  for (Slot* s : {&first, &second}) {
    if (*s && equal_((*s)->key, key)) {
      if (!assign) return InsertResult::kExists;
      (*s)->value = std::move(value);
      return InsertResult::kUpdated;
    }
  }
  for (Slot* s : {&first, &second}) {
    if (!*s) {
      s->emplace(Entry{std::move(key), std::move(value)});
      ++size_;
      record_walk(0);
      ++stats_.inserted;
      return InsertResult::kInserted;
    }
  }
  return insert_with_kicks(Entry{std::move(key), std::move(value)},
                           pos0(h, table_size_));
}

CUCKOO_CLASSIC_TEMPLATE
auto CUCKOO_CLASSIC::insert_with_kicks(Entry carried, std::uint32_t first_bucket) -> InsertResult {
  path_.clear();
  path_.reserve(config_.max_kicks);
  unsigned table = 0;
  std::uint32_t bucket = first_bucket;
  for (unsigned kicks = 1; kicks <= config_.max_kicks; ++kicks) {
    // tables_[table][bucket] is occupied: it is a candidate slot of `carried` that
    // was just found full (first step) or the slot `carried` was evicted towards.
    std::swap(carried, *tables_[table][bucket]);
    path_.push_back({table, bucket});
    table ^= 1U;
    bucket = position(hash(carried.key), table, table_size_);
    auto& target = tables_[table][bucket];
    if (!target) {
      target.emplace(std::move(carried));
      ++size_;
      record_walk(kicks);
      ++stats_.inserted;
      return InsertResult::kInserted;
    }
  }
  // Undo in reverse: each swap restores one slot and hands back what it held before.
  for (auto step = path_.rbegin(); step != path_.rend(); ++step) {
    std::swap(carried, *tables_[step->table][step->bucket]);
  }
  record_walk(config_.max_kicks);
  ++stats_.failures;
  if (config_.on_failure != OnInsertFailure::kReport && rebuild_with(carried)) {
    ++stats_.inserted;
    return InsertResult::kInserted;
  }
  ++stats_.full;
  return InsertResult::kFull;
}
}  // namespace cuckoo
