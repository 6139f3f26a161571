// Package protocol is conform/1, the protocol between conform and an
// implementation running as a child process, declared once: the hello a
// child writes first, the request lines conform sends, and the Answer a
// child gives a case. It holds both ends: the client (Client), which runs
// a child, and the server (Serve, ServeFunc), which answers requests on
// a pair of streams. docs/protocol.md describes the lines themselves.
//
// A Client starts the child, reads its hello line and then pipelines
// requests: any number of goroutines may call Do at once, each request
// gets an id of the client's choosing, and responses are matched by id in
// whatever order the child writes them. The client survives a misbehaving
// child: a case that hangs times out, a case that kills the child or makes
// it write garbage is recorded as a crash of that case, and every other
// case still gets the child's real answer.
package protocol

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/budget"
	"github.com/conformsuite/conform/internal/rawarray"
)

// Hello is what a child says about itself on its first line. The client
// cuts the name, the version and each op name to MaxNameBytes.
type Hello struct {
	Name    string   `json:"name"`
	Version string   `json:"version"`
	Ops     []string `json:"ops"`
	// Errors says what the child's errors stand for: ErrorsPython if
	// they are Python exceptions whose class each error answer gives in
	// its "type" (then errors of NumPy-defined ops are compared by class,
	// see CompareByClass), "" otherwise.
	Errors string `json:"errors,omitempty"`
	// Arrays says how the child takes and gives arrays: ArraysRaw if
	// in the raw form of package rawarray, "" if as base64 .npy files.
	Arrays string `json:"arrays,omitempty"`
}

// Same reports whether h and o say the same: name, version, ops (in
// order), errors and arrays. A child restarted, or started beside
// another, must say what the first said: the requests already encoded and
// the answers already compared assume it.
func (h Hello) Same(o Hello) bool {
	return h.Name == o.Name && h.Version == o.Version && slices.Equal(h.Ops, o.Ops) &&
		h.Errors == o.Errors && h.Arrays == o.Arrays
}

// ErrorsPython is the hello's "errors" of a child whose errors are Python
// exceptions, each error answer giving its class in "type".
const ErrorsPython = "python"

// ArraysRaw is the hello's "arrays" of a child that takes its inputs in
// the raw form of package rawarray (the dtype, the shape and the base64
// of the elements, without a .npy header) and may give its outputs so.
const ArraysRaw = "raw"

// CrashKind is the code of a crash the client detects or is told of: the
// code of an Answer that is a crash, unless the child gave a code of its
// own for a crash it reported.
type CrashKind string

// The kinds of Crash.
const (
	// CrashReported: the child answered {"id": N, "crash": "reason"}
	// ("the child reported a crash: reason").
	CrashReported CrashKind = "reported"
	// CrashDied: the child exited while it had the case ("child died:
	// exit status 3; stderr: ...").
	CrashDied CrashKind = "died"
	// CrashTimeout: no answer within Options.Timeout ("timeout after 5s").
	CrashTimeout CrashKind = "timeout"
	// CrashGarbage: the child wrote a line that is not a well-formed
	// answer ("garbage response (...): ...").
	CrashGarbage CrashKind = "garbage"
	// CrashProtocol: the child broke the protocol with an otherwise
	// readable line: a second answer for a case, an answer for a case it
	// was never sent, or a line longer than Options.MaxLine ("protocol
	// error: ...").
	CrashProtocol CrashKind = "protocol"
	// CrashCanceled: the caller's context was done first ("canceled: ...").
	CrashCanceled CrashKind = "canceled"
	// CrashUnavailable: the client is closed or cannot restart the child.
	CrashUnavailable CrashKind = "unavailable"
	// CrashBadRequest: the request cannot be sent (not one JSON object).
	CrashBadRequest CrashKind = "bad-request"
)

// LineSlack is how much longer than the base64 of the largest output a
// response line may be: room for the .npy header, the id and the JSON
// around them.
const LineSlack = 1 << 20

// MaxLineFor returns the longest response line that can carry an output
// of up to outputLimit bytes (of .npy data): its base64 plus LineSlack.
func MaxLineFor(outputLimit int64) int {
	if outputLimit < 0 {
		outputLimit = 0
	}
	return int((outputLimit+2)/3*4) + LineSlack
}

// DefaultMaxLine is MaxLineFor(engine.DefaultOutputLimit): about 1.33 GiB,
// the default Options.MaxLine.
const DefaultMaxLine = (engine.DefaultOutputLimit+2)/3*4 + LineSlack

// DefaultMaxInflightBytes is the default Options.MaxInflightBytes: 256 MiB
// of request lines in flight.
const DefaultMaxInflightBytes = 256 << 20

// The bounds on what a child says about itself and its answers, in bytes.
// Longer texts are cut (at a character boundary) and end in a marker
// saying how long they were; see Truncate.
const (
	// MaxNameBytes bounds the name and version in a hello, each op name
	// it lists, and the reason code of a skip or crash.
	MaxNameBytes = 256
	// MaxMessageBytes bounds the reason of a skip or crash and the
	// message of an error that a child gives.
	MaxMessageBytes = 4 << 10
)

// Truncate returns s if it is at most max bytes long, and otherwise its
// first max bytes or fewer (not cutting a UTF-8 character in two)
// followed by "... (truncated, N bytes)".
func Truncate(s string, max int) string {
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("... (truncated, %d bytes)", len(s))
}

