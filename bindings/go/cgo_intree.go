//go:build !tephra_pkgconfig

package tephra

// The default build links the library of this source tree: headers from kernel/include, the
// shared library from build/lib (as `cmake -P cmake/test.cmake` or `cmake -P cmake/main.cmake`
// leaves it), found at run time through an rpath. Build with `-tags tephra_pkgconfig` to link an
// installed tephra through pkg-config instead (README.md).

// #cgo CFLAGS: -I${SRCDIR}/../../kernel/include
// #cgo LDFLAGS: -L${SRCDIR}/../../build/lib -Wl,-rpath,${SRCDIR}/../../build/lib -ltephra
import "C"
