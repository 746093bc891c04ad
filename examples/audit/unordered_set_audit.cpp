// Audits std::unordered_set<std::uint64_t> as an exact set: C1 (every stored key found)
// and C7 (every answer as the set model's) apply and pass; the filter claims are skipped.
//   unordered_set_audit [--out DIR] [--claims LIST] [--profile NAME] [--seed N] | --replay TRACE
// (the installed driver, cuckoo/audit/audit_main.hpp, is the whole command line)
#include <cstdint>
#include <unordered_set>

#include "cuckoo/audit/audit_main.hpp"

namespace {

struct UnorderedSetAdapter {
  std::unordered_set<std::uint64_t> set;
  bool insert(std::uint64_t key) { return set.insert(key).second; }  // false: already there
  bool contains(std::uint64_t key) const { return set.count(key) != 0; }
  bool erase(std::uint64_t key) { return set.erase(key) != 0; }
  std::uint64_t size() const { return set.size(); }
  void clear() { set.clear(); }
};

}  // namespace

int main(int argc, char** argv) {
  cuckoo::audit::ImplementationTraits traits;
  traits.name = "std.unordered_set";
  traits.kind = cuckoo::audit::ImplementationKind::kExactSet;
  return cuckoo::audit::audit_main(argc, argv, [] { return UnorderedSetAdapter{}; }, traits);
}
