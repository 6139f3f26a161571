// Package oracle runs implementations that speak the conform/1 protocol
// (the NumPy and TF.js oracles in this directory, or any implementation
// under test) as long-lived child processes.
//
// A Client starts the child, reads its hello line and then pipelines
// requests: any number of goroutines may call Do at once, each request
// gets an id of the client's choosing, and responses are matched by id in
// whatever order the child writes them. The client survives a misbehaving
// child: a case that hangs times out, a case that kills the child or makes
// it write garbage is recorded as a crash of that case, and every other
// case still gets the child's real answer.
package oracle

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
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/conformsuite/conform/engine"
)

// Hello is what a child says about itself on its first line.
type Hello struct {
	Name    string   `json:"name"`
	Version string   `json:"version"`
	Ops     []string `json:"ops"`
}

// Response is the outcome of one request. Exactly one of Output, ErrKind,
// Skip and Crash is set.
type Response struct {
	// ID is the id the client gave the request.
	ID int64
	// Output is the result as .npy file bytes (decoded from base64).
	Output []byte
	// ErrKind and ErrMessage are set when the child rejected the case.
	ErrKind    engine.ErrorKind
	ErrMessage string
	// Skip is the child's reason for not running the case.
	Skip string
	// Crash is set when the child failed on this case: it said so ("the
	// child reported a crash: ..."), died ("child died: ..."), did not
	// answer in time ("timeout after ..."), or answered garbage ("garbage
	// response: ..."). It is also set
	// when the client could not run the case at all (the child cannot be
	// restarted, the client is closed, or ctx was done).
	Crash string
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
	// CloseTimeout bounds the wait for the child to exit in Close after
	// its stdin is closed, default 5 s; then it is killed.
	CloseTimeout time.Duration
	// MaxLine is the longest response line accepted, default 64 MiB.
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
		o.MaxLine = 64 << 20
	}
	if o.MaxStartFailures <= 0 {
		o.MaxStartFailures = 3
	}
	return o
}

// Client is a running child process speaking conform/1. Its methods are
// safe for concurrent use.
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
	restarts  int // children started after the first

	timer      *time.Timer
	timerArmed bool
	timerAt    time.Time
}

// call is one request in the client.
type call struct {
	id        int64
	line      []byte // the request, newline-terminated
	done      chan Response
	child     *child // the child it was last sent to
	sentAt    time.Time
	finished  bool
	abandoned bool // the caller gave up; drop the answer
	retries   int  // re-runs after failures that blamed nobody
}

// Start starts the child argv[0] with arguments argv[1:] and reads its
// hello line. A child that cannot start, exits, or writes anything but a
// valid hello line first is an error naming what it wrote instead.
func Start(argv []string, opts Options) (*Client, error) {
	if len(argv) == 0 {
		return nil, errors.New("oracle: empty command")
	}
	c := &Client{argv: append([]string{}, argv...), opts: opts.withDefaults(), sent: map[int64]*call{}}
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

// Hello returns the hello of the running child (of the latest one, after
// restarts).
func (c *Client) Hello() Hello {
	c.mu.Lock()
	defer c.mu.Unlock()
	h := c.hello
	h.Ops = append([]string{}, h.Ops...)
	return h
}

// Restarts returns how many times the child has been restarted.
func (c *Client) Restarts() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.restarts
}

// Do sends req (a case object with base64 .npy inputs, as
// casefile.Memory.Request builds it) and waits for the response. The
// client sets "id" itself, replacing any id in req; req is not modified.
// If ctx is done first, Do returns a Response whose Crash says so.
func (c *Client) Do(ctx context.Context, req map[string]any) Response {
	msg := make(map[string]any, len(req)+1)
	for k, v := range req {
		msg[k] = v
	}
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.mu.Unlock()
	msg["id"] = id
	line, err := json.Marshal(msg)
	if err != nil {
		return Response{ID: id, Crash: "request cannot be encoded as JSON: " + err.Error()}
	}
	return c.do(ctx, id, append(line, '\n'))
}

