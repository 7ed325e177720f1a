//go:build tephra_pkgconfig

package tephra

// With `-tags tephra_pkgconfig`, an installed tephra: `pkg-config --cflags --libs tephra`
// (PKG_CONFIG_PATH=<prefix>/lib/pkgconfig for a prefix pkg-config does not search by itself).

// #cgo pkg-config: tephra
import "C"
