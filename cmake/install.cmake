# `cmake --install` and `cpack -G DEB`: the wirebench binary, its man page
# (made from its --help at build time, packaging/manpage.cmake), bash
# completion, YCSB's standard workloads beside it (ycsb/standard_workloads.h
# finds them there from the binary's own location; the binary also carries a
# built-in copy), the README, LICENSE, docs/ and Debian's copyright file.
# Included from the top-level CMakeLists.txt.
#
#   cmake --install build --prefix /opt/wirebench   # bin/, share/{wirebench,man,bash-completion,doc}/
#   (cd build && cpack -G DEB)                      # wirebench_<version>_<arch>.deb and -dbgsym
include(GNUInstallDirs)

install(TARGETS wirebench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/workloads/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/wirebench/workloads)
install(FILES ${PROJECT_SOURCE_DIR}/README.md ${PROJECT_SOURCE_DIR}/LICENSE
        DESTINATION ${CMAKE_INSTALL_DOCDIR})
# Debian's machine-readable copyright file (DEP-5), where Debian looks for it.
install(FILES ${PROJECT_SOURCE_DIR}/packaging/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR})
# As docs/ beside the README, so the README's links to docs/*.md still work.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs DESTINATION ${CMAKE_INSTALL_DOCDIR})
# bash-completion loads completions/<command> on first use.
install(FILES ${PROJECT_SOURCE_DIR}/packaging/wirebench.bash-completion
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME wirebench)

# The man page, from the built binary's --help (every subcommand's too), by
# Debian's help2man (scripts/install-deps installs it). Part of `all`, so
# `cmake --build` then `cpack` carries it; `--target wirebench` alone skips it.
find_program(WIREBENCH_HELP2MAN help2man)
if(WIREBENCH_HELP2MAN)
  set(WIREBENCH_MAN_PAGE ${CMAKE_CURRENT_BINARY_DIR}/man/wirebench.1.gz)
  add_custom_command(
    OUTPUT ${WIREBENCH_MAN_PAGE}
    COMMAND ${CMAKE_COMMAND} -E make_directory ${CMAKE_CURRENT_BINARY_DIR}/man
    COMMAND ${CMAKE_COMMAND} -DWIREBENCH=$<TARGET_FILE:wirebench> -DHELP2MAN=${WIREBENCH_HELP2MAN}
            -DVERSION=${PROJECT_VERSION} -DSOURCE_DIR=${PROJECT_SOURCE_DIR}
            -DOUTPUT=${WIREBENCH_MAN_PAGE} -P ${PROJECT_SOURCE_DIR}/packaging/manpage.cmake
    DEPENDS wirebench ${PROJECT_SOURCE_DIR}/packaging/manpage.cmake
            ${PROJECT_SOURCE_DIR}/packaging/wirebench.h2m
    COMMENT "Generating the man page wirebench.1 from wirebench --help (help2man)")
  add_custom_target(wirebench_man ALL DEPENDS ${WIREBENCH_MAN_PAGE})
  install(FILES ${WIREBENCH_MAN_PAGE} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  message(STATUS "help2man not found: no man page in the install or the .deb "
                 "(apt-get install help2man, or scripts/install-deps)")
endif()

# The Debian package. Depends comes from dpkg-shlibdeps (package dpkg-dev),
# which maps each shared library the binary links (libprotobuf32,
# libjemalloc2, libgrpc++1.51 when gRPC is built, ...) to the Debian package
# that ships it. Programs wirebench runs only for some commands are
# Recommends: gnuplot draws compare's charts (skipped with a message without
# it), Valgrind counts instructions (--instructions).
#
# The binary in wirebench_*.deb is stripped (objcopy --strip-unneeded); its
# debug information and symbol table go to wirebench-dbgsym_*.ddeb
# (/usr/lib/debug/.build-id/..., found through the binary's build id). Build
# with debug information for that: -DCMAKE_BUILD_TYPE=Release
# -DWIREBENCH_DEBUG_INFO=lines (line tables and function names: what
# --instructions needs to attribute costs to layers; install the -dbgsym
# package beside wirebench for it) or RelWithDebInfo.
set(CPACK_PACKAGE_NAME wirebench)
set(CPACK_PACKAGE_VENDOR "wirebench")
# A team address, not a person: the project's name and a no-reply mailbox
# (example.org is reserved, RFC 2606: no stranger receives it).
set(CPACK_PACKAGE_CONTACT "wirebench developers <wirebench-noreply@example.org>")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${CPACK_PACKAGE_CONTACT}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "RPC/serialization stress tester: YCSB driver and HBase-style null-region server")
set(CPACK_PACKAGE_DESCRIPTION
    "wirebench drives YCSB workloads against a null-region server over several codecs and RPC\n\
layers and compares their cost (wirebench compare). YCSB's standard workloads a-f are\n\
installed in /usr/share/wirebench/workloads and built into the binary.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gnuplot-nox, valgrind")
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "openmpi-bin, zookeeper")
set(CPACK_DEBIAN_DEBUGINFO_PACKAGE ON)
include(CPack)
