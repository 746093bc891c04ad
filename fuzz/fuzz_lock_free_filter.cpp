// Differential fuzz target: LockFreeFilter, single-threaded, against MultisetModel.
//
// The input decodes exactly as the filter target's (filter_support.hpp's
// decode_filter_config: f in 4..32, b in {1, 2, 4, 8}, 1..64 slots, 1..500 kicks, then
// the filter op table of op_decoder.hpp), and the lock-step checker runs the ops against
// the multiset model with the filter's identity (fingerprint and bucket pair, the same
// as CuckooFilter's). The lock-free filter has no stash and no serialization: the
// decoder's round-trip selectors become lookups (Family::kLockFreeFilter). Shapes the
// filter refuses are checked to throw ConfigError naming the field: semi-sorted buckets
// ("semi_sorted"; the input then runs with unsorted buckets of the same shape) and b = 8
// with f >= 25 ("fingerprint_bits"; the input ends there). The subject adds to the
// checker:
//   - count(key): the copies of the key's identity, recounted slot by slot from the
//     buckets (fingerprint_at), so that a lost or extra copy shows at once;
//   - check_invariants() after every op: the filter's own check_invariants() (the slots
//     hold size() fingerprints); no stash; the statistics agree with the insert outcomes
//     the subject saw, and count no retries (single-threaded, a retry would mean another
//     update completed meanwhile); every bucket whose slots changed has a new version
//     (what the lookups' double collect relies on).
// After the trace: the accessors agree with the configuration and the bucket layout;
// every key of the trace gets the hash, buckets, fingerprint and copy limit that
// CuckooFilter of the same configuration gives it (the shared hash rule); clear() empties
// every slot and leaves no key found; invalid configurations, and the shapes whose bucket
// does not fit four K-CAS words, throw ConfigError naming the field.
#include <cstddef>
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/error.hpp"
#include "cuckoo/lock_free_filter.hpp"
#include "cuckoo/model/checker.hpp"
#include "cuckoo/subjects/filter.hpp"
#include "filter_support.hpp"
#include "op_decoder.hpp"

namespace {

using cuckoo::CuckooFilterConfig;
using cuckoo::CuckooFilterPlacement;
using cuckoo::InsertResult;
using cuckoo::LockFreeFilter;

constexpr std::string_view kTarget = "lock_free_filter";

// The scan of every stored key after a kFull runs at the sampled cadence; the subject's
// check_invariants() after every op (its version check compares each bucket with the
// previous op's), and count(), size and every answer after every op (fuzz/README.md).
constexpr cuckoo::model::CheckCadence kCadence{.sample_stored_key_scans = true, .sample_invariants = false};

CuckooFilterPlacement placement_of(const LockFreeFilter& f, std::uint64_t key) {
  return f.placement_of_hash(f.hash_of(key));
}

class LockFreeUnderTest {
 public:
  explicit LockFreeUnderTest(LockFreeFilter& filter) : filter_(&filter) { snapshot(); }

  InsertResult insert(std::uint64_t key) {
    const InsertResult r = filter_->insert(key);
    switch (r) {
      case InsertResult::kInserted: ++inserted_; break;
      case InsertResult::kDuplicateLimit: ++duplicate_rejections_; break;
      case InsertResult::kFull: ++full_rejections_; break;
      case InsertResult::kExists:
      case InsertResult::kUpdated: break;  // the checker reports them (C5)
    }
    return r;
  }
  bool contains(std::uint64_t key) const { return filter_->contains(key); }
  bool erase(std::uint64_t key) { return filter_->erase(key); }
  std::uint64_t size() const { return filter_->size(); }
  void clear() { filter_->clear(); }
  std::uint64_t identity(std::uint64_t key) const {
    return identity_cache_.get(key, [this](std::uint64_t k) {
      return cuckoo::subjects::filter_identity(placement_of(*filter_, k));
    });
  }
  std::uint64_t max_copies(std::uint64_t key) const { return filter_->max_copies(key); }
  cuckoo::model::SubjectTraits traits() const {
    cuckoo::model::SubjectTraits t;
    t.exact = false;
    t.allows_duplicates = true;
    t.slots_per_bucket = filter_->slots_per_bucket();
    t.fingerprint_bits = filter_->fingerprint_bits();
    return t;
  }

