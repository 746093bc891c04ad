#!/bin/sh
# Checks junit.xml files against audit/tests/junit-strict.xsd with xmllint.
# usage: check_junit_schema.sh SCHEMA FILE...
# Exit 0 valid, 1 invalid, 77 (skip) without xmllint unless CUCKOO_REQUIRE_XMLLINT is set
# (ci/test installs it: Debian's libxml2-utils).
set -eu
schema=$1
shift
if ! command -v xmllint >/dev/null 2>&1; then
  if [ -n "${CUCKOO_REQUIRE_XMLLINT:-}" ]; then
    echo "xmllint not found and CUCKOO_REQUIRE_XMLLINT is set (apt-get install libxml2-utils)" >&2
    exit 1
  fi
  echo "xmllint not found: skipped (apt-get install libxml2-utils)"
  exit 77
fi
for file in "$@"; do
  xmllint --noout --schema "$schema" "$file"
done