// Options configure a Client. The zero value is ready to use.
type Options struct {
	// Timeout is the per-case timeout, default 10 s. A case times out when
	// it has been the oldest unanswered request for this long, so a deep
	// pipeline does not make cases queued behind others time out. The
	// timed-out case gets the Crash and the others are re-sent; but if the
	// child has been answering out of order (the oldest request may just
	// be stuck behind the one that hangs), the requests in flight are
	// re-run one at a time to find the one that hangs.
	Timeout time.Duration
	// HelloTimeout bounds the wait for the hello line, default 30 s.
	HelloTimeout time.Duration
	// CloseTimeout bounds the wait for an idle child to exit in Close
	// after its stdin is closed, default 5 s; then it is killed.
	CloseTimeout time.Duration
	// MaxLine is the longest line (hello or response, without its
	// newline) the client reads, default DefaultMaxLine.
	// The client never buffers more: as soon as a line is longer, the
	// request(s) in flight get a CrashProtocol "protocol error: response
	// line longer than N bytes" (found as for a death, see failLocked) and
	// the child is restarted. Callers that let children return outputs
	// larger than the engine's output limit need MaxLineFor(their limit).
	MaxLine int
	// MaxStartFailures is how many times in a row a restart may fail
	// (cannot start, bad hello, death before hello) before the client
	// gives up, default 3. Then every pending and later request gets a
	// Crash.
	MaxStartFailures int
	// Stderr, if not nil, receives the child's stderr. The last 4 KiB are
	// always kept for crash reasons.
	Stderr io.Writer
	// Env, if not nil, is the child's environment (as for exec.Cmd.Env).
	Env []string
	// Dir is the child's working directory ("" for the current one).
	Dir string
	// MaxInflightBytes bounds the request lines (their bytes) sent to
	// the child and not yet answered, default DefaultMaxInflightBytes. A
	// request that would go past it waits, in order, until enough of
	// the others are answered; one request is always let through on its
	// own, however large, so that every case runs.
	MaxInflightBytes int64
}

func (o Options) withDefaults() Options {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	if o.HelloTimeout <= 0 {
		o.HelloTimeout = 30 * time.Second
	}
	if o.CloseTimeout <= 0 {
		o.CloseTimeout = 5 * time.Second
	}
	if o.MaxLine <= 0 {
		o.MaxLine = DefaultMaxLine
	}
	if o.MaxStartFailures <= 0 {
		o.MaxStartFailures = 3
	}
	if o.MaxInflightBytes <= 0 {
		o.MaxInflightBytes = DefaultMaxInflightBytes
	}
	return o
}

// A Fault is a protocol error the client could not charge to a case's
// Answer: a second answer for a case whose first answer the caller had
// already received. See Client for the rule.
type Fault struct {
	ID     int64  // the case the answer named
	Reason string // "protocol error: a second answer for case 7: ..."
}

// FaultError is the error Close returns (possibly joined with another,
// see errors.As) when the child committed Faults.
type FaultError struct {
	Name   string  // the child's command
	Faults []Fault // the first maxFaults
	Total  int     // how many in all
}

func (e *FaultError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "oracle %s: %d protocol errors after their case's answer had been returned", e.Name, e.Total)
	for i, f := range e.Faults {
		if i == 3 {
			fmt.Fprintf(&b, "; ... (%d more)", e.Total-3)
			break
		}
		b.WriteString("; ")
		b.WriteString(f.Reason)
	}
	return b.String()
}

// maxFaults bounds the Faults a client keeps (it counts them all).
const maxFaults = 100

// Client is a running child process speaking conform/1. Its methods are
// safe for concurrent use.
//
// Every answer must name a request that is pending on the child; any
// other answer is a protocol error:
//
//   - An answer naming a case this child was never sent (an id the client
//     did not give out, or gave to an earlier child) is a CrashProtocol
//     "protocol error: an answer for case N, which was never sent to this
//     child". No case is known to have caused it, so it is charged like a
//     death: the child is restarted and the requests in flight are re-run
//     one at a time to find the one that makes the child write it.
//   - A second answer for a case is a protocol error of that case. The
//     client remembers every id it sent to the child, for the child's
//     life, so it always recognises one. If the case's Answer has not
//     yet been received by its caller, the client replaces it with a
//     CrashProtocol "protocol error: a second answer for case N". If the
//     caller already has it, a returned result cannot be taken back:
//     the client records a Fault instead (Faults), which Close reports as
//     a *FaultError, so that a run can fail on it. Either way each second
//     answer is reported exactly once, and the child keeps running: its
//     other answers are checked one by one as usual.
type Client struct {
	argv []string
	opts Options

	mu        sync.Mutex
	child     *child // nil while restarting
	hello     Hello
	nextID    int64
	waiting   []*call         // registered, not yet sent
	sent      map[int64]*call // sent to the current child, unanswered
	suspects  []*call         // isolation: re-run one at a time, in order
	isolating bool
	broken    error // restarts failed: every request fails
	closed    bool
	closing   *child // the child Close is waiting for, if any
	restarts  int    // children started after the first

	faults     []Fault // the first maxFaults
	faultCount int

	timer      *time.Timer
	timerArmed bool
	timerAt    time.Time

	room *budget.Budget // Options.MaxInflightBytes
}

// call is one request in the client.
type call struct {
	id        int64
	line      []byte // the request, newline-terminated
	done      chan Answer
	child     *child // the child it was last sent to
	sentAt    time.Time
	finished  bool
	abandoned bool  // the caller gave up; drop the answer
	cost      int64 // bytes taken from Client.room
}

// Start starts the child argv[0] with arguments argv[1:] and reads its
// hello line. A child that cannot start, exits, or writes anything but a
// valid hello line first is an error naming what it wrote instead.
func Start(argv []string, opts Options) (*Client, error) {
	if len(argv) == 0 {
		return nil, errors.New("oracle: empty command")
	}
	c := &Client{argv: append([]string{}, argv...), opts: opts.withDefaults(), sent: map[int64]*call{}}
	c.room = budget.New(c.opts.MaxInflightBytes)
	ch, hello, err := c.spawn(0)
	if err != nil {
		return nil, err
	}
	c.child, c.hello = ch, hello
	c.timer = time.AfterFunc(time.Hour, c.onTimer)
	c.timer.Stop()
	go ch.readLoop(c)
	return c, nil
}

// Hello returns the hello of the running child: the first child's (a
// restarted child that says anything else is not used).
func (c *Client) Hello() Hello {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := c.hello
	h.Ops = append([]string{}, h.Ops...)
	return h
}

// Faults returns the first protocol errors the client could not charge to
// a case's Answer (see Client) and how many there were in all.
func (c *Client) Faults() (first []Fault, total int) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]Fault(nil), c.faults...), c.faultCount
}

// Restarts returns how many times the child has been restarted.
func (c *Client) Restarts() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.restarts
}

// Do sends req (a case object with base64 .npy inputs, as
// casefile.Case.Request builds it) and waits for the response. The
// client sets "id" itself, replacing any id in req; req is not modified.
// If ctx is done first, Do returns an Answer whose Crash says so.
func (c *Client) Do(ctx context.Context, req map[string]any) Answer {
	a, _ := c.doMap(ctx, req)
	return a
}

