// Audits a small partial-key cuckoo filter written here with a deliberate bug: when a
// kick-out walk gives up, the homeless fingerprint is kept in a victim slot, but
// contains() forgets to look there. The audit must FAIL it (C1 or C6: a stored item is
// reported absent) and print the shrunk trace; --replay replays it.
//   broken_filter_audit [--out DIR] [--claims LIST] [--profile NAME] [--seed N] | --replay TRACE
// (the installed driver, cuckoo/audit/audit_main.hpp, is the whole command line)
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "cuckoo/status.hpp"
#include "cuckoo/audit/audit_main.hpp"

namespace {

// 8-bit fingerprints, 4 slots per bucket, a power-of-two bucket count, i2 = i1 xor H(fp).
class TinyCuckooFilter {
 public:
  static constexpr unsigned kSlots = 4;
  static constexpr unsigned kMaxKicks = 50;

  explicit TinyCuckooFilter(std::uint32_t buckets) : table_(buckets) {}

  cuckoo::InsertResult insert(std::uint64_t key) {
    if (victim_) return cuckoo::InsertResult::kFull;
    auto [i1, fp] = locate(key);
    const std::uint32_t i2 = alt(i1, fp);
    if (copies(i1, i2, fp) >= 2 * kSlots) return cuckoo::InsertResult::kDuplicateLimit;
    if (put(i1, fp) || put(i2, fp)) {
      ++size_;
      return cuckoo::InsertResult::kInserted;
    }
    std::uint32_t i = (mix(key) & 1) != 0 ? i1 : i2;
    for (unsigned kick = 0; kick < kMaxKicks; ++kick) {  // bound: kMaxKicks
      std::swap(fp, table_[i][kick % kSlots]);
      i = alt(i, fp);
      if (put(i, fp)) {
        ++size_;
        return cuckoo::InsertResult::kInserted;
      }
    }
    victim_ = Victim{i, fp};  // homeless: kept beside the table
    ++size_;
    return cuckoo::InsertResult::kInserted;
  }

  bool contains(std::uint64_t key) const {
    const auto [i1, fp] = locate(key);
    return has(i1, fp) || has(alt(i1, fp), fp);  // BUG: never looks at victim_
  }

  bool erase(std::uint64_t key) {
    const auto [i1, fp] = locate(key);
    for (const std::uint32_t i : {i1, alt(i1, fp)}) {
      for (auto& slot : table_[i]) {
        if (slot == fp) {
          slot = 0;
          --size_;
          return true;
        }
      }
    }
    if (victim_ && victim_->fp == fp && (victim_->bucket == i1 || victim_->bucket == alt(i1, fp))) {
      victim_.reset();
      --size_;
      return true;
    }
    return false;
  }

  std::uint64_t size() const { return size_; }
  // The item a key is: fingerprint and smaller bucket.
  std::uint64_t identity(std::uint64_t key) const {
    const auto [i1, fp] = locate(key);
    return (std::uint64_t{std::min(i1, alt(i1, fp))} << 8) | fp;
  }

 private:
  struct Victim {
    std::uint32_t bucket;
    std::uint8_t fp;
  };
  static std::uint64_t mix(std::uint64_t x) {
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdULL;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ULL;
    return x ^ (x >> 33);
  }
  std::pair<std::uint32_t, std::uint8_t> locate(std::uint64_t key) const {
    const std::uint64_t h = mix(key);
    auto fp = static_cast<std::uint8_t>(h);
    if (fp == 0) fp = 1;
    return {static_cast<std::uint32_t>(h >> 32) & mask(), fp};
  }
  std::uint32_t mask() const { return static_cast<std::uint32_t>(table_.size() - 1); }
  std::uint32_t alt(std::uint32_t i, std::uint8_t fp) const {
    return (i ^ static_cast<std::uint32_t>(mix(fp))) & mask();
  }
  bool put(std::uint32_t i, std::uint8_t fp) {
    for (auto& slot : table_[i]) {
      if (slot == 0) {
        slot = fp;
        return true;
      }
    }
    return false;
  }
  bool has(std::uint32_t i, std::uint8_t fp) const {
    for (const auto slot : table_[i]) {
      if (slot == fp) return true;
    }
    return false;
  }
  unsigned copies(std::uint32_t i1, std::uint32_t i2, std::uint8_t fp) const {
    unsigned n = 0;
    for (const std::uint32_t i : {i1, i2}) {
      for (const auto slot : table_[i]) n += slot == fp ? 1 : 0;
      if (i1 == i2) break;
    }
    if (victim_ && victim_->fp == fp && (victim_->bucket == i1 || victim_->bucket == i2)) ++n;
    return n;
  }

  std::vector<std::array<std::uint8_t, kSlots>> table_;
  std::optional<Victim> victim_;
  std::uint64_t size_ = 0;
};

}  // namespace

int main(int argc, char** argv) {
  cuckoo::audit::ImplementationTraits traits;
  traits.name = "tiny.filter";
  traits.kind = cuckoo::audit::ImplementationKind::kApproximateFilter;
  traits.fingerprint_bits = 8;
  traits.slots_per_bucket = 4;
  traits.capacity = 32;  // 8 buckets of 4 slots
  return cuckoo::audit::audit_main(argc, argv, [] { return TinyCuckooFilter(8); }, traits);
}