// DoJSON is Do for a request already encoded as one JSON object without
// an "id" field (as casefile.Memory.AppendRequest writes it): the client
// inserts the id at the front of the object. obj must be compact JSON
// with no newline; it is not modified.
func (c *Client) DoJSON(ctx context.Context, obj []byte) Response {
	c.mu.Lock()
	c.nextID++
	id := c.nextID
	c.mu.Unlock()
	body := bytes.TrimSpace(obj)
	if len(body) < 2 || body[0] != '{' || body[len(body)-1] != '}' || bytes.IndexByte(body, '\n') >= 0 {
		return Response{ID: id, Crash: "request is not one JSON object on one line"}
	}
	rest := body[1:]
	line := make([]byte, 0, len(body)+24)
	line = append(line, `{"id":`...)
	line = strconv.AppendInt(line, id, 10)
	if t := bytes.TrimSpace(rest); t[0] != '}' {
		line = append(line, ',')
	}
	line = append(line, rest...)
	return c.do(ctx, id, append(line, '\n'))
}

// do sends the request line of call id and waits for the response.
func (c *Client) do(ctx context.Context, id int64, line []byte) Response {
	cl := &call{id: id, line: line, done: make(chan Response, 1)}

	c.mu.Lock()
	switch {
	case c.closed:
		c.mu.Unlock()
		return Response{ID: id, Crash: "client is closed"}
	case c.broken != nil:
		c.mu.Unlock()
		return Response{ID: id, Crash: c.broken.Error()}
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
		cl.finished = true
		c.waiting = removeCall(c.waiting, cl)
		c.suspects = removeCall(c.suspects, cl)
	}
	return Response{ID: id, Crash: "canceled: " + ctx.Err().Error()}
}

func removeCall(list []*call, cl *call) []*call {
	for i, x := range list {
		if x == cl {
			return append(list[:i:i], list[i+1:]...)
		}
	}
	return list
}

// Close closes the child's stdin and waits for it to exit, killing it
// after Options.CloseTimeout. Requests still pending get a Crash. The
// error says why the child did not exit cleanly, or why it had to be
// given up earlier.
func (c *Client) Close() error {
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		return nil
	}
	c.closed = true
	ch := c.child
	c.child = nil
	var pending []*call
	pending = append(pending, c.waiting...)
	pending = append(pending, c.suspects...)
	c.waiting, c.suspects = nil, nil
	if ch != nil {
		pending = append(pending, ch.unfinished()...)
	}
	for _, cl := range pending {
		c.finishLocked(cl, Response{Crash: "client is closed"})
	}
	broken := c.broken
	c.timer.Stop()
	c.mu.Unlock()

	if ch == nil {
		return broken
	}
	ch.closeStdin()
	select {
	case <-ch.exited:
	case <-time.After(c.opts.CloseTimeout):
		ch.kill()
		<-ch.exited
		return fmt.Errorf("oracle %s: child did not exit within %v of closing its stdin; killed", ch.name, c.opts.CloseTimeout)
	}
	if ch.waitErr != nil && !ch.killed.Load() {
		return fmt.Errorf("oracle %s: %v%s", ch.name, ch.waitErr, ch.stderrTail())
	}
	return broken
}

// finishLocked delivers r for cl unless cl is already finished.
func (c *Client) finishLocked(cl *call, r Response) {
	if cl.finished {
		return
	}
	cl.finished = true
	delete(c.sent, cl.id)
	r.ID = cl.id
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
	if c.child.outOfOrder && !c.isolating {
		// The oldest request may only be stuck behind the one that
		// hangs: find the culprit by re-running them one at a time.
		c.failLocked(c.child, reason, nil, true)
		return
	}
	c.failLocked(c.child, reason, head, false)
}

// onLine handles one response line from ch.
func (c *Client) onLine(ch *child, line []byte) {
	var fields map[string]json.RawMessage
	var perr error
	var resp Response
	bad := ""
	id, output, idOK := plainOutput(line)
	if idOK {
		fields = map[string]json.RawMessage{} // not nil: the line is an object
		resp.Output = output
	} else {
		perr = json.Unmarshal(line, &fields)
		idRaw, hasID := fields["id"]
		idOK = perr == nil && fields != nil && hasID && json.Unmarshal(idRaw, &id) == nil
		if idOK {
			resp, bad = parseResponse(fields)
		}
	}

	c.mu.Lock()
	defer c.mu.Unlock()
	if c.child != ch {
		return // a late line from a child already replaced
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
		case perr != nil || fields == nil:
			c.failLocked(ch, "garbage response (not a JSON object): "+quote(line), nil, true)
		case !idOK:
			c.failLocked(ch, "garbage response (no integer id): "+quote(line), nil, true)
		case id >= 1 && id <= c.nextID:
			// A second answer, or one for a request this child never
			// got: not the fault of what is in flight now.
			c.failLocked(ch, "garbage response (an answer for a request that is not pending): "+quote(line), nil, false)
		default:
			c.failLocked(ch, "garbage response (unknown id): "+quote(line), nil, true)
		}
		return
	}
	if bad != "" {
		resp = Response{Crash: fmt.Sprintf("garbage response (%s): %s", bad, quote(line))}
	}
	if len(ch.inflight) > 0 && ch.inflight[0] != cl && !ch.inflight[0].finished {
		// An older request is still unanswered: this child answers out
		// of order, so a timeout cannot blame the oldest request alone.
		ch.outOfOrder = true
	}
	if cl.abandoned {
		cl.finished = true
		delete(c.sent, cl.id)
	} else {
		c.finishLocked(cl, resp)
	}
	c.afterAnswerLocked(cl)
}

