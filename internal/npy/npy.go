// Package npy reads and writes NumPy .npy files.
//
// Decode and ReadFile accept format versions 1.0, 2.0 and 3.0 with the
// dtypes of package engine (bool, integers, float16/32/64, complex64/128,
// byte strings "S" and unicode strings "U") in either byte order, C or
// Fortran order. They return a tensor over the file's payload: nothing is
// copied, byte-swapped or converted. A file in C order gives a C-contiguous
// tensor; one in Fortran order a view of the column-major payload with
// Fortran strides (the first axis varies fastest), as np.load returns
// it, so reading it costs no second copy of the input. Every error is an
// *engine.Error of kind engine.BadInput, and no input makes them panic.
//
// Encode and Write produce the same bytes as NumPy 1.24's np.save for the
// same C-contiguous array: a version 1.0 file in C order.
package npy

import (
	"encoding/binary"
	"errors"
	"io"
	"os"
	"strings"
	"unicode/utf8"

	"github.com/conformsuite/conform/engine"
)

const (
	// magic starts every .npy file.
	magic = "\x93NUMPY"
	// MaxHeaderBytes is NumPy 1.24's default max_header_size: longer
	// headers are refused as unsafe to parse.
	MaxHeaderBytes = 10000
)

// Decode parses a whole .npy file held in data. The tensor it returns has
// offset 0 and its Data aliases the payload in data: C-contiguous for a
// file in C order, a view with Fortran strides for one in Fortran order
// (see the package comment).
func Decode(data []byte) (*engine.Tensor, error) {
	src := &byteSource{data: data}
	h, err := readHeader(src.next)
	if err != nil {
		return nil, wrap(err, "npy: ")
	}
	payload := data[src.off:]
	if err := checkPayload(h, src.off, int64(len(data))); err != nil {
		return nil, wrap(err, "npy: ")
	}
	t, err := newTensor(h, payload)
	if err != nil {
		return nil, wrap(err, "npy: ")
	}
	return t, nil
}

// ReadFile reads the .npy file at path. It reads and validates the header
// first and checks that the file holds exactly the payload the header
// describes before it reads (and allocates) the payload, so a header
// claiming a huge array fails fast.
func ReadFile(path string) (*engine.Tensor, error) {
	t, err := readFile(path)
	if err != nil {
		return nil, wrap(err, "npy: "+path+": ")
	}
	return t, nil
}

func readFile(path string) (*engine.Tensor, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, errorf("%v", unwrapPath(err))
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, errorf("%v", unwrapPath(err))
	}
	if fi.Mode().IsRegular() {
		return readFrom(f, fi.Size())
	}
	// A pipe or device has no size: read at most one byte more than the
	// payload, so memory stays proportional to what is there.
	src := &readerSource{r: f}
	h, err := readHeader(src.next)
	if err != nil {
		return nil, err
	}
	payload, err := io.ReadAll(io.LimitReader(f, int64(h.nbytes)+1))
	if err != nil {
		return nil, errorf("reading the payload: %v", unwrapPath(err))
	}
	if err := checkPayload(h, src.off, int64(src.off+len(payload))); err != nil {
		return nil, err
	}
	return newTensor(h, payload)
}

// ReadFrom reads a .npy file of size bytes from r. It reads and validates
// the header first and checks that the size leaves room for exactly the
// payload the header describes before it allocates and reads the payload,
// so memory never exceeds what the file really holds. A reader that
// yields fewer or more than size bytes is an error.
func ReadFrom(r io.Reader, size int64) (*engine.Tensor, error) {
	t, err := readFrom(r, size)
	if err != nil {
		return nil, wrap(err, "npy: ")
	}
	return t, nil
}

func readFrom(r io.Reader, size int64) (*engine.Tensor, error) {
	src := &readerSource{r: r}
	h, err := readHeader(src.next)
	if err != nil {
		return nil, err
	}
	if err := checkPayload(h, src.off, size); err != nil {
		return nil, err
	}
	payload := engine.MakeData(h.nbytes)
	n, err := io.ReadFull(r, payload)
	if err != nil && err != io.ErrUnexpectedEOF {
		return nil, errorf("reading the payload: %v", unwrapPath(err))
	}
	if n < h.nbytes {
		// The file is shorter than its size said (or shrank).
		return nil, checkPayload(h, src.off, int64(src.off+n))
	}
	var extra [1]byte
	if k, _ := r.Read(extra[:]); k > 0 {
		// The file is longer than its size said (or grew).
		return nil, checkPayload(h, src.off, int64(src.off+n+1))
	}
	return newTensor(h, payload)
}

// byteSource hands out consecutive pieces of an in-memory file.
type byteSource struct {
	data []byte
	off  int
}

// next returns the next n bytes, or fewer at the end of the data.
func (s *byteSource) next(n int) ([]byte, error) {
	n = min(n, len(s.data)-s.off)
	b := s.data[s.off : s.off+n]
	s.off += n
	return b, nil
}

// readerSource hands out consecutive pieces read from a reader.
type readerSource struct {
	r   io.Reader
	off int
}

// next returns the next n bytes, or fewer at the end of the input. n is
// at most MaxHeaderBytes.
func (s *readerSource) next(n int) ([]byte, error) {
	b := make([]byte, n)
	k, err := io.ReadFull(s.r, b)
	s.off += k
	if err != nil && err != io.EOF && err != io.ErrUnexpectedEOF {
		return nil, errorf("reading the header: %v", unwrapPath(err))
	}
	return b[:k], nil
}

