// The op language: one operation on a subject (an engine, an adapter, a test double)
// and the outcome it observed. Every harness (properties, fuzz, stress, audit) speaks it;
// the trace format (trace.hpp) writes one Op a line.
//
//   kind                 operands            result (OpResult)
//   insert               key [value]         InsertResult (value ignored by filters)
//   insert_or_assign     key value           InsertResult (maps)
//   contains             key                 bool
//   find                 key                 value or none (maps)
//   erase                key                 bool
//   size                 -                   count
//   serialize_roundtrip  -                   - (serialize the subject and replace it by
//                                               the deserialized copy, mid-sequence)
//   clear                -                   -
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cuckoo/model/insert_result.hpp"

namespace cuckoo::model {

enum class OpKind : std::uint8_t {
  kInsert,
  kInsertOrAssign,
  kContains,
  kFind,
  kErase,
  kSize,
  kSerializeRoundtrip,
  kClear,
};

inline constexpr std::array<OpKind, 8> kAllOpKinds = {
    OpKind::kInsert, OpKind::kInsertOrAssign, OpKind::kContains,
    OpKind::kFind,   OpKind::kErase,          OpKind::kSize,
    OpKind::kSerializeRoundtrip, OpKind::kClear};

// What follows an op's name in the trace format.
enum class Operands : std::uint8_t {
  kNone,                // size, serialize_roundtrip, clear
  kKey,                 // contains, find, erase
  kKeyOptionalValue,    // insert (a value of 0 is not written)
  kKeyValue,            // insert_or_assign
};

// What an op observes.
enum class ResultKind : std::uint8_t {
  kNone,    // serialize_roundtrip, clear
  kBool,    // contains, erase
  kInsert,  // insert, insert_or_assign
  kFind,    // find
  kSize,    // size
};

// The op's name in the trace format ("insert_or_assign").
std::string_view to_string(OpKind kind) noexcept;
// The OpKind named `name`, or nothing.
std::optional<OpKind> parse_op_kind(std::string_view name) noexcept;
Operands operands_of(OpKind kind) noexcept;
ResultKind result_kind_of(OpKind kind) noexcept;
inline bool takes_key(OpKind kind) noexcept { return operands_of(kind) != Operands::kNone; }
inline bool takes_value(OpKind kind) noexcept {
  return operands_of(kind) == Operands::kKeyValue ||
         operands_of(kind) == Operands::kKeyOptionalValue;
}

struct Op {
  OpKind kind = OpKind::kSize;
  std::uint64_t key = 0;    // meaningful when takes_key(kind)
  std::uint64_t value = 0;  // meaningful when takes_value(kind)

  static Op insert(std::uint64_t k, std::uint64_t v = 0) { return {OpKind::kInsert, k, v}; }
  static Op insert_or_assign(std::uint64_t k, std::uint64_t v) {
    return {OpKind::kInsertOrAssign, k, v};
  }
  static Op contains(std::uint64_t k) { return {OpKind::kContains, k, 0}; }
  static Op find(std::uint64_t k) { return {OpKind::kFind, k, 0}; }
  static Op erase(std::uint64_t k) { return {OpKind::kErase, k, 0}; }
  static Op size() { return {OpKind::kSize, 0, 0}; }
  static Op serialize_roundtrip() { return {OpKind::kSerializeRoundtrip, 0, 0}; }
  static Op clear() { return {OpKind::kClear, 0, 0}; }

  // Equal kinds and equal meaningful fields; fields the kind does not use are ignored.
  friend bool operator==(const Op& x, const Op& y) noexcept;
};

// The op as a trace line without the result: "insert 42", "insert_or_assign 5 99".
std::string to_string(const Op& op);

// An observed outcome. Build one with the factories; operator== compares only the field
// that `kind` selects.
struct OpResult {
  ResultKind kind = ResultKind::kNone;
  bool answer = false;                                   // kBool
  InsertResult insert_result = InsertResult::kInserted;  // kInsert
  std::optional<std::uint64_t> found;                    // kFind: the value, or none
  std::uint64_t size = 0;                                // kSize

  static OpResult none() { return {}; }
  static OpResult of_bool(bool b) {
    OpResult r;
    r.kind = ResultKind::kBool;
    r.answer = b;
    return r;
  }
  static OpResult of_insert(InsertResult result) {
    OpResult r;
    r.kind = ResultKind::kInsert;
    r.insert_result = result;
    return r;
  }
  static OpResult of_find(std::optional<std::uint64_t> value) {
    OpResult r;
    r.kind = ResultKind::kFind;
    r.found = value;
    return r;
  }
  static OpResult of_size(std::uint64_t count) {
    OpResult r;
    r.kind = ResultKind::kSize;
    r.size = count;
    return r;
  }

  friend bool operator==(const OpResult& x, const OpResult& y) noexcept;
};

// The result as written after "=>" in a trace: "true", "false", "inserted", "42",
// "none" (find, absent), a size; "" for kNone.
std::string to_string(const OpResult& result);

}  // namespace cuckoo::model
