// BasicCuckooFilter's serialization (out-of-line members of BasicCuckooFilter,
// cuckoo/cuckoo_filter.hpp, included at its end; the payload is documented at
// serialize()). deserialize() checks every field before it is used, and the table length
// against the configuration before it allocates anything, so that the filter it returns
// has a valid shape, a size equal to its stored fingerprints, valid stash entries and
// zero padding, or it throws DeserializeError and returns nothing.
#pragma once

#ifndef CUCKOO_FILTER
#error "filter_serialize.hpp holds out-of-line members of BasicCuckooFilter: include cuckoo/cuckoo_filter.hpp"
#endif

namespace cuckoo {

CUCKOO_FILTER_TEMPLATE
std::vector<std::uint8_t> CUCKOO_FILTER::serialize() const {
  detail::ByteWriter w;
  w.u8(static_cast<std::uint8_t>(fingerprint_bits()));
  w.u8(static_cast<std::uint8_t>(slots_per_bucket()));
  w.u8(static_cast<std::uint8_t>(table_.layout()));
  w.u8(static_cast<std::uint8_t>(nested_prefix_bits()));
  detail::write_key_hash_rule(w, legacy_key_hash_);
  w.u32(bucket_count());
  w.u32(max_kicks_);
  w.u64(seed_);
  w.u64(size_);
  w.u64(stats_.inserts);
  w.u64(stats_.kicks);
  w.u64(stats_.max_kicks_in_insert);
  w.u64(stats_.kick_walks);
  w.u64(stats_.kick_failures);
  w.u64(stats_.stash_rehomes);
  w.u64(stats_.full_rejections);
  w.u64(stats_.duplicate_rejections);
  w.u8(static_cast<std::uint8_t>(stash_size_));
  for (const Placement& e : stash()) {
    w.u32(e.fingerprint);
    w.u32(e.bucket1);
    w.u32(e.bucket2);
  }
  const auto data = table_.data();
  w.u64(data.size());
  w.raw(data.data(), data.size());
  return detail::seal_envelope(detail::StructureKind::kCuckooFilter, kFormatVersion, w);
}

CUCKOO_FILTER_TEMPLATE
CUCKOO_FILTER CUCKOO_FILTER::deserialize(std::span<const std::uint8_t> bytes, Hasher hasher,
                                         const Allocator& alloc) {
  using C = CuckooFilterConfig;
  std::uint8_t version = 0;
  detail::ByteReader r = detail::open_envelope(bytes, detail::StructureKind::kCuckooFilter,
                                               kFormatVersion, "cuckoo filter",
                                               kOldestReadableVersion, &version);
  detail::CuckooFilterShape shape;
  shape.fingerprint_bits = r.u8("fingerprint_bits");
  shape.slots_per_bucket = r.u8("slots_per_bucket");
  const unsigned layout = version >= 3 ? r.u8("bucket layout") : 0U;
  const unsigned nested = version >= 4 ? r.u8("nested_prefix_bits") : 0U;
  // Before version 5 every key was hashed by seeded_hash (legacy_key_hash()).
  const bool legacy_key_hash = version >= 5 ? detail::read_legacy_key_hash(r) : true;
  const std::uint32_t buckets = r.u32("bucket_count");
  shape.max_kicks = r.u32("max_kicks");
  detail::require_config(shape.fingerprint_bits >= C::kMinFingerprintBits &&
                             shape.fingerprint_bits <= C::kMaxFingerprintBits,
                         "fingerprint_bits",
                         "is " + std::to_string(shape.fingerprint_bits) + "; allowed 4..32");
  detail::require_config(detail::valid_slots_per_bucket(shape.slots_per_bucket),
                         "slots_per_bucket",
                         "is " + std::to_string(shape.slots_per_bucket) +
                             "; allowed 1, 2, 4 or 8");
  detail::require_config(layout <= 1, "bucket layout",
                         "is " + std::to_string(layout) + "; allowed 0 (unsorted) or 1 (semi-sorted)");
  shape.layout = static_cast<detail::BucketLayout>(layout);
  if (shape.layout == detail::BucketLayout::kSemiSorted) {
    const std::string misfit =
        detail::semi_sorted_misfit(shape.fingerprint_bits, shape.slots_per_bucket);
    detail::require_config(misfit.empty(), "semi_sorted", misfit);
  }
  detail::require_config(buckets >= 1, "bucket_count", "is 0; allowed 1..4294967295");
  const std::uint64_t table_bytes = detail::cuckoo_filter_table_bytes(
      buckets, shape.slots_per_bucket, shape.fingerprint_bits, shape.layout);
  detail::require_config(table_bytes <= detail::cuckoo_filter_table_byte_limit(),
                         "bucket_count",
                         "is " + std::to_string(buckets) + ", whose table of " +
                             std::to_string(table_bytes) + " bytes is too large to allocate");
  detail::require_config(shape.max_kicks >= 1 && shape.max_kicks <= C::kMaxKicksLimit,
                         "max_kicks",
                         "is " + std::to_string(shape.max_kicks) + "; allowed 1.." +
                             std::to_string(C::kMaxKicksLimit));
  if (version == 4 || nested != 0) {
    // Version 4 is written for the nested rule only, so 0 there is not canonical.
    const std::string misfit =
        nested == 0 ? std::string("is 0 in version 4 bytes; allowed 4..fingerprint_bits")
                    : detail::nested_rule_misfit(nested, shape.fingerprint_bits, buckets);
    detail::require_config(misfit.empty(), "nested_prefix_bits", misfit);
  }
  shape.nested_prefix_bits = nested;
  shape.bucket_count = buckets;

  const std::uint64_t seed = r.u64("seed");
  const std::uint64_t size = r.u64("size");
  Stats stats;
  stats.inserts = r.u64("stats.inserts");
  stats.kicks = r.u64("stats.kicks");
  stats.max_kicks_in_insert = r.u64("stats.max_kicks_in_insert");
  stats.kick_walks = r.u64("stats.kick_walks");
  stats.kick_failures = r.u64("stats.kick_failures");
  stats.stash_rehomes = r.u64("stats.stash_rehomes");
  stats.full_rejections = r.u64("stats.full_rejections");
  stats.duplicate_rejections = r.u64("stats.duplicate_rejections");

  const unsigned stash_size = r.u8("stash_size");
  detail::require_consistent(stash_size <= kStashSlots,
                             "stash_size is " + std::to_string(stash_size) + ", at most " +
                                 std::to_string(kStashSlots));
  const std::uint64_t fp_max = detail::FilterHashRule::fingerprint_mask(shape.fingerprint_bits);
  const detail::FilterHashRule rule(buckets, shape.fingerprint_bits, nested);
  std::array<Placement, kStashSlots> stash{};
  for (unsigned k = 0; k < stash_size; ++k) {
    Placement& e = stash[k];
    e.fingerprint = r.u32("stash fingerprint");
    e.bucket1 = r.u32("stash bucket1");
    e.bucket2 = r.u32("stash bucket2");
    const std::string which = "stash entry " + std::to_string(k) + ": ";
    detail::require_consistent(e.fingerprint != 0 && e.fingerprint <= fp_max,
                               which + "fingerprint " + std::to_string(e.fingerprint) +
                                   " is 0 or wider than fingerprint_bits");
    detail::require_consistent(e.bucket1 < buckets,
                               which + "bucket1 " + std::to_string(e.bucket1) +
                                   " is not below bucket_count");
    detail::require_consistent(e.bucket2 == rule.alt_bucket(e.bucket1, e.fingerprint),
                               which + "bucket2 " + std::to_string(e.bucket2) +
                                   " is not alt_bucket(bucket1, fingerprint)");
  }

  const std::uint64_t data_length = r.u64("table length");
  const std::uint64_t expected_length =
      detail::PackedTable::data_bytes_for(buckets, shape.slots_per_bucket, shape.fingerprint_bits,
                                          shape.layout);
  detail::require_consistent(data_length == expected_length,
                             "table length is " + std::to_string(data_length) +
                                 " bytes; the configuration implies " +
                                 std::to_string(expected_length));
  const auto data = r.raw(static_cast<std::size_t>(data_length), "table");
  r.expect_end("the table");

  // The input holds every table byte, so this allocation is justified by its length.
  BasicCuckooFilter f(shape, seed, std::move(hasher), false, alloc);
  std::copy(data.begin(), data.end(), f.table_.mutable_data().begin());
  detail::require_consistent(f.table_.padding_is_zero(),
                             "bits after the last bucket are not zero");
  if (f.table_.semi_sorted()) {
    for (std::uint32_t i = 0; i < buckets; ++i) {
      detail::require_consistent(f.table_.bucket_is_canonical(i),
                                 "semi-sorted bucket " + std::to_string(i) +
                                     " is not canonical (a code of 3876 or more, or slots "
                                     "out of sort order)");
    }
  }
  const std::uint64_t stored = f.table_.count_nonzero() + stash_size;
  detail::require_consistent(stored == size, "size is " + std::to_string(size) + " but " +
                                                 std::to_string(stored) +
                                                 " fingerprints are stored");
  f.size_ = size;
  f.stash_ = stash;
  f.stash_size_ = stash_size;
  f.stats_ = stats;
  f.stash_changed();
  if (legacy_key_hash) f.use_legacy_key_hash();
  return f;
}

}  // namespace cuckoo
