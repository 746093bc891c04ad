# Shared helpers for the ci/ scripts. Source it; do not run it.

# ensure_packages PKG...: installs with apt-get whatever Debian packages are missing.
ensure_packages() {
  local missing=()
  local pkg
  for pkg in "$@"; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
      missing+=("$pkg")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  echo "ci: installing missing packages: ${missing[*]}"
  local sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  export DEBIAN_FRONTEND=noninteractive
  $sudo apt-get update -qq
  $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# The packages every lane needs to configure and build the project.
CUCKOO_BUILD_PACKAGES=(cmake ninja-build g++ make libxxhash-dev libgtest-dev googletest
  librapidcheck-dev libbenchmark-dev)
CUCKOO_CLANG_PACKAGES=(clang-14 libclang-rt-14-dev llvm-14)
# The headless browser that checks the audit's HTML report (ci/test).
CUCKOO_BROWSER_PACKAGES=(chromium)
# xmllint, which checks the audit's junit.xml against audit/tests/junit-strict.xsd (ci/test).
CUCKOO_XMLLINT_PACKAGES=(libxml2-utils)
# The interpreter of the Python example subjects that ci/test audits with cuckoo-audit exec
# (examples/audit/exec/, audit/tests/exec_subjects/); without it those tests skip.
CUCKOO_EXEC_EXAMPLE_PACKAGES=(python3)
# The API reference (ci/docs), checked by the default lane's docs tests.
CUCKOO_DOCS_PACKAGES=(doxygen)
