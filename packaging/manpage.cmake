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

# One subcommand's CLI11 help as roff: each option a tagged paragraph (.TP,
# the option and its type in bold, its description filled by roff), headings
# and other text as paragraphs.
function(help_to_roff sub help out)
  string(REPLACE ";" "\\;" help "${help}")
  string(REPLACE "\n" ";" lines "${help}")
  set(r "")
  set(pending_desc FALSE)
  foreach(line IN LISTS lines)
    string(REPLACE "\\;" ";" line "${line}")
    roff_escape("${line}" line)
    if(line MATCHES "^  (-[^ ].*[^ ])   +([^ ].*)$")          # option and description
      string(APPEND r ".TP\n.B ${CMAKE_MATCH_1}\n${CMAKE_MATCH_2}\n")
      set(pending_desc FALSE)
    elseif(line MATCHES "^  (-[^ ].*[^ ]) *$")               # option; description below
      string(APPEND r ".TP\n.B ${CMAKE_MATCH_1}\n")
      set(pending_desc TRUE)
    elseif(line MATCHES "^                  +([^ ].*)$")     # a description line
      string(APPEND r "${CMAKE_MATCH_1}\n")
    elseif(line MATCHES "^Usage: *(.*)$")
      string(REGEX REPLACE "^${sub} " "" rest "${CMAKE_MATCH_1}")
      string(APPEND r ".PP\nUsage: \\fBwirebench ${sub}\\fR ${rest}\n")
    elseif(line MATCHES "^ *$")
      string(APPEND r ".PP\n")
    else()
      string(STRIP "${line}" line)
      string(APPEND r ".PP\n${line}\n")
    endif()
  endforeach()
  string(REGEX REPLACE "(\\.PP\n)+" ".PP\n" r "${r}")
  set(${out} "${r}" PARENT_SCOPE)
endfunction()

set(subsections "")
foreach(sub IN LISTS subs)
  execute_process(COMMAND ${WIREBENCH} ${sub} --help RESULT_VARIABLE rc OUTPUT_VARIABLE help
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR help STREQUAL "")
    message(FATAL_ERROR "manpage.cmake: '${WIREBENCH} ${sub} --help' failed (${rc}): ${err}")
  endif()
  help_to_roff(${sub} "${help}" roff)
  string(APPEND subsections ".SS \"wirebench ${sub}\"\n${roff}")
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
# CLI11's top-level usage line names no program ("Usage: [OPTIONS] SUBCOMMAND"):
# the synopsis gets it here.
file(READ ${page} text)
string(REPLACE ".SH SYNOPSIS\n.B [OPTIONS]\n" ".SH SYNOPSIS\n.B wirebench\n[\\fI\\,OPTIONS\\/\\fR]\n" text "${text}")
file(WRITE ${page} "${text}")
execute_process(COMMAND gzip -9 -n -f ${page} RESULT_VARIABLE rc ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "manpage.cmake: gzip ${page} failed (${rc}): ${err}")
endif()
