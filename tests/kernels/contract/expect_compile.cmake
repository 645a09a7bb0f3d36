# cmake -DCXX=... -DSRC=... -DINC=... -DCASE=... -DEXPECT=... -P expect_compile.cmake
# Compiles SRC with CASE_<CASE> defined. EXPECT "builds": the compile must succeed; else
# it must fail with a message matching the regular expression EXPECT.
execute_process(COMMAND ${CXX} -std=c++20 -fsyntax-only -Wall -Wextra -Wno-unknown-pragmas
                        -I${INC} -I${INC}/src -DCASE_${CASE} ${SRC}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(EXPECT STREQUAL "builds")
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "case ${CASE} must build but did not:\n${err}")
  endif()
  message(STATUS "case ${CASE} builds")
elseif(rc EQUAL 0)
  message(FATAL_ERROR "case ${CASE} built; the kernel contract must refuse it")
elseif(NOT err MATCHES "${EXPECT}")
  message(FATAL_ERROR "case ${CASE} failed, but not with /${EXPECT}/:\n${err}")
else()
  message(STATUS "case ${CASE} refused: /${EXPECT}/")
endif()