// doMap is Do, and returns the id the request was given too.
func (c *Client) doMap(ctx context.Context, req map[string]any) (Answer, int64) {
	msg := make(map[string]any, len(req)+1)
	for k, v := range req {
		msg[k] = v
	}
	id := c.newID()
	msg["id"] = id
	line, err := json.Marshal(msg)
	if err != nil {
		return Crash(string(CrashBadRequest), "request cannot be encoded as JSON: "+err.Error()), id
	}
	line = append(line, '\n')
	return c.do(ctx, id, len(line), func() ([]byte, error) { return line, nil }), id
}

// DoJSON is Do for a request already encoded as one JSON object without
// an "id" field (as casefile.Case.AppendRequest writes it): the client
// inserts the id at the front of the object. obj must be compact JSON
// with no newline; it is not modified.
func (c *Client) DoJSON(ctx context.Context, obj []byte) Answer {
	id := c.newID()
	body := bytes.TrimSpace(obj)
	if len(body) < 2 || body[0] != '{' || body[len(body)-1] != '}' || bytes.IndexByte(body, '\n') >= 0 {
		return Crash(string(CrashBadRequest), "request is not one JSON object on one line")
	}
	line := withID(make([]byte, 0, len(body)+24), id, func(dst []byte) ([]byte, error) {
		return append(dst, body...), nil
	})
	return c.do(ctx, id, len(line), func() ([]byte, error) { return line, nil })
}

// DoAppend is DoJSON for a request that appendObj appends to its argument
// (as casefile.Case.AppendRequest does), and encodes only once it is
// let through (see Options.MaxInflightBytes): a request waiting for room
// holds no copy of itself. size is what the request is expected to take,
// to wait for room by; the bytes charged are then the real ones.
func (c *Client) DoAppend(ctx context.Context, size int, appendObj func(dst []byte) ([]byte, error)) Answer {
	id := c.newID()
	return c.do(ctx, id, size, func() ([]byte, error) {
		var bad error
		line := withID(make([]byte, 0, size+24), id, func(dst []byte) ([]byte, error) {
			mark := len(dst)
			dst, err := appendObj(dst)
			if err != nil {
				bad = err
				return dst, nil
			}
			body := dst[mark:]
			if len(body) < 2 || body[0] != '{' || body[len(body)-1] != '}' || bytes.IndexByte(body, '\n') >= 0 {
				bad = errors.New("request is not one JSON object on one line")
			}
			return dst, nil
		})
		return line, bad
	})
}

// newID gives out the next request id.
func (c *Client) newID() int64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.nextID++
	return c.nextID
}

// withID appends the request line {"id":id,...} to dst, the object
// appendObj appends (compact JSON, one line) with the id inserted at its
// front, and a newline.
func withID(dst []byte, id int64, appendObj func(dst []byte) ([]byte, error)) []byte {
	dst = append(dst, `{"id":`...)
	dst = strconv.AppendInt(dst, id, 10)
	mark := len(dst)
	dst, _ = appendObj(dst)
	// dst[mark:] is the object "{...}": its '{' becomes the comma after
	// the id, or goes if the object is empty.
	if len(dst) > mark+1 && dst[mark] == '{' {
		if rest := bytes.TrimSpace(dst[mark+1:]); len(rest) > 0 && rest[0] == '}' {
			dst = append(dst[:mark], '}')
		} else {
			dst[mark] = ','
		}
	}
	return append(dst, '\n')
}

// do waits for room for a request of about cost bytes, builds its line
// and sends it as call id, and waits for the response.
func (c *Client) do(ctx context.Context, id int64, cost int, build func() ([]byte, error)) Answer {
	if err := c.room.Acquire(ctx, int64(cost)); err != nil {
		return Crash(string(CrashCanceled), "canceled: "+err.Error())
	}
	line, err := build()
	if err != nil {
		c.room.Release(int64(cost))
		return Crash(string(CrashBadRequest), "request cannot be encoded: "+err.Error())
	}
	cl := &call{id: id, line: line, done: make(chan Answer, 1), cost: int64(len(line))}
	c.room.Adjust(cl.cost - int64(cost)) // what the line really takes

	c.mu.Lock()
	switch {
	case c.closed:
		c.mu.Unlock()
		c.room.Release(cl.cost)
		return Crash(string(CrashUnavailable), "client is closed")
	case c.broken != nil:
		c.mu.Unlock()
		c.room.Release(cl.cost)
		return Crash(string(CrashUnavailable), c.broken.Error())
	}
	c.waiting = append(c.waiting, cl)
	c.dispatchLocked()
	c.mu.Unlock()

	select {
	case r := <-cl.done:
		return r
	case <-ctx.Done():
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	select {
	case r := <-cl.done:
		return r
	default:
	}
	cl.abandoned = true
	if cl.child == nil {
		c.endLocked(cl)
		c.waiting = removeCall(c.waiting, cl)
		c.suspects = removeCall(c.suspects, cl)
	}
	return Crash(string(CrashCanceled), "canceled: "+ctx.Err().Error())
}

// endLocked marks cl finished without an Answer and gives back its
// room.
func (c *Client) endLocked(cl *call) {
	if cl.finished {
		return
	}
	cl.finished = true
	cl.line = nil // never sent again
	delete(c.sent, cl.id)
	c.room.Release(cl.cost)
}

func removeCall(list []*call, cl *call) []*call {
	for i, x := range list {
		if x == cl {
			return append(list[:i:i], list[i+1:]...)
		}
	}
	return list
}

// Close ends the child and waits for it to exit. An idle child has its
// stdin closed and gets Options.CloseTimeout to exit before it is killed;
// a child that still has requests unanswered is killed at once (their
// answers are no longer wanted, and it may be hung on one of them).
// Requests still pending get a CrashUnavailable "client is closed". The
// error says why the child did not exit cleanly, or why it had to be
// given up earlier; if the child committed Faults, it is or includes a
// *FaultError.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	ch := c.child
	c.child = nil
	c.closing = ch // its last lines still count for faults
	var pending []*call
	pending = append(pending, c.waiting...)
	pending = append(pending, c.suspects...)
	c.waiting, c.suspects = nil, nil
	busy := false
	if ch != nil {
		inflight := ch.unfinished()
		busy = len(inflight) > 0
		pending = append(pending, inflight...)
	}
	for _, cl := range pending {
		c.finishLocked(cl, Crash(string(CrashUnavailable), "client is closed"))
	}
	broken := c.broken
	c.timer.Stop()
	c.mu.Unlock()

	if ch == nil {
		return errors.Join(broken, c.faultError())
	}
	if busy {
		ch.kill()
		<-ch.exited
		return errors.Join(broken, c.faultError())
	}
	ch.closeStdin()
	select {
	case <-ch.exited:
	case <-time.After(c.opts.CloseTimeout):
		ch.kill()
		<-ch.exited
		return errors.Join(fmt.Errorf("oracle %s: child did not exit within %v of closing its stdin; killed", ch.name, c.opts.CloseTimeout), c.faultError())
	}
	// The child may have written more lines (a second answer) before it
	// exited: read them all before the faults are counted.
	<-ch.readDone
	if ch.waitErr != nil && !ch.killed.Load() {
		return errors.Join(fmt.Errorf("oracle %s: %v%s", ch.name, ch.waitErr, ch.stderrTail()), c.faultError())
	}
	return errors.Join(broken, c.faultError())
}

