#!/bin/bash -eu
# Builds every fuzz target of fuzz/ for ClusterFuzzLite / OSS-Fuzz, with the variables
# their build environment sets:
#   $CXX, $CXXFLAGS        compiler and flags (sanitizer and coverage instrumentation)
#   $LIB_FUZZING_ENGINE    what supplies main (libFuzzer, AFL++ or honggfuzz driver)
#   $SRC, $OUT, $WORK      sources, outputs, scratch
# Outputs, per target fuzz/fuzz_<name>.cpp: $OUT/fuzz_<name>, its seed corpus
# $OUT/fuzz_<name>_seed_corpus.zip (fuzz/corpus/<name> and fuzz/regressions/<name>), its
# dictionary $OUT/fuzz_<name>.dict and options $OUT/fuzz_<name>.options.
#
# No CMake here on purpose: the targets need only the header-only engine, the model
# sources and xxHash, so the build does not depend on the image's CMake, GoogleTest or
# RapidCheck. ci/check-clusterfuzzlite runs this script with a local clang.
cd "${CUCKOO_SRC_DIR:-$SRC/cuckoo}"

includes=(-Iengine/include -Imodel/include -Isubjects/include -Ifuzz)
if [ -f "$SRC/xxhash/xxhash.h" ]; then includes+=(-I"$SRC/xxhash"); fi
# Our -std comes after $CXXFLAGS so that it wins.
read -r -a cxxflags <<<"$CXXFLAGS"
read -r -a engine <<<"$LIB_FUZZING_ENGINE"

obj=$WORK/cuckoo-fuzz-obj
rm -rf "$obj"
mkdir -p "$obj"
for src in model/src/*.cpp; do
  "$CXX" "${cxxflags[@]}" -std=c++20 "${includes[@]}" -c "$src" -o "$obj/$(basename "$src" .cpp).o"
done
ar rcs "$obj/libcuckoo_model.a" "$obj"/*.o

for src in fuzz/fuzz_*.cpp; do
  binary=$(basename "$src" .cpp)   # fuzz_filter
  name=${binary#fuzz_}             # filter
  echo "build.sh: $binary"
  "$CXX" "${cxxflags[@]}" -std=c++20 "${includes[@]}" "$src" -o "$OUT/$binary" \
    "${engine[@]}" "$obj/libcuckoo_model.a" -lpthread

  seeds=()
  for dir in "fuzz/corpus/$name" "fuzz/regressions/$name"; do
    [ -d "$dir" ] || continue
    while IFS= read -r -d '' f; do seeds+=("$f"); done < <(find "$dir" -maxdepth 1 -type f ! -name '.*' -print0)
  done
  rm -f "$OUT/${binary}_seed_corpus.zip"
  if [ ${#seeds[@]} -gt 0 ]; then zip -q -j "$OUT/${binary}_seed_corpus.zip" "${seeds[@]}"; fi
  if [ -f "fuzz/dict/$name.dict" ]; then cp "fuzz/dict/$name.dict" "$OUT/$binary.dict"; fi
  if [ -f "fuzz/$name.options" ]; then cp "fuzz/$name.options" "$OUT/$binary.options"; fi
done
