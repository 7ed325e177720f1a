package tephra

// #include "shim.h"
import "C"

import (
	"unsafe"
)

// Quantity parses a Kubernetes quantity ("2", "500m", "4Gi", "1e3") into the exact unit of the
// named resource: millicores for cpu, bytes for memory, ephemeral-storage and hugepages-*,
// milli-units for everything else.
func Quantity(resource, value string) (int64, error) {
	cres, cval := C.CString(resource), C.CString(value)
	defer C.free(unsafe.Pointer(cres))
	defer C.free(unsafe.Pointer(cval))
	unit := C.tph_res_unit_of(cres, C.size_t(len(resource)))
	var out C.int64_t
	var why *C.char
	if rc := C.tph_quantity_parse(cval, C.size_t(len(value)), unit, &out, &why); rc < 0 {
		return 0, errorf(rc, "%s: %q: %s", resource, value, goString(why))
	}
	return int64(out), nil
}

// ParseResources reads Kubernetes quantities by resource name ({"cpu": "2", "memory": "4Gi"}).
func ParseResources(q map[string]string) (Resources, error) {
	out := make(Resources, len(q))
	for _, name := range sortedKeys(q) {
		v, err := Quantity(name, q[name])
		if err != nil {
			return nil, err
		}
		out[name] = v
	}
	return out, nil
}

// MustResources is ParseResources for literals; it panics on a bad quantity.
func MustResources(q map[string]string) Resources {
	r, err := ParseResources(q)
	if err != nil {
		panic(err)
	}
	return r
}
