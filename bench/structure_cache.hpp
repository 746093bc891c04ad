// A cache of built structures shared by the benchmarks of one size: the insert benchmark
// leaves its filled structure here and the lookup benchmarks of the same size reuse it
// (or build it, untimed, when the insert benchmark was filtered out). Asking for another
// size drops everything of the previous sizes, so a 100M run never holds the 10M
// structures too.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <utility>

namespace cuckoo::bench {

template <class T>
class StructureCache {
 public:
  // The entry for (items, variant), built with make() (returning std::unique_ptr<T>) if
  // absent.
  template <class Make>
  T& get(std::uint64_t items, unsigned variant, Make&& make) {
    drop_other_sizes(items);
    auto& slot = entries_[{items, variant}];
    if (!slot) slot = make();
    return *slot;
  }

  // Replaces the entry for (items, variant).
  void put(std::uint64_t items, unsigned variant, std::unique_ptr<T> value) {
    drop_other_sizes(items);
    entries_[{items, variant}] = std::move(value);
  }

  bool has(std::uint64_t items, unsigned variant) const {
    return entries_.contains({items, variant});
  }

  // Frees the entry before a rebuild of the same key, so two copies never coexist.
  void drop(std::uint64_t items, unsigned variant) { entries_.erase({items, variant}); }

 private:
  void drop_other_sizes(std::uint64_t items) {
    for (auto it = entries_.begin(); it != entries_.end();) {  // bound: entries_.size()
      it = it->first.first == items ? std::next(it) : entries_.erase(it);
    }
  }

  std::map<std::pair<std::uint64_t, unsigned>, std::unique_ptr<T>> entries_;
};

}  // namespace cuckoo::bench
