// The op language's names and the comparisons that ignore unused fields.
#include "cuckoo/model/op.hpp"

namespace cuckoo::model {

std::string_view to_string(OpKind kind) noexcept {
  switch (kind) {
    case OpKind::kInsert: return "insert";
    case OpKind::kInsertOrAssign: return "insert_or_assign";
    case OpKind::kContains: return "contains";
    case OpKind::kFind: return "find";
    case OpKind::kErase: return "erase";
    case OpKind::kSize: return "size";
    case OpKind::kSerializeRoundtrip: return "serialize_roundtrip";
    case OpKind::kClear: return "clear";
  }
  return "unknown";
}

std::optional<OpKind> parse_op_kind(std::string_view name) noexcept {
  for (const OpKind kind : kAllOpKinds) {
    if (to_string(kind) == name) return kind;
  }
  return std::nullopt;
}

Operands operands_of(OpKind kind) noexcept {
  switch (kind) {
    case OpKind::kInsert: return Operands::kKeyOptionalValue;
    case OpKind::kInsertOrAssign: return Operands::kKeyValue;
    case OpKind::kContains:
    case OpKind::kFind:
    case OpKind::kErase: return Operands::kKey;
    case OpKind::kSize:
    case OpKind::kSerializeRoundtrip:
    case OpKind::kClear: return Operands::kNone;
  }
  return Operands::kNone;
}

ResultKind result_kind_of(OpKind kind) noexcept {
  switch (kind) {
    case OpKind::kInsert:
    case OpKind::kInsertOrAssign: return ResultKind::kInsert;
    case OpKind::kContains:
    case OpKind::kErase: return ResultKind::kBool;
    case OpKind::kFind: return ResultKind::kFind;
    case OpKind::kSize: return ResultKind::kSize;
    case OpKind::kSerializeRoundtrip:
    case OpKind::kClear: return ResultKind::kNone;
  }
  return ResultKind::kNone;
}

bool operator==(const Op& x, const Op& y) noexcept {
  if (x.kind != y.kind) return false;
  if (takes_key(x.kind) && x.key != y.key) return false;
  if (takes_value(x.kind) && x.value != y.value) return false;
  return true;
}

std::string to_string(const Op& op) {
  // Appends piecewise: `" " + std::to_string(...)` trips a false -Wrestrict in g++ 12 -O3.
  std::string text(to_string(op.kind));
  if (takes_key(op.kind)) {
    text += ' ';
    text += std::to_string(op.key);
  }
  const bool write_value = operands_of(op.kind) == Operands::kKeyValue ||
                           (operands_of(op.kind) == Operands::kKeyOptionalValue && op.value != 0);
  if (write_value) {
    text += ' ';
    text += std::to_string(op.value);
  }
  return text;
}

bool operator==(const OpResult& x, const OpResult& y) noexcept {
  if (x.kind != y.kind) return false;
  switch (x.kind) {
    case ResultKind::kNone: return true;
    case ResultKind::kBool: return x.answer == y.answer;
    case ResultKind::kInsert: return x.insert_result == y.insert_result;
    case ResultKind::kFind: return x.found == y.found;
    case ResultKind::kSize: return x.size == y.size;
  }
  return false;
}

std::string to_string(const OpResult& result) {
  switch (result.kind) {
    case ResultKind::kNone: return "";
    case ResultKind::kBool: return result.answer ? "true" : "false";
    case ResultKind::kInsert: return std::string(to_string(result.insert_result));
    case ResultKind::kFind: return result.found ? std::to_string(*result.found) : "none";
    case ResultKind::kSize: return std::to_string(result.size);
  }
  return "";
}

}  // namespace cuckoo::model
