// The one decoder every differential fuzz target uses: input bytes -> an engine
// configuration (the first bytes) and an op sequence (the rest), written as a
// cuckoo::model::Trace. The trace's header is made with subjects::parameters_of(), so the
// printed trace of any input builds the same engine under `cuckoo-audit replay` and
// subjects::replay().
//
// Input layout
// ------------
//   3-4 bytes    configuration (per family: the decode_*_config function in each
//                target, fuzz_<family>.cpp, passed to decode()): tiny
//                capacities (1..64 slots) so that tables fill, kick, stash, grow and
//                refuse within a few dozen ops; a key space of 4..65536 keys so that
//                keys repeat, collide and are erased while present.
//   then ops     one selector byte each; its low 5 bits pick the op from the family's
//                table (kFilterOps, kMapOps, kBloomOps; the lock-free filter uses
//                kFilterOps, its round trips decoded as contains); most ops read one key byte,
//                inserts into maps one value byte more. A key byte >= kWideKeyByte
//                reads 8 more bytes as a raw 64-bit key (so that the hash is spread
//                over the whole key range too); any other key byte is taken modulo the
//                key space. A "burst" reads a count and a first key and inserts count
//                consecutive keys: a table fills from few input bytes.
// Reads past the end yield 0, so every byte string decodes, and at most kMaxOps ops are
// decoded.
//
// Reporting: report_violation() prints the claim, the seed and the trace (cut after the
// failing op, replayable) and aborts, as STYLE.md's "Oracles everywhere" asks.
// CUCKOO_FUZZ_PRINT_TRACE=1 in the environment prints the decoded trace of every input
// (`replay_filter crash-file` or `fuzz_filter crash-file` then shows it as a trace).
#pragma once

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "cuckoo/detail/serial.hpp"
#include "cuckoo/model/op.hpp"
#include "cuckoo/model/trace.hpp"
#include "cuckoo/model/violation.hpp"

// libFuzzer's entry point, which every target defines (declared here for
// -Wmissing-declarations).
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size);

namespace cuckoo::fuzz {

// The most ops one input decodes to (bursts count each insert).
inline constexpr std::size_t kMaxOps = 1024;
// Key bytes from here on are followed by a raw 8-byte key.
inline constexpr std::uint8_t kWideKeyByte = 0xf8;
// A burst inserts 1..kMaxBurst consecutive keys.
inline constexpr unsigned kMaxBurst = 32;

// Consumes input bytes front to back; reads past the end yield 0.
class ByteSource {
 public:
  ByteSource(const std::uint8_t* data, std::size_t size) noexcept : data_(data), size_(size) {}

  std::uint8_t u8() noexcept { return pos_ < size_ ? data_[pos_++] : 0; }
  std::uint64_t u64() noexcept {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= std::uint64_t{u8()} << (8 * i);
    return v;
  }
  bool empty() const noexcept { return pos_ >= size_; }
  std::size_t consumed() const noexcept { return pos_; }

