# The installed tree runs with no source tree and from any directory
# (ctest: InstallTree.RunsFromRootWithoutTheSourceTree). Installs the build
# into PREFIX with `cmake --install`, checks the files cmake/install.cmake
# promises, then from `/`:
#   1. run -P workloads/workloada reads the installed copy of workloada;
#   2. a one-cell `wirebench compare` (workload "a") completes and writes its tables;
#   3. with the installed workloads removed, run -P workloads/workloadc uses
#      the copy built into the binary.
#   cmake -DBINARY_DIR=<build> -DPREFIX=<scratch> -P tests/install_check.cmake
foreach(v BINARY_DIR PREFIX)
  if(NOT ${v})
    message(FATAL_ERROR "install_check.cmake: pass -D${v}=...")
  endif()
endforeach()

function(fail what)
  message(FATAL_ERROR "install_check: ${what}")
endfunction()

file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BINARY_DIR} --prefix ${PREFIX}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT (rc EQUAL 0))
  fail("cmake --install ${BINARY_DIR} --prefix ${PREFIX} failed (${rc}):\n${out}${err}")
endif()
foreach(f bin/wirebench share/wirebench/workloads/workloada share/wirebench/workloads/workloadf
          share/doc/wirebench/README.md share/doc/wirebench/docs/design.md
          share/doc/wirebench/LICENSE share/doc/wirebench/copyright
          share/bash-completion/completions/wirebench)
  if(NOT (EXISTS ${PREFIX}/${f}))
    fail("cmake --install did not install ${f} (under ${PREFIX})")
  endif()
endforeach()
# The man page, when help2man made one (cmake/install.cmake says when not).
if(EXISTS ${BINARY_DIR}/man/wirebench.1.gz AND NOT EXISTS ${PREFIX}/share/man/man1/wirebench.1.gz)
  fail("cmake --install did not install the man page share/man/man1/wirebench.1.gz")
endif()
set(wb ${PREFIX}/bin/wirebench)

# Runs the installed wirebench with ARGN from /, its output in `out` and
# `err`; fails, naming the run `what`, unless it exits 0.
function(run_from_root what)
  execute_process(COMMAND ${wb} ${ARGN} WORKING_DIRECTORY /
                  RESULT_VARIABLE rc OUTPUT_VARIABLE o ERROR_VARIABLE e)
  if(NOT (rc EQUAL 0))
    fail("${what} failed (${rc}):\n${e}")
  endif()
  set(out "${o}" PARENT_SCOPE)
  set(err "${e}" PARENT_SCOPE)
endfunction()

# Fails, saying `what` and then `text`, unless `text` holds `needle`.
function(expect_in text needle what)
  string(FIND "${text}" "${needle}" at)
  if(NOT (at GREATER -1))
    fail("${what}:\n${text}")
  endif()
endfunction()

# 1. run -P with YCSB's relative path, from /.
run_from_root("installed 'wirebench run -P workloads/workloada' from /"
              run -P workloads/workloada -p recordcount=100 -p operationcount=200)
expect_in("${err}" "using ${PREFIX}/share/wirebench/workloads/workloada"
          "run from / did not say it used the installed workloada")
expect_in("${out}" "[OVERALL], RunTime(ms)" "run from / printed no YCSB summary")

# 2. The smallest compare, from /.
run_from_root("installed 'wirebench compare --codecs raw' from /"
              compare --codecs raw --repeat 1 --seconds 0.5 --warmup 0.2
              --records 1000 --threads 2 --out ${PREFIX}/compare)
if(NOT (EXISTS ${PREFIX}/compare/comparison.json))
  fail("compare from / wrote no ${PREFIX}/compare/comparison.json:\n${err}")
endif()

# 3. Without the installed workloads: the built-in copy.
file(REMOVE_RECURSE ${PREFIX}/share/wirebench)
run_from_root("'wirebench run -P workloads/workloadc' without share/"
              run -P workloads/workloadc -p recordcount=100 -p operationcount=200)
expect_in("${err}" "using the copy of workloadc built into wirebench"
          "run without share/ did not say it used the built-in workloadc")
# The null region answers reads with its canned record by default (run and
# compare alike): every read is OK.
expect_in("${out}" "[READ], Return=OK, 200" "workloadc (reads only) did not run 200 reads")

file(REMOVE_RECURSE ${PREFIX})
message(STATUS "install_check: the installed tree runs from /")
