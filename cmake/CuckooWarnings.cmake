# Warnings for the project's own translation units. Not exported: consumers of the
# installed package choose their own flags.
add_library(cuckoo_warnings INTERFACE)
target_compile_options(cuckoo_warnings INTERFACE
  -Wall -Wextra -Wpedantic -Wshadow -Wnon-virtual-dtor -Wold-style-cast -Wcast-align
  -Woverloaded-virtual -Wnull-dereference -Wdouble-promotion -Wformat=2
  -Wimplicit-fallthrough -Wmissing-declarations
  $<$<BOOL:${CUCKOO_WERROR}>:-Werror>)
