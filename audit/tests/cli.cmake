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
# Header parameters no engine reads (a misspelt name would be ignored and the default
# replayed), given twice, or out of range for the engine.
file(WRITE ${CUCKOO_CLI_DIR}/unknown_parameter.trace
  "# cuckoo trace v1\nengine filter capacity=8 fingerprint_bit=4 seed=1\ninsert 1\ncontains 1\n")
file(WRITE ${CUCKOO_CLI_DIR}/unknown_map_parameter.trace
  "engine map initial_capacity=8 seed=1 slot_per_bucket=2\ninsert 1 2\n")
file(WRITE ${CUCKOO_CLI_DIR}/repeated_parameter.trace
  "engine filter capacity=8 seed=1 fingerprint_bits=8 fingerprint_bits=16\ninsert 1\n")
# Traces of other implementations: one as cuckoo-audit exec writes them (keys=, the replay
# command as the last comment), one as audit_implementation does (kind=).
file(WRITE ${CUCKOO_CLI_DIR}/exec.trace
  "# cuckoo trace v1\nengine py.my_filter capacity=8 keys=mixed kind=filter\ninsert 1\n"
  "# keys as the subject saw them (--keys mixed), one line per key, every byte:\n# key 1 = x31\n"
  "# replay with: cuckoo-audit exec --replay exec.trace -- python3 my_filter.py\n")
file(WRITE ${CUCKOO_CLI_DIR}/adapter.trace
  "# cuckoo trace v1\nengine std.unordered_set kind=exact_set\ninsert 1\ncontains 1\n")
# A file where a directory is expected (--out).
file(WRITE ${CUCKOO_CLI_DIR}/a-file "not a directory\n")

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
# Claim ids in either case: c9 is C9 (the selection is then empty, as above).
cuckoo_cli_test(claims_any_case 2 "run|--claims|c9,C8|--engines|filter"
  OUTPUT "no task matches claims C9,C8 on engines filter \\(C9 applies to classic")
cuckoo_cli_test(unknown_claim_any_case 2 "run|--claims|c1,c13" OUTPUT "unknown claim 'C13'")
# --out is checked before the run: a file, a path under a file, a directory nobody can
# create files in (/proc) are exit 2 at once (the short timeout: a whole quick run would
# take minutes), for run and exec alike (exec before it starts the subject).
cuckoo_cli_test(run_out_is_a_file 2 "run|--out|${CUCKOO_CLI_DIR}/a-file"
  OUTPUT "--out: '[^']*a-file' exists and is not a directory")
cuckoo_cli_test(run_out_under_a_file 2 "run|--out|${CUCKOO_CLI_DIR}/a-file/reports"
  OUTPUT "--out: '[^']*a-file/reports' cannot be created: '[^']*a-file' is not a directory")
cuckoo_cli_test(run_out_not_writable 2 "run|--out|/proc/cuckoo-audit-reports"
  OUTPUT "--out: '/proc/cuckoo-audit-reports' is not writable: cannot create files in '/proc'")
cuckoo_cli_test(exec_out_is_a_file 2 "exec|--out|${CUCKOO_CLI_DIR}/a-file|--|true"
  OUTPUT "--out: '[^']*a-file' exists and is not a directory")
cuckoo_cli_test(exec_out_not_writable 2 "exec|--out=/proc/cuckoo-audit-reports|--|true"
  OUTPUT "--out: '/proc/cuckoo-audit-reports' is not writable")
set_tests_properties(audit_cli.run_out_is_a_file audit_cli.run_out_under_a_file
  audit_cli.run_out_not_writable audit_cli.exec_out_is_a_file audit_cli.exec_out_not_writable
  PROPERTIES TIMEOUT 30)
# The claims as README.md and audit/README.md state them (C2 with the exact per-slot
# probability q, C4 with its semi-sorted and unsorted forms).
cuckoo_cli_test(list_states_c2_and_c4 0 "list"
  OUTPUT "\nC2 +false positive rate at most 1-\\(1-q\\)\\^\\(2b\\), q = \\(2\\^f\\+2\\)/4\\^f[^\n]*\n.*\nC4 +bits per item = f / load \\(unsorted\\), \\(f - 1\\) / load \\(semi-sorted\\); semi-sorted is below Bloom's 1.44 log2\\(1/eps\\) for eps < 3%")

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
  OUTPUT "bad_config.trace: line 1: parameter 'fingerprint_bits' of engine filter is out of range: is 99; allowed range 4..32")
cuckoo_cli_test(replay_unknown_parameter 2 "replay|${CUCKOO_CLI_DIR}/unknown_parameter.trace"
  OUTPUT "unknown_parameter.trace: line 2: unknown parameter 'fingerprint_bit' in the header of engine filter \\(it accepts capacity, seed, fingerprint_bits, slots_per_bucket, max_kicks, semi_sorted\\); did you mean 'fingerprint_bits'\\?")
cuckoo_cli_test(replay_unknown_map_parameter 2 "replay|${CUCKOO_CLI_DIR}/unknown_map_parameter.trace"
  OUTPUT "line 1: unknown parameter 'slot_per_bucket' in the header of engine map \\(it accepts initial_capacity, seed, slots_per_bucket, max_capacity, max_path_length\\)")
