# Runs tst_qtfree_fixture (FIXTURE) and tst_qtfree_fixture_throw (FIXTURE_THROW) and checks, without
# the harness's help, that they report what their checks did: each failure as a FAIL! line with Qt
# Test's message and location, skips and passes, the totals, and an exit code equal to the number of
# failures; one function and one data row chosen on the command line; an unknown function or tag; an
# exception. The expected lines are Qt Test 6.4's own: the Qt build runs this on Qt-built fixtures too.
# cmake -DFIXTURE=path -DFIXTURE_THROW=path -P check_fixture.cmake
if(NOT FIXTURE OR NOT FIXTURE_THROW)
  message(FATAL_ERROR "check_fixture.cmake: FIXTURE and FIXTURE_THROW (the fixture executables) must be set")
endif()

function(expect_run exe args code)
  execute_process(COMMAND ${exe} ${args} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc STREQUAL code)
    message(FATAL_ERROR "tst_qtfree_fixture ${args}: exit code ${rc}, expected ${code}\n${out}${err}")
  endif()
  foreach(line ${ARGN})
    string(FIND "${out}" "${line}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "tst_qtfree_fixture ${args}: no line\n  ${line}\nin its output:\n${out}")
    endif()
  endforeach()
  set(last_output "${out}" PARENT_SCOPE)
endfunction()

set(src "tst_qtfree_fixture.cpp")
expect_run(${FIXTURE} "" 9
  "********* Start testing of TestFixture *********"
  "PASS   : TestFixture::initTestCase()"
  "PASS   : TestFixture::passes()"
  "FAIL!  : TestFixture::compare_int_fails() Compared values are not the same\n   Actual   (answer): 41\n   Expected (42)    : 42\n   Loc: "
  "FAIL!  : TestFixture::compare_string_fails() Compared values are not the same\n   Actual   (QString(\"got\")) : \"got\"\n   Expected (QString(\"want\")): \"want\""
  "FAIL!  : TestFixture::compare_double_fuzzy() Compared doubles are not the same (fuzzy compare)\n   Actual   (1.0)   : 1\n   Expected (1.0001): 1.0001"
  "FAIL!  : TestFixture::compare_float_fuzzy() Compared floats are not the same (fuzzy compare)\n   Actual   (0.0f)  : 0\n   Expected (0.001f): 0.001"
  "FAIL!  : TestFixture::verify_fails() '1 > 2' returned FALSE. ()"
  "FAIL!  : TestFixture::verify2_fails() 'false' returned FALSE. (because 7)"
  "SKIP   : TestFixture::skips() nothing to do here"
  "FAIL!  : TestFixture::fails_outright() on purpose"
  "PASS   : TestFixture::throws_expected()"
  "FAIL!  : TestFixture::throws_nothing() Expected exception of type std::runtime_error to be thrown but no exception caught"
  "PASS   : TestFixture::current_test_failed()"
  "PASS   : TestFixture::rows(good)"
  "FAIL!  : TestFixture::rows(bad) Compared values are not the same\n   Actual   (text)                                      : \"two\"\n   Expected (n == 2 ? QString(\"two\") : QString(\"three\")): \"three\""
  "SKIP   : TestFixture::rows(skipped 4) row skipped"
  "QINFO  : TestFixture::cleanupTestCase() 15 inits, 15 cleanups"
  "PASS   : TestFixture::cleanupTestCase()"
  "Totals: 6 passed, 9 failed, 2 skipped, 0 blacklisted, "
  "********* Finished testing of TestFixture *********")
foreach(never "not reached" "PASS   : TestFixture::compare_int_fails()" "PASS   : TestFixture::rows(bad)")
  string(FIND "${last_output}" "${never}" at)
  if(NOT at EQUAL -1)
    message(FATAL_ERROR "tst_qtfree_fixture: '${never}' should not be in its output:\n${last_output}")
  endif()
endforeach()
string(REGEX MATCHALL "Loc: \\[[^]]*${src}\\([0-9]+\\)\\]" locs "${last_output}")
list(LENGTH locs n)
if(NOT n EQUAL 11)  # 9 failed checks and 2 skips name their line
  message(FATAL_ERROR "tst_qtfree_fixture: ${n} 'Loc: [...${src}(line)]' lines, expected 11:\n${last_output}")
endif()

expect_run(${FIXTURE} "rows:good" 0 "PASS   : TestFixture::rows(good)" "Totals: 3 passed, 0 failed, 0 skipped")
expect_run(${FIXTURE} "rows:bad;verify_fails" 2 "FAIL!  : TestFixture::rows(bad)" "FAIL!  : TestFixture::verify_fails()"
  "Totals: 2 passed, 2 failed, 0 skipped")
expect_run(${FIXTURE} "no_such_function" 1 "FAIL!  : TestFixture::no_such_function() Function not found: no_such_function"
  "Totals: 0 passed, 1 failed, 0 skipped")
expect_run(${FIXTURE} "rows:no such tag" 1 "FAIL!  : TestFixture::rows() Data tag not found: no such tag"
  "Totals: 2 passed, 1 failed, 0 skipped")
expect_run(${FIXTURE} "-functions" 0 "passes()\ncompare_int_fails()")

# An exception: reported, the run ends (no further function, no cleanupTestCase) and the process aborts.
execute_process(COMMAND ${FIXTURE_THROW} RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
foreach(line "PASS   : TestFixtureThrow::passes()" "FAIL!  : TestFixtureThrow::throws() Caught unhandled exception"
             "Totals: 2 passed, 1 failed, 0 skipped")
  string(FIND "${out}" "${line}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "tst_qtfree_fixture_throw: no line\n  ${line}\nin its output:\n${out}")
  endif()
endforeach()
string(FIND "${out}" "not reached" at)
if(rc EQUAL 0 OR NOT at EQUAL -1)
  message(FATAL_ERROR "tst_qtfree_fixture_throw: exit ${rc}; it should abort after the exception:\n${out}${err}")
endif()