 private:
  const std::uint8_t* data_;
  std::size_t size_;
  std::size_t pos_ = 0;
};

// kLockFreeFilter: the filter's ops without serialization (LockFreeFilter has none).
enum class Family : std::uint8_t { kFilter, kMap, kClassic, kSmart, kBloom, kLockFreeFilter };

// The engine name a trace header gives the family.
constexpr std::string_view engine_name(Family family) noexcept {
  switch (family) {
    case Family::kFilter: return "filter";
    case Family::kMap: return "map";
    case Family::kClassic: return "classic";
    case Family::kSmart: return "smart";
    case Family::kBloom: return "bloom";
    case Family::kLockFreeFilter: return "lock_free_filter";
  }
  return "unknown";
}

// What a selector byte can decode to, besides the op language's own kinds.
enum class Sel : std::uint8_t {
  kInsert, kInsertOrAssign, kContains, kFind, kErase, kSize, kRoundtrip, kClear, kBurst
};

// Op tables, indexed by the selector byte's low 5 bits. Inserts and erases dominate so
// that tables fill and drain; round trips and clears are rarer.
inline constexpr std::array<Sel, 32> kFilterOps = {
    Sel::kInsert,   Sel::kInsert,   Sel::kInsert,   Sel::kInsert,    Sel::kInsert,
    Sel::kInsert,   Sel::kInsert,   Sel::kInsert,   Sel::kInsert,    Sel::kInsert,
    Sel::kContains, Sel::kContains, Sel::kContains, Sel::kContains,  Sel::kContains,
    Sel::kErase,    Sel::kErase,    Sel::kErase,    Sel::kErase,     Sel::kErase,
    Sel::kErase,    Sel::kErase,    Sel::kErase,    Sel::kSize,      Sel::kRoundtrip,
    Sel::kRoundtrip, Sel::kClear,   Sel::kBurst,    Sel::kBurst,     Sel::kBurst,
    Sel::kContains, Sel::kErase};
inline constexpr std::array<Sel, 32> kMapOps = {
    Sel::kInsert,   Sel::kInsert,   Sel::kInsert,   Sel::kInsert,    Sel::kInsert,
    Sel::kInsert,   Sel::kInsert,   Sel::kInsert,   Sel::kInsertOrAssign,
    Sel::kInsertOrAssign,           Sel::kInsertOrAssign,           Sel::kContains,
    Sel::kContains, Sel::kContains, Sel::kFind,     Sel::kFind,      Sel::kFind,
    Sel::kErase,    Sel::kErase,    Sel::kErase,    Sel::kErase,     Sel::kErase,
    Sel::kErase,    Sel::kSize,     Sel::kRoundtrip, Sel::kRoundtrip, Sel::kClear,
    Sel::kBurst,    Sel::kBurst,    Sel::kBurst,    Sel::kBurst,     Sel::kErase};
inline constexpr std::array<Sel, 32> kBloomOps = {
    Sel::kInsert,   Sel::kInsert,   Sel::kInsert,   Sel::kInsert,    Sel::kInsert,
    Sel::kInsert,   Sel::kInsert,   Sel::kInsert,   Sel::kInsert,    Sel::kInsert,
    Sel::kInsert,   Sel::kInsert,   Sel::kContains, Sel::kContains,  Sel::kContains,
    Sel::kContains, Sel::kContains, Sel::kContains, Sel::kContains,  Sel::kContains,
    Sel::kContains, Sel::kContains, Sel::kContains, Sel::kSize,      Sel::kRoundtrip,
    Sel::kRoundtrip, Sel::kClear,   Sel::kBurst,    Sel::kBurst,     Sel::kBurst,
    Sel::kContains, Sel::kInsert};

// Key spaces a configuration byte chooses from (3 bits).
inline constexpr std::array<std::uint64_t, 8> kKeySpaces = {4, 8, 16, 32, 64, 128, 256, 65536};

// ---- configurations ----------------------------------------------------------------

// Everything the decoder chose: the trace (header and ops) and the key space.
struct Decoded {
  model::Trace trace;
  std::uint64_t key_space = 16;
};

// ---- ops ---------------------------------------------------------------------------

inline std::uint64_t decode_key(ByteSource& in, std::uint64_t key_space) {
  const std::uint8_t k = in.u8();
  if (k >= kWideKeyByte) return in.u64();
  return k % key_space;
}

// Appends the ops of the rest of the input to `trace`. Classic and smart tables and the
// lock-free filter do not serialize: for them the round-trip selectors decode to finds
// (tables) or contains (the filter).
inline void decode_ops(ByteSource& in, Family family, std::uint64_t key_space,
                       model::Trace& trace) {
  using model::Op;
  const bool is_filter =
      family == Family::kFilter || family == Family::kBloom || family == Family::kLockFreeFilter;
  const bool roundtrip = family != Family::kClassic && family != Family::kSmart &&
                         family != Family::kLockFreeFilter;
  const std::array<Sel, 32>& table =
      family == Family::kFilter || family == Family::kLockFreeFilter ? kFilterOps
      : family == Family::kBloom                                      ? kBloomOps
                                                                      : kMapOps;
  while (!in.empty() && trace.size() < kMaxOps) {  // bound: kMaxOps ops
    const std::uint8_t selector = in.u8();
    switch (table[selector & 31U]) {
      case Sel::kInsert: {
        const std::uint64_t key = decode_key(in, key_space);
        trace.add(Op::insert(key, is_filter ? 0 : in.u8()));
        break;
      }
      case Sel::kInsertOrAssign: {
        const std::uint64_t key = decode_key(in, key_space);
        trace.add(Op::insert_or_assign(key, in.u8()));
        break;
      }
      case Sel::kContains: trace.add(Op::contains(decode_key(in, key_space))); break;
      case Sel::kFind: trace.add(Op::find(decode_key(in, key_space))); break;
      case Sel::kErase: trace.add(Op::erase(decode_key(in, key_space))); break;
      case Sel::kSize: trace.add(Op::size()); break;
      case Sel::kRoundtrip:
        if (roundtrip) {
          trace.add(Op::serialize_roundtrip());
        } else if (is_filter) {
          trace.add(Op::contains(decode_key(in, key_space)));
        } else {
          trace.add(Op::find(decode_key(in, key_space)));
        }
        break;
      case Sel::kClear: trace.add(Op::clear()); break;
      case Sel::kBurst: {
        const unsigned count = 1 + in.u8() % kMaxBurst;
        const std::uint64_t first = decode_key(in, key_space);
        for (unsigned i = 0; i < count && trace.size() < kMaxOps; ++i) {
          trace.add(Op::insert(first + i, is_filter ? 0 : (first + i) & 0xff));
        }
        break;
      }
    }
  }
}

// The whole input as a configuration and an op sequence. decode_config(in, key_space)
// reads the family's configuration bytes (the target's decode_*_config, beside the
// target, so that a target depends on its own engine only), sets the key space and
// returns the trace header's parameters (subjects::parameters_of).
template <class DecodeConfig>
Decoded decode(Family family, const std::uint8_t* data, std::size_t size,
               DecodeConfig&& decode_config) {
  ByteSource in(data, size);
  Decoded d;
  d.trace.engine = std::string(engine_name(family));
  d.trace.parameters = decode_config(in, d.key_space);
  decode_ops(in, family, d.key_space, d.trace);
  return d;
}

// ---- serialized inputs (the deserializer targets) -----------------------------------

// The serialization envelope (detail/serial.hpp): magic, kind, version, reserved u16,
// payload size u64, payload, XXH3 checksum u64.
inline constexpr std::size_t kEnvelopeOverhead =
    detail::kEnvelopeHeaderSize + detail::kEnvelopeTrailerSize;

// Variants of a deserializer's input that get past the envelope, so that mutations of a
// valid serialization reach the payload decoder instead of dying at the checksum:
//   kRepaired  the payload size field and the checksum recomputed for the bytes given;
//   kForced    also magic, kind and version set to what `kind` expects, reserved 0.
enum class Reseal : std::uint8_t { kRepaired, kForced };

inline std::vector<std::uint8_t> reseal(std::span<const std::uint8_t> input,
                                        detail::StructureKind kind, std::uint8_t version,
                                        Reseal how) {
  std::vector<std::uint8_t> bytes(input.begin(), input.end());
  if (bytes.size() < kEnvelopeOverhead) bytes.resize(kEnvelopeOverhead, 0);
  if (how == Reseal::kForced) {
    for (std::size_t i = 0; i < sizeof detail::kMagic; ++i) bytes[i] = detail::kMagic[i];
    bytes[4] = static_cast<std::uint8_t>(kind);
    bytes[5] = version;
    bytes[6] = 0;
    bytes[7] = 0;
  }
  const std::uint64_t payload = bytes.size() - kEnvelopeOverhead;
  for (int i = 0; i < 8; ++i) bytes[8 + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(payload >> (8 * i));
  const std::size_t checked = bytes.size() - detail::kEnvelopeTrailerSize;
  const std::uint64_t sum = detail::envelope_checksum(bytes.data(), checked);
  for (int i = 0; i < 8; ++i) bytes[checked + static_cast<std::size_t>(i)] = static_cast<std::uint8_t>(sum >> (8 * i));
  return bytes;
}

// The round trip of a structure read from `input` and written back as `again`: bytes of
// the current version come back byte for byte (each format has one encoding per
// structure); bytes of an older version come back in the current one, read with the
// older key hash they were written with (older_key_hash: the filters' legacy_key_hash(),
// a map's key_hash_rule() other than the current one). What failed, or "" (the
// envelope's version byte is its sixth, after the magic and the kind).
inline std::string round_trip_problem(std::span<const std::uint8_t> input,
                                      const std::vector<std::uint8_t>& again,
                                      std::uint8_t current_version, bool older_key_hash) {
  if (input[5] == current_version) {
    return std::equal(again.begin(), again.end(), input.begin(), input.end())
               ? ""
               : "serialize(deserialize(x)) == x byte for byte";
  }
  return older_key_hash && again[5] == current_version
             ? ""
             : "bytes of an older version are read with the older key hash and written back "
               "in the current version";
}

// Calls fn(bytes, label) for the input as given and for its two resealed variants.
template <class Fn>
void for_each_variant(std::span<const std::uint8_t> input, detail::StructureKind kind,
                      std::uint8_t version, Fn&& fn) {
  fn(input, "the input as given");
  const std::vector<std::uint8_t> repaired = reseal(input, kind, version, Reseal::kRepaired);
  fn(std::span<const std::uint8_t>(repaired), "the input with size and checksum repaired");
  const std::vector<std::uint8_t> forced = reseal(input, kind, version, Reseal::kForced);
  fn(std::span<const std::uint8_t>(forced), "the input with the whole envelope header forced");
}

// The error codes DeserializeError may carry.
inline bool known_errc(DeserializeErrc code) noexcept {
  switch (code) {
    case DeserializeErrc::kTruncated:
    case DeserializeErrc::kBadMagic:
    case DeserializeErrc::kWrongKind:
    case DeserializeErrc::kUnsupportedVersion:
    case DeserializeErrc::kChecksumMismatch:
    case DeserializeErrc::kBadConfig:
    case DeserializeErrc::kInconsistent:
    case DeserializeErrc::kTrailingBytes: return true;
  }
  return false;
}

// ---- reporting ---------------------------------------------------------------------

// True when CUCKOO_FUZZ_PRINT_TRACE is set to anything but "" or "0".
inline bool print_trace_requested() {
  static const bool requested = [] {
    const char* value = std::getenv("CUCKOO_FUZZ_PRINT_TRACE");
    return value != nullptr && value[0] != '\0' && std::string_view(value) != "0";
  }();
  return requested;
}

// Prints the decoded trace to stdout when CUCKOO_FUZZ_PRINT_TRACE asks for it.
inline void maybe_print_trace(const model::Trace& trace) {
  if (!print_trace_requested()) return;
  const std::string text = model::print_trace(trace);
  std::fwrite(text.data(), 1, text.size(), stdout);
  std::fflush(stdout);
}

// When CUCKOO_FUZZ_DUMP_SERIALIZED names a directory, writes `bytes` there as one file
// named after their hash: how the deserializer seed corpora are made from the op corpora
// (see fuzz/README.md).
inline void maybe_dump_serialized(std::span<const std::uint8_t> bytes) {
  static const char* const dir = std::getenv("CUCKOO_FUZZ_DUMP_SERIALIZED");
  if (dir == nullptr || dir[0] == '\0') return;
  char name[32];
  std::snprintf(name, sizeof name, "/%016llx.bin",
                static_cast<unsigned long long>(XXH3_64bits(bytes.data(), bytes.size())));
  std::ofstream out(std::string(dir) + name, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

// Prints the violation (claim, expected, actual, seed) and the replayable trace cut
// after the failing op, then aborts so that libFuzzer saves the input.
[[noreturn]] inline void report_violation(std::string_view target, const model::Violation& v,
                                          const model::Trace& trace) {
  const std::string line = model::to_string(v);
  const std::string report = model::format_violation(v, trace);
  std::fprintf(stderr,
               "\n==== cuckoo fuzz target %.*s: claim violated ====\n%s\n"
               "---- the trace (save it and run `cuckoo-audit replay FILE`, or replay the\n"
               "---- crashing input with CUCKOO_FUZZ_PRINT_TRACE=1) ----\n%s"
               "==== end of trace ====\n",
               static_cast<int>(target.size()), target.data(), line.c_str(), report.c_str());
  std::fflush(stderr);
  std::abort();
}

// The differential targets run the lock-step checker with a sampled cadence (the O(size)
// checks at sampled ops, model::CheckCadence; fuzz/README.md says which per target). A
// violation it finds is reported as the exact cadence reports it: `rerun_exact()` checks
// the trace again on a fresh engine, subject and model with every check after every op,
// so the report names the op that made the fault. If that run passes (the sampled scans
// look where the exact cadence does not), the sampled violation is reported.
template <class RerunExact>
[[noreturn]] void report_exactly(std::string_view target, const model::Violation& sampled,
                                 const model::Trace& trace, RerunExact&& rerun_exact) {
  const std::optional<model::Violation> exact = rerun_exact();
  report_violation(target, exact ? *exact : sampled, trace);
}

// For checks that are not about a trace (the deserializers, the trace parser): prints
// what was expected and what happened, with the input's bytes as hex, then aborts.
[[noreturn]] inline void report_failure(std::string_view target, std::string_view what,
                                        std::span<const std::uint8_t> input) {
  std::string hex;
  constexpr std::size_t kMaxHexBytes = 256;
  for (std::size_t i = 0; i < input.size() && i < kMaxHexBytes; ++i) {
    static constexpr char kDigits[] = "0123456789abcdef";
    hex += kDigits[input[i] >> 4];
    hex += kDigits[input[i] & 15U];
    if (i % 32 == 31) hex += '\n';
  }
  if (input.size() > kMaxHexBytes) hex += "...";
  std::fprintf(stderr, "\n==== cuckoo fuzz target %.*s: check failed ====\n%.*s\n"
                       "input (%zu bytes):\n%s\n",
               static_cast<int>(target.size()), target.data(), static_cast<int>(what.size()),
               what.data(), input.size(), hex.c_str());
  std::fflush(stderr);
  std::abort();
}

}  // namespace cuckoo::fuzz
