#!/bin/sh
# Opens a cuckoo-audit report.html in headless Chromium and checks what the page's own
# self-check script found after load (report_html.cpp): the page loaded, it has
# N_SECTIONS <section class="claim">, and every <svg class="plot"> rendered with a
# non-empty bounding box and drawn data (data-plots-rendered == number of plots > 0).
#
#   check_html_in_browser.sh REPORT_HTML N_SECTIONS
#
# Exit 0: all good. Exit 1: a check failed (the message says which). Exit 2: usage.
# Exit 77 (CTest SKIP_RETURN_CODE): no Chromium, unless CUCKOO_REQUIRE_BROWSER is set,
# in which case a missing browser is a failure. CUCKOO_CHROMIUM names the browser
# binary when it is not chromium / chromium-browser / google-chrome on PATH.
set -u

if [ "$#" -ne 2 ]; then
  echo "usage: $0 REPORT_HTML N_SECTIONS" >&2
  exit 2
fi
html=$1
want_sections=$2
case $want_sections in
  ''|*[!0-9]*) echo "N_SECTIONS must be a number, got '$want_sections'" >&2; exit 2 ;;
esac

fail() {
  echo "FAIL: $*" >&2
  exit 1
}

browser=${CUCKOO_CHROMIUM:-}
if [ -z "$browser" ]; then
  for candidate in chromium chromium-browser google-chrome; do
    if command -v "$candidate" >/dev/null 2>&1; then
      browser=$(command -v "$candidate")
      break
    fi
  done
fi
if [ -z "$browser" ] || ! command -v "$browser" >/dev/null 2>&1; then
  if [ -n "${CUCKOO_REQUIRE_BROWSER:-}" ]; then
    fail "no Chromium found (tried \$CUCKOO_CHROMIUM, chromium, chromium-browser, google-chrome) and CUCKOO_REQUIRE_BROWSER is set; install it (apt-get install chromium)"
  fi
  echo "SKIP: no Chromium found (apt-get install chromium, or set CUCKOO_CHROMIUM); set CUCKOO_REQUIRE_BROWSER=1 to make this a failure"
  exit 77
fi

[ -f "$html" ] || fail "$html does not exist (the writer test that produces it did not run or failed)"
case $html in
  /*) path=$html ;;
  *) path=$(pwd)/$html ;;
esac

work=$(mktemp -d "${TMPDIR:-/tmp}/cuckoo-browser-check.XXXXXX") || fail "cannot create a temporary directory"
trap 'rm -rf "$work"' EXIT INT TERM

# Its own profile directory, so parallel runs do not share a profile lock. Root needs
# --no-sandbox. The virtual time budget lets the load handler run before the dump.
if ! timeout 120 "$browser" --headless --no-sandbox --disable-gpu --no-first-run \
    --user-data-dir="$work/profile" --virtual-time-budget=5000 \
    --dump-dom "file://$path" >"$work/dom.html" 2>"$work/stderr"; then
  cat "$work/stderr" >&2
  fail "$browser exited with an error on file://$path"
fi

dom=$work/dom.html
grep -q '</html>' "$dom" || { cat "$work/stderr" >&2; fail "the page did not load (no DOM dumped from file://$path)"; }

body=$(grep -o '<body[^>]*>' "$dom" | head -n 1)
attribute() {
  printf '%s\n' "$body" | sed -n "s/.* $1=\"\([0-9]*\)\".*/\1/p"
}
expected_plots=$(attribute data-plots-expected)
rendered=$(attribute data-plots-rendered)
sections=$(attribute data-sections)
svg_plots=$(grep -o '<svg[^>]*class="plot"' "$dom" | wc -l | tr -d ' ')
section_tags=$(grep -o '<section[^>]*class="claim"' "$dom" | wc -l | tr -d ' ')

echo "browser: $browser"
echo "page: file://$path"
echo "sections: $sections (script), $section_tags (tags), $want_sections expected"
echo "plots: $rendered rendered (script), $svg_plots svg.plot elements, $expected_plots written"

[ -n "$sections" ] && [ -n "$rendered" ] ||
  fail "the page's self-check script did not run (no data-sections / data-plots-rendered on <body>: $body)"
[ "$sections" -eq "$want_sections" ] || fail "$sections claim sections, expected $want_sections"
[ "$section_tags" -eq "$want_sections" ] || fail "$section_tags <section class=\"claim\"> tags, expected $want_sections"
[ "$svg_plots" -gt 0 ] || fail "no <svg class=\"plot\"> in the page"
[ "$svg_plots" -eq "${expected_plots:-0}" ] || fail "$svg_plots plots in the page, the writer wrote ${expected_plots:-none}"
if [ "$rendered" -ne "$svg_plots" ]; then
  grep -o '<svg[^>]*data-render-problem[^>]*>' "$dom" >&2
  fail "only $rendered of $svg_plots plots rendered (empty bounding box or no data elements; see above)"
fi
echo "OK: $sections sections, $rendered of $svg_plots plots rendered"
