# `cmake --install` and `cpack -G DEB`: the wirebench binary, YCSB's standard
# workloads beside it (bench/ycsb/standard_workloads.h finds them there from
# the binary's own location; the binary also carries a built-in copy), the
# README and docs. Included from the top-level CMakeLists.txt.
#
#   cmake --install build --prefix /opt/wirebench   # bin/, share/wirebench/, share/doc/wirebench/
#   (cd build && cpack -G DEB)                      # wirebench_<version>_<arch>.deb
include(GNUInstallDirs)

install(TARGETS wirebench RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/workloads/
        DESTINATION ${CMAKE_INSTALL_DATADIR}/wirebench/workloads)
install(FILES ${PROJECT_SOURCE_DIR}/README.md DESTINATION ${CMAKE_INSTALL_DOCDIR})
# As docs/ beside the README, so the README's links to docs/*.md still work.
install(DIRECTORY ${PROJECT_SOURCE_DIR}/docs DESTINATION ${CMAKE_INSTALL_DOCDIR})

# The Debian package. Depends comes from dpkg-shlibdeps (package dpkg-dev),
# which maps each shared library the binary links (libprotobuf32,
# libjemalloc2, libgrpc++1.51 when gRPC is built, ...) to the Debian package
# that ships it. Programs wirebench runs only for some commands are
# Recommends: gnuplot draws compare's charts (skipped with a message without
# it), Valgrind counts instructions (--instructions). The binary is not
# stripped: --instructions attributes costs by function name.
set(CPACK_PACKAGE_NAME wirebench)
set(CPACK_PACKAGE_VENDOR "wirebench")
set(CPACK_PACKAGE_CONTACT "wirebench maintainers <maintainers@users.noreply.a-seed-412cfe56.example>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "RPC/serialization stress tester: YCSB driver and HBase-style null-region server")
set(CPACK_PACKAGE_DESCRIPTION
    "wirebench drives YCSB workloads against a null-region server over several codecs and RPC\n\
layers and compares their cost (wirebench compare). YCSB's standard workloads a-f are\n\
installed in /usr/share/wirebench/workloads and built into the binary.")
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION utils)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "gnuplot-nox, valgrind")
include(CPack)
