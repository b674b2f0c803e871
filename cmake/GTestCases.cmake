# How a GoogleTest binary becomes CTest tests (tests/*/CMakeLists.txt call wiredcap_gtest).
#
# By default each case is a test of its own: a failure names its case, and ctest spreads the
# cases over the cores. With WIREDCAP_TEST_EACH_CASE off (the asan preset) the binary is one
# test, unit.<binary>, that runs all its cases in one process, as a developer runs it by hand:
# under the sanitizers every process start costs 50-200 ms (the runtime's set-up and page
# faults), and there are about a thousand cases. The same cases run either way.
option(WIREDCAP_TEST_EACH_CASE "One CTest test per GoogleTest case (off: one test per binary)" ON)

function(wiredcap_gtest target prefix)
  if(WIREDCAP_TEST_EACH_CASE)
    gtest_discover_tests(${target} TEST_PREFIX "${prefix}." DISCOVERY_TIMEOUT 30 PROPERTIES LABELS unit)
  else()
    add_test(NAME unit.${target} COMMAND ${target})
    # Started first (COST): the longest tests of a sanitized run, so that none is left alone
    # at the end. The time limit is a backstop against a hang only.
    set_tests_properties(unit.${target} PROPERTIES COST 500 TIMEOUT 1800 LABELS unit)
  endif()
endfunction()
