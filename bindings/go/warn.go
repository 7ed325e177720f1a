package tephra

// #include <stdint.h>
import "C"

import (
	"runtime/cgo"
	"sync"
)

var warnMu sync.Mutex // WarnFuncs may be called from OpenMP threads: one at a time

//export tephraGoWarn
func tephraGoWarn(handle C.uintptr_t, msg *C.char) {
	fn := cgo.Handle(handle).Value().(WarnFunc)
	s := C.GoString(msg)
	warnMu.Lock()
	defer warnMu.Unlock()
	fn(s)
}
