// Differential fuzz target: CuckooFilter against MultisetModel.
//
// The input decodes (op_decoder.hpp) into a filter configuration (f in 4..32, b in
// {1, 2, 4, 8}, 1..64 slots, 1..500 kicks) and an op sequence; the lock-step checker runs
// it against the multiset model with the filter's identity (fingerprint and bucket pair).
// The subject adds to subjects::FilterSubjectAdapter:
//   - count(key): the copies of the key's identity, recounted from the slots and the
//     stash, so that a lost or extra copy shows at the insert or erase that made it;
//   - check_invariants() (at the sampled cadence, kCadence below): the slots and stash
//     hold exactly size() fingerprints, every stash entry is valid, and the counters are
//     consistent;
//   - a serialize round trip that also requires the bytes of the copy to equal the
//     original's byte for byte and the stats to survive.
// After the trace: the accessors agree with the configuration; the bucket storage on
// its own (detail::PackedTable, filled with the filter's slots) answers the SWAR find()
// as the per-slot reference does and round-trips 64-bit fields; invalid configurations
// are rejected with a ConfigError naming the field.
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "cuckoo/subjects/filter.hpp"
#include "cuckoo/cuckoo_filter.hpp"
#include "cuckoo/model/checker.hpp"
#include "filter_support.hpp"
#include "op_decoder.hpp"

namespace {

using cuckoo::CuckooFilter;
using cuckoo::CuckooFilterConfig;

class FilterUnderTest {
 public:
  explicit FilterUnderTest(CuckooFilter& filter) noexcept : adapter_(filter), filter_(&filter) {}

  cuckoo::InsertResult insert(std::uint64_t key) { return adapter_.insert(key); }
  bool contains(std::uint64_t key) const { return adapter_.contains(key); }
  bool erase(std::uint64_t key) { return adapter_.erase(key); }
  std::uint64_t size() const { return adapter_.size(); }
  void clear() { adapter_.clear(); }
  // Memoized (filter_support.hpp).
  std::uint64_t identity(std::uint64_t key) const {
    return identity_cache_.get(key, [this](std::uint64_t k) { return adapter_.identity(k); });
  }
  std::uint64_t max_copies(std::uint64_t key) const { return adapter_.max_copies(key); }
  cuckoo::model::SubjectTraits traits() const { return adapter_.traits(); }

  // Copies of key's identity: its fingerprint in its buckets and in stash entries of
  // its bucket pair, counted slot by slot (independently of the SWAR lookup).
  std::uint64_t count(std::uint64_t key) const {
    const cuckoo::CuckooFilterPlacement p = filter_->placement(key);
    std::uint64_t n = cuckoo::fuzz::count_in_buckets(*filter_, p);
    for (const cuckoo::CuckooFilterPlacement& e : filter_->stash()) {
      n += e.fingerprint == p.fingerprint && (e.bucket1 == p.bucket1 || e.bucket1 == p.bucket2) ? 1 : 0;
    }
    return n;
  }

  std::string check_invariants() const {
    const CuckooFilter& f = *filter_;
    std::uint64_t stored = 0;
    for (std::uint32_t i = 0; i < f.bucket_count(); ++i) {
      for (unsigned s = 0; s < f.slots_per_bucket(); ++s) stored += f.fingerprint_at(i, s) != 0 ? 1 : 0;
    }
    if (f.stash_size() > CuckooFilter::kStashSlots) {
      return "stash holds " + std::to_string(f.stash_size()) + " entries, more than kStashSlots";
    }
    stored += f.stash_size();
    if (stored != f.size()) {
      return "slots and stash hold " + std::to_string(stored) + " fingerprints, size() is " +
             std::to_string(f.size());
    }
    const std::uint64_t fp_limit = std::uint64_t{1} << f.fingerprint_bits();
    for (const cuckoo::CuckooFilterPlacement& e : f.stash()) {
      if (e.fingerprint == 0 || e.fingerprint >= fp_limit || e.bucket1 >= f.bucket_count() ||
          e.bucket2 != f.alt_bucket(e.bucket1, e.fingerprint)) {
        return "invalid stash entry: fingerprint " + std::to_string(e.fingerprint) + ", buckets " +
               std::to_string(e.bucket1) + " and " + std::to_string(e.bucket2);
      }
    }
    const cuckoo::CuckooFilterStats& st = f.stats();
    if (f.size() > st.inserts) {
      return "size() " + std::to_string(f.size()) + " exceeds stats().inserts " +
             std::to_string(st.inserts);
    }
    if (f.stash_size() > st.kick_failures) {
      return "the stash holds " + std::to_string(f.stash_size()) + " entries but only " +
             std::to_string(st.kick_failures) + " kick walks failed";
    }
    if (st.max_kicks_in_insert > f.max_kicks() || st.max_kicks_in_insert > st.kicks ||
        st.kick_failures > st.kick_walks) {
      return "inconsistent kick counters";
    }
    return {};
  }