// plainOutput reads the common answer `{"id":N,"output":"BASE64"}`,
// written exactly so (no spaces, N a decimal integer without leading
// zeros, the string only base64 characters), without the JSON decoder.
// ok is false for any other line, which onLine then reads the general
// way; a line plainOutput accepts means the same to both.
func plainOutput(line []byte) (id int64, output []byte, ok bool) {
	const head, mid, tail = `{"id":`, `,"output":"`, `"}`
	rest, found := bytes.CutPrefix(line, []byte(head))
	if !found {
		return 0, nil, false
	}
	n := 0
	for n < len(rest) && rest[n] >= '0' && rest[n] <= '9' {
		n++
	}
	if n == 0 || n > 18 || (n > 1 && rest[0] == '0') {
		return 0, nil, false
	}
	id, err := strconv.ParseInt(string(rest[:n]), 10, 64)
	if err != nil {
		return 0, nil, false
	}
	rest, found = bytes.CutPrefix(rest[n:], []byte(mid))
	if !found {
		return 0, nil, false
	}
	b64, found := bytes.CutSuffix(rest, []byte(tail))
	if !found {
		return 0, nil, false
	}
	for _, c := range b64 {
		if !('A' <= c && c <= 'Z' || 'a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '+' || c == '/' || c == '=') {
			return 0, nil, false
		}
	}
	output = make([]byte, base64.StdEncoding.DecodedLen(len(b64)))
	m, err := base64.StdEncoding.Decode(output, b64)
	if err != nil {
		return 0, nil, false // the general way reports it
	}
	return id, output[:m], true
}

// parseResponse checks that exactly one of output, error, skip and crash
// is present and well-formed. bad says what is wrong, if anything.
func parseResponse(fields map[string]json.RawMessage) (r Response, bad string) {
	output, hasOutput := fields["output"]
	errRaw, hasError := fields["error"]
	skip, hasSkip := fields["skip"]
	crash, hasCrash := fields["crash"]
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
		r.Crash = "the child reported a crash: " + reason
	case hasOutput:
		var s string
		if json.Unmarshal(output, &s) != nil {
			return r, "output is not a string"
		}
		data, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			return r, "output is not base64: " + err.Error()
		}
		r.Output = data
	case hasSkip:
		if json.Unmarshal(skip, &r.Skip) != nil {
			return r, "skip is not a string"
		}
		if r.Skip == "" {
			r.Skip = "(no reason given)"
		}
	default:
		var e struct {
			Kind    *string `json:"kind"`
			Message *string `json:"message"`
		}
		if json.Unmarshal(errRaw, &e) != nil || e.Kind == nil {
			return r, "error is not an object with a kind"
		}
		r.ErrKind = engine.ErrorKind(*e.Kind)
		if !r.ErrKind.Valid() {
			return r, fmt.Sprintf("unknown error kind %q", *e.Kind)
		}
		if e.Message != nil {
			r.ErrMessage = *e.Message
		}
	}
	return r, ""
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
	c.failLocked(ch, why+ch.stderrTail(), nil, true)
}