// faultError returns the *FaultError of the faults the child committed,
// or nil.
func (c *Client) faultError() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.faultCount == 0 {
		return nil
	}
	return &FaultError{Name: c.argv[0], Faults: append([]Fault(nil), c.faults...), Total: c.faultCount}
}

// finishLocked delivers r for cl unless cl is already finished.
func (c *Client) finishLocked(cl *call, r Answer) {
	if cl.finished {
		return
	}
	c.endLocked(cl)
	cl.done <- r
}

// dispatchLocked sends what may be sent now: everything waiting, or,
// while isolating the culprit of a crash, the next suspect alone.
func (c *Client) dispatchLocked() {
	ch := c.child
	if ch == nil || c.closed || c.broken != nil {
		return
	}
	if c.isolating {
		for len(c.suspects) > 0 && c.suspects[0].finished {
			c.suspects = c.suspects[1:]
		}
		if len(c.suspects) > 0 {
			if s := c.suspects[0]; s.child != ch {
				c.sendLocked(ch, s)
			}
			return
		}
		c.isolating = false
	}
	if len(c.waiting) == 0 {
		return
	}
	for _, cl := range c.waiting {
		if !cl.finished {
			c.sendLocked(ch, cl)
		}
	}
	c.waiting = c.waiting[:0]
	ch.wake()
}

// sendLocked queues cl for writing to ch.
func (c *Client) sendLocked(ch *child, cl *call) {
	cl.child = ch
	cl.sentAt = time.Now()
	c.sent[cl.id] = cl
	ch.sentIDs.add(cl.id)
	ch.inflight = append(ch.inflight, cl)
	ch.queue = append(ch.queue, cl.line)
	if len(ch.inflight) == 1 {
		ch.headSince = cl.sentAt
	}
	c.armLocked()
	ch.wake()
}

// headLocked returns the oldest unanswered call sent to the current child
// and the time from which its timeout runs.
func (c *Client) headLocked() (*call, time.Time) {
	ch := c.child
	if ch == nil {
		return nil, time.Time{}
	}
	advanced := false
	for len(ch.inflight) > 0 && ch.inflight[0].finished {
		ch.inflight[0] = nil
		ch.inflight = ch.inflight[1:]
		advanced = true
	}
	if len(ch.inflight) == 0 {
		return nil, time.Time{}
	}
	if advanced {
		ch.headSince = time.Now()
	}
	head := ch.inflight[0]
	since := ch.headSince
	if head.sentAt.After(since) {
		since = head.sentAt
	}
	return head, since
}

// armLocked makes sure the watchdog fires no later than the head's
// deadline.
func (c *Client) armLocked() {
	head, since := c.headLocked()
	if head == nil {
		return
	}
	at := since.Add(c.opts.Timeout)
	if c.timerArmed && !at.Before(c.timerAt) {
		return
	}
	c.timerArmed, c.timerAt = true, at
	c.timer.Reset(time.Until(at))
}

// onTimer is the watchdog: it times out the head call if its deadline
// has passed, and re-arms otherwise.
func (c *Client) onTimer() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.timerArmed = false
	head, since := c.headLocked()
	if head == nil || c.closed {
		return
	}
	if time.Since(since) < c.opts.Timeout {
		c.armLocked()
		return
	}
	reason := fmt.Sprintf("timeout after %v", c.opts.Timeout)
	if n := c.child.partial.Load(); n > 0 {
		reason += fmt.Sprintf(" (the child had written %d bytes of a line without ending it)", n)
	}
	if c.child.outOfOrder && !c.isolating {
		// The oldest request may only be stuck behind the one that
		// hangs: find the culprit by re-running them one at a time.
		c.failLocked(c.child, CrashTimeout, reason, nil)
		return
	}
	c.failLocked(c.child, CrashTimeout, reason, head)
}