  // serialize, deserialize, compare (contents, stats, and the bytes of the copy), then
  // continue with the copy.
  void serialize_roundtrip() {
    const std::vector<std::uint8_t> bytes = filter_->serialize();
    cuckoo::fuzz::maybe_dump_serialized(bytes);
    CuckooFilter copy = CuckooFilter::deserialize(bytes, filter_->hasher());
    if (!(copy == *filter_)) throw std::runtime_error("the deserialized filter is not equal");
    if (!(copy.stats() == filter_->stats())) throw std::runtime_error("stats differ after the round trip");
    if (copy.serialize() != bytes) throw std::runtime_error("re-serializing the copy gives other bytes");
    *filter_ = std::move(copy);
  }

 private:
  cuckoo::subjects::FilterSubjectAdapter<CuckooFilter> adapter_;
  CuckooFilter* filter_;
  cuckoo::fuzz::IdentityCache identity_cache_;
};

// The scan of every stored key after a kFull and check_invariants() (O(slots)) run at the
// sampled cadence; count(), size and every answer after every op (fuzz/README.md).
constexpr cuckoo::model::CheckCadence kCadence{.sample_stored_key_scans = true, .sample_invariants = true};

[[noreturn]] void fail(const std::string& what, const cuckoo::model::Trace& trace) {
  cuckoo::fuzz::fail_after_trace("filter", what, trace);
}

// The accessors agree with the configuration the trace names.
void check_accessors(const CuckooFilter& f, const CuckooFilterConfig& c,
                     const cuckoo::model::Trace& trace) {
  const std::uint64_t buckets = (c.capacity + c.slots_per_bucket - 1) / c.slots_per_bucket;
  if (f.bucket_count() != buckets || f.slot_count() != buckets * c.slots_per_bucket ||
      f.fingerprint_bits() != c.fingerprint_bits || f.slots_per_bucket() != c.slots_per_bucket ||
      f.max_kicks() != c.max_kicks || f.seed() != *c.seed || f.semi_sorted() != c.semi_sorted) {
    fail("bucket_count, slot_count, fingerprint_bits, slots_per_bucket, max_kicks, seed and "
         "semi_sorted as configured", trace);
  }
  const double load = f.load_factor();
  if (std::fabs(load * static_cast<double>(f.slot_count()) - static_cast<double>(f.size())) > 1e-6) {
    fail("load_factor() == size() / slot_count()", trace);
  }
  if (f.empty() != (f.size() == 0) || (f.size() == 0) != std::isinf(f.bits_per_item())) {
    fail("empty() and bits_per_item() consistent with size()", trace);
  }
  const unsigned slot_bits = f.fingerprint_bits() - (f.semi_sorted() ? 1 : 0);
  if (f.memory_bytes() < f.slot_count() * slot_bits / 8) {
    fail("memory_bytes() covers the table", trace);
  }
  if (!f.empty() &&
      std::fabs(f.bits_per_item() * static_cast<double>(f.size()) -
                static_cast<double>(f.slot_count() * slot_bits)) > 1e-6 * static_cast<double>(f.slot_count() * slot_bits)) {
    fail("bits_per_item() == slots x (f, or f - 1 semi-sorted) / size()", trace);
  }
  // for_items plans a table that holds the items at the planning load.
  const CuckooFilterConfig saturated = CuckooFilterConfig::for_items(~std::uint64_t{0});
  if (saturated.capacity != ~std::uint64_t{0}) fail("for_items saturates instead of overflowing", trace);
  const std::uint64_t items = f.size() + 1;
  const CuckooFilterConfig planned =
      CuckooFilterConfig::for_items(items, c.fingerprint_bits, c.slots_per_bucket);
  const unsigned permille = CuckooFilterConfig::planning_load_permille(c.slots_per_bucket);
  if (planned.capacity * permille < items * 1000 || planned.fingerprint_bits != c.fingerprint_bits) {
    fail("for_items(n) plans at least n / planning load slots", trace);
  }
}

// The bucket storage on its own: the SWAR find() agrees with the per-slot reference on
// a copy of the filter's slots, and the bit codec round-trips 64-bit fields at every
// bit offset (the ninth-byte path that slot writes never take).
void check_packed_table(const CuckooFilter& f, std::uint64_t probe, const cuckoo::model::Trace& trace) {
  const auto layout = f.semi_sorted() ? cuckoo::detail::BucketLayout::kSemiSorted
                                      : cuckoo::detail::BucketLayout::kUnsorted;
  cuckoo::detail::PackedTable t(f.bucket_count(), f.slots_per_bucket(), f.fingerprint_bits(), false, {},
                                layout);
  for (std::uint32_t i = 0; i < f.bucket_count(); ++i) {
    for (unsigned s = 0; s < f.slots_per_bucket(); ++s) {
      // A semi-sorted set() re-sorts the bucket, so slot numbers move while it fills:
      // place the fingerprints instead (the same sorted bucket whatever the order).
      if (!f.semi_sorted()) {
        t.set(i, s, f.fingerprint_at(i, s));
      } else if (f.fingerprint_at(i, s) != 0 && !t.try_place(i, f.fingerprint_at(i, s))) {
        fail("a semi-sorted bucket takes its own fingerprints back", trace);
      }
    }
  }
  if (t.data_bytes() != cuckoo::detail::PackedTable::data_bytes_for(f.bucket_count(), f.slots_per_bucket(),
                                                                      f.fingerprint_bits(), layout)) {
    fail("PackedTable::data_bytes() == data_bytes_for()", trace);
  }
  for (std::uint32_t i = 0; i < f.bucket_count(); ++i) {
    // Semi-sorted: the copy re-encodes every bucket, so it must be canonical and read back
    // slot for slot (the filter's own buckets are read through fingerprint_at).
    if (!t.bucket_is_canonical(i)) fail("every bucket is canonical after set()", trace);
    for (unsigned s = 0; s < f.slots_per_bucket(); ++s) {
      if (t.get(i, s) != f.fingerprint_at(i, s)) fail("a copied bucket reads back slot for slot", trace);
    }
  }
  const std::uint32_t fp_mask = f.fingerprint_bits() == 32 ? ~0U : (1U << f.fingerprint_bits()) - 1;
  for (std::uint32_t i = 0; i < f.bucket_count(); ++i) {
    for (const std::uint32_t fp : {0U, static_cast<std::uint32_t>(probe) & fp_mask, f.fingerprint_at(i, 0)}) {
      if (t.find(i, fp) != t.find_reference(i, fp)) fail("SWAR find() == find_reference()", trace);
      if (fp != 0 && t.contains(i, fp) != (t.find_reference(i, fp) != t.kNoSlot)) {
        fail("contains() (one-word, chunked or semi-sorted probe) == find_reference()", trace);
      }
    }
  }
  const std::uint64_t bits = t.data_bytes() * 8;
  if (bits >= 64) {
    const std::uint64_t offset = probe % (bits - 63);
    const std::uint64_t value = cuckoo::detail::mix64(probe);
    t.write_bits(offset, 64, value);
    if (t.read_bits(offset, 64) != value) fail("read_bits(write_bits(v)) == v for 64-bit fields", trace);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const cuckoo::fuzz::Decoded decoded = cuckoo::fuzz::decode(
      cuckoo::fuzz::Family::kFilter, data, size,
      [](cuckoo::fuzz::ByteSource& in, std::uint64_t& key_space) {
        return cuckoo::subjects::parameters_of(cuckoo::fuzz::decode_filter_config(in, key_space));
      });
  const cuckoo::model::Trace& trace = decoded.trace;
  cuckoo::fuzz::maybe_print_trace(trace);

  const CuckooFilterConfig config = cuckoo::subjects::filter_config_from(trace.parameters);
  CuckooFilter filter(config);
  FilterUnderTest subject(filter);
  cuckoo::model::MultisetModel model;
  if (const auto violation = cuckoo::model::check(subject, model, trace, *config.seed, kCadence)) {
    cuckoo::fuzz::report_exactly("filter", *violation, trace, [&] {
      CuckooFilter fresh(config);
      FilterUnderTest fresh_subject(fresh);
      cuckoo::model::MultisetModel fresh_model;
      return cuckoo::model::check(fresh_subject, fresh_model, trace, *config.seed);
    });
  }
  check_accessors(filter, config, trace);
  check_packed_table(filter, size * 0x9e3779b97f4a7c15ULL + filter.size(), trace);
  cuckoo::fuzz::check_config_errors<CuckooFilter>("filter", "CuckooFilter", size, trace);
  return 0;
}
