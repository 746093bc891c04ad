// Must not compile: a move-only value given as an lvalue to CuckooMap::insert. The
// cuckoo_map_move_only_diagnostic test checks that the compiler names the public call
// in a static_assert and that no error is reported inside detail/.
#include <memory>

#include "cuckoo/cuckoo_map.hpp"

int main() {
  cuckoo::CuckooMap<int, std::unique_ptr<int>> map;
  auto value = std::make_unique<int>(1);
  return map.insert(1, value).second ? 0 : 1;
}