  // Copies of key's identity in its two buckets, counted slot by slot (no stash).
  std::uint64_t count(std::uint64_t key) const {
    return cuckoo::fuzz::count_in_buckets(*filter_, placement_of(*filter_, key));
  }

  std::string check_invariants() {
    const LockFreeFilter& f = *filter_;
    if (std::string problem = f.check_invariants(); !problem.empty()) {
      return "check_invariants(): " + problem;
    }
    if (f.stash_size() != 0 || LockFreeFilter::kStashSlots != 0) return "the filter reports a stash";
    const cuckoo::LockFreeFilterStats st = f.stats();
    if (st.inserts != inserted_ || st.duplicate_rejections != duplicate_rejections_ ||
        st.full_rejections != full_rejections_) {
      return "stats() counts " + std::to_string(st.inserts) + " inserted, " +
             std::to_string(st.duplicate_rejections) + " at the copy limit, " +
             std::to_string(st.full_rejections) + " full; the inserts returned " +
             std::to_string(inserted_) + ", " + std::to_string(duplicate_rejections_) + ", " +
             std::to_string(full_rejections_);
    }
    if (st.update_retries != 0 || st.lookup_retries != 0) {
      return "single-threaded, stats() counts " + std::to_string(st.update_retries) +
             " update retries and " + std::to_string(st.lookup_retries) +
             " lookup retries (a retry means another update completed meanwhile)";
    }
    if (st.path_retries > st.path_searches || f.size() > st.inserts) {
      return "inconsistent path or insert counters";
    }
    // Every bucket whose slots changed since the last op has a new version.
    const unsigned b = f.slots_per_bucket();
    const std::uint64_t version_limit = (std::uint64_t{1} << f.version_bits()) - 1;
    for (std::uint32_t i = 0; i < f.bucket_count(); ++i) {
      const std::uint64_t version = f.version_of(i);
      bool changed = false;
      for (unsigned s = 0; s < b; ++s) {
        const std::uint32_t fp = f.fingerprint_at(i, s);
        changed = changed || fp != slots_[std::size_t{i} * b + s];
        slots_[std::size_t{i} * b + s] = fp;
      }
      if (version > version_limit) {
        return "bucket " + std::to_string(i) + "'s version exceeds its " +
               std::to_string(f.version_bits()) + " bits";
      }
      if (changed && version == versions_[i]) {
        return "bucket " + std::to_string(i) + " changed but its version " + std::to_string(version) +
               " did not";
      }
      versions_[i] = version;
    }
    return {};
  }

 private:
  // The slots (bucket by bucket) and versions after the last op.
  void snapshot() {
    const unsigned b = filter_->slots_per_bucket();
    slots_.assign(std::size_t{filter_->bucket_count()} * b, 0);
    versions_.assign(filter_->bucket_count(), 0);
    for (std::uint32_t i = 0; i < filter_->bucket_count(); ++i) {
      versions_[i] = filter_->version_of(i);
      for (unsigned s = 0; s < b; ++s) slots_[std::size_t{i} * b + s] = filter_->fingerprint_at(i, s);
    }
  }

