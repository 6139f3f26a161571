package engine

import (
	"math/bits"
	"runtime"
	"sync"
	"unsafe"
	"weak"
)

// Release tells the engine that t, and every tensor that shares memory
// with t, will not be used again, so that the memory of t's elements may
// hold a later result. It is the Go counterpart of NumPy freeing an array
// when its last reference goes: without it, the memory of a large result
// is only reused after the garbage collector has run, and until then
// each new result is written to memory that is not in the cache (on the
// benchmarks of kernels_bench_test.go, a 4 MiB result took 2.7 times as
// long to produce as one written into the memory of a released result).
//
// Only the memory of a result of 256 KiB or more that the engine
// allocated is reused; for any other tensor (a view of an input, a tensor
// over the caller's own memory, a small result, a tensor already
// released) Release does nothing. Calling Release is never required, and
// at most once per result: the memory may already hold another result
// when a second call comes.
func Release(t *Tensor) {
	if t == nil || cap(t.Data) < recycleMinBytes {
		return
	}
	p := unsafe.SliceData(t.Data)
	buffers.Lock()
	e, ok := buffers.owned[uintptr(unsafe.Pointer(p))]
	if !ok || e.ptr.Value() != p {
		buffers.Unlock()
		return
	}
	delete(buffers.owned, uintptr(unsafe.Pointer(p)))
	buffers.Unlock()
	b := unsafe.Slice(p, e.cap)
	buffers.free[bits.Len(uint(e.cap))-1].Put(&b)
}

// recycleMinBytes is the size from which results are allocated through
// buffers and can be released. Below it the runtime's size classes
// already reuse memory quickly, and the bookkeeping would cost more than
// it saves.
const recycleMinBytes = 256 << 10

// buffers holds the large results the engine allocated and that have not
// been released (owned), and those released and not yet reused (free).
var buffers struct {
	sync.Mutex
	// owned maps the address of each buffer handed out to a weak pointer
	// to it and its capacity. The weak pointer tells a live buffer from a
	// dead one that the garbage collector has freed (its address may then
	// belong to other memory), and does not keep the buffer alive; a
	// cleanup removes the entry once the buffer is dead.
	owned map[uintptr]ownedBuffer
	// free[k] holds released buffers whose capacity is in [2^k, 2^(k+1)).
	// A sync.Pool lets the garbage collector take back buffers that stay
	// unused across two collections.
	free [bits.UintSize]sync.Pool
}

type ownedBuffer struct {
	ptr weak.Pointer[byte]
	cap int
}

// allocRecyclable returns a slice of n >= recycleMinBytes bytes with
// unspecified contents: a released buffer of at least n bytes and less
// than twice n if one is free, otherwise a new allocation from alloc. It
// records the buffer as handed out, so that Release can take it back.
func allocRecyclable(n int, alloc func(int) []byte) []byte {
	var b []byte
	pool := &buffers.free[bits.Len(uint(n))-1]
	if v := pool.Get(); v != nil {
		if free := *v.(*[]byte); cap(free) >= n {
			b = free[:n]
		} else {
			pool.Put(v)
		}
	}
	fresh := b == nil
	if fresh {
		b = alloc(n)
	}
	p := unsafe.SliceData(b)
	addr := uintptr(unsafe.Pointer(p))
	buffers.Lock()
	if buffers.owned == nil {
		buffers.owned = make(map[uintptr]ownedBuffer)
	}
	buffers.owned[addr] = ownedBuffer{ptr: weak.Make(p), cap: cap(b)}
	buffers.Unlock()
	if fresh {
		runtime.AddCleanup(p, forgetBuffer, addr)
	}
	return b[:n:n]
}

// forgetBuffer removes the entry of a dead buffer at addr from
// buffers.owned, unless the address already belongs to a new buffer.
func forgetBuffer(addr uintptr) {
	buffers.Lock()
	defer buffers.Unlock()
	if e, ok := buffers.owned[addr]; ok && e.ptr.Value() == nil {
		delete(buffers.owned, addr)
	}
}
