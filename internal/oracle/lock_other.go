//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package oracle

import (
	"context"
	"errors"
	"io"
)

// lockFile fails where flock(2) is not available: installing the node
// packages without the lock could let two setups remove each other's
// temporary directories.
func lockFile(ctx context.Context, out io.Writer, path string) (func(), error) {
	return nil, errors.New("installing the node packages needs flock(2), which this system lacks: set CONFORM_ORACLE_DIR to a copy of the oracle programs and run npm ci there")
}
