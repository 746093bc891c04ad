# Tests of the cuckoo-audit command: exit statuses and messages for good and bad usage
# and input. Included from audit/CMakeLists.txt after the cuckoo-audit target exists.
# Each case runs the binary through cli_check.cmake.
if(NOT TARGET cuckoo-audit)
  return()
endif()

set(CUCKOO_CLI_DIR ${CMAKE_CURRENT_BINARY_DIR}/cli-test)
file(MAKE_DIRECTORY ${CUCKOO_CLI_DIR})
# Bad input files, written at configure time.
file(WRITE ${CUCKOO_CLI_DIR}/malformed.trace
  "engine filter capacity=8 seed=1\ninsert 1\nfrobnicate 2\n")
file(WRITE ${CUCKOO_CLI_DIR}/no_seed.trace "engine filter capacity=8\ninsert 1\n")
file(WRITE ${CUCKOO_CLI_DIR}/unknown_engine.trace "engine hopscotch capacity=8 seed=1\ninsert 1\n")
file(WRITE ${CUCKOO_CLI_DIR}/bad_config.trace
  "engine filter capacity=8 seed=1 fingerprint_bits=99\ninsert 1\n")
file(WRITE ${CUCKOO_CLI_DIR}/wrong_op.trace "engine filter capacity=8 seed=1\nfind 1\n")

# cuckoo_cli_test(NAME RC ARGS [OUTPUT regex] [FILES f1|f2] [CLEAN dir])
function(cuckoo_cli_test name rc args)
  cmake_parse_arguments(PARSE_ARGV 3 arg "" "OUTPUT;FILES;CLEAN" "")
  set(defines "-DEXE=$<TARGET_FILE:cuckoo-audit>" "-DARGS=${args}" "-DEXPECT_RC=${rc}")
  if(DEFINED arg_OUTPUT)
    list(APPEND defines "-DEXPECT_OUTPUT=${arg_OUTPUT}")
  endif()
  if(DEFINED arg_FILES)
    list(APPEND defines "-DEXPECT_FILES=${arg_FILES}")
  endif()
  if(DEFINED arg_CLEAN)
    list(APPEND defines "-DCLEAN_DIR=${arg_CLEAN}")
  endif()
  add_test(NAME audit_cli.${name}
    COMMAND ${CMAKE_COMMAND} ${defines} -P ${CMAKE_CURRENT_SOURCE_DIR}/tests/cli_check.cmake)
  set_tests_properties(audit_cli.${name} PROPERTIES LABELS "audit" TIMEOUT 300)
endfunction()

set(all_claims "^C1 +[^\n]+\n +engines: [a-z]")
foreach(n RANGE 2 12)
  string(APPEND all_claims ".*\nC${n} +[^\n]+\n +engines: [a-z]")
endforeach()
cuckoo_cli_test(list_names_every_claim 0 "list" OUTPUT "${all_claims}")
cuckoo_cli_test(version 0 "--version" OUTPUT "^cuckoo-audit [0-9]+\\.[0-9]+\\.[0-9]+\n$")
cuckoo_cli_test(help 0 "--help" OUTPUT "usage: cuckoo-audit run.*Exit status")
cuckoo_cli_test(run_help 0 "run|--help" OUTPUT "--profile")

# Bad usage: exit 2 with a message that names the problem.
cuckoo_cli_test(no_command 2 "" OUTPUT "missing a command")
cuckoo_cli_test(unknown_command 2 "frob" OUTPUT "unknown command 'frob'")
cuckoo_cli_test(unknown_flag 2 "run|--bogus" OUTPUT "unknown option '--bogus'")
cuckoo_cli_test(unknown_claim 2 "run|--claims|C1,C13" OUTPUT "unknown claim 'C13'.*C12")
cuckoo_cli_test(unknown_engine 2 "run|--engines=filter,hopscotch"
  OUTPUT "unknown engine 'hopscotch'.*concurrent-map")
cuckoo_cli_test(bad_profile 2 "run|--profile|slow" OUTPUT "unknown profile 'slow'")
cuckoo_cli_test(bad_seed 2 "run|--seed|12x" OUTPUT "--seed: '12x'")
cuckoo_cli_test(seed_too_large 2 "run|--seed|18446744073709551616" OUTPUT "larger than")
cuckoo_cli_test(zero_jobs 2 "run|--jobs|0" OUTPUT "--jobs: 0 is outside")
cuckoo_cli_test(missing_value 2 "run|--out" OUTPUT "--out needs a value")
cuckoo_cli_test(repeated_flag 2 "run|--seed|1|--seed|2" OUTPUT "--seed given twice")
cuckoo_cli_test(empty_selection 2 "run|--claims|C9|--engines|filter"
  OUTPUT "no task matches.*C9 applies to classic")

# Bad input: exit 2 with the file and what is wrong with it.
cuckoo_cli_test(replay_without_file 2 "replay" OUTPUT "missing the trace file")
cuckoo_cli_test(replay_missing_file 2 "replay|${CUCKOO_CLI_DIR}/absent.trace"
  OUTPUT "absent.trace': no such file")
cuckoo_cli_test(replay_directory 2 "replay|${CUCKOO_CLI_DIR}" OUTPUT "is a directory")
cuckoo_cli_test(replay_malformed 2 "replay|${CUCKOO_CLI_DIR}/malformed.trace"
  OUTPUT "malformed.trace: line 3: unknown op 'frobnicate'")
cuckoo_cli_test(replay_missing_seed 2 "replay|${CUCKOO_CLI_DIR}/no_seed.trace"
  OUTPUT "line 1: .*seed")
cuckoo_cli_test(replay_unknown_engine 2 "replay|${CUCKOO_CLI_DIR}/unknown_engine.trace"
  OUTPUT "unknown engine 'hopscotch'")
cuckoo_cli_test(replay_bad_config 2 "replay|${CUCKOO_CLI_DIR}/bad_config.trace"
  OUTPUT "fingerprint_bits")
cuckoo_cli_test(replay_op_the_engine_lacks 2 "replay|${CUCKOO_CLI_DIR}/wrong_op.trace"
  OUTPUT "'find 1'")

# Good input: every saved regression trace replays clean on the real engines.
file(GLOB regression_traces CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/properties/regressions/*.trace)
foreach(trace IN LISTS regression_traces)
  get_filename_component(trace_name ${trace} NAME_WE)
  cuckoo_cli_test(replay_${trace_name} 0 "replay|${trace}" OUTPUT "^OK: [0-9]+ ops, every claim held\n$")
endforeach()

# A real run of three quick claims: exit 0, the summary, and all four reports; then the
# real report.html opened in the headless browser: three claim sections, C3's plot drawn.
set(run_dir ${CUCKOO_CLI_DIR}/run)
cuckoo_cli_test(run_quick_claims 0 "run|--claims|C3,C5,C12|--jobs|2|--seed|7|--out|${run_dir}"
  OUTPUT "PASS C5 filter.*passed, 0 failed.*report.html"
  FILES "${run_dir}/report.md|${run_dir}/report.json|${run_dir}/junit.xml|${run_dir}/report.html"
  CLEAN "${run_dir}")
set_tests_properties(audit_cli.run_quick_claims PROPERTIES FIXTURES_SETUP cuckoo_cli_run_report)
add_test(NAME audit_cli.run_report_in_browser
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tests/check_html_in_browser.sh ${run_dir}/report.html 3)
set_tests_properties(audit_cli.run_report_in_browser PROPERTIES
  FIXTURES_REQUIRED cuckoo_cli_run_report SKIP_RETURN_CODE 77 TIMEOUT 180 LABELS "audit;browser")
