# The headless-browser check of report.html, and the schema check of junit.xml (included from audit/CMakeLists.txt inside
# if(CUCKOO_BUILD_TESTS), after the test targets exist).
#
# audit_report_sample_html runs the writer test that writes the synthetic report into
# the build tree (the fixture); audit_report_in_browser opens it in headless Chromium
# and checks that its claim sections are there and every plot rendered. Without
# Chromium it is skipped (exit 77), unless CUCKOO_REQUIRE_BROWSER is set in the
# environment of ctest, which makes a missing browser a failure.
if(TARGET audit_report_writers_test)
  set(CUCKOO_REPORT_SAMPLE_DIR ${CMAKE_CURRENT_BINARY_DIR}/report-sample)
  # Must match kSampleSections in audit/tests/report_writers_test.cpp.
  set(CUCKOO_REPORT_SAMPLE_SECTIONS 7)

  add_test(NAME audit_report_sample_html
           COMMAND audit_report_writers_test
                   --gtest_filter=ReportWriters.WritesSampleReportForTheBrowserCheck)
  set_tests_properties(audit_report_sample_html PROPERTIES
    ENVIRONMENT "CUCKOO_REPORT_SAMPLE_DIR=${CUCKOO_REPORT_SAMPLE_DIR}"
    FIXTURES_SETUP cuckoo_report_sample_html
    LABELS "audit")

  add_test(NAME audit_report_in_browser
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tests/check_html_in_browser.sh
                   ${CUCKOO_REPORT_SAMPLE_DIR}/report.html ${CUCKOO_REPORT_SAMPLE_SECTIONS})
  set_tests_properties(audit_report_in_browser PROPERTIES
    FIXTURES_REQUIRED cuckoo_report_sample_html
    SKIP_RETURN_CODE 77
    TIMEOUT 180
    LABELS "audit;browser")

  # The sample's junit.xml (failures, skips, every metadata property) against the strict
  # JUnit rules of audit/tests/junit-strict.xsd, with xmllint (skipped without it unless
  # CUCKOO_REQUIRE_XMLLINT is set).
  add_test(NAME audit_junit_schema
           COMMAND ${CMAKE_CURRENT_SOURCE_DIR}/tests/check_junit_schema.sh
                   ${CMAKE_CURRENT_SOURCE_DIR}/tests/junit-strict.xsd
                   ${CUCKOO_REPORT_SAMPLE_DIR}/junit.xml)
  set_tests_properties(audit_junit_schema PROPERTIES
    FIXTURES_REQUIRED cuckoo_report_sample_html
    SKIP_RETURN_CODE 77
    LABELS "audit")
endif()
