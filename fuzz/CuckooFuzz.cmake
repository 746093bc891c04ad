# cuckoo_add_fuzz_target(NAME <name> SOURCES <files...> [LIBS <targets...>] [NO_CMP_TRACING])
#
# With CUCKOO_FUZZ=ON (the `fuzz` preset, clang 14) builds fuzz_<name>: its sources are
# compiled with CUCKOO_FUZZ_COMPILE_FLAGS (default -fsanitize=fuzzer-no-link) and linked
# with CUCKOO_FUZZ_ENGINE (default -fsanitize=fuzzer; OSS-Fuzz and ClusterFuzzLite pass
# $LIB_FUZZING_ENGINE, afl++ its own driver). Otherwise builds replay_<name>
# (replay_main.cpp supplies main) and registers every file in fuzz/corpus/<name>/ and
# fuzz/regressions/<name>/ as one CTest case, so the corpus and every saved reproducer
# run in the default test lane without clang. Dotfiles (.gitkeep) are not inputs.
# NO_CMP_TRACING compiles the target's sources without SanitizerCoverage's comparison
# hooks (-fno-sanitize-coverage=trace-cmp; edge coverage stays): for the differential
# targets, whose inputs are op bytes with no magic values to solve, the hooks cost 40% of
# the time (fuzz/README.md, "Throughput").
set(CUCKOO_FUZZ_COMPILE_FLAGS "-fsanitize=fuzzer-no-link" CACHE STRING
    "Compile flags of the fuzz targets' own sources (CUCKOO_FUZZ=ON)")
set(CUCKOO_FUZZ_ENGINE "-fsanitize=fuzzer" CACHE STRING
    "Link flags that supply the fuzzing engine's main (CUCKOO_FUZZ=ON)")

function(cuckoo_add_fuzz_target)
  cmake_parse_arguments(ARG "NO_CMP_TRACING" "NAME" "SOURCES;LIBS" ${ARGN})
  set(libs cuckoo::engine cuckoo_warnings ${ARG_LIBS})
  if(CUCKOO_FUZZ)
    add_executable(fuzz_${ARG_NAME} ${ARG_SOURCES})
    separate_arguments(compile_flags UNIX_COMMAND "${CUCKOO_FUZZ_COMPILE_FLAGS}")
    separate_arguments(engine_flags UNIX_COMMAND "${CUCKOO_FUZZ_ENGINE}")
    target_compile_options(fuzz_${ARG_NAME} PRIVATE ${compile_flags})
    if(ARG_NO_CMP_TRACING)
      target_compile_options(fuzz_${ARG_NAME} PRIVATE -fno-sanitize-coverage=trace-cmp)
    endif()
    target_link_options(fuzz_${ARG_NAME} PRIVATE ${engine_flags})
    target_link_libraries(fuzz_${ARG_NAME} PRIVATE ${libs})
    set_property(GLOBAL APPEND PROPERTY CUCKOO_FUZZ_TARGETS ${ARG_NAME})
    return()
  endif()
  add_executable(replay_${ARG_NAME} ${ARG_SOURCES} ${CUCKOO_FUZZ_DIR}/replay_main.cpp)
  target_link_libraries(replay_${ARG_NAME} PRIVATE ${libs})
  file(GLOB inputs CONFIGURE_DEPENDS
    ${CUCKOO_FUZZ_DIR}/corpus/${ARG_NAME}/*
    ${CUCKOO_FUZZ_DIR}/regressions/${ARG_NAME}/*)
  foreach(input IN LISTS inputs)
    get_filename_component(base ${input} NAME)
    if(base MATCHES "^\\.")
      continue()
    endif()
    file(RELATIVE_PATH rel ${CUCKOO_FUZZ_DIR} ${input})
    add_test(NAME fuzz_replay/${rel} COMMAND replay_${ARG_NAME} ${input})
    set_tests_properties(fuzz_replay/${rel} PROPERTIES LABELS "fuzz-replay" TIMEOUT 120)
  endforeach()
endfunction()