cuckoo_cli_test(replay_repeated_parameter 2 "replay|${CUCKOO_CLI_DIR}/repeated_parameter.trace"
  OUTPUT "repeated_parameter.trace: line 1: expected each parameter once, found 'fingerprint_bits' again")
cuckoo_cli_test(replay_op_the_engine_lacks 2 "replay|${CUCKOO_CLI_DIR}/wrong_op.trace"
  OUTPUT "'find 1'")
# A trace of another implementation: exit 2, and how to replay it where it belongs.
cuckoo_cli_test(replay_unknown_engine_says_how 2 "replay|${CUCKOO_CLI_DIR}/unknown_engine.trace"
  OUTPUT "unknown engine 'hopscotch' in the trace header.*replay_implementation.*cuckoo-audit exec --replay TRACE -- COMMAND")
cuckoo_cli_test(replay_exec_trace_says_how 2 "replay|${CUCKOO_CLI_DIR}/exec.trace"
  OUTPUT "exec.trace: unknown engine 'py.my_filter': the trace was written by `cuckoo-audit exec`.*cuckoo-audit exec --replay [^ ]*exec.trace -- COMMAND \\[ARGS...\\] \\(the file names its command: cuckoo-audit exec --replay exec.trace -- python3 my_filter.py\\)")
cuckoo_cli_test(replay_adapter_trace_says_how 2 "replay|${CUCKOO_CLI_DIR}/adapter.trace"
  OUTPUT "unknown engine 'std.unordered_set': the trace was written by an audit of your own implementation.*replay_implementation\\(factory, traits, trace\\)")

