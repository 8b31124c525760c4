# cmake/check_function_length.cmake against trees made for it (cmake -P, a
# CTest test): a function one line over the limit fails, named with its file
# and line; one at the limit passes; braces in comments, strings, character
# literals and preprocessor lines, initializers and class bodies are no
# function's. The real tree is checked by
# FunctionLength.NoFunctionOutsideTestsIsOverEightyLines.
#   cmake -DCHECKER=cmake/check_function_length.cmake -DWORK_DIR=/tmp/x -P tests/function_length_check_test.cmake
cmake_minimum_required(VERSION 3.20)

if(NOT CHECKER OR NOT WORK_DIR)
  message(FATAL_ERROR "pass -DCHECKER=<cmake/check_function_length.cmake> -DWORK_DIR=<scratch folder>")
endif()

set(_failures "")

# `lines` lines of plain statements.
function(_body lines out)
  set(text "")
  foreach(i RANGE 1 ${lines})
    string(APPEND text "  x += ${i};\n")
  endforeach()
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

# Runs the checker (limit 10) on a tree whose bench/a.cc holds `content`;
# `expect` is PASS, or the text its failure must hold.
function(expect name content expect)
  set(dir "${WORK_DIR}/${name}")
  file(REMOVE_RECURSE "${dir}")
  file(WRITE "${dir}/bench/a.cc" "${content}")
  execute_process(COMMAND "${CMAKE_COMMAND}" -DSOURCE_DIR=${dir} -DMAX_LINES=10 -P "${CHECKER}"
                  RESULT_VARIABLE result OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(expect STREQUAL "PASS" AND NOT result EQUAL 0)
    string(APPEND _failures "  ${name}: failed, but no function is over the limit:\n${out}${err}\n")
  elseif(NOT expect STREQUAL "PASS")
    string(FIND "${out}${err}" "${expect}" at)
    if(result EQUAL 0 OR at EQUAL -1)
      string(APPEND _failures "  ${name}: should fail naming \"${expect}\":\n${out}${err}\n")
    endif()
  endif()
  set(_failures "${_failures}" PARENT_SCOPE)
  file(REMOVE_RECURSE "${dir}")
endfunction()

_body(8 eight)  # With its braces: 10 lines.
_body(9 nine)   # 11 lines.
expect(at_the_limit "int f() {\n${eight}}\n" PASS)
expect(one_over "// f\nint f(int x) {\n${nine}}\n" "bench/a.cc:2: f, 11 lines")
expect(method_in_a_namespace_and_class
       "namespace n {\nstruct S {\n  int g() const {\n${nine}  }\n};\n}  // namespace n\n"
       "bench/a.cc:3: g, 11 lines")
expect(qualified_name "int S::h(std::vector<int> v)\n{\n${nine}}\n" "bench/a.cc:2: S::h, 11 lines")
expect(constructor_with_brace_initializers
       "S::S() : a_{1},\n    b_{2} {\n${nine}}\n" "bench/a.cc:2: S::S, 11 lines")
expect(default_argument_braces "void k(int a,\n       Opts o = {}) {\n${nine}}\n"
       "bench/a.cc:2: k, 11 lines")
# None of these braces opens a long function.
expect(braces_elsewhere
       "/* {\n${nine} */\n#define M(x) \\\n  do { \\\n  } while (0)\nconst char* s = \"{\";\nchar c = '{';\nint t[] = {\n${nine}};\nstruct Big {\n${nine}};\nenum class E : int {\n${nine}};\nint f() { return '}' + sizeof(\"}}\"); }  // }\n"
       PASS)

if(NOT _failures STREQUAL "")
  message(FATAL_ERROR "check_function_length.cmake is wrong in these cases:\n${_failures}")
endif()
message(STATUS "check_function_length.cmake: every case as expected")
