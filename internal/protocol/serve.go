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
	"runtime"
	"sync"

	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/internal/budget"
	"github.com/conformsuite/conform/internal/casefile"
	"github.com/conformsuite/conform/internal/npy"
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

// wireOutput is the output of a response object, a tensor: it is written
// as the base64 of its .npy file (as npy.Encode writes it), streamed from
// the tensor's bytes without a copy of the file or of its base64.
type wireOutput struct{ T *engine.Tensor }

// MarshalJSON returns the base64 of the .npy file as a JSON string: what
// a response line holds, for writers other than ServeFunc's.
func (o wireOutput) MarshalJSON() ([]byte, error) {
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
	return ServeAnswers(r, w, hello, EngineAnswer)
}

// ServeAnswers is Serve with another implementation: answer returns the
// Answer to one request line (with its id). An output is streamed: its
// .npy file is written in base64 straight from the tensor's bytes.
func ServeAnswers(r io.Reader, w io.Writer, hello Hello, answer func(line []byte) Answer) error {
	return ServeFunc(r, w, hello, func(line []byte) map[string]any {
		id, ok := requestID(line)
		if !ok {
			return nil
		}
		return responseObject(id, answer(line))
	})
}

// ResponseObject returns the response object of answer a to the request
// line, or nil if the line has no id: what a ServeFunc answer function
// returns for a well-formed answer.
func ResponseObject(line []byte, a Answer) map[string]any {
	id, ok := requestID(line)
	if !ok {
		return nil
	}
	return responseObject(id, a)
}

// requestID returns the id of a request line, or false if it has none.
func requestID(line []byte) (json.RawMessage, bool) {
	var head struct {
		ID json.RawMessage `json:"id"`
	}
	if json.Unmarshal(line, &head) != nil || len(head.ID) == 0 {
		return nil, false
	}
	return head.ID, true
}

// responseObject returns the response object of answer a to the request id.
func responseObject(id json.RawMessage, a Answer) map[string]any {
	resp := map[string]any{"id": id}
	switch {
	case a.IsCrash():
		resp["crash"], resp["code"] = a.Reason(), a.Code()
	case a.IsSkip():
		resp["skip"] = a.Reason()
		if a.Code() != "" {
			resp["code"] = a.Code()
		}
	case a.IsError():
		resp["error"] = map[string]string{"kind": string(a.Kind()), "message": a.Message()}
	case a.tensor != nil:
		resp["output"] = wireOutput{a.tensor}
	default:
		resp["output"] = a.npy
	}
	return resp
}

// ServeFunc is Serve with a function that writes the response objects
// itself: answer returns the response object for one request line, or
// nil to send nothing (ServeAnswers is the usual way; this one can also
// write what the protocol does not allow, for tests of clients). The
// request lines read ahead of their answers are bounded by MaxPending
// bytes.
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
	if o, ok := v["output"].(wireOutput); ok && len(v) == 2 {
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

// EngineAnswer evaluates one request line on the engine. A panic of the
// engine is answered as a bad_input error saying it is an internal error.
func EngineAnswer(line []byte) Answer {
	out, err := eval(line)
	if err != nil {
		a := ErrorAnswer(err)
		if a.IsCrash() { // an error without a kind
			return Error(engine.BadInput, a.Reason())
		}
		return a
	}
	return Output(out)
}

// ErrorAnswer returns the answer of an implementation that returned err:
// an error of err's kind (engine.KindOf) with its message, or, if err has
// no kind, a crash with the code CrashNoKind.
func ErrorAnswer(err error) Answer {
	msg := err.Error()
	if e := (*engine.Error)(nil); errors.As(err, &e) {
		msg = e.Message
	}
	kind := engine.KindOf(err)
	if kind == "" {
		return Crash(CrashNoKind, msg)
	}
	return Error(kind, msg)
}

// CrashNoKind is the crash code of an error without a kind.
const CrashNoKind = "no-kind"

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
