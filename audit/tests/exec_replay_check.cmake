# An exec audit of a broken set (subject.py forgetful) fails with exit 1 and writes
# counterexample traces; each replays as a VIOLATION against the broken set (exit 1)
# and as OK against the correct one (exit 0, after a warning that the names differ).
# Inputs: EXE, PYTHON, SUBJECT, OUT.
foreach(var EXE PYTHON SUBJECT OUT)
  if(NOT DEFINED ${var})
    message(FATAL_ERROR "exec_replay_check.cmake: ${var} is not set")
  endif()
endforeach()
file(REMOVE_RECURSE "${OUT}")

function(run expect_rc expect_output)
  execute_process(COMMAND "${EXE}" ${ARGN} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  string(REPLACE ";" " " shown "${ARGN}")
  message(STATUS "cuckoo-audit ${shown} exited with ${rc}:\n${out}")
  if(NOT rc STREQUAL "${expect_rc}")
    message(FATAL_ERROR "expected exit status ${expect_rc}, got ${rc}")
  endif()
  if(NOT out MATCHES "${expect_output}")
    message(FATAL_ERROR "the output does not match '${expect_output}'")
  endif()
endfunction()

run(1 "C1 +py.forgetful +FAIL.*C7 +py.forgetful +FAIL.*replay a counterexample with: cuckoo-audit exec --replay"
    exec --claims C1,C7 --out "${OUT}" -- "${PYTHON}" "${SUBJECT}" forgetful)
file(GLOB traces "${OUT}/counterexamples/*.trace")
list(LENGTH traces count)
if(NOT count EQUAL 2)
  message(FATAL_ERROR "expected 2 counterexample traces in ${OUT}/counterexamples, found ${count}")
endif()
file(READ "${OUT}/report.md" report)
if(NOT report MATCHES "declares: kind=set name=py.forgetful capacity=64")
  message(FATAL_ERROR "report.md does not show the subject's declarations")
endif()
foreach(trace IN LISTS traces)
  file(READ "${trace}" text)
  if(NOT text MATCHES "keys=mixed" OR NOT text MATCHES "# keys as the subject saw them")
    message(FATAL_ERROR "${trace} lacks its key encoding or its key legend:\n${text}")
  endif()
  run(1 "VIOLATION of " exec --replay "${trace}" -- "${PYTHON}" "${SUBJECT}" forgetful)
  # The correct set calls itself py.set: a warning about the name, then the replay.
  run(0 "^cuckoo-audit: warning: [^\n]*it was written for 'py.forgetful', the subject declares name=py.set; replaying it anyway[^\n]*\nOK: [0-9]+ ops, every claim held\n$"
      exec --replay "${trace}" -- "${PYTHON}" "${SUBJECT}" set)
endforeach()
