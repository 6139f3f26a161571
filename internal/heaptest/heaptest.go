// Package heaptest measures the peak heap of a piece of code, for tests
// that bound memory.
package heaptest

import (
	"runtime"
	"time"
)

// Growth runs f and returns how far the heap in use (runtime.MemStats
// HeapInuse) rose above what it was before f, at its highest, sampled
// every millisecond while f runs.
func Growth(f func()) uint64 {
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	base := ms.HeapInuse
	peak := base
	stop, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		tick := time.NewTicker(time.Millisecond)
		defer tick.Stop()
		var ms runtime.MemStats
		for {
			runtime.ReadMemStats(&ms)
			peak = max(peak, ms.HeapInuse)
			select {
			case <-stop:
				return
			case <-tick.C:
			}
		}
	}()
	f()
	close(stop)
	<-done
	runtime.ReadMemStats(&ms)
	peak = max(peak, ms.HeapInuse)
	return peak - base
}
