// Package pool runs up to N children of one conform/1 command as one
// client, so that a slow implementation works on every core. Each child
// is a protocol.Client of its own, with its own restarts and culprit
// isolation: a case that kills or hangs a child is charged within that
// child, and the other children never notice. A request goes to the
// child with the fewest requests in flight (a child that cannot be
// restarted any more gets none while another can); which child answers a case
// does not change its answer, so a run's results are those of one child.
//
// Children are started as the work shows they pay: the first at Start
// (its hello is the pool's), each further one only when a request finds
// every child busy and the run has already lasted as long as starting the
// first child took (a run shorter than a child's start-up gains nothing
// from another child), one at a time. A run of a few cases uses one child.
//
// The bytes of the requests in flight are bounded across all children
// together (Options.MaxInflightBytes is the pool's total, not each
// child's).
package pool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/conformsuite/conform/internal/budget"
	"github.com/conformsuite/conform/internal/protocol"
)

// Pool is up to Jobs children of one command behind the methods of a
// protocol.Client. Its methods are safe for concurrent use.
type Pool struct {
	argv  []string
	opts  protocol.Options
	jobs  int
	hello protocol.Hello // the first child's
	// startCost is how long starting the first child took: a further
	// child is started only once the run has lasted that long.
	startCost time.Duration
	room      *budget.Budget // the request bytes in flight, all children

	mu       sync.Mutex
	members  []*member
	began    time.Time // the first request
	starting bool      // a child is being started
	stopped  bool      // a child could not join: no more are started
	closed   bool
	errs     []error // why children could not join (Close returns them)
	growing  sync.WaitGroup
}

// member is one child and the requests it has in flight.
type member struct {
	client   *protocol.Client
	inflight int
	// broken is set once the child answered that it is unavailable
	// (its restarts failed): it gets no more cases while another child
	// can take them.
	broken bool
}

// Start starts the first child of argv (see protocol.Start) and returns
// the pool that may grow to jobs children (at least 1), each started with
// opts. opts.MaxInflightBytes (default protocol.DefaultMaxInflightBytes)
// bounds the request bytes in flight to all the children together.
func Start(argv []string, opts protocol.Options, jobs int) (*Pool, error) {
	if opts.MaxInflightBytes <= 0 {
		opts.MaxInflightBytes = protocol.DefaultMaxInflightBytes
	}
	began := time.Now()
	c, err := protocol.Start(argv, opts)
	if err != nil {
		return nil, err
	}
	return &Pool{
		argv: argv, opts: opts, jobs: max(jobs, 1), hello: c.Hello(),
		startCost: time.Since(began),
		room:      budget.New(opts.MaxInflightBytes),
		members:   []*member{{client: c}},
	}, nil
}

// Hello returns the first child's hello; every other child said the same.
func (p *Pool) Hello() protocol.Hello {
	h := p.hello
	h.Ops = slices.Clone(h.Ops)
	return h
}

// Children returns how many children have been started, counting one
// being started.
func (p *Pool) Children() int {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.starting {
		return len(p.members) + 1
	}
	return len(p.members)
}

// Restarts returns the restarts of all the children.
func (p *Pool) Restarts() int {
	n := 0
	for _, m := range p.all() {
		n += m.client.Restarts()
	}
	return n
}

// Faults returns the protocol errors of all the children that no case's
// Answer could show (see protocol.Client.Faults), child by child, and how
// many there were in all.
func (p *Pool) Faults() (first []protocol.Fault, total int) {
	for _, m := range p.all() {
		f, n := m.client.Faults()
		first, total = append(first, f...), total+n
	}
	return first, total
}

// all returns the children started.
func (p *Pool) all() []*member {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.members)
}

// Do is protocol.Client.Do: the request req (any "id" in it is replaced).
func (p *Pool) Do(ctx context.Context, req map[string]any) protocol.Answer {
	msg := make(map[string]any, len(req))
	for k, v := range req {
		if k != "id" {
			msg[k] = v
		}
	}
	obj, err := json.Marshal(msg)
	if err != nil {
		return protocol.Crash(string(protocol.CrashBadRequest), "request cannot be encoded as JSON: "+err.Error())
	}
	return p.DoJSON(ctx, obj)
}

// DoJSON is protocol.Client.DoJSON on one of the children.
func (p *Pool) DoJSON(ctx context.Context, obj []byte) protocol.Answer {
	return p.run(ctx, len(obj), func(c *protocol.Client) protocol.Answer { return c.DoJSON(ctx, obj) })
}