// onLine handles one response line from ch. It keeps nothing of line,
// which the reader reuses once it returns.
func (c *Client) onLine(ch *child, line []byte) {
	bad := ""
	id, resp, idOK := plainOutput(line, ch.raw)
	object := idOK
	if !idOK {
		object, id, idOK, resp, bad = parseLine(line, ch.raw)
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if c.child != ch {
		// A late line from a child already replaced, or from the child
		// being closed: only a second answer of the latter still counts.
		if ch == c.closing && idOK && ch.sentIDs.has(id) {
			c.secondAnswerLocked(ch, id, line)
		}
		return
	}
	var cl *call
	if idOK {
		cl = c.sent[id]
		if cl != nil && (cl.child != ch || cl.finished) {
			cl = nil
		}
	}
	if cl == nil {
		switch {
		case !object:
			c.failLocked(ch, CrashGarbage, "garbage response (not a JSON object): "+quote(line), nil)
		case !idOK:
			c.failLocked(ch, CrashGarbage, "garbage response (no integer id): "+quote(line), nil)
		case ch.sentIDs.has(id):
			// Sent to this child and no longer pending: answered.
			c.secondAnswerLocked(ch, id, line)
		default:
			c.failLocked(ch, CrashProtocol, fmt.Sprintf("protocol error: an answer for case %d, which was never sent to this child: %s", id, quote(line)), nil)
		}
		return
	}
	if bad != "" {
		resp = Crash(string(CrashGarbage), fmt.Sprintf("garbage response (%s): %s", bad, quote(line)))
	}
	if len(ch.inflight) > 0 && ch.inflight[0] != cl && !ch.inflight[0].finished {
		// An older request is still unanswered: this child answers out
		// of order, so a timeout cannot blame the oldest request alone.
		ch.outOfOrder = true
	}
	if cl.abandoned {
		c.endLocked(cl)
	} else {
		c.finishLocked(cl, resp)
	}
	ch.recent[ch.recentNext%len(ch.recent)] = cl
	ch.recentNext++
	c.afterAnswerLocked(cl)
}

// parseLine reads a response line the general way, with the JSON
// decoder: whether it is a JSON object, its id (idOK if it has an integer
// one) and, if it does, its answer (bad says what is wrong with it, see
// parseResponse).
func parseLine(line []byte, raw bool) (object bool, id int64, idOK bool, resp Answer, bad string) {
	var fields map[string]json.RawMessage
	if json.Unmarshal(line, &fields) != nil || fields == nil {
		return false, 0, false, resp, ""
	}
	idRaw, hasID := fields["id"]
	if !hasID || json.Unmarshal(idRaw, &id) != nil {
		return true, 0, false, resp, ""
	}
	resp, bad = parseResponse(fields, raw)
	return true, id, true, resp, bad
}

// secondAnswerLocked handles a second answer from ch for case id (see
// Client): the case's Answer becomes a CrashProtocol if its caller has
// not received the first answer yet, and a Fault is recorded otherwise.
func (c *Client) secondAnswerLocked(ch *child, id int64, line []byte) {
	reason := fmt.Sprintf("protocol error: a second answer for case %d: %s", id, quote(line))
	for _, cl := range ch.recent {
		if cl == nil || cl.id != id || cl.abandoned {
			continue
		}
		// Under c.mu nobody else puts an Answer in cl.done; a receive
		// here races only with the caller's, and whoever wins, the
		// caller gets exactly one Answer.
		select {
		case <-cl.done:
			cl.done <- Crash(string(CrashProtocol), reason)
			return
		default:
		}
		break
	}
	c.faultCount++
	if len(c.faults) < maxFaults {
		c.faults = append(c.faults, Fault{ID: id, Reason: reason})
	}
}

// plainOutput reads the common answers without the JSON decoder:
// `{"id":N,"output":"BASE64"}`, written exactly so (no spaces, N a
// decimal integer without leading zeros, the string only base64
// characters); from a child that takes raw arrays,
// `{"id":N,"output":{"dtype":...}}` with the array as rawarray.Append
// writes it; and the errors `{"id":N,"error":{"kind":"K","message":"M"}}`
// with an optional `,"type":"T"` after the message (see plainError). ok
// is false for any other line, which onLine then reads the general way;
// a line plainOutput accepts means the same to both.
func plainOutput(line []byte, raw bool) (id int64, a Answer, ok bool) {
	const head, mid, tail = `{"id":`, `,"output":"`, `"}`
	rest, found := bytes.CutPrefix(line, []byte(head))
	if !found {
		return 0, a, false
	}
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == 0 || n > 18 || (n > 1 && rest[0] == '0') {
		return 0, a, false
	}
	id, err := strconv.ParseInt(string(rest[:n]), 10, 64)
	if err != nil {
		return 0, a, false
	}
	if obj, found := bytes.CutPrefix(rest[n:], []byte(`,"error":{"kind":"`)); found {
		a, ok = plainError(obj)
		return id, a, ok
	}
	if raw {
		if obj, found := bytes.CutPrefix(rest[n:], []byte(`,"output":`)); found && len(obj) > 0 && obj[0] == '{' {
			obj, found = bytes.CutSuffix(obj, []byte("}"))
			if !found {
				return 0, a, false
			}
			t, ok, err := rawarray.Parse(obj)
			if !ok {
				return 0, a, false
			}
			return id, rawAnswer(t, err), true
		}
	}
	rest, found = bytes.CutPrefix(rest[n:], []byte(mid))
	if !found {
		return 0, a, false
	}
	b64, found := bytes.CutSuffix(rest, []byte(tail))
	if !found {
		return 0, a, false
	}
	for _, c := range b64 {
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '=') {
			return 0, a, false
		}
	}
	output := make([]byte, base64.StdEncoding.DecodedLen(len(b64)))
	m, err := base64.StdEncoding.Decode(output, b64)
	if err != nil {
		return 0, a, false // the general way reports it
	}
	return id, EncodedOutput(output[:m]), true
}

// plainError reads the end of an error answer after `"kind":"`:
// `K","message":"M"}}` or `K","message":"M","type":"T"}}`, with K a valid
// kind, M a string without escapes or control characters in valid UTF-8
// (the JSON decoder reads it as it is written) and T a valid type (see
// ValidType). ok is false for anything else.
func plainError(b []byte) (a Answer, ok bool) {
	i := bytes.IndexByte(b, '"')
	if i < 0 {
		return a, false
	}
	kind := engine.ErrorKind(b[:i])
	rest, found := bytes.CutPrefix(b[i:], []byte(`","message":"`))
	if !kind.Valid() || !found {
		return a, false
	}
	i = bytes.IndexByte(rest, '"')
	if i < 0 {
		return a, false
	}
	msg := rest[:i]
	if !rawarray.Verbatim(msg) {
		return a, false
	}
	rest = rest[i+1:]
	typ := ""
	if t, found := bytes.CutPrefix(rest, []byte(`,"type":"`)); found {
		i = bytes.IndexByte(t, '"')
		if i < 0 || !ValidType(string(t[:i])) {
			return a, false
		}
		typ, rest = string(t[:i]), t[i+1:]
	}
	if string(rest) != "}}" {
		return a, false
	}
	return TypedError(kind, Truncate(string(msg), MaxMessageBytes), typ), true
}

// rawAnswer is the answer of an output given as a raw array that reads
// as t, or, if reading it failed with err, a crash with the code
// CrashBadOutput (as Answer.Decoded gives for an unreadable .npy file).
func rawAnswer(t *engine.Tensor, err error) Answer {
	if err != nil {
		return Crash(CrashBadOutput, "unreadable output: "+err.Error())
	}
	return Output(t)
}

