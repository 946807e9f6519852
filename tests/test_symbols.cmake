# Test hooks are not API (ctest entry "test_symbols"): the shipped librescue.so exports no
# test symbol, and no symbol or string of a test hook is in librescue.so, librescue.a or
# rescue, while librescue_test.a, the build the Check suites link, has them.
# Usage: cmake -DNM=nm -DSHARED=librescue.so -DSTATIC=librescue.a -DCLI=rescue
#              -DTEST_STATIC=librescue_test.a -P test_symbols.cmake
set(hook_symbols "rescue_crash_point|rescue_alloc_fail_at|alloc_should_fail")
# a symbol whose name has a word crash, test or fail ("rescue_split_latest" has none)
set(test_word "(^|_)(crash|test|fail)(_|$)")
set(bad "")

execute_process(COMMAND ${NM} -D --defined-only ${SHARED} OUTPUT_VARIABLE out
                RESULT_VARIABLE rc)
if(NOT rc EQUAL 0 OR NOT out MATCHES "rescue_malloc")
  message(FATAL_ERROR "${NM} -D ${SHARED} failed (${rc})")
endif()
string(REPLACE "\n" ";" lines "${out}")
foreach(line ${lines})
  if(line MATCHES "[ \t]([A-Za-z_][A-Za-z0-9_]*)$")
    set(sym "${CMAKE_MATCH_1}")
    string(TOLOWER "${sym}" low)
    if(low MATCHES "${test_word}")
      string(APPEND bad "${SHARED} exports ${sym}\n")
    endif()
  endif()
endforeach()

foreach(f ${SHARED} ${STATIC} ${CLI})
  execute_process(COMMAND ${NM} ${f} OUTPUT_VARIABLE out ERROR_QUIET)
  if(out MATCHES "(${hook_symbols})")
    string(APPEND bad "${f} has the symbol ${CMAKE_MATCH_1}\n")
  endif()
  file(STRINGS ${f} hits REGEX "RESCUE_CRASH_AT")
  if(hits)
    string(APPEND bad "${f} holds the string RESCUE_CRASH_AT\n")
  endif()
endforeach()

execute_process(COMMAND ${NM} ${TEST_STATIC} OUTPUT_VARIABLE out ERROR_QUIET)
foreach(sym rescue_crash_point rescue_alloc_fail_at)
  if(NOT out MATCHES "T ${sym}\n")
    string(APPEND bad "${TEST_STATIC} lacks ${sym}: the test build has no hooks\n")
  endif()
endforeach()

if(bad)
  message(FATAL_ERROR "test hooks in the shipped build:\n${bad}")
endif()
