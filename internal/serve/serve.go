// Package serve runs the reference engine as a conform/1 protocol child:
// newline-delimited JSON requests on one stream, one response per request
// on the other, after a hello line.
package serve

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"runtime"
	"sync"

	"github.com/conformsuite/conform/casefile"
	"github.com/conformsuite/conform/engine"
	"github.com/conformsuite/conform/engine/npy"
)

// MaxLine bounds one request line.
const MaxLine = 1 << 30

// Hello is the first line a protocol child writes.
type Hello struct {
	Name    string   `json:"name"`
	Version string   `json:"version"`
	Ops     []string `json:"ops"`
}

// Serve answers the requests read from r on w with the engine until r
// ends. Requests are evaluated concurrently and answered as they finish
// (the protocol allows any order). A line without an id is skipped.
func Serve(r io.Reader, w io.Writer, hello Hello) error {
	return ServeFunc(r, w, hello, Answer)
}

// ServeFunc is Serve with another answer function: answer returns the
// response object for one request line, or nil to send nothing.
func ServeFunc(r io.Reader, w io.Writer, hello Hello, answer func(line []byte) map[string]any) error {
	out := bufio.NewWriterSize(w, 1<<16)
	var mu sync.Mutex
	write := func(v any) error {
		line, err := json.Marshal(v)
		if err != nil {
			return err
		}
		mu.Lock()
		defer mu.Unlock()
		out.Write(line)
		out.WriteByte('\n')
		return out.Flush()
	}
	if err := write(map[string]any{"hello": hello}); err != nil {
		return err
	}
	in := bufio.NewReaderSize(r, 1<<16)
	jobs := make(chan []byte, 64)
	var wg sync.WaitGroup
	for i := 0; i < runtime.GOMAXPROCS(0); i++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for line := range jobs {
				if resp := answer(line); resp != nil {
					write(resp)
				}
			}
		}()
	}
	var err error
	for {
		var line []byte
		line, err = readLine(in)
		if len(bytes.TrimSpace(line)) > 0 {
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

// readLine reads one line of at most MaxLine bytes.
func readLine(r *bufio.Reader) ([]byte, error) {
	var line []byte
	for {
		chunk, err := r.ReadSlice('\n')
		line = append(line, chunk...)
		if len(line) > MaxLine {
			return nil, fmt.Errorf("request line longer than %d bytes", MaxLine)
		}
		if err != bufio.ErrBufferFull {
			return line, err
		}
	}
}

// Answer evaluates one request line on the engine and returns the
// response object, or nil if the line carries no usable id.
func Answer(line []byte) map[string]any {
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
	resp["output"] = base64.StdEncoding.EncodeToString(npy.Encode(out))
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
