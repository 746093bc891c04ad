// Private to the exec sources (exec_protocol.cpp, exec_session.cpp, exec_subject.cpp):
// the text helpers and the request / response vocabulary they share.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "cuckoo/audit/exec.hpp"
#include "cuckoo/model/op.hpp"

namespace cuckoo::audit::exec_detail {

// `text` with non-printable bytes as \xNN, cut at `limit` bytes ("..." appended).
std::string printable(std::string_view text, std::size_t limit = 120);
// A decimal number as the subject wrote it: digits only; kTooLarge past 2^64 - 1 (never
// wrapped). `value` is set only for kOk.
enum class Decimal { kOk, kNotDecimal, kTooLarge };
Decimal parse_decimal(std::string_view text, std::uint64_t& value);
// A non-negative decimal integer that fits 64 bits (parse_decimal gives kOk).
bool parse_u64_text(std::string_view text, std::uint64_t& value);
// "0.5 s".
std::string seconds_text(double seconds);

const char* req_word(Req req);
bool takes_key(Req req);
bool mutating(Req req);  // insert, erase, clear
// What a valid response to `req` is, for messages.
const char* expected_responses(Req req);
// The response as the subject wrote it ("inserted", "3").
std::string resp_text(const Slot& slot);
// Parses a response line (printable, without "\r\n") into slot.resp (and number, or
// `error_text` for "error TEXT"). False: not a valid response to slot.req.
bool parse_response(Slot& slot, std::string_view line, std::string& error_text);
// The request of a trace op; Req::kClose for an op the protocol does not have.
Req req_of(model::OpKind kind);
// Appends the protocol form of `bytes` ("x" and two hex digits a byte) to `out`.
void append_protocol_key(std::string& out, std::string_view bytes);
// Whether the request spells its key's hex digits in upper case: with the mixed
// encoding, lookups and erases of one key in four (by a hash of the key), so that a
// subject that keys on the hex text rather than the bytes is caught. Inserts are always
// lower case; the choice depends on the key and the request only, so a shrunk or
// replayed trace spells each request as before.
bool upper_case_hex(ExecKeys keys, Req req, std::uint64_t key);

}  // namespace cuckoo::audit::exec_detail
