// Package progress prints the progress of long work (golden regeneration,
// fuzzing) on a terminal as a bar redrawn in place, and elsewhere (CI
// logs) as a line every few seconds.
package progress

import (
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"time"
)

// Bar reports done/total and the rate. It is safe for concurrent use.
type Bar struct {
	w        io.Writer
	label    string
	total    int
	tty      bool
	start    time.Time
	interval time.Duration

	mu   sync.Mutex
	done int
	last time.Time
}

// New returns a bar writing to w. On a terminal it redraws at most 10
// times a second; otherwise it prints a line every 5 seconds.
func New(w io.Writer, label string, total int) *Bar {
	b := &Bar{w: w, label: label, total: total, start: time.Now(), interval: 5 * time.Second}
	if f, ok := w.(*os.File); ok {
		if st, err := f.Stat(); err == nil && st.Mode()&os.ModeCharDevice != 0 {
			b.tty, b.interval = true, 100*time.Millisecond
		}
	}
	return b
}

// Add records n more units done.
func (b *Bar) Add(n int) {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.done += n
	if now := time.Now(); now.Sub(b.last) >= b.interval {
		b.last = now
		b.draw(now)
	}
}

// Done prints the final state and ends the line.
func (b *Bar) Done() {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.draw(time.Now())
	if b.tty {
		fmt.Fprintln(b.w)
	}
}

func (b *Bar) draw(now time.Time) {
	elapsed := now.Sub(b.start)
	rate := float64(b.done) / elapsed.Seconds()
	if b.total <= 0 {
		// No known total: a count, the rate and the time so far.
		b.print(fmt.Sprintf("%s %d done, %.0f/s, %s", b.label, b.done, rate, elapsed.Round(time.Second)))
		return
	}
	frac := 0.0
	if b.total > 0 {
		frac = float64(b.done) / float64(b.total)
	}
	const width = 30
	fill := int(frac * width)
	if fill > width {
		fill = width
	}
	line := fmt.Sprintf("%s [%s%s] %d/%d %3.0f%% %.0f/s", b.label,
		strings.Repeat("=", fill), strings.Repeat(" ", width-fill), b.done, b.total, 100*frac, rate)
	b.print(line)
}

func (b *Bar) print(line string) {
	if b.tty {
		fmt.Fprintf(b.w, "\r%s\x1b[K", line) // \x1b[K clears what a longer line left
	} else {
		fmt.Fprintln(b.w, line)
	}
}
