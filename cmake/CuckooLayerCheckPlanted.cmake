# Plants one forbidden include (FILE includes HEADER) in a scratch tree DIR and requires
# ci/check-layers to fail on it, naming the file.
file(REMOVE_RECURSE "${DIR}")
get_filename_component(parent "${DIR}/${FILE}" DIRECTORY)
file(MAKE_DIRECTORY "${parent}")
file(WRITE "${DIR}/${FILE}" "#include \"${HEADER}\"\n")
execute_process(COMMAND ${PYTHON} ${CHECK} --root ${DIR}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0)
  message(FATAL_ERROR "check-layers accepted ${FILE} including ${HEADER}:\n${out}${err}")
endif()
string(FIND "${out}" "${FILE}:1: includes ${HEADER}" at)
if(at EQUAL -1)
  message(FATAL_ERROR "check-layers failed but did not name ${FILE}:\n${out}${err}")
endif()
