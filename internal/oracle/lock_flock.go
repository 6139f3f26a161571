//go:build linux || darwin || freebsd || netbsd || openbsd || dragonfly

package oracle

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"syscall"
	"time"
)

// lockFile takes an exclusive lock on the file at path (created if
// missing) with flock(2), waiting for another holder (and saying so on
// out) until ctx is done. The returned function releases it. The lock is
// released when the process ends, also when it is killed.
func lockFile(ctx context.Context, out io.Writer, path string) (func(), error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, err
	}
	said := false
	for {
		err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB)
		if err == nil {
			return func() { f.Close() }, nil
		}
		if !errors.Is(err, syscall.EWOULDBLOCK) && !errors.Is(err, syscall.EINTR) {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		if !said {
			fmt.Fprintf(out, "setup: waiting for another conform setup (it holds %s)\n", path)
			said = true
		}
		select {
		case <-ctx.Done():
			f.Close()
			return nil, ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