// failLocked replaces the failed child ch and decides what becomes of
// the requests in flight on it:
//
//   - culprit != nil (a timeout): the culprit gets a Crash with reason and
//     every other request in flight is re-sent to the new child.
//   - blame (a death, or garbage that names no request): the requests in
//     flight are suspects. A lone one is the culprit; several are re-run
//     one at a time, so that the one that fails again gets the Crash and
//     the others their real answers.
//   - neither (an answer for a request that is not pending, such as a
//     second answer): the child is confused but none of the requests in
//     flight is known to be at fault; they are re-run, one at a time if
//     several, and a request re-run this way more than MaxStartFailures
//     times gets the Crash.
func (c *Client) failLocked(ch *child, reason string, culprit *call, blame bool) {
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
			cl.finished = true
			continue
		}
		live = append(live, cl)
	}
	var retry []*call
	switch {
	case culprit != nil:
		c.finishLocked(culprit, Response{Crash: reason})
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
	case blame && (c.isolating || len(live) == 1):
		// While isolating, only the first suspect is in flight.
		for _, cl := range live {
			c.finishLocked(cl, Response{Crash: reason})
		}
	default:
		for _, cl := range live {
			cl.retries++
			if !blame && cl.retries > c.opts.MaxStartFailures {
				c.finishLocked(cl, Response{Crash: reason})
				continue
			}
			retry = append(retry, cl)
		}
		switch {
		case c.isolating:
			c.suspects = append(retry, c.suspects...)
		case len(retry) > 1:
			c.isolating = true
			c.suspects = retry
		default:
			c.waiting = append(retry, c.waiting...)
		}
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
		c.mu.Unlock()
		if closed {
			return
		}
		ch, hello, err := c.spawn(gen)
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
				c.finishLocked(cl, Response{Crash: c.broken.Error()})
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

	// Guarded by Client.mu.
	inflight   []*call // sent, in order; finished ones are dropped from the front
	headSince  time.Time
	outOfOrder bool     // answered a request while an older one was pending
	queue      [][]byte // lines to write

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
	if res.err != nil {
		ch.kill()
		ch.waitExit()
		status := "killed"
		if ch.waitErr != nil {
			status = ch.waitErr.Error()
		}
		if res.err == io.EOF {
			return nil, Hello{}, fmt.Errorf("oracle %s: exited before its hello line (%s)%s", c.argv[0], status, ch.stderrTail())
		}
		return nil, Hello{}, fmt.Errorf("oracle %s: reading the hello line: %v%s", c.argv[0], res.err, ch.stderrTail())
	}
	hello, err := parseHello(res.line)
	if err != nil {
		ch.kill()
		return nil, Hello{}, fmt.Errorf("oracle %s: %v", c.argv[0], err)
	}
	return ch, hello, nil
}

// parseHello parses the first line of a child.
func parseHello(line []byte) (Hello, error) {
	var msg struct {
		Hello *struct {
			Name    *string   `json:"name"`
			Version *string   `json:"version"`
			Ops     *[]string `json:"ops"`
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
	return Hello{Name: *h.Name, Version: *h.Version, Ops: *h.Ops}, nil
}

// readLine reads one line without its newline, at most max bytes long.
func (ch *child) readLine() ([]byte, error) {
	var buf []byte
	for {
		frag, err := ch.stdout.ReadSlice('\n')
		if len(buf)+len(frag) > ch.max+1 {
			// Skip the rest of the line so the message can name it.
			for err == bufio.ErrBufferFull {
				_, err = ch.stdout.ReadSlice('\n')
			}
			return nil, errLineTooLong
		}
		if err == nil {
			if buf == nil {
				return bytes.TrimSuffix(frag, []byte("\n")), nil
			}
			buf = append(buf, frag...)
			return bytes.TrimSuffix(buf, []byte("\n")), nil
		}
		if err != bufio.ErrBufferFull {
			if err == io.EOF && len(buf)+len(frag) > 0 {
				return nil, io.ErrUnexpectedEOF
			}
			return nil, err
		}
		buf = append(buf, frag...)
	}
}

var errLineTooLong = errors.New("line too long")

// readLoop reads response lines until the child's stdout ends.
func (ch *child) readLoop(c *Client) {
	defer func() {
		close(ch.readDone)
		ch.readEnd.Close()
	}()
	for {
		line, err := ch.readLine()
		if err == errLineTooLong {
			c.mu.Lock()
			if c.child == ch {
				c.failLocked(ch, fmt.Sprintf("garbage response: a line longer than %d bytes", ch.max), nil, true)
			}
			c.mu.Unlock()
			return
		}
		if err != nil {
			c.onExit(ch, err)
			return
		}
		// Copy: ReadSlice's buffer is reused.
		c.onLine(ch, append([]byte(nil), line...))
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
		ch.mu.Lock()
		lines := ch.queue
		ch.queue = nil
		ch.mu.Unlock()
		for _, l := range lines {
			if _, err := w.Write(l); err != nil {
				return
			}
		}
		if err := w.Flush(); err != nil {
			return
		}
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