# Good input: every saved regression trace replays clean on the real engines.
file(GLOB regression_traces CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/properties/regressions/*.trace)
foreach(trace IN LISTS regression_traces)
  get_filename_component(trace_name ${trace} NAME_WE)
  cuckoo_cli_test(replay_${trace_name} 0 "replay|${trace}" OUTPUT "^OK: [0-9]+ ops, every claim held\n$")
endforeach()

# A real run of three quick claims: exit 0, the summary, and all four reports; then the
# real report.html opened in the headless browser: three claim sections, C3's plot drawn.
# Engines filter and bloom: C5's growing-filter task (20 s of the sanitized auditor) is
# run by ModelClaims.EveryTaskPassesOnTheEngines.
set(run_dir ${CUCKOO_CLI_DIR}/run)
cuckoo_cli_test(run_quick_claims 0
  "run|--claims|C3,C5,C12|--engines|filter,bloom|--jobs|2|--seed|7|--out|${run_dir}"
  OUTPUT "PASS C5 filter.*passed, 0 failed.*report.html"
  FILES "${run_dir}/report.md|${run_dir}/report.json|${run_dir}/junit.xml|${run_dir}/report.html"
  CLEAN "${run_dir}")
set_tests_properties(audit_cli.run_quick_claims PROPERTIES FIXTURES_SETUP cuckoo_cli_run_report)
add_test(NAME audit_cli.run_report_in_browser
         COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tests/check_html_in_browser.sh ${run_dir}/report.html 3)
set_tests_properties(audit_cli.run_report_in_browser PROPERTIES
  FIXTURES_REQUIRED cuckoo_cli_run_report SKIP_RETURN_CODE 77 TIMEOUT 180 LABELS "audit;browser")

# C10 for the three concurrent filter designs (coarse under three HTM backends, striped
# with automatic and one stripe, lock-free): the audit's linearizability rows in the
# default lane, quick profile (about 27 s of two cores in the ASan build).
set(c10_dir ${CUCKOO_CLI_DIR}/c10)
cuckoo_cli_test(run_c10_concurrent_filters 0
  "run|--claims|C10|--engines|concurrent-filter|--jobs|2|--seed|7|--out|${c10_dir}"
  OUTPUT "C10 +concurrent-filter +PASS +6 configurations passed"
  CLEAN "${c10_dir}")
# Alone: its threads wait for each other by spinning and yielding, and beside other busy
# processes every yield can give a whole time slice away. Measured: 27 s once; 212 s of
# wall time for 33 s of CPU beside two busy fuzzers; over 300 s (the timeout) twice
# inside a parallel ctest run beside other jobs.
set_tests_properties(audit_cli.run_c10_concurrent_filters PROPERTIES RUN_SERIAL TRUE TIMEOUT 600)

# ---- exec: auditing a program through audit/PROTOCOL.md ----
# The subjects: audit/tests/exec_subjects/subject.py (modes) and c_subject.c.
cuckoo_cli_test(exec_help 0 "exec|--help" OUTPUT "usage: cuckoo-audit exec.*-- COMMAND")
cuckoo_cli_test(exec_in_help 0 "--help" OUTPUT "cuckoo-audit exec.*--keys FAMILY.*--replay TRACE")
cuckoo_cli_test(exec_in_list 0 "list" OUTPUT "exec: .*PROTOCOL.md")
cuckoo_cli_test(exec_missing_dashes 2 "exec|--claims|C1|python3|subject.py"
  OUTPUT "missing '--' before the subject's command line")
cuckoo_cli_test(exec_no_command 2 "exec|--timeout|1|--" OUTPUT "no command after '--'")
cuckoo_cli_test(exec_unknown_flag 2 "exec|--bogus|--|true" OUTPUT "unknown option '--bogus'")
cuckoo_cli_test(exec_unknown_claim 2 "exec|--claims|C1,c4|--|true"
  OUTPUT "unknown claim 'C4' \\(an exec audit checks C1, C2, [^)]*C6 and C7\\)")
cuckoo_cli_test(exec_unknown_keys 2 "exec|--keys|hex|--|true" OUTPUT "unknown key encoding 'hex'")
cuckoo_cli_test(exec_bad_timeout 2 "exec|--timeout|soon|--|true" OUTPUT "--timeout: 'soon'")
cuckoo_cli_test(exec_zero_timeout 2 "exec|--timeout|0|--|true" OUTPUT "--timeout: 0 is outside")
cuckoo_cli_test(exec_command_not_found 2 "exec|--|cuckoo-no-such-command-xyz"
  OUTPUT "cannot be started: 'cuckoo-no-such-command-xyz': command not found")
cuckoo_cli_test(exec_not_executable 2 "exec|--|${CUCKOO_CLI_DIR}"
  OUTPUT "cannot be started: .*permission denied")
cuckoo_cli_test(exec_missing_claims_file 2 "exec|--claims-file|${CUCKOO_CLI_DIR}/absent.claims|--|true"
  OUTPUT "--claims-file: cannot read")
cuckoo_cli_test(exec_no_handshake_from_true 2 "exec|--|true"
  OUTPUT "exited with status 0 before its handshake line")

if(CUCKOO_PYTHON3)
  set(py "${CUCKOO_PYTHON3}|${CUCKOO_EXEC_PY_SUBJECT}")
  file(WRITE ${CUCKOO_CLI_DIR}/bad.claims "# claims\ncapacity=64\nsize=sometimes\n")
  file(WRITE ${CUCKOO_CLI_DIR}/small.claims "capacity = 32  # audit as if it held 32\n")
  # Bad usage: the handshake.
  cuckoo_cli_test(exec_subject_dies_before_handshake 2 "exec|--|${py}|no-handshake"
    OUTPUT "exited with status 1 before its handshake line.*cannot load the filter library")
  cuckoo_cli_test(exec_not_a_handshake 2 "exec|--|${py}|bad-handshake"
    OUTPUT "bad handshake: expected 'cuckoo-audit-subject 1 kind=...'.*'hello, auditor'")
  cuckoo_cli_test(exec_unsupported_version 2 "exec|--|${py}|version-2"
    OUTPUT "speaks protocol version 2; this auditor speaks version 1")
  cuckoo_cli_test(exec_unknown_declaration 2 "exec|--|${py}|unknown-key"
    OUTPUT "unknown declaration 'capcity'")
  cuckoo_cli_test(exec_missing_kind 2 "exec|--|${py}|no-kind" OUTPUT "kind= \\(filter or set\\) is required")
  # Numbers past 2^64 - 1 are refused, never read modulo 2^64 (version 1, capacity 1); a
  # capacity past the auditor's limit is refused at the handshake, before any fill.
  cuckoo_cli_test(exec_version_past_2_64 2 "exec|--|${py}|version-past-2-64"
    OUTPUT "bad handshake: the subject speaks protocol version 18446744073709551617; this auditor speaks version 1")
  cuckoo_cli_test(exec_capacity_past_2_64 2 "exec|--|${py}|capacity-past-2-64"
    OUTPUT "bad handshake: 'capacity=18446744073709551617': 18446744073709551617 is larger than 2\\^64 - 1 = 18446744073709551615 \\(capacity is an integer 1..4194304\\)")
  cuckoo_cli_test(exec_capacity_past_the_limit 2 "exec|--|${py}|huge-capacity"
    OUTPUT "bad handshake: 'capacity=18446744073709551615': capacity is at most 4194304 \\(2\\^22\\), the largest capacity the auditor audits")
  cuckoo_cli_test(exec_size_past_2_64_is_a_finding 1
    "exec|--claims|C7|--out|${CUCKOO_CLI_DIR}/exec-size64|--|${py}|size-past-2-64"
    OUTPUT "C7 +py.size64 +FAIL.*answered 'size' with '1844674407370955161[0-9]', a number larger than 2\\^64 - 1"
    CLEAN "${CUCKOO_CLI_DIR}/exec-size64")
  cuckoo_cli_test(exec_bad_claims_file 2 "exec|--claims-file|${CUCKOO_CLI_DIR}/bad.claims|--|${py}|set"
    OUTPUT "bad.claims:3: 'size=sometimes'")
  # A correct subject: exit 0, the reports, the declarations in the report.
  set(exec_dir ${CUCKOO_CLI_DIR}/exec-set)
  cuckoo_cli_test(exec_correct_set_passes 0
    "exec|--claims|c1,C7|--claims-file|${CUCKOO_CLI_DIR}/small.claims|--out|${exec_dir}|--|${py}|set"
    OUTPUT "\\[0\\.0 s, 0 requests\\] C1: 200 traces \\(every inserted[^\n]*\n\\[[0-9]+\\.[0-9] s, [1-9][0-9]* requests\\] C1 fill: [0-9]+ traces \\(distinct keys to 50-100% of the [0-9]+ items a probe fill held at its first refusal and 16 past it, earlier keys[^\n]*\n\\[[0-9]+\\.[0-9] s, [1-9][0-9]* requests\\] C7: 200 traces .*C1 +py.set +PASS.*C7 +py.set +PASS.*2 passed, 0 failed, 0 skipped.*subject: [0-9]+ requests"
    FILES "${exec_dir}/report.md|${exec_dir}/report.json|${exec_dir}/junit.xml|${exec_dir}/report.html"
    CLEAN "${exec_dir}")
  # Misbehaviour mid-trace: findings (exit 1), not crashes or hangs of the auditor.
  cuckoo_cli_test(exec_crash_is_a_finding 1 "exec|--claims|C1|--out|${CUCKOO_CLI_DIR}/exec-crash|--|${py}|crash"
    OUTPUT "C1 +py.crash +FAIL.*killed by signal 6 \\(SIGABRT\\).*table corrupted" CLEAN "${CUCKOO_CLI_DIR}/exec-crash")
  cuckoo_cli_test(exec_hang_is_a_finding 1
    "exec|--claims|C7|--timeout|0.5|--out|${CUCKOO_CLI_DIR}/exec-hang|--|${py}|hang"
    OUTPUT "C7 +py.hang +FAIL.*did not answer .* within 0.5 s" CLEAN "${CUCKOO_CLI_DIR}/exec-hang")
  # --time-limit reached while the subject hangs inside a trace (its --timeout far off):
  # the auditor stops the subject under that trace, so the trace is unfinished and its
  # failure is no finding: exit 3, the claim SKIP. Unlike exec_time_limit_reports_what_ran,
  # where the limit may fall between two traces, the limit here always falls inside one.
  cuckoo_cli_test(exec_time_limit_inside_a_hung_trace_is_no_finding 3
    "exec|--claims|C7|--timeout|60|--time-limit|1|--out|${CUCKOO_CLI_DIR}/exec-hang-limit|--|${py}|hang"
    OUTPUT "C7 +py.hang +SKIP +not finished: the audit was stopped.*0 failed.*STOPPED EARLY: --time-limit 1\\.0 s reached"
    CLEAN "${CUCKOO_CLI_DIR}/exec-hang-limit")
  cuckoo_cli_test(exec_garbage_is_a_finding 1 "exec|--claims|C1|--out|${CUCKOO_CLI_DIR}/exec-garbage|--|${py}|garbage"
    OUTPUT "C1 +py.garbage +FAIL.*with 'banana'" CLEAN "${CUCKOO_CLI_DIR}/exec-garbage")
  # identity=yes: a filter that names its items right passes; one whose `item` answers
  # make two keys one item while it tells them apart fails C1's identity-pair traces; a
  # malformed `item` answer is a finding; identity=yes on a set is bad usage.
  cuckoo_cli_test(exec_identity_passes 0
    "exec|--claims|C1,C5|--out|${CUCKOO_CLI_DIR}/exec-identity|--|${py}|identity"
    OUTPUT "C1 +py.identity +PASS.*C5 +py.identity +PASS"
    CLEAN "${CUCKOO_CLI_DIR}/exec-identity")
  cuckoo_cli_test(exec_identity_lie_is_a_finding 1
    "exec|--claims|C1|--out|${CUCKOO_CLI_DIR}/exec-identity-lies|--|${py}|identity-lies"
    OUTPUT "C1 +py.identity_lies +FAIL [^\n]*of the C1 identity-pair traces broke C1[^\n]*shrunk from [0-9]+ to 2 ops"
    CLEAN "${CUCKOO_CLI_DIR}/exec-identity-lies")
  cuckoo_cli_test(exec_identity_malformed_is_a_finding 1
    "exec|--claims|C5|--out|${CUCKOO_CLI_DIR}/exec-identity-spaced|--|${py}|identity-spaced"
    OUTPUT "C5 +py.identity_spaced +FAIL [^\n]*answered 'identity x[^\n]* with 'item a b' \\(expected item TEXT"
    CLEAN "${CUCKOO_CLI_DIR}/exec-identity-spaced")
  cuckoo_cli_test(exec_identity_on_a_set 2 "exec|--|${py}|identity-set"
    OUTPUT "bad handshake: identity=yes is for filters")
  # A broken set: exit 1 with counterexamples that --replay reproduces, and that the
  # correct set passes.
  add_test(NAME audit_cli.exec_broken_set_fails_and_replays
    COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:cuckoo-audit> -DPYTHON=${CUCKOO_PYTHON3}
            -DSUBJECT=${CUCKOO_EXEC_PY_SUBJECT} -DOUT=${CUCKOO_CLI_DIR}/exec-forgetful
            -P ${CMAKE_CURRENT_SOURCE_DIR}/tests/exec_replay_check.cmake)
  set_tests_properties(audit_cli.exec_broken_set_fails_and_replays PROPERTIES LABELS "audit" TIMEOUT 300)
endif()

if(TARGET cuckoo_exec_c_subject)
  set(exec_dir ${CUCKOO_CLI_DIR}/exec-c)
  cuckoo_cli_test(exec_c_filter_passes 0
    "exec|--claims|C1,C2,C5|--keys|u64le|--out|${exec_dir}|--|$<TARGET_FILE:cuckoo_exec_c_subject>|filter|100"
    OUTPUT "C1 +c.filter +PASS.*C2 +c.filter +PASS.*C5 +c.filter +PASS.*3 passed, 0 failed" CLEAN "${exec_dir}")
endif()

# ---- exec: the example subjects of examples/audit/exec/ ----
# Each correct subject passes a whole quick audit (every claim, exit 0); each --broken
# mode fails (exit 1) with the claim it breaks named in the summary and a short shrunk
# counterexample, which `exec --replay` reproduces against the broken subject (exit 1)
# and which the correct subject passes (exit 0). The broken filters are audited at a
# declared capacity of 8 (two buckets of four), so that a counterexample which must fill
# the table (lose-on-kick-failure) stays short, and only on the claim they break (--claims),
# which keeps each case to a few seconds. Without python3, or a C compiler for
# cuckoo_filter.c, the cases report SKIPPED.
set(CUCKOO_EXEC_EXAMPLES ${PROJECT_SOURCE_DIR}/examples/audit/exec)
set(CUCKOO_EXEC_EXAMPLE_OUT ${CUCKOO_CLI_DIR}/exec-examples)
if(CUCKOO_PYTHON3)
  set(example_python ${CUCKOO_PYTHON3})
else()
  set(example_python python3-NOTFOUND)
endif()
if(TARGET cuckoo_example_c_filter)
  set(example_c_filter $<TARGET_FILE:cuckoo_example_c_filter>)
else()
  set(example_c_filter no-c-compiler-NOTFOUND)
endif()

# cuckoo_exec_example_test(NAME RC SUBJECT OUTPUT [ARGS a|b] [REQUIRES p|q] [TRACE_CLAIM C]
#                          [MAX_OPS N] [TRACE_MATCH regex] [GOOD_SUBJECT cmd] [REPORT_MATCH regex]
#                          [LONG])
# LONG: labelled "long" as well, so the default lane (test preset dev) leaves it to the
# long lane (test preset long, CUCKOO_LONG=1 ci/test).
function(cuckoo_exec_example_test name rc subject output)
  cmake_parse_arguments(PARSE_ARGV 4 arg "LONG"
    "ARGS;SEED;REQUIRES;TRACE_CLAIM;MAX_OPS;TRACE_MATCH;GOOD_SUBJECT;REPORT_MATCH;REPLAY_MATCH" "")
  set(defines "-DEXE=$<TARGET_FILE:cuckoo-audit>" "-DSUBJECT=${subject}" "-DEXPECT_RC=${rc}"
              "-DEXPECT_OUTPUT=${output}" "-DOUT=${CUCKOO_EXEC_EXAMPLE_OUT}/${name}")
  foreach(key ARGS SEED REQUIRES TRACE_CLAIM MAX_OPS TRACE_MATCH GOOD_SUBJECT REPORT_MATCH REPLAY_MATCH)
    if(DEFINED arg_${key})
      list(APPEND defines "-D${key}=${arg_${key}}")
    endif()
  endforeach()
  add_test(NAME audit_exec_example.${name}
    COMMAND ${CMAKE_COMMAND} ${defines} -P ${CMAKE_CURRENT_SOURCE_DIR}/tests/exec_example_check.cmake)
  set(labels "audit")
  if(arg_LONG)
    list(APPEND labels "long")
  endif()
  set_tests_properties(audit_exec_example.${name} PROPERTIES LABELS "${labels}" TIMEOUT 300
    SKIP_REGULAR_EXPRESSION "SKIPPED: ")
endfunction()

# The two filters: the same design in Python and in C.
set(py_filter "${example_python}|${CUCKOO_EXEC_EXAMPLES}/cuckoo_filter.py")
foreach(lang py c)
  if(lang STREQUAL "py")
    set(filter "${py_filter}")
    set(requires "${example_python}")
  else()
    set(filter "${example_c_filter}")
    set(requires "${example_c_filter}")
  endif()
  set(n "${lang}.cuckoo_filter")
  string(REPLACE "." "\\." n_re "${n}")
  # Correct: every claim runs and holds. The Python filter at its default capacity of
  # 1000 (C6's budgeted fills, about 3 million requests) with 8-byte keys (--keys u64le:
  # 13.7 s beside other jobs, against 19.2 s with the mixed family, whose 1-4 KiB keys C6
  # looks up again and again; the broken forms, the set and the C filter run the mixed
  # keys); the C one at a capacity of 16, where C6's random mixes hit `full` hundreds of
  # times (4 s, against 11-14 s at capacity 1000).
  if(lang STREQUAL "py")
    set(correct "${filter}")
    set(keys "--keys|u64le")
  else()
    set(correct "${filter}|--capacity|16")
    set(keys "")
  endif()
  cuckoo_exec_example_test(${lang}_filter 0 "${correct}"
    "C1 +${n_re} +PASS.*C2 +${n_re} +PASS.*C5 +${n_re} +PASS.*C6 +${n_re} +PASS.* 0 failed"
    ARGS "${keys}" REQUIRES "${requires}"
    REPORT_MATCH "\"tool_version\": \"[0-9]+\\.[0-9]+\\.[0-9]+\".*\"started_utc\": \"20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]T[0-9][0-9]:[0-9][0-9]:[0-9][0-9]Z\".*\"command\": \"cuckoo-audit exec --profile quick --seed 7 --out [^\"]* -- [^\"]*cuckoo_filter")
  set(small "${filter}|--capacity|8")
  # A failed kick walk is not undone: C6, shrunk to a fill of the two buckets and the
  # lookup that misses (14 to 17 ops measured over seeds 1, 7 and 42).
  set(b "${n_re}\\.broken\\.lose-on-kick-failure")
  cuckoo_exec_example_test(${lang}_filter.lose-on-kick-failure 1
    "${small}|--broken|lose-on-kick-failure"
    "C6 +${b} +FAIL [^\n]*broke C6 \\(a failed insert loses nothing\\)[^\n]*got contains [0-9]+ => false"
    ARGS "--claims|C6" REQUIRES "${requires}" TRACE_CLAIM C6 MAX_OPS 20 GOOD_SUBJECT "${small}")
  # A kicked fingerprint moves to a bucket its lookups never check, and the insert answers
  # inserted: at the default settings (capacity 1000, profile quick) C1's fill traces,
  # which go to the load of the first refusal, lose keys, charged to the insert that lost
  # them; C2 still counts the false positives (and passes). C6's traces alone (capacity 8)
  # find it too, and charge it to C1, not to the refusal that showed it (C6 passes). Only
  # the claims shown run, to keep each case short.
  set(b "${n_re}\\.broken\\.kick-wrong-bucket")
  set(lost "was lost during op [0-9]+ 'insert [0-9]+', which answered inserted")
  if(lang STREQUAL "c")
    cuckoo_exec_example_test(${lang}_filter.kick-wrong-bucket 1 "${filter}|--broken|kick-wrong-bucket"
      "C1 +${b} +FAIL [^\n]*broke C1 [^\n]*${lost}.*C2 +${b} +PASS"
      ARGS "--claims|C1,C2" REQUIRES "${requires}" TRACE_CLAIM C1 MAX_OPS 40 GOOD_SUBJECT "${filter}")
  else()
    cuckoo_exec_example_test(${lang}_filter.kick-wrong-bucket 1 "${filter}|--broken|kick-wrong-bucket"
      "C1 +${b} +FAIL [^\n]*of the C1 fill traces broke C1 [^\n]*${lost}"
      ARGS "--claims|C1" REQUIRES "${requires}" TRACE_CLAIM C1 MAX_OPS 40 GOOD_SUBJECT "${filter}")
  endif()
  cuckoo_exec_example_test(${lang}_filter.kick-wrong-bucket-c6-traces 1
    "${small}|--broken|kick-wrong-bucket"
    "C1 +${b} +FAIL [^\n]*of the C6 traces broke C1 [^\n]*${lost}.*C6 +${b} +PASS"
    ARGS "--claims|C6" REQUIRES "${requires}")
  # Fingerprints 4 bits shorter than declared: C2 measures about 16 times the rate that
  # F = 12, B = 4 promise, and only C2 fails.
  set(b "${n_re}\\.broken\\.short-fingerprint")
  cuckoo_exec_example_test(${lang}_filter.short-fingerprint 1 "${filter}|--broken|short-fingerprint"
    "C2 +${b} +FAIL [^\n]*every one of the [0-9]+ stored keys found; [0-9]+ false positives in 200000 queries[^\n]*above the bound"
    ARGS "--claims|C2" REQUIRES "${requires}")
  # Only a key's first 8 bytes are hashed: keys sharing them are one item to the filter,
  # which is consistent (C5 holds: the auditor finds those aliases by behaviour) but
  # answers yes for every absent key that shares an inserted key's first 8 bytes (C2).
  set(b "${n_re}\\.broken\\.long-key-hash")
  cuckoo_exec_example_test(${lang}_filter.long-key-hash 1 "${filter}|--broken|long-key-hash"
    "C2 +${b} +FAIL [^\n]*false positives in 200000 queries[^\n]*above the bound"
    ARGS "--claims|C2" REQUIRES "${requires}")
  # The empty key crashes the subject: a finding of the first claim whose trace uses it,
  # blamed on the request with the empty key although the crash lost the answers to the
  # requests before it (pipelined), and shrunk to that one op (the legend shows it as
  # "x"). At the default capacity and seed: traces of a few hundred ops, where the empty
  # key comes mid-batch.
  set(b "${n_re}\\.broken\\.crash-on-empty-key")
  if(lang STREQUAL "py")
    set(death "exited with status 1 before answering '(insert|contains|erase) x \\[trace key [0-9]+\\]'[^\n]*IndexError")
  else()
    set(death "killed by signal 11 \\(SIGSEGV\\) before answering '(insert|contains|erase) x \\[trace key [0-9]+\\]'")
  endif()
  cuckoo_exec_example_test(${lang}_filter.crash-on-empty-key 1 "${filter}|--broken|crash-on-empty-key"
    "C1 +${b} +FAIL [^\n]*broke C1 \\(the subject process failed[^\n]*${death}"
    ARGS "--claims|C1" SEED 20261121 REQUIRES "${requires}" TRACE_CLAIM C1 MAX_OPS 1
    TRACE_MATCH "\n# key [0-9]+ = x\n" GOOD_SUBJECT "${filter}"
    REPLAY_MATCH "VIOLATION: the subject process failed [^\n]* at op 1 .*# +actual: +exception: subject [^\n]*${death}")
endforeach()

# The planted filter bugs at the default settings (profile quick, the filter's default
# capacity of 1000, every claim): each fails the claim it breaks and no other, with a
# counterexample that replays against the broken filter and passes against the correct
# one. The C filter (a whole audit in 12 to 36 s); the Python one runs the same code paths
# above, claim by claim, and kick-wrong-bucket at the default settings in the long lane
# (its kicks also lose copies of a key stored many times, which a later insert past the
# copy limit shows: that is C1 too, charged to the insert whose kicks lost the copy, not
# C5). A refused insert that drops a key needs a table filled to its first refusal, so
# that counterexample is as long as the fill (about 1,900 ops); the kick-wrong-bucket one
# shrinks to about a dozen.
function(cuckoo_default_profile_example lang subject mode failing passing)
  string(REPLACE "." "\\." b "${lang}.cuckoo_filter.broken.${mode}")
  set(expect "")
  foreach(claim ${failing})
    string(APPEND expect "C${claim} +${b} +FAIL [^\n]*\n")
  endforeach()
  string(APPEND expect ".*")
  foreach(claim ${passing})
    string(APPEND expect "C${claim} +${b} +PASS.*")
  endforeach()
  list(LENGTH failing nfail)
  list(LENGTH passing npass)
  string(APPEND expect "${npass} passed, ${nfail} failed, 1 skipped")
  cuckoo_exec_example_test(${lang}_filter.default-profile.${mode} 1 "${subject}|--broken|${mode}"
    "${expect}" ${ARGN})
endfunction()
if(TARGET cuckoo_example_c_filter)
  set(c_filter "$<TARGET_FILE:cuckoo_example_c_filter>")
  cuckoo_default_profile_example(c "${c_filter}" kick-wrong-bucket "1" "2;3;5;6"
    TRACE_CLAIM C1 MAX_OPS 40 GOOD_SUBJECT "${c_filter}")
  # The default lane runs the first (the bug the quick profile used to miss); the long
  # lane the other three (about 60 s of CPU together under the sanitizers).
  cuckoo_default_profile_example(c "${c_filter}" lose-on-kick-failure "6" "1;2;3;5"
    TRACE_CLAIM C6 MAX_OPS 2500 GOOD_SUBJECT "${c_filter}" LONG)
  cuckoo_default_profile_example(c "${c_filter}" short-fingerprint "2" "1;3;5;6" LONG)
  cuckoo_default_profile_example(c "${c_filter}" long-key-hash "2" "1;3;5;6" LONG)
  # Findings are printed as they are made and kept in the reports whatever stops the
  # audit: SIGTERM after the first finding (a report that says so, no claim left PASS that
  # did not finish, no subject left running), SIGKILL (the report written with the
  # finding). --time-limit on a correct filter: exit 3, the claims it stopped in SKIP,
  # never a finding from the subject it stopped.
  # At capacity 64 the first C1 finding comes after about a second of the sanitized
  # auditor and the audit runs for about 17 s more (at the default capacity: after 26 s).
  add_test(NAME audit_cli.exec_interrupted_audit_keeps_its_findings
    COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tests/check_interrupt.sh $<TARGET_FILE:cuckoo-audit>
            ${c_filter} --broken kick-wrong-bucket --capacity 64)
  set_tests_properties(audit_cli.exec_interrupted_audit_keeps_its_findings PROPERTIES
    LABELS "audit" TIMEOUT 300)
  # The full profile (100 times the quick one's work), so that no build type finishes
  # the audit inside the limit (the quick profile took 0.9 s at -O1 without sanitizers).
  cuckoo_cli_test(exec_time_limit_reports_what_ran 3
    "exec|--profile|full|--time-limit|1.5|--out|${CUCKOO_CLI_DIR}/exec-time-limit|--|${c_filter}"
    OUTPUT "SKIP +not finished: the audit was stopped.*[0-9]+ passed, 0 failed, [0-9]+ skipped\nSTOPPED EARLY: --time-limit 1\\.5 s reached"
    FILES "${CUCKOO_CLI_DIR}/exec-time-limit/report.json"
    CLEAN "${CUCKOO_CLI_DIR}/exec-time-limit")
endif()
# The Python filter's kick-wrong-bucket at the default settings, every claim: C1 fails
# (lost keys, and lost copies that a later insert past the copy limit shows), C5 holds.
# The long lane's (about 25 s of the sanitized auditor).
cuckoo_default_profile_example(py "${py_filter}" kick-wrong-bucket "1" "2;3;5;6"
  TRACE_CLAIM C1 MAX_OPS 40 GOOD_SUBJECT "${py_filter}" REQUIRES "${example_python}" LONG)

# Aliases: with f = 4 or 8 and a tiny table, audit keys often share a fingerprint and a
# bucket pair, so the filter cannot tell them apart (insert one, erase the other); the
# auditor finds such pairs itself and does not report them under C5. The correct C filter
# passes every claim at f = 4, 8, 12 and 16 at capacity 8, and at f = 4 at capacity 64.
foreach(shape 4:8 8:8 12:8 16:8 4:64)
  string(REPLACE ":" ";" fc "${shape}")
  list(GET fc 0 f)
  list(GET fc 1 c)
  cuckoo_exec_example_test(c_filter.f${f}-capacity${c} 0
    "${example_c_filter}|--capacity|${c}|--fingerprint-bits|${f}"
    "C1 fill: [0-9]+ traces \\(distinct keys to 50-100% of the [0-9]+ items a probe fill held at its first refusal and 16 past it \\(kicks\\), [^\n]*\n.*C1 +c\\.cuckoo_filter +PASS.*C5 +c\\.cuckoo_filter +PASS.*C6 +c\\.cuckoo_filter +PASS.* 0 failed"
    REQUIRES "${example_c_filter}")
endforeach()

# The exact set, declared with a capacity of 16 so that C3 and C6 run too: every claim
# holds; each broken mode fails C7 (the set's answers against the set model; only C7 is
# run) with a two-op trace.
set(exact_set "${example_python}|${CUCKOO_EXEC_EXAMPLES}/exact_set.py|--capacity|16")
cuckoo_exec_example_test(py_exact_set 0 "${exact_set}"
  "C1 fill: [0-9]+ traces \\(distinct keys to 50-100% of the [0-9]+ items a probe fill held at its first refusal and 16 past it, earlier keys[^\n]*\n.*C1 +py\\.exact_set +PASS.*C6 +py\\.exact_set +PASS.*C7 +py\\.exact_set +PASS.* 0 failed"
  REQUIRES "${example_python}")
# Unbounded (no capacity declared): nothing is ever refused, and C1's fills say so.
cuckoo_exec_example_test(py_exact_set.unbounded 0
  "${example_python}|${CUCKOO_EXEC_EXAMPLES}/exact_set.py"
  "C1 fill: [0-9]+ traces \\(distinct keys to 50-100% of [0-9]+ keys \\(a probe fill stored all [0-9]+ of its keys, none refused\\) and 16 more, earlier keys[^\n]*\n.*C1 +py\\.exact_set +PASS.* 0 failed"
  ARGS "--claims|C1" REQUIRES "${example_python}")
foreach(mode nul-terminated hex-text-key size-counts-inserts)
  if(mode STREQUAL "nul-terminated")
    set(shows "got (exists|true)")     # "a" and "a\0" are one key
  elseif(mode STREQUAL "hex-text-key")
    set(shows "got (false|inserted)")  # x0a and x0A are two keys
  else()
    set(shows "got size [0-9]+")       # size counts `exists` answers
  endif()
  cuckoo_exec_example_test(py_exact_set.${mode} 1 "${exact_set}|--broken|${mode}"
    "C7 +py\\.exact_set\\.broken\\.${mode} +FAIL [^\n]*${shows}"
    ARGS "--claims|C7" REQUIRES "${example_python}" TRACE_CLAIM C7 MAX_OPS 4 GOOD_SUBJECT "${exact_set}")
endforeach()

# ---- exec: concurrent sessions (C10) with examples/audit/exec/concurrent_set.py ----
# The locked set and filter pass C10; each planted race fails it with a counterexample of
# at most 6 requests that `exec --replay` reproduces (in some of its 20 runs) against the
# broken subject and that the correct one passes in all 20.
set(concurrent_set "${example_python}|${CUCKOO_EXEC_EXAMPLES}/concurrent_set.py")
cuckoo_exec_example_test(py_concurrent_set 0 "${concurrent_set}"
  "C10: 60 rounds of 4 concurrent sessions.*C10 +py\\.concurrent_set +PASS.* 0 failed"
  ARGS "--claims|C10" REQUIRES "${example_python}")
cuckoo_exec_example_test(py_concurrent_filter 0 "${concurrent_set}|--kind|filter"
  "C10 +py\\.concurrent_filter +PASS.* 0 failed"
  ARGS "--claims|C10|--concurrent|6" REQUIRES "${example_python}")
foreach(mode check-then-act lost-erase)
  cuckoo_exec_example_test(py_concurrent_set.${mode} 1 "${concurrent_set}|--broken|${mode}"
    "C10 +py\\.concurrent_set\\.broken\\.${mode} +FAIL [^\n]*not linearizable"
    ARGS "--claims|C10" REQUIRES "${example_python}" TRACE_CLAIM C10 MAX_OPS 6
    GOOD_SUBJECT "${concurrent_set}"
    REPLAY_MATCH "VIOLATION of C10 \\(concurrent histories linearizable\\) in [1-9][0-9]* of 20 runs.*NOT linearizable: key [0-9]+")
endforeach()
if(CUCKOO_PYTHON3)
  set(py_conc ${CUCKOO_PYTHON3}|${CUCKOO_EXEC_EXAMPLES}/concurrent_set.py)
  cuckoo_cli_test(exec_concurrent_needs_the_declaration 2 "exec|--concurrent|2|--|${CUCKOO_PYTHON3}|${CUCKOO_EXEC_PY_SUBJECT}|set"
    OUTPUT "--concurrent 2 needs a subject that declares concurrent=2 or more \\(it declares none")
  cuckoo_cli_test(exec_concurrent_more_than_declared 2 "exec|--concurrent|9|--|${py_conc}"
    OUTPUT "--concurrent 9 needs a subject that declares concurrent=9 or more \\(it declares 8")
  cuckoo_cli_test(exec_concurrent_out_of_range 2 "exec|--concurrent|65|--|${py_conc}" OUTPUT "--concurrent: 65 is outside 1..64")
  file(WRITE ${CUCKOO_CLI_DIR}/bad-concurrent.trace
    "cuckoo-audit-concurrent-trace 1 name=x kind=set sessions=2 keys=mixed\ns5 insert 1\n")
  cuckoo_cli_test(exec_replay_bad_concurrent_trace 2 "exec|--replay|${CUCKOO_CLI_DIR}/bad-concurrent.trace|--|${py_conc}"
    OUTPUT "bad-concurrent.trace: line 2: expected 'sI OP \\[KEY\\]'")
endif()
