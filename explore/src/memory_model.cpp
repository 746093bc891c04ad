// The memory model's bookkeeping (memory_model.hpp): the rules of scheduler.hpp's
// "Memory model", one function each.
#include "memory_model.hpp"

#include <algorithm>
#include <cstring>

namespace cuckoo::explore::memory {
namespace {

bool acquires(std::memory_order o) {
  return o == std::memory_order_acquire || o == std::memory_order_acq_rel || o == std::memory_order_seq_cst ||
         o == std::memory_order_consume;
}
bool releases(std::memory_order o) {
  return o == std::memory_order_release || o == std::memory_order_acq_rel || o == std::memory_order_seq_cst;
}

}  // namespace

void VClock::grow(std::size_t n) {
  if (n <= size_) return;
  if (heap_.empty() && n <= kInline) {
    std::fill(small_.begin() + static_cast<std::ptrdiff_t>(size_), small_.begin() + static_cast<std::ptrdiff_t>(n), 0U);
  } else {
    if (heap_.empty()) heap_.assign(small_.begin(), small_.begin() + static_cast<std::ptrdiff_t>(size_));
    heap_.resize(n, 0);
  }
  size_ = n;
}

void VClock::join(const VClock& other) {
  grow(other.size_);
  std::uint32_t* mine = data();
  const std::uint32_t* theirs = other.data();
  for (std::size_t i = 0; i < other.size_; ++i) mine[i] = std::max(mine[i], theirs[i]);
}

MemoryModel::MemoryModel(std::size_t threads) : threads_(threads), open_tx_(threads, 0) {}

std::uint32_t MemoryModel::tick(unsigned t) {
  VClock& c = threads_[t].clock;
  const std::uint32_t epoch = c.get(t) + 1;
  c.set(t, epoch);
  return epoch;
}

// The location at `address`, made on first use with the value memory holds (a store
// before every thread's first step). Memory that no longer holds the newest store was
// changed outside the model (reused by another object without a constructor we see):
// its history starts afresh.
Location& MemoryModel::location(const void* address, std::size_t size) {
  auto [it, made] = locations_.try_emplace(address);
  Location& l = it->second;
  if (!made && l.size == size && std::memcmp(l.stores.back().bytes.data(), address, size) == 0) return l;
  l = Location{};
  l.size = size;
  StoreRecord initial;
  std::memcpy(initial.bytes.data(), address, size);
  l.stores.push_back(std::move(initial));
  return l;
}

std::uint64_t MemoryModel::oldest_readable(unsigned t, const Location& l, const VClock& c) const {
  std::uint64_t oldest = l.base;
  for (const SeenRecord& s : l.seen) {  // bound: the location's history, pruned
    if (s.index > oldest && (s.thread == t || s.epoch <= c.get(s.thread))) oldest = s.index;
  }
  return oldest;
}

std::uint64_t MemoryModel::newest_visible(unsigned t, const Location& l) const {
  std::uint64_t index = l.end() - 1;
  while (index > l.base) {  // bound: the location's history
    const StoreRecord& s = l.at(index);
    const bool tentative = s.tx != 0 && s.thread >= 0 && static_cast<unsigned>(s.thread) != t &&
                           open_tx_[static_cast<unsigned>(s.thread)] == s.tx;
    if (!tentative) break;
    --index;
  }
  return index;
}

void MemoryModel::note_seen(Location& l, unsigned t, std::uint64_t index) {
  // `seen` keeps, per thread, the epochs at which its newest index grew.
  std::uint64_t last = 0;  // index + 1 of t's newest entry
  for (auto s = l.seen.rbegin(); s != l.seen.rend(); ++s) {
    if (s->thread == t) {
      last = s->index + 1;
      break;
    }
  }
  if (index + 1 <= last) return;
  l.seen.push_back(SeenRecord{t, threads_[t].clock.get(t), index});
}

void MemoryModel::prune(Location& l) {
  if (l.stores.size() <= 2 * kKeep) return;
  const std::size_t drop = l.stores.size() - kKeep;
  l.stores.erase(l.stores.begin(), l.stores.begin() + static_cast<std::ptrdiff_t>(drop));
  l.base += drop;
  // Entries below the base say no more than the base itself, the floor of every read.
  std::erase_if(l.seen, [&](const SeenRecord& s) { return s.index < l.base; });
}

unsigned MemoryModel::read_options(unsigned t, const void* address, std::memory_order order, bool in_tx) const {
  if (in_tx || order == std::memory_order_seq_cst) return 1;
  const auto it = locations_.find(address);
  if (it == locations_.end()) return 1;
  const Location& l = it->second;
  if (std::memcmp(l.stores.back().bytes.data(), address, l.size) != 0) return 1;  // starts afresh
  const VClock* clock = &threads_[t].clock;
  VClock joined;
  if (const auto o = tx_order_.find(address); o != tx_order_.end()) {
    joined = *clock;
    joined.join(o->second.wrote);
    clock = &joined;
  }
  const std::uint64_t newest = newest_visible(t, l);
  const std::uint64_t oldest = oldest_readable(t, l, *clock);
  return newest > oldest ? static_cast<unsigned>(std::min<std::uint64_t>(newest - oldest + 1, 1U << 12)) : 1;
}

bool MemoryModel::load(unsigned t, const void* address, std::size_t size, std::memory_order order, unsigned older,
                       bool in_tx, void* out) {
  tick(t);
  conflict_order(t, address, false);
  Location& l = location(address, size);
  ThreadClocks& c = threads_[t];
  const std::uint64_t newest = l.end() - 1;
  std::uint64_t index = newest;
  if (older > 0 && !in_tx && order != std::memory_order_seq_cst) {
    const std::uint64_t oldest = oldest_readable(t, l, c.clock);
    index = newest - std::min<std::uint64_t>(older, newest - std::min(oldest, newest));
  }
  const StoreRecord& s = l.at(index);
  std::memcpy(out, index == newest ? address : static_cast<const void*>(s.bytes.data()), size);
  if (acquires(order)) {
    c.clock.join(s.sync);
  } else {
    c.acquire_pending.join(s.sync);
  }
  note_seen(l, t, index);
  return index < newest;
}

std::uint64_t MemoryModel::write_begin(const void* address, std::size_t size) { return location(address, size).end(); }

void MemoryModel::write_end(unsigned t, const void* address, bool read_newest, bool stored, std::memory_order order,
                            std::uint64_t tx) {
  const std::uint32_t epoch = tick(t);
  conflict_order(t, address, true);
  Location& l = locations_.at(address);  // made by write_begin
  ThreadClocks& c = threads_[t];
  const std::uint64_t newest = l.end() - 1;
  StoreRecord s;
  if (read_newest) {
    const StoreRecord& read = l.at(newest);
    if (acquires(order)) {
      c.clock.join(read.sync);
    } else {
      c.acquire_pending.join(read.sync);
    }
    if (stored) s.sync = read.sync;  // the release sequence continues through an RMW
  }
  if (!stored) {
    note_seen(l, t, newest);
    return;
  }
  std::memcpy(s.bytes.data(), address, l.size);
  s.thread = static_cast<int>(t);
  s.epoch = epoch;
  s.tx = tx;
  if (releases(order)) {
    s.sync.join(c.clock);
  } else if (c.released) {
    s.sync.join(c.fence_release);
  }
  if (order == std::memory_order_seq_cst) seq_cst_.join(c.clock);
  l.stores.push_back(std::move(s));
  note_seen(l, t, l.end() - 1);
  prune(l);
}

void MemoryModel::fence(unsigned t, std::memory_order order) {
  tick(t);
  ThreadClocks& c = threads_[t];
  if (acquires(order)) {
    c.clock.join(c.acquire_pending);
    c.acquire_pending = VClock{};
  }
  if (order == std::memory_order_seq_cst) {
    c.clock.join(seq_cst_);
    seq_cst_.join(c.clock);
  }
  if (releases(order)) {
    c.fence_release = c.clock;
    c.released = true;
  }
}

void MemoryModel::real_time_point(unsigned t) {
  tick(t);
  VClock& c = threads_[t].clock;
  c.join(real_time_);
  real_time_.join(c);
}

void MemoryModel::lifetime(const void* address) noexcept {
  locations_.erase(address);
  tx_order_.erase(address);
}

std::string MemoryModel::plain_access(unsigned t, const void* address, bool write, const char* name,
                                      std::uint64_t step) {
  const std::uint32_t epoch = tick(t);
  conflict_order(t, address, write);
  const VClock& c = threads_[t].clock;
  PlainHistory& h = plains_[address];
  const auto ordered = [&](unsigned u, std::uint32_t e) { return u == t || e <= c.get(u); };
  const auto when = [](std::uint64_t k) {
    return k == 0 ? std::string("before its first step") : "after its step " + std::to_string(k);
  };
  const auto race = [&](const char* other_kind, unsigned u, std::uint64_t other_step) {
    return std::string("data race on ") + name + ": thread " + std::to_string(t) + "'s " +
           (write ? "write" : "read") + " (" + when(step) + ") and thread " + std::to_string(u) + "'s " +
           other_kind + " (" + when(other_step) + ") are not ordered by happens-before";
  };
  if (h.writer >= 0 && !ordered(static_cast<unsigned>(h.writer), h.write.epoch)) {
    return race("write", static_cast<unsigned>(h.writer), h.write.step);
  }
  if (write) {
    for (unsigned u = 0; u < h.reads.size(); ++u) {
      if (h.reads[u].epoch != 0 && !ordered(u, h.reads[u].epoch)) return race("read", u, h.reads[u].step);
    }
    h.writer = static_cast<int>(t);
    h.write = {epoch, step};
    h.reads.clear();
  } else {
    if (h.reads.size() <= t) h.reads.resize(t + 1);
    h.reads[t] = {epoch, step};
  }
  return {};
}

void MemoryModel::plain_created(unsigned t, const void* address, std::uint64_t step) {
  const std::uint32_t epoch = tick(t);
  PlainHistory& h = plains_[address];
  h = PlainHistory{};
  h.writer = static_cast<int>(t);
  h.write = {epoch, step};
}

PlainHistory MemoryModel::plain_history(const void* address, bool* had) const {
  const auto it = plains_.find(address);
  *had = it != plains_.end();
  return *had ? it->second : PlainHistory{};
}

void MemoryModel::restore_plain_history(const void* address, const PlainHistory& history, bool had) {
  if (had) {
    plains_[address] = history;
  } else {
    plains_.erase(address);
  }
}

PlainHistory::Access MemoryModel::plain_read(const void* address, unsigned t) const {
  const auto it = plains_.find(address);
  if (it == plains_.end() || it->second.reads.size() <= t) return {};
  return it->second.reads[t];
}

void MemoryModel::restore_plain_read(const void* address, unsigned t, PlainHistory::Access read) {
  const auto it = plains_.find(address);
  if (it == plains_.end() || it->second.reads.size() <= t) return;
  it->second.reads[t] = read;
}

void MemoryModel::conflict_order(unsigned t, const void* address, bool write) {
  if (tx_order_.empty()) return;
  const auto it = tx_order_.find(address);
  if (it == tx_order_.end()) return;
  VClock& c = threads_[t].clock;
  c.join(it->second.wrote);
  if (write) c.join(it->second.read);
}

void MemoryModel::tx_committed(unsigned t, std::uint64_t serial, const std::vector<const void*>& reads,
                               const std::vector<const void*>& writes) {
  const VClock& c = threads_[t].clock;
  for (const void* a : reads) tx_order_[a].read.join(c);
  for (const void* a : writes) {
    tx_order_[a].wrote.join(c);
    const auto it = locations_.find(a);
    if (it == locations_.end()) continue;
    Location& l = it->second;
    // The transaction's stores are the newest ones (another thread's write of the
    // location would have aborted it): keep the last, drop the others.
    std::uint64_t first = l.end() - 1;
    while (first > l.base && l.at(first - 1).tx == serial && l.at(first).tx == serial) --first;
    const std::uint64_t last = l.end() - 1;
    if (first == last || l.at(last).tx != serial) continue;
    l.stores.erase(l.stores.begin() + static_cast<std::ptrdiff_t>(first - l.base),
                   l.stores.begin() + static_cast<std::ptrdiff_t>(last - l.base));
    for (SeenRecord& s : l.seen) {
      if (s.index >= last) {
        s.index -= last - first;
      } else if (s.index > first) {
        s.index = first;
      }
    }
  }
}

void MemoryModel::truncate(const void* address, std::uint64_t length) {
  const auto it = locations_.find(address);
  if (it == locations_.end()) return;
  Location& l = it->second;
  length = std::max(length, l.base + 1);
  if (length >= l.end()) return;
  l.stores.resize(static_cast<std::size_t>(length - l.base));
  std::erase_if(l.seen, [&](const SeenRecord& s) { return s.index >= length; });
}

void MemoryModel::tx_aborted(unsigned t, const ThreadClocks& saved, std::uint32_t begin_epoch,
                             const std::vector<const void*>& touched) {
  const std::uint32_t own = threads_[t].clock.get(t);
  threads_[t] = saved;
  threads_[t].clock.set(t, own + 1);
  for (const void* a : touched) {
    const auto it = locations_.find(a);
    if (it == locations_.end()) continue;
    std::erase_if(it->second.seen, [&](const SeenRecord& s) { return s.thread == t && s.epoch > begin_epoch; });
  }
}

}  // namespace cuckoo::explore::memory
