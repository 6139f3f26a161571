package protocol

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/conformsuite/conform/casefile"
	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/engine/npy"
	"github.com/conformsuite/conform/internal/budget"
)

// MaxRequestLine bounds one request line.
const MaxRequestLine = 1 << 30

// MaxPending bounds the bytes of the request lines read and not yet
// answered: the reader waits for answers before it reads further. A line
// is read before it is counted, so the lines held are at most MaxPending
// plus the one being read; a line larger than MaxPending is answered
// alone.
const MaxPending = 256 << 20

// maxPending is MaxPending; tests lower it.
var maxPending int64 = MaxPending

// Output is the output of a response object, a tensor: it is written as
// the base64 of its .npy file (as npy.Encode writes it), streamed from
// the tensor's bytes without a copy of the file or of its base64.
type Output struct{ T *engine.Tensor }

// MarshalJSON returns the base64 of the .npy file as a JSON string: what
// a response line holds, for writers other than ServeFunc's.
func (o Output) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('"')
	enc := base64.NewEncoder(base64.StdEncoding, &b)
	if err := npy.Write(enc, o.T); err != nil {
		return nil, err
	}
	enc.Close()
	b.WriteByte('"')
	return b.Bytes(), nil
}

// Serve answers the requests read from r on w with the engine until r
// ends. Requests are evaluated concurrently and answered as they finish
// (the protocol allows any order). A line without an id is skipped.
func Serve(r io.Reader, w io.Writer, hello Hello) error {
	return ServeFunc(r, w, hello, EngineAnswer)
}

// ServeFunc is Serve with another answer function: answer returns the
// response object for one request line, or nil to send nothing. An
// "output" of type Output is streamed (see Output). The request lines
// read ahead of their answers are bounded by MaxPending bytes.
func ServeFunc(r io.Reader, w io.Writer, hello Hello, answer func(line []byte) map[string]any) error {
	out := bufio.NewWriterSize(w, 1<<16)
	var mu sync.Mutex
	write := func(v map[string]any) error {
		mu.Lock()
		defer mu.Unlock()
		if err := writeResponse(out, v); err != nil {
			return err
		}
		return out.Flush()
	}
	if err := write(map[string]any{"hello": hello}); err != nil {
		return err
	}
	in := bufio.NewReaderSize(r, 1<<16)
	room := budget.New(maxPending)
	jobs := make(chan []byte, 64)
	var wg sync.WaitGroup
	for i := 0; i < runtime.GOMAXPROCS(0); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for line := range jobs {
				n := int64(len(line))
				if resp := answer(line); resp != nil {
					write(resp)
				}
				room.Release(n)
			}
		}()
	}
	var err error
	for {
		var line []byte
		line, err = readRequestLine(in)
		if len(bytes.TrimSpace(line)) > 0 {
			room.Acquire(context.Background(), int64(len(line)))
			jobs <- line
		}
		if err != nil {
			break
		}
	}
	close(jobs)
	wg.Wait()
	if err == io.EOF {
		return nil
	}
	return err
}

// writeResponse writes the response object v and a newline to w. A
// response of an id and an Output is written as its JSON would be,
// {"id":ID,"output":"BASE64"}, with the base64 streamed; if the tensor is
// not valid, nothing is written and the answer is an error instead.
func writeResponse(w *bufio.Writer, v map[string]any) error {
	if o, ok := v["output"].(Output); ok && len(v) == 2 {
		id, err := json.Marshal(v["id"])
		if err != nil {
			return err
		}
		lw := &lazyPrefix{w: w, prefix: append(append([]byte(`{"id":`), id...), `,"output":"`...)}
		enc := base64.NewEncoder(base64.StdEncoding, lw)
		err = npy.Write(enc, o.T)
		switch {
		case err == nil:
			enc.Close()
			_, err = w.WriteString("\"}\n")
			return err
		case lw.done:
			return err // writing failed
		}
		// npy.Write refuses an invalid tensor before writing a byte.
		v = map[string]any{"id": v["id"], "error": map[string]string{"kind": string(engine.BadInput), "message": "internal error (please report): " + err.Error()}}
	}
	line, err := json.Marshal(v)
	if err != nil {
		return err
	}
	w.Write(line)
	return w.WriteByte('\n')
}

// lazyPrefix writes prefix to w before the first bytes written to it.
type lazyPrefix struct {
	w      io.Writer
	prefix []byte
	done   bool
}

func (l *lazyPrefix) Write(p []byte) (int, error) {
	if !l.done {
		l.done = true
		if _, err := l.w.Write(l.prefix); err != nil {
			return 0, err
		}
	}
	return l.w.Write(p)
}

// readRequestLine reads one line of at most MaxRequestLine bytes.
func readRequestLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > MaxRequestLine {
			return nil, fmt.Errorf("request line longer than %d bytes", MaxRequestLine)
		}
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// EngineAnswer evaluates one request line on the engine and returns the
// response object, or nil if the line carries no usable id.
func EngineAnswer(line []byte) map[string]any {
	var head struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &head) != nil || len(head.ID) == 0 {
		return nil
	}
	resp := map[string]any{"id": head.ID}
	out, err := eval(line)
	if err != nil {
		kind := engine.KindOf(err)
		msg := err.Error()
		if e, ok := err.(*engine.Error); ok {
			msg = e.Message
		}
		if kind == "" {
			kind = engine.BadInput
		}
		resp["error"] = map[string]string{"kind": string(kind), "message": msg}
		return resp
	}
	resp["output"] = Output{out}
	return resp
}

func eval(line []byte) (t *engine.Tensor, err error) {
	defer func() {
		if p := recover(); p != nil {
			t, err = nil, fmt.Errorf("internal error (please report): %v", p)
		}
	}()
	c, err := casefile.Parse(line, casefile.Base64Inputs)
	if err != nil {
		return nil, err
	}
	return c.Eval()
}