// readHeader reads and parses the magic string, version, header length
// and header through next, which returns the next n bytes of the file or
// fewer at its end.
func readHeader(next func(n int) ([]byte, error)) (header, error) {
	b, err := next(8)
	if err != nil {
		return header{}, err
	}
	if len(b) < 8 {
		if !strings.HasPrefix(magic, string(b[:min(len(b), len(magic))])) {
			return header{}, notNPY()
		}
		return header{}, errorf("file is only %d bytes long, too short for the magic string and version", len(b))
	}
	if string(b[:6]) != magic {
		return header{}, notNPY()
	}
	major, minor := b[6], b[7]
	if major < 1 || major > 3 || minor != 0 {
		return header{}, errorf("unsupported format version %d.%d at byte 6 (supported: 1.0, 2.0, 3.0)", major, minor)
	}
	lenSize := 2
	if major > 1 {
		lenSize = 4
	}
	b, err = next(lenSize)
	if err != nil {
		return header{}, err
	}
	if len(b) < lenSize {
		return header{}, errorf("file ends at byte %d, inside the %d-byte header length at byte 8", 8+len(b), lenSize)
	}
	var hlen uint64
	if lenSize == 2 {
		hlen = uint64(binary.LittleEndian.Uint16(b))
	} else {
		hlen = uint64(binary.LittleEndian.Uint32(b))
	}
	start := 8 + lenSize
	if hlen > MaxHeaderBytes {
		return header{}, errorf("header length %d at byte 8 exceeds the limit of %d bytes", hlen, MaxHeaderBytes)
	}
	b, err = next(int(hlen))
	if err != nil {
		return header{}, err
	}
	if len(b) < int(hlen) {
		return header{}, errorf("header length %d at byte 8 runs past the end of the file: the header would end at byte %d, the file has %d bytes",
			hlen, start+int(hlen), start+len(b))
	}
	if len(b) == 0 || b[len(b)-1] != '\n' {
		return header{}, errorf("header at bytes %d to %d does not end in a newline", start, start+len(b))
	}
	if i := strings.IndexByte(string(b), 0); i >= 0 {
		return header{}, errorf("bad header at byte %d: NUL byte", start+i)
	}
	if major < 3 {
		for i, c := range b {
			if c >= utf8.RuneSelf {
				return header{}, errorf("bad header at byte %d: non-ASCII byte 0x%02x in a version %d.0 header", start+i, c, major)
			}
		}
	} else if !utf8.Valid(b) {
		return header{}, errorf("bad header at bytes %d to %d: version 3.0 header is not valid UTF-8", start, start+len(b))
	}
	return parseHeader(string(b), start, major < 3)
}

// notNPY is the error for a file that does not start with the magic
// string. It does not quote what the file starts with: a case must not be
// able to read other files' contents through error messages.
func notNPY() error {
	return errorf("not a .npy file: it does not start with the magic string %q", magic)
}

// checkPayload checks that a file of size bytes whose payload starts at
// byte start holds exactly the payload that h describes.
func checkPayload(h header, start int, size int64) error {
	have := size - int64(start)
	switch want := int64(h.nbytes); {
	case have < want:
		return errorf("payload truncated: shape %v of %v needs %d bytes after the header (from byte %d), the file has %d",
			h.shape, h.dtype, want, start, have)
	case have > want:
		return errorf("%d bytes of trailing data: shape %v of %v needs %d bytes after the header (from byte %d), the file has %d",
			have-want, h.shape, h.dtype, want, start, have)
	}
	return nil
}

// newTensor returns the tensor of h over payload, which holds exactly
// h.nbytes bytes: C-contiguous for C order; for Fortran order, a view of
// the column-major payload with Fortran strides, which is C-contiguous
// too when at most one dimension is longer than 1.
func newTensor(h header, payload []byte) (*engine.Tensor, error) {
	t, err := engine.FromBytes(h.dtype, h.shape, payload)
	if err != nil {
		return nil, err
	}
	if !h.fortran || len(h.shape) < 2 || len(payload) == 0 {
		// C order, or a layout where Fortran order is the same.
		return t, nil
	}
	s := h.dtype.Size
	for i, d := range h.shape {
		t.Strides[i] = s
		s *= d
	}
	if t.IsContiguous() {
		// At most one dimension is longer than 1: both orders are the
		// same, and C strides say so plainly.
		t.Strides = engine.ContiguousStrides(t.Shape, h.dtype.Size)
	}
	return t, nil
}

// errorf returns a bad_input error.
func errorf(format string, args ...any) error {
	return engine.Errorf(engine.BadInput, format, args...)
}

// wrap prefixes the message of the *engine.Error err.
func wrap(err error, prefix string) error {
	var e *engine.Error
	if errors.As(err, &e) {
		return &engine.Error{Kind: e.Kind, Message: prefix + e.Message}
	}
	return engine.Errorf(engine.BadInput, "%s%v", prefix, err)
}

// message returns the message of err without its kind.
func message(err error) string {
	var e *engine.Error
	if errors.As(err, &e) {
		return e.Message
	}
	return err.Error()
}

// unwrapPath drops the operation and path of an *os.PathError, which
// ReadFile's message already names.
func unwrapPath(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
