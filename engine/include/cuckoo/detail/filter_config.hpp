// CuckooFilterConfig validation: the checks every filter constructor runs before it
// allocates, and the shape (bucket count, f, b, max_kicks) a valid configuration gives.
// Included by cuckoo/cuckoo_filter.hpp after CuckooFilterConfig. Invariant kept: a
// CuckooFilterShape returned here has f in 4..32, b in {1, 2, 4, 8}, 1..2^32-1 buckets,
// a layout that fits f and b (semi-sorted: b = 4, f >= 5), a nested rule only with a
// prefix of 4..f bits and a power-of-two bucket count, a table within
// cuckoo_filter_table_byte_limit() and 1..kMaxKicksLimit kicks.
#pragma once

namespace cuckoo {

namespace detail {

// A validated configuration: what the table is built from.
struct CuckooFilterShape {
  std::uint32_t bucket_count = 0;
  unsigned fingerprint_bits = 0;
  unsigned slots_per_bucket = 0;
  unsigned max_kicks = 0;
  BucketLayout layout = BucketLayout::kUnsorted;
  unsigned nested_prefix_bits = 0;  // 0: the standard placement rule
};

inline bool valid_slots_per_bucket(std::uint64_t b) noexcept {
  return b == 1 || b == 2 || b == 4 || b == 8;
}

// Table allocation (data plus padding) in bytes for a validated f, b and a bucket count.
inline std::uint64_t cuckoo_filter_table_bytes(std::uint64_t bucket_count, unsigned slots,
                                               unsigned bits,
                                               BucketLayout layout = BucketLayout::kUnsorted) noexcept {
  return PackedTable::data_bytes_for(bucket_count, slots, bits, layout) + PackedTable::kPaddingBytes;
}

// The message for a semi-sorted request that f and b cannot hold, or "" if they can.
inline std::string semi_sorted_misfit(unsigned bits, unsigned slots) {
  if (PackedTable::layout_fits(BucketLayout::kSemiSorted, slots, bits)) return {};
  return "is true with fingerprint_bits = " + std::to_string(bits) +
         " and slots_per_bucket = " + std::to_string(slots) +
         "; semi-sorted buckets need slots_per_bucket = 4 and fingerprint_bits >= 5";
}

// The message for a nested rule (prefix width p != 0) that f and the bucket count cannot
// take, or "" if they can: p in 4..f and a power-of-two bucket count.
inline std::string nested_rule_misfit(unsigned prefix_bits, unsigned bits, std::uint64_t buckets) {
  if (prefix_bits < CuckooFilterConfig::kMinFingerprintBits || prefix_bits > bits) {
    return "is " + std::to_string(prefix_bits) + "; allowed 0 (the standard rule) or " +
           std::to_string(CuckooFilterConfig::kMinFingerprintBits) + "..fingerprint_bits (" +
           std::to_string(bits) + ")";
  }
  if ((buckets & (buckets - 1)) != 0) {
    return "is " + std::to_string(prefix_bits) + ", which needs a power-of-two bucket count; " +
           "the table has " + std::to_string(buckets) + " buckets";
  }
  return {};
}

inline std::uint64_t cuckoo_filter_table_byte_limit() noexcept {
  return std::min<std::uint64_t>(CuckooFilterConfig::kMaxTableBytes,
                                 std::numeric_limits<std::size_t>::max() / 2);
}

// Throws ConfigError naming the first invalid field; allocates nothing.
inline CuckooFilterShape validate_cuckoo_filter_config(const CuckooFilterConfig& c) {
  using C = CuckooFilterConfig;
  if (c.fingerprint_bits < C::kMinFingerprintBits || c.fingerprint_bits > C::kMaxFingerprintBits) {
    throw ConfigError("fingerprint_bits", "is " + std::to_string(c.fingerprint_bits) +
                                              "; allowed range " +
                                              std::to_string(C::kMinFingerprintBits) + ".." +
                                              std::to_string(C::kMaxFingerprintBits));
  }
  if (!valid_slots_per_bucket(c.slots_per_bucket)) {
    throw ConfigError("slots_per_bucket",
                      "is " + std::to_string(c.slots_per_bucket) + "; allowed 1, 2, 4 or 8");
  }
  if (c.capacity == 0) {
    throw ConfigError("capacity", "is 0; allowed 1.." +
                                      std::to_string(C::kMaxBucketCount * c.slots_per_bucket) +
                                      " slots");
  }
  const BucketLayout layout = c.semi_sorted ? BucketLayout::kSemiSorted : BucketLayout::kUnsorted;
  if (c.semi_sorted) {
    const std::string misfit = semi_sorted_misfit(c.fingerprint_bits, c.slots_per_bucket);
    if (!misfit.empty()) throw ConfigError("semi_sorted", misfit);
  }
  const std::uint64_t buckets =
      c.capacity / c.slots_per_bucket + (c.capacity % c.slots_per_bucket != 0 ? 1 : 0);
  if (buckets > C::kMaxBucketCount) {
    throw ConfigError("capacity", "is " + std::to_string(c.capacity) + ", which needs " +
                                      std::to_string(buckets) + " buckets; allowed 1.." +
                                      std::to_string(C::kMaxBucketCount * c.slots_per_bucket) +
                                      " slots (at most " + std::to_string(C::kMaxBucketCount) +
                                      " buckets)");
  }
  const std::uint64_t bytes =
      cuckoo_filter_table_bytes(buckets, c.slots_per_bucket, c.fingerprint_bits, layout);
  if (bytes > cuckoo_filter_table_byte_limit()) {
    throw ConfigError("capacity", "is " + std::to_string(c.capacity) + ", whose table of " +
                                      std::to_string(bytes) +
                                      " bytes is too large to allocate (limit " +
                                      std::to_string(cuckoo_filter_table_byte_limit()) +
                                      " bytes)");
  }
  if (c.nested_prefix_bits != 0) {
    const std::string misfit = nested_rule_misfit(c.nested_prefix_bits, c.fingerprint_bits, buckets);
    if (!misfit.empty()) throw ConfigError("nested_prefix_bits", misfit);
  }
  if (c.max_kicks == 0 || c.max_kicks > C::kMaxKicksLimit) {
    throw ConfigError("max_kicks", "is " + std::to_string(c.max_kicks) + "; allowed range 1.." +
                                       std::to_string(C::kMaxKicksLimit));
  }
  return {static_cast<std::uint32_t>(buckets), c.fingerprint_bits, c.slots_per_bucket,
          c.max_kicks, layout, c.nested_prefix_bits};
}

}  // namespace detail

}  // namespace cuckoo
