# Audits one subject of examples/audit/exec/ with `cuckoo-audit exec` (one CTest case) and
# checks the verdict, the summary and, for a broken subject, its counterexample:
#   cuckoo-audit exec --profile quick --seed SEED --out OUT [ARGS...] -- SUBJECT...
# Inputs (lists are "|" separated):
#   EXE            the cuckoo-audit binary
#   SUBJECT        the subject's command line
#   OUT            the --out directory (removed first)
#   EXPECT_RC      0 (every claim held) or 1 (a claim failed)
#   EXPECT_OUTPUT  a regex the combined stdout + stderr must match
#   ARGS           optional further options of exec (e.g. --claims|C6)
#   SEED           optional, default 7
#   REQUIRES       optional programs that must exist (python3, the C subject); when one is
#                  missing the case prints "SKIPPED: ..." (the test's SKIP_REGULAR_EXPRESSION)
#   TRACE_CLAIM    optional: the claim whose counterexample OUT/counterexamples/CLAIM-*.trace
#                  must exist (exactly one), have at most MAX_OPS ops and match TRACE_MATCH
#                  (optional regex); it is then replayed with `exec --replay` against SUBJECT
#                  (exit 1, output matching REPLAY_MATCH, by default "VIOLATION of
#                  TRACE_CLAIM": the replay names the claim the audit did) and, when
#                  GOOD_SUBJECT is given, against that
#                  command line (the correct subject: exit 0, "OK: N ops"; the names differ,
#                  so the auditor's warning about it is expected too); `cuckoo-audit replay
#                  TRACE` must refuse it (exit 2) and quote the exec command that replays it
#   REPORT_MATCH   optional regex report.json must match (the report's metadata)
foreach(var EXE SUBJECT OUT EXPECT_RC EXPECT_OUTPUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "exec_example_check.cmake: ${var} is not set")
  endif()
endforeach()
if(NOT DEFINED SEED)
  set(SEED 7)
endif()

if(DEFINED REQUIRES)
  string(REPLACE "|" ";" required "${REQUIRES}")
  foreach(program IN LISTS required)
    if(program STREQUAL "" OR program MATCHES "-NOTFOUND$" OR NOT EXISTS "${program}")
      message("SKIPPED: '${program}' is not available (python3 or a C compiler missing)")
      return()
    endif()
  endforeach()
endif()

file(REMOVE_RECURSE "${OUT}")
string(REPLACE "|" ";" subject "${SUBJECT}")
set(extra)
if(DEFINED ARGS AND NOT ARGS STREQUAL "")
  string(REPLACE "|" ";" extra "${ARGS}")
endif()

function(run_auditor expect_rc expect_output)
  string(TIMESTAMP start "%s")
  execute_process(COMMAND "${EXE}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(TIMESTAMP end "%s")
  math(EXPR took "${end} - ${start}")
  string(REPLACE ";" " " shown "${ARGN}")
  message(STATUS "cuckoo-audit ${shown} exited with ${rc} after about ${took} s:\n${out}")
  if(NOT rc STREQUAL "${expect_rc}")
    message(FATAL_ERROR "expected exit status ${expect_rc}, got ${rc}")
  endif()
  if(NOT out MATCHES "${expect_output}")
    message(FATAL_ERROR "the output does not match '${expect_output}'")
  endif()
endfunction()

run_auditor("${EXPECT_RC}" "${EXPECT_OUTPUT}"
  exec --profile quick --seed ${SEED} --out "${OUT}" ${extra} -- ${subject})

if(DEFINED REPORT_MATCH)
  file(READ "${OUT}/report.json" report)
  if(NOT report MATCHES "${REPORT_MATCH}")
    message(FATAL_ERROR "${OUT}/report.json does not match '${REPORT_MATCH}':\n${report}")
  endif()
endif()

if(NOT DEFINED TRACE_CLAIM)
  return()
endif()
file(GLOB traces "${OUT}/counterexamples/${TRACE_CLAIM}-*.trace")
list(LENGTH traces count)
if(NOT count EQUAL 1)
  message(FATAL_ERROR "expected one ${TRACE_CLAIM} counterexample in ${OUT}/counterexamples, found ${count}")
endif()
file(READ "${traces}" text)
# Ops: the content lines after the header (comments and blank lines do not count).
file(STRINGS "${traces}" lines)
set(ops 0)
set(header_seen FALSE)
foreach(line IN LISTS lines)
  string(REGEX REPLACE "#.*$" "" line "${line}")
  string(STRIP "${line}" line)
  if(line STREQUAL "")
    continue()
  endif()
  if(NOT header_seen)
    set(header_seen TRUE)
    continue()
  endif()
  math(EXPR ops "${ops} + 1")
endforeach()
message(STATUS "${traces}: ${ops} ops (at most ${MAX_OPS} allowed):\n${text}")
if(DEFINED MAX_OPS AND ops GREATER MAX_OPS)
  message(FATAL_ERROR "the ${TRACE_CLAIM} counterexample has ${ops} ops, more than ${MAX_OPS}")
endif()
if(ops EQUAL 0)
  message(FATAL_ERROR "the ${TRACE_CLAIM} counterexample has no ops")
endif()
if(DEFINED TRACE_MATCH AND NOT text MATCHES "${TRACE_MATCH}")
  message(FATAL_ERROR "the ${TRACE_CLAIM} counterexample does not match '${TRACE_MATCH}'")
endif()
if(NOT text MATCHES "\n# replay with: cuckoo-audit exec [^\n]*--replay [^\n]* -- ")
  message(FATAL_ERROR "the ${TRACE_CLAIM} counterexample does not end with its replay command")
endif()

# The counterexample replays: still a violation against the broken subject, none against
# the correct one; `cuckoo-audit replay`, which builds the project's engines, says how.
if(NOT DEFINED REPLAY_MATCH)
  set(REPLAY_MATCH "VIOLATION of ${TRACE_CLAIM} ")
endif()
run_auditor(1 "${REPLAY_MATCH}" exec --replay "${traces}" -- ${subject})
run_auditor(2 "the trace was written by `cuckoo-audit exec`[^\n]*the file names its command: cuckoo-audit exec "
  replay "${traces}")
if(DEFINED GOOD_SUBJECT)
  string(REPLACE "|" ";" good "${GOOD_SUBJECT}")
  run_auditor(0 "warning: [^\n]*it was written for '[^']+', the subject declares name=[^\n]*replaying it anyway.*OK: ${ops} ops, every claim held\n"
    exec --replay "${traces}" -- ${good})
endif()