  LockFreeFilter* filter_;
  cuckoo::fuzz::IdentityCache identity_cache_;
  std::uint64_t inserted_ = 0;
  std::uint64_t duplicate_rejections_ = 0;
  std::uint64_t full_rejections_ = 0;
  std::vector<std::uint32_t> slots_;
  std::vector<std::uint64_t> versions_;
};

[[noreturn]] void fail(const std::string& what, const cuckoo::model::Trace& trace) {
  cuckoo::fuzz::fail_after_trace(kTarget, what, trace);
}

// The constructor throws ConfigError naming `field` for config.
void expect_config_error(const CuckooFilterConfig& config, const std::string& field, const std::string& why,
                         const cuckoo::model::Trace& trace) {
  try {
    LockFreeFilter filter(config);
    fail("LockFreeFilter(" + why + ") throws ConfigError", trace);
  } catch (const cuckoo::ConfigError& e) {
    if (e.field() != field) fail("ConfigError names " + field + ", not " + e.field() + " (" + why + ")", trace);
  }
}

// The distinct keys the trace mentions (at most 512), and a few spread-out ones.
std::vector<std::uint64_t> probe_keys(const cuckoo::model::Trace& trace, std::uint64_t salt) {
  std::set<std::uint64_t> keys;
  for (const cuckoo::model::TraceEntry& e : trace.entries) {
    if (keys.size() >= 512) break;
    if (cuckoo::model::takes_key(e.op.kind)) keys.insert(e.op.key);
  }
  for (std::uint64_t i = 0; i < 8; ++i) keys.insert(cuckoo::detail::mix64(salt + i));
  return {keys.begin(), keys.end()};
}

// The accessors and the bucket layout agree with the configuration.
void check_accessors(const LockFreeFilter& f, const CuckooFilterConfig& c, const cuckoo::model::Trace& trace) {
  const std::uint64_t buckets = (c.capacity + c.slots_per_bucket - 1) / c.slots_per_bucket;
  if (f.bucket_count() != buckets || f.fingerprint_bits() != c.fingerprint_bits ||
      f.slots_per_bucket() != c.slots_per_bucket || f.max_kicks() != c.max_kicks || f.seed() != *c.seed) {
    fail("bucket_count, fingerprint_bits, slots_per_bucket, max_kicks and seed as configured", trace);
  }
  const auto layout = cuckoo::detail::LockFreeBucketLayout::of(c.fingerprint_bits, c.slots_per_bucket);
  if (!layout || f.words_per_bucket() != layout->words || f.version_bits() != layout->version_bits ||
      f.layout().slots0 != layout->slots0 || f.layout().per_word != layout->per_word ||
      f.version_bits() < cuckoo::detail::LockFreeBucketLayout::kMinVersionBits) {
    fail("the bucket layout of LockFreeBucketLayout::of(f, b), with at least 14 version bits", trace);
  }
  if (f.memory_bytes() < std::uint64_t{f.bucket_count()} * f.words_per_bucket() * 8) {
    fail("memory_bytes() covers 8 bytes per bucket word", trace);
  }
}

// The hash rule is CuckooFilter's: same hash, buckets, fingerprint and copy limit.
void check_hash_rule(const LockFreeFilter& f, const CuckooFilterConfig& c,
                     const std::vector<std::uint64_t>& keys, const cuckoo::model::Trace& trace) {
  const cuckoo::CuckooFilter twin(c);
  for (const std::uint64_t key : keys) {
    const CuckooFilterPlacement a = placement_of(f, key);
    const CuckooFilterPlacement b = twin.placement(key);
    if (f.hash_of(key) != twin.hash_of(key) || a.bucket1 != b.bucket1 || a.bucket2 != b.bucket2 ||
        a.fingerprint != b.fingerprint || f.max_copies(key) != twin.max_copies(key)) {
      fail("key " + std::to_string(key) + " has CuckooFilter's hash, buckets, fingerprint and copy limit",
           trace);
    }
  }
}

// clear() empties every slot; then no key is found and size() is 0.
void check_clear(LockFreeFilter& f, const std::vector<std::uint64_t>& keys, const cuckoo::model::Trace& trace) {
  f.clear();
  if (f.size() != 0 || !f.check_invariants().empty()) fail("size() 0 and check_invariants() after clear()", trace);
  for (std::uint32_t i = 0; i < f.bucket_count(); ++i) {
    for (unsigned s = 0; s < f.slots_per_bucket(); ++s) {
      if (f.fingerprint_at(i, s) != 0) fail("every slot empty after clear()", trace);
    }
  }
  for (const std::uint64_t key : keys) {
    if (f.contains(key)) fail("contains " + std::to_string(key) + " => false in an empty filter", trace);
  }
}

// The shapes CuckooFilterConfig allows whose bucket does not fit four K-CAS words (b = 8,
// f >= 25) throw ConfigError("fingerprint_bits"); b = 8 up to f = 24 is accepted; semi-sorted
// buckets throw ConfigError("semi_sorted").
void check_lock_free_config_errors(std::uint64_t selector, const cuckoo::model::Trace& trace) {
  CuckooFilterConfig c;
  c.capacity = 16;
  c.seed = 1;
  c.slots_per_bucket = 8;
  c.fingerprint_bits = 17 + static_cast<unsigned>(selector % 16);  // 17..32
  if (c.fingerprint_bits >= 25) {
    expect_config_error(c, "fingerprint_bits", "b = 8, f = " + std::to_string(c.fingerprint_bits), trace);
  } else {
    try {
      const LockFreeFilter filter(c);
      if (filter.words_per_bucket() > cuckoo::detail::LockFreeBucketLayout::kMaxWords) {
        fail("at most four words per bucket", trace);
      }
    } catch (const cuckoo::ConfigError& e) {
      fail("LockFreeFilter(b = 8, f = " + std::to_string(c.fingerprint_bits) +
               ") is accepted, not ConfigError naming " + e.field(),
           trace);
    }
  }
  CuckooFilterConfig semi;
  semi.capacity = 16;
  semi.seed = 1;
  semi.semi_sorted = true;
  expect_config_error(semi, "semi_sorted", "semi_sorted, b = 4, f = 12", trace);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  bool semi_sorted = false;
  const cuckoo::fuzz::Decoded decoded = cuckoo::fuzz::decode(
      cuckoo::fuzz::Family::kLockFreeFilter, data, size,
      [&semi_sorted](cuckoo::fuzz::ByteSource& in, std::uint64_t& key_space) {
        CuckooFilterConfig c = cuckoo::fuzz::decode_filter_config(in, key_space);
        semi_sorted = c.semi_sorted;  // refused: checked below, then run unsorted
        c.semi_sorted = false;
        return cuckoo::subjects::parameters_of(c);
      });
  const cuckoo::model::Trace& trace = decoded.trace;
  cuckoo::fuzz::maybe_print_trace(trace);

  const CuckooFilterConfig config = cuckoo::subjects::filter_config_from(trace.parameters);
  if (semi_sorted) {
    CuckooFilterConfig sorted = config;
    sorted.semi_sorted = true;
    expect_config_error(sorted, "semi_sorted", "the decoded shape with semi-sorted buckets", trace);
  }
  if (config.slots_per_bucket == 8 && config.fingerprint_bits >= 25) {
    expect_config_error(config, "fingerprint_bits", "the decoded shape b = 8, f >= 25", trace);
    return 0;
  }
  LockFreeFilter filter(config);
  LockFreeUnderTest subject(filter);
  cuckoo::model::MultisetModel model;
  if (const auto violation = cuckoo::model::check(subject, model, trace, *config.seed, kCadence)) {
    cuckoo::fuzz::report_exactly(kTarget, *violation, trace, [&] {
      LockFreeFilter fresh(config);
      LockFreeUnderTest fresh_subject(fresh);
      cuckoo::model::MultisetModel fresh_model;
      return cuckoo::model::check(fresh_subject, fresh_model, trace, *config.seed);
    });
  }
  const std::vector<std::uint64_t> keys = probe_keys(trace, size * 0x9e3779b97f4a7c15ULL);
  check_accessors(filter, config, trace);
  check_hash_rule(filter, config, keys, trace);
  check_clear(filter, keys, trace);
  cuckoo::fuzz::check_config_errors<LockFreeFilter>(kTarget, "LockFreeFilter", size, trace);
  check_lock_free_config_errors(size / 8, trace);
  return 0;
}
