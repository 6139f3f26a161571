package fuzz

import (
	"slices"
	"sync"
)

// inOrder applies the results of the generated cases in the order of
// their case numbers, whatever order their comparisons finish in (which
// depends on how many children answer them, and on timing): which
// disagreement of a signature is shrunk, and what is counted under what,
// then follow the cases' order.
type inOrder struct {
	mu      sync.Mutex
	ahead   *sync.Cond     // signalled when next moves
	next    int            // the next case number to apply
	waiting map[int]func() // results that came before an earlier one
}

// maxAhead bounds how far past the next case to apply a result may be
// delivered: a worker with a case further ahead waits (while a slow case
// holds up the others, what waits is bounded).
const maxAhead = 16384

func newInOrder() *inOrder {
	o := &inOrder{waiting: map[int]func(){}}
	o.ahead = sync.NewCond(&o.mu)
	return o
}

// deliver applies the result of case k (apply; nil for a case that has
// none), and every result waiting for it, in order; a result that comes
// before an earlier one waits, and the caller waits while k is maxAhead
// or more past the next case to apply. Every case number given out must
// be delivered once.
func (o *inOrder) deliver(k int, apply func()) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for k-o.next >= maxAhead {
		o.ahead.Wait()
	}
	if k != o.next {
		o.waiting[k] = apply
		return
	}
	for {
		if apply != nil {
			apply()
		}
		o.next++
		var ok bool
		if apply, ok = o.waiting[o.next]; !ok {
			break
		}
		delete(o.waiting, o.next)
	}
	o.ahead.Broadcast()
}

// flush applies the results still waiting, in order: those after a case
// whose comparison was cut short at the end of the run.
func (o *inOrder) flush() {
	o.mu.Lock()
	defer o.mu.Unlock()
	keys := make([]int, 0, len(o.waiting))
	for k := range o.waiting {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if f := o.waiting[k]; f != nil {
			f()
		}
		delete(o.waiting, k)
	}
}
