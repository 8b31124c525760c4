# Makes wirebench.1.gz from the built binary's own help, with Debian's
# help2man: the top-level `wirebench --help` (NAME, SYNOPSIS, OPTIONS and the
# list of subcommands), then every subcommand's `--help` in SUBCOMMAND OPTIONS,
# and the sections help does not carry (exit status, files, environment),
# from packaging/wirebench.h2m. Run at build time by cmake/install.cmake:
#   cmake -DWIREBENCH=<binary> -DHELP2MAN=<help2man> -DVERSION=<x.y.z>
#         -DSOURCE_DIR=<repo> -DOUTPUT=<dir>/wirebench.1.gz -P packaging/manpage.cmake
foreach(v WIREBENCH HELP2MAN VERSION SOURCE_DIR OUTPUT)
  if(NOT ${v})
    message(FATAL_ERROR "manpage.cmake: pass -D${v}=...")
  endif()
endforeach()
get_filename_component(out_dir ${OUTPUT} DIRECTORY)
set(include_file ${out_dir}/wirebench.h2m)
set(page ${out_dir}/wirebench.1)

execute_process(COMMAND ${WIREBENCH} --help RESULT_VARIABLE rc OUTPUT_VARIABLE top
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "manpage.cmake: '${WIREBENCH} --help' failed (${rc}): ${err}")
endif()

# The subcommands are the indented words under CLI11's "Subcommands:" (or
# "SUBCOMMANDS:") heading.
set(subs "")
set(in_subs FALSE)
string(REPLACE "\n" ";" lines "${top}")
foreach(line IN LISTS lines)
  if(line MATCHES "^[A-Za-z][A-Za-z ]*:$")
    if(line MATCHES "^(SUBCOMMANDS|Subcommands):$")
      set(in_subs TRUE)
    else()
      set(in_subs FALSE)
    endif()
  elseif(in_subs AND line MATCHES "^  ([a-z][a-z0-9-]*)( |$)")
    list(APPEND subs ${CMAKE_MATCH_1})
  endif()
endforeach()
if(NOT subs)
  message(FATAL_ERROR "manpage.cmake: found no subcommands in '${WIREBENCH} --help':\n${top}")
endif()

# roff: a backslash is \e; a line starting with . or ' would be a request.
function(roff_escape text out)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out} "${text}" PARENT_SCOPE)
endfunction()

set(subsections "")
foreach(sub IN LISTS subs)
  execute_process(COMMAND ${WIREBENCH} ${sub} --help RESULT_VARIABLE rc OUTPUT_VARIABLE help
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR help STREQUAL "")
    message(FATAL_ERROR "manpage.cmake: '${WIREBENCH} ${sub} --help' failed (${rc}): ${err}")
  endif()
  roff_escape("${help}" help)
  string(APPEND subsections ".SS \"wirebench ${sub}\"\n.nf\n${help}\n.fi\n")
endforeach()

file(READ ${SOURCE_DIR}/packaging/wirebench.h2m fixed)
file(WRITE ${include_file} "${fixed}\n[SUBCOMMAND OPTIONS]\n${subsections}")

execute_process(COMMAND ${HELP2MAN} --no-info --no-discard-stderr
                        --version-string=${VERSION}
                        "--name=YCSB driver and HBase-style null-region server that measures RPC and codec cost"
                        --section=1 --include=${include_file} --output=${page} ${WIREBENCH}
                RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "manpage.cmake: help2man failed (${rc}): ${err}")
endif()
execute_process(COMMAND gzip -9 -n -f ${page} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "manpage.cmake: gzip ${page} failed (${rc}): ${err}")
endif()
