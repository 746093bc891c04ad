// CuckooMap's serialization (out-of-line members of CuckooMap, cuckoo/cuckoo_map.hpp,
// included at its end; the payload is documented at serialize()). deserialize() checks
// every field before it is used, sizes allocations from the input (never from a forged
// count alone) and rebuilds the exact layout, so that the map it returns keeps every
// invariant check_invariants() checks, or throws DeserializeError and returns nothing.
#pragma once

#ifndef CUCKOO_MAP
#error "map_serialize.hpp holds out-of-line members of CuckooMap: include cuckoo/cuckoo_map.hpp"
#endif

namespace cuckoo {

CUCKOO_MAP_TEMPLATE
std::vector<std::uint8_t> CUCKOO_MAP::serialize() const
  requires detail::MapCodable<K> && detail::MapCodable<V>
{
  detail::ByteWriter w;
  w.u8(static_cast<std::uint8_t>(SlotsPerBucket));
  w.u8(static_cast<std::uint8_t>(key_hash_rule_));
  w.u64(config_.initial_capacity);
  w.u64(config_.max_capacity);
  w.u32(config_.max_path_length);
  w.u64(*config_.seed);
  w.u64(seed_);
  // A moved-from map has no buckets and no items: it is written as an empty initial table.
  w.u32(bucket_count_ == 0 ? initial_bucket_count(config_) : bucket_count_);
  w.u64(size_);
  for (std::size_t pos = 0; pos < slots_.size(); ++pos) {
    if (!slots_.occupied(pos)) continue;
    w.u64(pos);
    detail::MapCodec<K>::write(w, slots_.item(pos).first);
    detail::MapCodec<V>::write(w, slots_.item(pos).second);
  }
  return detail::seal_envelope(detail::StructureKind::kCuckooMap, kFormatVersion, w);
}

CUCKOO_MAP_TEMPLATE
CUCKOO_MAP CUCKOO_MAP::deserialize(std::span<const std::uint8_t> bytes, Hasher hash_fn,
                                   KeyEqual equal_fn, std::size_t max_table_bytes)
  requires detail::MapCodable<K> && detail::MapCodable<V>
{
  std::uint8_t version = 0;
  detail::ByteReader r =
      detail::open_envelope(bytes, detail::StructureKind::kCuckooMap, kFormatVersion, "CuckooMap",
                            kOldestReadableVersion, &version);
  const std::uint8_t slots_per_bucket = r.u8("slots_per_bucket");
  detail::require_config(slots_per_bucket == SlotsPerBucket, "slots_per_bucket",
                         "is " + std::to_string(slots_per_bucket) + ", this map type has " +
                             std::to_string(SlotsPerBucket));
  // Before version 2 every key was hashed by seeded_hash; version 2 knew rules 0 and 1.
  KeyHashRule key_hash_rule = KeyHashRule::kSeeded;
  if (version >= 2) {
    const unsigned rule = r.u8("key hash");
    const unsigned newest = version >= 3 ? 2U : 1U;
    detail::require_config(
        rule <= newest, "key hash",
        "is " + std::to_string(rule) + "; version " + std::to_string(version) +
            " allows 0 (seeded_hash for every key), 1 (one mix round for integer keys)" +
            (newest >= 2 ? " or 2 (two multiply folds for integer keys)" : ""));
    key_hash_rule = static_cast<KeyHashRule>(rule);
  }
  CuckooMapConfig config;
  const std::uint64_t initial_capacity = r.u64("initial_capacity");
  const std::uint64_t max_capacity = r.u64("max_capacity");
  detail::require_config(initial_capacity <= std::numeric_limits<std::size_t>::max(),
                         "initial_capacity", "does not fit size_t");
  detail::require_config(max_capacity <= std::numeric_limits<std::size_t>::max(), "max_capacity",
                         "does not fit size_t");
  config.initial_capacity = static_cast<std::size_t>(initial_capacity);
  config.max_capacity = static_cast<std::size_t>(max_capacity);
  config.max_path_length = r.u32("max_path_length");
  config.seed = r.u64("config seed");
  if (std::optional<detail::MapConfigProblem> problem =
          detail::check_map_config(config, kConfigLimits)) {
    detail::require_config(false, problem->field, problem->message);
  }
  const std::uint64_t seed = r.u64("seed");

  const std::uint32_t bucket_count = r.u32("bucket_count");
  detail::require_config(bucket_count >= 1, "bucket_count", "is 0, must be >= 1");
  detail::require_consistent(
      bucket_count >= initial_bucket_count(config) &&
          bucket_count <= config.max_capacity / SlotsPerBucket,
      "bucket_count " + std::to_string(bucket_count) + " is outside " +
          std::to_string(initial_bucket_count(config)) + ".." +
          std::to_string(config.max_capacity / SlotsPerBucket) +
          ", the range that initial_capacity and max_capacity allow");
  if (max_table_bytes == kTableBudgetFromInput) {
    max_table_bytes = bytes.size() > kMinTableBudget / kTableBytesPerInputByte
                          ? bytes.size() * kTableBytesPerInputByte
                          : kMinTableBudget;
  }
  const std::uint64_t positions = std::uint64_t{bucket_count} * SlotsPerBucket + kStashSlots;
  detail::require_config(positions <= max_table_bytes / Slots::kBytesPerPosition, "bucket_count",
                         std::to_string(bucket_count) + " buckets take more than the " +
                             std::to_string(max_table_bytes) + " bytes max_table_bytes allows");

  const std::uint64_t item_count = r.u64("item_count");
  constexpr std::size_t kMinItemBytes =
      8 + detail::MapCodec<K>::kMinBytes + detail::MapCodec<V>::kMinBytes;
  if (item_count > r.remaining() / kMinItemBytes) {
    throw DeserializeError(DeserializeErrc::kTruncated,
                           "item_count " + std::to_string(item_count) + " needs at least " +
                               std::to_string(kMinItemBytes) + " bytes per item, " +
                               std::to_string(r.remaining()) + " bytes left");
  }
  detail::require_consistent(item_count <= positions,
                             "item_count " + std::to_string(item_count) + " exceeds the " +
                                 std::to_string(positions) + " slots");

  CuckooMap map(RestoreTag{}, config, bucket_count, seed, key_hash_rule, std::move(hash_fn),
                std::move(equal_fn));
  const std::size_t table_slots = map.table_slots();
  std::uint64_t next_position = 0;
  for (std::uint64_t i = 0; i < item_count; ++i) {  // bounded by item_count <= positions
    const std::uint64_t pos = r.u64("item position");
    detail::require_consistent(pos >= next_position && pos < positions,
                               "item " + std::to_string(i) + " position " + std::to_string(pos) +
                                   " is not increasing or not below " +
                                   std::to_string(positions));
    next_position = pos + 1;
    K key = detail::MapCodec<K>::read(r, "item key");
    V value = detail::MapCodec<V>::read(r, "item value");
    const std::uint64_t hash = map.hash_key(key);
    const detail::MapBucketPair pair = detail::map_buckets(hash, bucket_count);
    if (pos < table_slots) {
      const auto bucket = static_cast<std::uint32_t>(pos / SlotsPerBucket);
      detail::require_consistent(bucket == pair.first || bucket == pair.second,
                                 "item " + std::to_string(i) + " is in bucket " +
                                     std::to_string(bucket) + ", its candidate buckets are " +
                                     std::to_string(pair.first) + " and " +
                                     std::to_string(pair.second));
    }
    detail::require_consistent(map.position_of(key, hash) == kNoPosition,
                               "item " + std::to_string(i) + " repeats a key");
    map.slots_.emplace(pos, detail::map_tag(hash), pair.first, std::move(key), std::move(value));
    ++map.size_;
    if (pos >= table_slots) ++map.stash_count_;
  }
  r.expect_end("the CuckooMap items");
  map.note_stash_level();
  return map;
}

}  // namespace cuckoo
