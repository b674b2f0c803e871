# CTest labels: one scheme for the whole suite, so that `ctest -L LABEL` (and the `quick` test
# preset) picks tests by kind rather than by name. Each tests/*/CMakeLists.txt ends with
# wiredcap_label_tests(...) naming what its tests are; cmake/GTestCases.cmake labels every
# GoogleTest case `unit`. packaging.every_test_is_labelled fails on a test with no label.
#
#   unit          GoogleTest cases: the C++ alone, no process of ours (the `quick` preset)
#   fuzz          the fuzz targets' corpora replayed
#   compile_fail  snippets that must not compile
#   sim           wiredcap-sim itself
#   integration   the built binaries as a user runs them (shell scenarios)
#   setuid        the real setuid helper (installed setuid root, run as a member or nobody)
#   hostile       everything a caller controls turned hostile against the setuid helper
#   golden        whole transcripts compared with tests/golden/expected (or linux/expected)
#   schema        the JSON contract's schema files and validator
#   pty           a real pseudo-terminal (prompts, the supervised ramp, widths)
#   cli           the command line's conventions (exit codes, write errors, usage)
#   docs          the documents' examples run
#   packaging     install layout, man pages, completions, packages, the house's own checks
#   linux         the Linux AMD backend
#   stress        loops under load
#   root          needs root (skipped otherwise)
#   slow          a minute or more on an idle 2-core machine
set(WIREDCAP_TEST_LABELS unit fuzz compile_fail sim integration setuid hostile golden schema pty cli docs
                         packaging linux stress root slow)

# wiredcap_label_tests(LABEL... [MATCHING REGEX]): add the labels to every test registered so far
# in the calling directory, or only to those whose name matches REGEX.
function(wiredcap_label_tests)
  cmake_parse_arguments(L "" "MATCHING" "" ${ARGN})
  foreach(label IN LISTS L_UNPARSED_ARGUMENTS)
    if(NOT label IN_LIST WIREDCAP_TEST_LABELS)
      message(FATAL_ERROR "unknown test label '${label}' (cmake/TestLabels.cmake lists them)")
    endif()
  endforeach()
  get_property(tests DIRECTORY PROPERTY TESTS)
  if(DEFINED L_MATCHING)
    list(FILTER tests INCLUDE REGEX "${L_MATCHING}")
  endif()
  if(tests)
    set_property(TEST ${tests} APPEND PROPERTY LABELS ${L_UNPARSED_ARGUMENTS})
  endif()
endfunction()