// parseResponse checks that exactly one of output, error, skip and crash
// is present and well-formed. bad says what is wrong, if anything. The
// texts are cut to MaxMessageBytes, the reason code to MaxNameBytes.
func parseResponse(fields map[string]json.RawMessage, raw bool) (r Answer, bad string) {
	output, hasOutput := fields["output"]
	errRaw, hasError := fields["error"]
	skip, hasSkip := fields["skip"]
	crash, hasCrash := fields["crash"]
	var code string
	if raw, ok := fields["code"]; ok && (hasSkip || hasCrash) {
		if json.Unmarshal(raw, &code) != nil {
			return r, "code is not a string"
		}
		code = Truncate(code, MaxNameBytes)
	}
	n := 0
	for _, present := range []bool{hasOutput, hasError, hasSkip, hasCrash} {
		if present {
			n++
		}
	}
	if n != 1 {
		return r, "want exactly one of output, error, skip and crash"
	}
	switch {
	case hasCrash:
		var reason string
		if json.Unmarshal(crash, &reason) != nil {
			return r, "crash is not a string"
		}
		if reason == "" {
			reason = "(no reason given)"
		}
		if code == "" {
			code = string(CrashReported)
		}
		return Crash(code, "the child reported a crash: "+Truncate(reason, MaxMessageBytes)), ""
	case hasOutput:
		if raw && bytes.HasPrefix(bytes.TrimSpace(output), []byte("{")) {
			t, err := rawarray.Decode(output)
			return rawAnswer(t, err), ""
		}
		var s string
		if json.Unmarshal(output, &s) != nil {
			return r, "output is not a string"
		}
		data, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return r, "output is not base64: " + err.Error()
		}
		return EncodedOutput(data), ""
	case hasSkip:
		var reason string
		if json.Unmarshal(skip, &reason) != nil {
			return r, "skip is not a string"
		}
		if reason == "" {
			reason = "(no reason given)"
		}
		return Skip(Truncate(reason, MaxMessageBytes), code), ""
	}
	var e struct {
		Kind    *string `json:"kind"`
		Message *string `json:"message"`
		Type    *string `json:"type"`
	}
	if json.Unmarshal(errRaw, &e) != nil || e.Kind == nil {
		return r, "error is not an object with a kind"
	}
	kind := engine.ErrorKind(*e.Kind)
	if !kind.Valid() {
		return r, fmt.Sprintf("unknown error kind %q", *e.Kind)
	}
	var msg, typ string
	if e.Message != nil {
		msg = Truncate(*e.Message, MaxMessageBytes)
	}
	if e.Type != nil {
		if !ValidType(*e.Type) {
			return r, fmt.Sprintf("error type %q is not a class name", Truncate(*e.Type, 80))
		}
		typ = *e.Type
	}
	return TypedError(kind, msg, typ), ""
}

// afterAnswerLocked moves on after cl got its answer: the next suspect
// while isolating, and the watchdog.
func (c *Client) afterAnswerLocked(cl *call) {
	if c.isolating && len(c.suspects) > 0 && c.suspects[0] == cl {
		c.suspects = c.suspects[1:]
		c.dispatchLocked()
	}
	c.armLocked()
}

// onExit handles the end of ch's stdout: the child died (or was killed).
func (c *Client) onExit(ch *child, readErr error) {
	ch.waitExit()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.child != ch {
		return
	}
	why := "child died: "
	if ch.waitErr != nil {
		why += ch.waitErr.Error()
	} else {
		why += "exit status 0"
	}
	if readErr != nil && readErr != io.EOF {
		why += "; reading its stdout: " + readErr.Error()
	}
	c.failLocked(ch, CrashDied, why+ch.stderrTail(), nil)
}

// failLocked replaces the failed child ch and decides what becomes of
// the requests in flight on it:
//
//   - culprit != nil (a timeout): the culprit gets a Crash of kind with
//     reason and every other request in flight is re-sent to the new
//     child.
//   - culprit == nil (a death, garbage that names no request, a line too
//     long, an answer for a case never sent): the requests in flight are
//     suspects. A lone one is the culprit; several are re-run one at a
//     time, so that the one that fails again gets the Crash and the
//     others their real answers.
func (c *Client) failLocked(ch *child, kind CrashKind, reason string, culprit *call) {
	if c.child != ch {
		return
	}
	c.child = nil
	ch.kill()
	var live []*call
	for _, cl := range ch.unfinished() {
		cl.child = nil
		delete(c.sent, cl.id)
		if cl.abandoned {
			c.endLocked(cl)
			continue
		}
		live = append(live, cl)
	}
	crash := Crash(string(kind), reason)
	switch {
	case culprit != nil:
		c.finishLocked(culprit, crash)
		var retry []*call
		for _, cl := range live {
			if cl != culprit {
				retry = append(retry, cl)
			}
		}
		if c.isolating {
			c.suspects = append(c.suspects, retry...)
		} else {
			c.waiting = append(retry, c.waiting...)
		}
	case c.isolating || len(live) == 1:
		// While isolating, only the first suspect is in flight.
		for _, cl := range live {
			c.finishLocked(cl, crash)
		}
	case len(live) > 1:
		c.isolating = true
		c.suspects = live
	}
	if c.timerArmed {
		c.timer.Stop()
		c.timerArmed = false
	}
	go c.restart()
}

// restart starts a new child, retrying up to MaxStartFailures times.
func (c *Client) restart() {
	for failures := 0; ; {
		c.mu.Lock()
		closed := c.closed
		c.restarts++
		gen := c.restarts
		first := c.hello // every child so far said the first child's hello
		c.mu.Unlock()
		if closed {
			return
		}
		ch, hello, err := c.spawn(gen)
		if err == nil && !hello.Same(first) {
			// Requests are encoded by what the first hello said (raw
			// arrays or .npy files) and answers compared by its errors:
			// a child that now says otherwise cannot be used.
			ch.kill()
			ch, err = nil, fmt.Errorf("its hello %+v is not the first child's %+v", hello, first)
		}
		c.mu.Lock()
		if c.closed {
			c.mu.Unlock()
			if ch != nil {
				ch.kill()
			}
			return
		}
		if err == nil {
			c.child, c.hello = ch, hello
			go ch.readLoop(c)
			c.dispatchLocked()
			c.armLocked()
			c.mu.Unlock()
			return
		}
		failures++
		if failures >= c.opts.MaxStartFailures {
			c.broken = fmt.Errorf("oracle %s: cannot restart the child (%d failures in a row): %v", c.argv[0], failures, err)
			for _, cl := range append(c.waiting, c.suspects...) {
				c.finishLocked(cl, Crash(string(CrashUnavailable), c.broken.Error()))
			}
			c.waiting, c.suspects, c.isolating = nil, nil, false
			c.mu.Unlock()
			return
		}
		c.mu.Unlock()
		time.Sleep(time.Duration(failures) * 50 * time.Millisecond)
	}
}

