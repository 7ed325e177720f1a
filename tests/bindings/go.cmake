# Test `bindings.go`: the Go binding (bindings/go) against this build's shared library: gofmt,
# go vet, `go test ./...` (which also checks examples/cycles against examples/host/expected.txt),
# then examples/cycles built the way bindings/go/README.md tells an embedder, against an install
# of this build through pkg-config (-tags tephra_pkgconfig). The Go caches live under WORK, so a
# fresh machine needs nothing but the go command; no module is downloaded (there are none).
#   cmake -DSOURCE_DIR=<root> -DBUILD_DIR=<build> -DLIB=<libtephra.so> -DTEPHRA=<tephra CLI>
#         -DWORK=<scratch dir> -P go.cmake
cmake_minimum_required(VERSION 3.25)
include("${CMAKE_CURRENT_LIST_DIR}/common.cmake")
include("${CMAKE_CURRENT_LIST_DIR}/../host/host_output.cmake")

find_program(GO go HINTS "$ENV{GOROOT}/bin" /usr/local/go/bin)
if(NOT GO)
  bindings_skip(bindings.go "no go command")
  return()
endif()
get_filename_component(go_bin "${GO}" DIRECTORY)
find_program(GOFMT gofmt HINTS "${go_bin}" REQUIRED)
get_filename_component(libdir "${LIB}" DIRECTORY)
set(pkg "${SOURCE_DIR}/bindings/go")

# The environment of every go command: caches under WORK, no network, this build's library
# (CGO_LDFLAGS comes before the -L of the in-tree default, so another build directory works too).
set(ENV{GOCACHE} "${WORK}/cache")
set(ENV{GOPATH} "${WORK}/gopath")
set(ENV{GOTOOLCHAIN} local)
set(ENV{GOPROXY} off)
set(ENV{GOFLAGS} -buildvcs=false)
set(ENV{CGO_ENABLED} 1)
# Go's build cache does not look at headers outside the package: key it on the public headers'
# contents, so a changed struct never runs against a stale cgo build.
file(GLOB headers "${SOURCE_DIR}/kernel/include/tephra/*.h")
list(SORT headers)
set(all "")
foreach(h IN LISTS headers)
  file(READ "${h}" text)
  string(APPEND all "${text}")
endforeach()
string(MD5 hdr_hash "${all}")
set(ENV{CGO_CFLAGS} "-DTPH_HEADERS_MD5=${hdr_hash}")
set(ENV{CGO_LDFLAGS} "-L${libdir} -Wl,-rpath,${libdir}")
set(ENV{LD_LIBRARY_PATH} "${libdir}")
set(ENV{TEPHRA_CLI} "${TEPHRA}")

bindings_run(bindings.go "gofmt" DIR "${pkg}" OUTPUT unformatted COMMAND "${GOFMT}" -l .)
if(NOT unformatted STREQUAL "")
  message("${unformatted}")
  message(FATAL_ERROR "bindings.go: files need gofmt -w (in bindings/go)")
endif()
bindings_run(bindings.go "go vet" DIR "${pkg}" COMMAND "${GO}" vet ./...)
bindings_run(bindings.go "go test" DIR "${pkg}" OUTPUT out COMMAND "${GO}" test -count=1 ./...)
message("${out}")

# An embedder's build: installed headers and library, flags from pkg-config.
set(prefix "${WORK}/prefix")
file(REMOVE_RECURSE "${prefix}")
bindings_run(bindings.go "cmake --install" COMMAND "${CMAKE_COMMAND}" --install "${BUILD_DIR}"
             --prefix "${prefix}")
unset(ENV{CGO_LDFLAGS})
set(ENV{PKG_CONFIG_PATH} "${prefix}/lib/pkgconfig")
set(ENV{LD_LIBRARY_PATH} "${prefix}/lib")
bindings_run(bindings.go "go build -tags tephra_pkgconfig" DIR "${pkg}"
             COMMAND "${GO}" build -tags tephra_pkgconfig -o "${WORK}/cycles" ./examples/cycles)
check_host_output("bindings.go: examples/cycles through pkg-config"
                  "${SOURCE_DIR}/examples/host/expected.txt" "${WORK}/cycles")
message("bindings.go: go test passed; examples/cycles built through pkg-config decides as examples/host")
