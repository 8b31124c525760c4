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

function(check cond what)
  if(NOT ${cond})
    message(FATAL_ERROR "install_check: ${what}")
  endif()
endfunction()

file(REMOVE_RECURSE ${PREFIX})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BINARY_DIR} --prefix ${PREFIX}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
check("rc EQUAL 0" "cmake --install ${BINARY_DIR} --prefix ${PREFIX} failed (${rc}):\n${out}${err}")
foreach(f bin/wirebench share/wirebench/workloads/workloada share/wirebench/workloads/workloadf
          share/doc/wirebench/README.md share/doc/wirebench/docs/design.md)
  check("EXISTS ${PREFIX}/${f}" "cmake --install did not install ${f} (under ${PREFIX})")
endforeach()
set(wb ${PREFIX}/bin/wirebench)

# 1. run -P with YCSB's relative path, from /.
execute_process(COMMAND ${wb} run -P workloads/workloada -p recordcount=100 -p operationcount=200
                WORKING_DIRECTORY / RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
check("rc EQUAL 0" "installed 'wirebench run -P workloads/workloada' from / failed (${rc}):\n${err}")
string(FIND "${err}" "using ${PREFIX}/share/wirebench/workloads/workloada" at)
check("at GREATER -1" "run from / did not say it used the installed workloada:\n${err}")
string(FIND "${out}" "[OVERALL], RunTime(ms)" at)
check("at GREATER -1" "run from / printed no YCSB summary:\n${out}")

# 2. The smallest compare, from /.
execute_process(COMMAND ${wb} compare --codecs raw --repeat 1 --seconds 0.5 --warmup 0.2
                        --records 1000 --threads 2 --out ${PREFIX}/compare
                WORKING_DIRECTORY / RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
check("rc EQUAL 0" "installed 'wirebench compare --codecs raw' from / failed (${rc}):\n${err}")
check("EXISTS ${PREFIX}/compare/comparison.json"
      "compare from / wrote no ${PREFIX}/compare/comparison.json:\n${err}")

# 3. Without the installed workloads: the built-in copy.
file(REMOVE_RECURSE ${PREFIX}/share/wirebench)
execute_process(COMMAND ${wb} run -P workloads/workloadc -p recordcount=100 -p operationcount=200
                WORKING_DIRECTORY / RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
check("rc EQUAL 0" "'wirebench run -P workloads/workloadc' without share/ failed (${rc}):\n${err}")
string(FIND "${err}" "using the copy of workloadc built into wirebench" at)
check("at GREATER -1" "run without share/ did not say it used the built-in workloadc:\n${err}")
string(FIND "${out}" "[READ], Operations, 200" at)
check("at GREATER -1" "workloadc (reads only) did not run 200 reads:\n${out}")

file(REMOVE_RECURSE ${PREFIX})
message(STATUS "install_check: the installed tree runs from /")
