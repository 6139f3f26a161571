package engine

import (
	"math/bits"
	"runtime"
	"sync"
	"unsafe"
	"weak"
)

// Release tells the engine that the result t will not be used again, nor
// any tensor that shares its memory, so that the memory of its elements
// may hold a later result. It is the Go counterpart of NumPy freeing an
// array when its last reference goes: without it, the memory of a large
// result is only reused after the garbage collector has run, and until
// then each new result is written to memory that is not in the cache (on
// the benchmarks of kernels_bench_test.go, a 4 MiB result took 2.7 times
// as long to produce as one written into the memory of a released
// result).
//
// Only a result of 256 KiB or more whose memory the engine allocated for
// it is released, and only through the *Tensor the op returned: for any
// other tensor (a view, even one over another result's memory; a tensor
// over the caller's own memory; a copy of a result's header; a small
// result; a result already released) Release does nothing. Calling it is
// never required.
func Release(t *Tensor) {
	if t == nil || cap(t.Data) < recycleMinBytes {
		return
	}
	p := unsafe.SliceData(t.Data)
	addr := uintptr(unsafe.Pointer(p))
	buffers.Lock()
	e, ok := buffers.owned[addr]
	if !ok || e.result.Value() != t || e.buf.Value() != p {
		buffers.Unlock()
		return
	}
	delete(buffers.owned, addr)
	buffers.Unlock()
	b := unsafe.Slice(p, e.cap)
	buffers.free[bits.Len(uint(e.cap))-1].Put(&b)
}

// recycleMinBytes is the size from which results are allocated through
// buffers and can be released. Below it the runtime's size classes
// already reuse memory quickly, and the bookkeeping would cost more than
// it saves.
const recycleMinBytes = 256 << 10

// buffers holds the large results the engine made and that have not been
// released (owned), and the memory of those released and not yet reused
// (free).
var buffers struct {
	sync.Mutex
	// owned maps the address of the memory of each result to weak
	// pointers to that memory and to the result's header, and the
	// memory's capacity. Release takes back only the memory of the header
	// the op returned, and only while both are alive: the weak pointers
	// tell them from dead ones whose addresses the garbage collector may
	// have given to other objects, and do not keep them alive. A cleanup
	// removes the entry once the memory is dead.
	owned map[uintptr]ownedBuffer
	// free[k] holds released memory whose capacity is in [2^k, 2^(k+1)).
	// A sync.Pool lets the garbage collector take back buffers that stay
	// unused across two collections.
	free [bits.UintSize]sync.Pool
}

type ownedBuffer struct {
	buf    weak.Pointer[byte]
	result weak.Pointer[Tensor]
	cap    int
}

// allocRecyclable returns a slice of n >= recycleMinBytes bytes, with
// unspecified contents and a capacity of at least n: released memory of
// less than twice n bytes if the pool of its size offers some, otherwise
// a new allocation from allocNoZero.
func allocRecyclable(n int) []byte {
	pool := &buffers.free[bits.Len(uint(n))-1]
	if v := pool.Get(); v != nil {
		if free := *v.(*[]byte); cap(free) >= n {
			return free[:n]
		}
		pool.Put(v)
	}
	b := allocNoZero(n)
	runtime.AddCleanup(unsafe.SliceData(b), forgetBuffer, uintptr(unsafe.Pointer(unsafe.SliceData(b))))
	return b
}

// own records t as the result that owns its Data, memory from newBytes,
// so that Release(t) can take the memory back.
func own(t *Tensor) {
	if cap(t.Data) < recycleMinBytes {
		return
	}
	p := unsafe.SliceData(t.Data)
	buffers.Lock()
	defer buffers.Unlock()
	if buffers.owned == nil {
		buffers.owned = make(map[uintptr]ownedBuffer)
	}
	buffers.owned[uintptr(unsafe.Pointer(p))] = ownedBuffer{buf: weak.Make(p), result: weak.Make(t), cap: cap(t.Data)}
}

// forgetBuffer removes the entry of dead memory at addr from
// buffers.owned, unless the address already belongs to new memory.
func forgetBuffer(addr uintptr) {
	buffers.Lock()
	defer buffers.Unlock()
	if e, ok := buffers.owned[addr]; ok && e.buf.Value() == nil {
		delete(buffers.owned, addr)
	}
}