// quote shortens a line for a message.
func quote(line []byte) string {
	const max = 200
	if len(line) > max {
		return fmt.Sprintf("%q... (%d bytes)", line[:max], len(line))
	}
	return fmt.Sprintf("%q", line)
}

// child is one running child process.
type child struct {
	name   string
	gen    int
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	stdout *bufio.Reader
	stderr *ring
	max    int
	raw    bool // its hello says "arrays": "raw"

	// Guarded by Client.mu.
	inflight   []*call // sent, in order; finished ones are dropped from the front
	headSince  time.Time
	outOfOrder bool     // answered a request while an older one was pending
	queue      [][]byte // lines to write
	sentIDs    idSet    // every id sent to this child
	recent     [recentCalls]*call
	recentNext int // recent is a ring of the latest calls answered

	partial atomic.Int64 // bytes read of a line not yet ended

	wakeCh   chan struct{}
	closeIn  chan struct{}
	closeOne sync.Once
	mu       *sync.Mutex // Client.mu, for the writer

	exited   chan struct{}
	waitErr  error
	killed   atomic.Bool
	readEnd  *os.File // the parent's end of the child's stdout
	readDone chan struct{}
}

// spawn starts a child and reads its hello.
func (c *Client) spawn(gen int) (*child, Hello, error) {
	cmd := exec.Command(c.argv[0], c.argv[1:]...)
	cmd.Env = c.opts.Env
	cmd.Dir = c.opts.Dir
	cmd.WaitDelay = time.Second
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, Hello{}, err
	}
	// The child's stdout is a pipe of our own, not cmd.StdoutPipe: Wait
	// closes that one as soon as the process exits, which could drop
	// answers the child wrote just before dying.
	stdout, stdoutW, err := os.Pipe()
	if err != nil {
		stdin.Close()
		return nil, Hello{}, err
	}
	cmd.Stdout = stdoutW
	rb := &ring{}
	if c.opts.Stderr != nil {
		cmd.Stderr = io.MultiWriter(rb, c.opts.Stderr)
	} else {
		cmd.Stderr = rb
	}
	ch := &child{
		name:     c.argv[0],
		gen:      gen,
		cmd:      cmd,
		stdin:    stdin,
		stdout:   bufio.NewReaderSize(stdout, 1<<16),
		stderr:   rb,
		max:      c.opts.MaxLine,
		wakeCh:   make(chan struct{}, 1),
		closeIn:  make(chan struct{}),
		mu:       &c.mu,
		exited:   make(chan struct{}),
		readEnd:  stdout,
		readDone: make(chan struct{}),
	}
	err = cmd.Start()
	stdoutW.Close()
	if err != nil {
		stdout.Close()
		return nil, Hello{}, fmt.Errorf("oracle: starting %s: %w", c.argv[0], err)
	}
	go func() {
		ch.waitErr = cmd.Wait()
		close(ch.exited)
		// A grandchild may hold the child's stdout open: stop reading
		// soon after the child itself is gone.
		select {
		case <-ch.readDone:
		case <-time.After(2 * time.Second):
			stdout.Close()
		}
	}()
	go ch.writeLoop()

	type result struct {
		line []byte
		err  error
	}
	got := make(chan result, 1)
	go func() {
		line, err := ch.readLine()
		if err != nil {
			close(ch.readDone)
			ch.readEnd.Close()
		}
		got <- result{line, err}
	}()
	var res result
	select {
	case res = <-got:
	case <-time.After(c.opts.HelloTimeout):
		ch.kill()
		<-got
		return nil, Hello{}, fmt.Errorf("oracle %s: no hello line within %v%s", c.argv[0], c.opts.HelloTimeout, ch.stderrTail())
	}
	if res.err == errLineTooLong {
		ch.kill()
		return nil, Hello{}, fmt.Errorf("oracle %s: protocol error: hello line longer than %d bytes%s", c.argv[0], c.opts.MaxLine, ch.stderrTail())
	}
	if res.err != nil {
		// Its stdout ended: the child is exiting, or closed it. Say
		// which, and how it exited.
		before := "before its hello"
		if res.err == io.ErrUnexpectedEOF {
			before = "before ending its hello line"
		} else if res.err != io.EOF {
			before = fmt.Sprintf("before its hello (reading its stdout: %v)", res.err)
		}
		what := ""
		select {
		case <-ch.exited:
			what = exitStatus(ch.cmd.ProcessState) + " " + before
		case <-time.After(2 * time.Second):
			ch.kill()
			<-ch.exited
			what = "closed its stdout " + before + "; killed"
		}
		return nil, Hello{}, fmt.Errorf("oracle %s: child %s%s", c.argv[0], what, ch.stderrTail())
	}
	hello, err := parseHello(res.line)
	if err != nil {
		ch.kill()
		return nil, Hello{}, fmt.Errorf("oracle %s: %v", c.argv[0], err)
	}
	ch.raw = hello.Arrays == ArraysRaw
	return ch, hello, nil
}

// exitStatus describes how a process ended: "exited with status 3" or
// "was killed by a signal (terminated)".
func exitStatus(ps *os.ProcessState) string {
	if ps == nil {
		return "ended"
	}
	if ws, ok := ps.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return fmt.Sprintf("was killed by a signal (%v)", ws.Signal())
	}
	return fmt.Sprintf("exited with status %d", ps.ExitCode())
}

// parseHello parses the first line of a child. The name, version and op
// names are cut to MaxNameBytes.
func parseHello(line []byte) (Hello, error) {
	var msg struct {
		Hello *struct {
			Name    *string   `json:"name"`
			Version *string   `json:"version"`
			Ops     *[]string `json:"ops"`
			Errors  string    `json:"errors"`
			Arrays  string    `json:"arrays"`
		} `json:"hello"`
	}
	dec := json.NewDecoder(bytes.NewReader(line))
	if err := dec.Decode(&msg); err != nil || msg.Hello == nil {
		return Hello{}, fmt.Errorf(`want a hello line {"hello": {"name": ..., "version": ..., "ops": [...]}} first, got %s`, quote(line))
	}
	h := msg.Hello
	if h.Name == nil || h.Version == nil || h.Ops == nil {
		return Hello{}, fmt.Errorf("hello line lacks name, version or ops: %s", quote(line))
	}
	ops := make([]string, len(*h.Ops))
	for i, op := range *h.Ops {
		ops[i] = Truncate(op, MaxNameBytes)
	}
	hello := Hello{Name: Truncate(*h.Name, MaxNameBytes), Version: Truncate(*h.Version, MaxNameBytes), Ops: ops}
	if h.Errors == ErrorsPython {
		hello.Errors = ErrorsPython
	}
	if h.Arrays == ArraysRaw {
		hello.Arrays = ArraysRaw
	}
	return hello, nil
}