// DoAppend is protocol.Client.DoAppend on one of the children; size, the
// request's expected size, is what it takes from the pool's bound.
func (p *Pool) DoAppend(ctx context.Context, size int, appendObj func(dst []byte) ([]byte, error)) protocol.Answer {
	return p.run(ctx, size, func(c *protocol.Client) protocol.Answer { return c.DoAppend(ctx, size, appendObj) })
}

// run waits for room for a request of size bytes and runs it with do on
// the child with the fewest requests in flight.
func (p *Pool) run(ctx context.Context, size int, do func(*protocol.Client) protocol.Answer) protocol.Answer {
	if err := p.room.Acquire(ctx, int64(size)); err != nil {
		return protocol.Crash(string(protocol.CrashCanceled), "canceled: "+err.Error())
	}
	defer p.room.Release(int64(size))
	m := p.pick()
	a := do(m.client)
	p.done(m, a)
	return a
}

// pick returns the child with the fewest requests in flight (the first
// such; one not broken while there is one), counting the request given
// it, and starts another child if every child is busy and the run has
// lasted as long as a start.
func (p *Pool) pick() *member {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.began.IsZero() {
		p.began = time.Now()
	}
	best := p.members[0]
	for _, m := range p.members[1:] {
		if (best.broken && !m.broken) || (m.broken == best.broken && m.inflight < best.inflight) {
			best = m
		}
	}
	if best.inflight > 0 && len(p.members) < p.jobs && !p.starting && !p.stopped && !p.closed &&
		time.Since(p.began) >= p.startCost {
		p.starting = true
		p.growing.Add(1)
		go p.grow()
	}
	best.inflight++
	return best
}

// done counts a request of m as answered with a, and marks m broken if
// a says the child is unavailable (before the pool is closed).
func (p *Pool) done(m *member, a protocol.Answer) {
	p.mu.Lock()
	m.inflight--
	if a.IsCrash() && a.Code() == string(protocol.CrashUnavailable) && !p.closed {
		m.broken = true
	}
	p.mu.Unlock()
}

// grow starts one more child. One that cannot start, or whose hello is
// not the first child's, is not used, and no further child is started;
// Close reports why.
func (p *Pool) grow() {
	defer p.growing.Done()
	c, err := protocol.Start(p.argv, p.opts)
	if err == nil && !c.Hello().Same(p.hello) {
		err = fmt.Errorf("its hello %+v is not the first child's %+v", c.Hello(), p.hello)
		c.Close()
	}
	p.mu.Lock()
	p.starting = false
	closed := p.closed
	switch {
	case err != nil:
		p.stopped = true
		p.errs = append(p.errs, fmt.Errorf("oracle %s: child %d not used: %w", p.argv[0], len(p.members)+1, err))
	case !closed:
		p.members = append(p.members, &member{client: c})
	}
	p.mu.Unlock()
	if err == nil && closed {
		c.Close() // started too late: Close waits for it to end
	}
}

// Close stops every child (see protocol.Client.Close) and returns their
// errors: the *protocol.FaultError of each child's faults merged into one
// (their Faults child by child, their Total summed), joined with the
// other errors, and with why a child could not join the pool.
func (p *Pool) Close() error {
	p.mu.Lock()
	p.closed = true
	p.mu.Unlock()
	p.growing.Wait()
	var errs []error
	var faults *protocol.FaultError
	for _, m := range p.all() {
		for _, err := range unjoin(m.client.Close()) {
			var fe *protocol.FaultError
			if !errors.As(err, &fe) {
				errs = append(errs, err)
				continue
			}
			if faults == nil {
				faults = &protocol.FaultError{Name: fe.Name}
			}
			faults.Faults = append(faults.Faults, fe.Faults...)
			faults.Total += fe.Total
		}
	}
	if faults != nil {
		errs = append(errs, faults)
	}
	p.mu.Lock()
	errs = append(errs, p.errs...)
	p.mu.Unlock()
	return errors.Join(errs...)
}

// unjoin returns the errors err joins (errors.Join), or err alone.
func unjoin(err error) []error {
	if err == nil {
		return nil
	}
	if j, ok := err.(interface{ Unwrap() []error }); ok {
		return j.Unwrap()
	}
	return []error{err}
}