// readLine reads one line without its newline. A line longer than
// ch.max is errLineTooLong as soon as more than ch.max bytes of it have
// been read: the reader never holds more than ch.max bytes of a line, and
// does not wait for the end of one it will not accept.
func (ch *child) readLine() ([]byte, error) {
	var buf []byte
	defer ch.partial.Store(0)
	for {
		if _, err := ch.stdout.Peek(1); err != nil { // waits for data
			if err == io.EOF && len(buf) > 0 {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		b, _ := ch.stdout.Peek(ch.stdout.Buffered())
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			if len(buf)+i > ch.max {
				return nil, errLineTooLong
			}
			line := b[:i] // valid until the next read
			if buf != nil {
				line = append(buf, line...)
			}
			ch.stdout.Discard(i + 1)
			return line, nil
		}
		if len(buf)+len(b) > ch.max {
			return nil, errLineTooLong
		}
		buf = append(buf, b...)
		ch.stdout.Discard(len(b))
		ch.partial.Store(int64(len(buf)))
	}
}

var errLineTooLong = errors.New("line too long")

// readLoop reads response lines until the child's stdout ends or a line
// is too long.
func (ch *child) readLoop(c *Client) {
	defer func() {
		close(ch.readDone)
		ch.readEnd.Close()
	}()
	for {
		line, err := ch.readLine()
		if err == errLineTooLong {
			c.mu.Lock()
			c.failLocked(ch, CrashProtocol, fmt.Sprintf("protocol error: response line longer than %d bytes", ch.max), nil)
			c.mu.Unlock()
			return
		}
		if err != nil {
			c.onExit(ch, err)
			return
		}
		// line is valid until the next read: onLine keeps nothing of it.
		c.onLine(ch, line)
	}
}

// wake tells the writer there is something to write.
func (ch *child) wake() {
	select {
	case ch.wakeCh <- struct{}{}:
	default:
	}
}

// writeLoop writes queued lines to the child's stdin.
func (ch *child) writeLoop() {
	w := bufio.NewWriterSize(ch.stdin, 1<<16)
	defer ch.stdin.Close()
	var spare [][]byte
	for {
		select {
		case <-ch.wakeCh:
		case <-ch.closeIn:
			ch.mu.Lock()
			lines := ch.queue
			ch.queue = nil
			ch.mu.Unlock()
			for _, l := range lines {
				w.Write(l)
			}
			w.Flush()
			return
		case <-ch.exited:
			return
		}
		// The queue and spare swap: the lines queued from now on go to
		// the slice this loop wrote last time.
		ch.mu.Lock()
		lines := ch.queue
		ch.queue = spare[:0]
		ch.mu.Unlock()
		for _, l := range lines {
			if _, err := w.Write(l); err != nil {
				return
			}
		}
		if err := w.Flush(); err != nil {
			return
		}
		clear(lines) // keeps no line alive
		spare = lines
	}
}

// closeStdin makes the writer flush and close the child's stdin.
func (ch *child) closeStdin() {
	ch.closeOne.Do(func() { close(ch.closeIn) })
}

// kill kills the child process (it may already be gone).
func (ch *child) kill() {
	ch.killed.Store(true)
	ch.cmd.Process.Kill()
	ch.closeStdin()
}

// waitExit waits for the process to exit after its stdout ended, killing
// it if it lingers.
func (ch *child) waitExit() {
	select {
	case <-ch.exited:
	case <-time.After(2 * time.Second):
		ch.kill()
		<-ch.exited
	}
}

// unfinished returns the requests sent to ch that have no answer yet.
func (ch *child) unfinished() []*call {
	var out []*call
	for _, cl := range ch.inflight {
		if !cl.finished {
			out = append(out, cl)
		}
	}
	ch.inflight = nil
	return out
}

// stderrTail returns "; stderr: ..." with the last lines the child wrote
// to stderr, or "".
func (ch *child) stderrTail() string {
	s := strings.TrimSpace(ch.stderr.String())
	if s == "" {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > 5 {
		lines = lines[len(lines)-5:]
	}
	return "; stderr: " + strings.Join(lines, " | ")
}

// recentCalls is how many answered calls a child remembers, so that a
// second answer can still replace an Answer its caller has not taken.
const recentCalls = 256

// idSet is a set of request ids, one bit each from the smallest id added
// on: ids are given out in order, so the ids sent to one child are
// mostly a contiguous range.
type idSet struct {
	base  int64 // a multiple of 64
	words []uint64
}

func (s *idSet) add(id int64) {
	w := id &^ 63
	switch {
	case len(s.words) == 0:
		s.base = w
	case w < s.base:
		s.words = append(make([]uint64, (s.base-w)/64), s.words...)
		s.base = w
	}
	i := int((w - s.base) / 64)
	for len(s.words) <= i {
		s.words = append(s.words, 0)
	}
	s.words[i] |= 1 << uint(id&63)
}

func (s *idSet) has(id int64) bool {
	if len(s.words) == 0 || id < s.base {
		return false
	}
	i := (id - s.base) / 64
	return i < int64(len(s.words)) && s.words[i]&(1<<uint(id&63)) != 0
}

// ring keeps the last ringSize bytes written to it.
type ring struct {
	mu   sync.Mutex
	buf  []byte
	full bool
}

const ringSize = 4 << 10

func (r *ring) Write(p []byte) (int, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.buf = append(r.buf, p...)
	if len(r.buf) > ringSize {
		r.buf = append(r.buf[:0], r.buf[len(r.buf)-ringSize:]...)
		r.full = true
	}
	return len(p), nil
}

func (r *ring) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	s := string(r.buf)
	if r.full {
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
	}
	return s
}
