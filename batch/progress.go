package batch

import (
	"fmt"
	"io"
	"strings"
)

// Progress shows finished tasks on W (standard error). By default it
// writes one line per task, "[12/40] t12 reviewer ok 0.4s"; on a terminal
// it redraws one progress bar line with the counts of ok, denied and
// failed tasks, and prints only the tasks that did not succeed above it.
// Run calls it with its lock held, so it needs none of its own.
type Progress struct {
	W        io.Writer
	Terminal bool
	drawn    bool
}

// barWidth is the progress bar's width in cells.
const barWidth = 30

func (p *Progress) finished(r *Result, n, total, ok, denied, failed int) {
	line := fmt.Sprintf("[%d/%d] %s %s %s %s", n, total, r.ID, r.Type, r.Status(), secs(r.DurationMS))
	if !p.Terminal {
		fmt.Fprintln(p.W, line)
		return
	}
	var b strings.Builder
	b.WriteString("\r\x1b[K")
	if r.ExitCode != ExitOK {
		b.WriteString(line + "\n")
	}
	fill := barWidth
	if total > 0 {
		fill = barWidth * n / total
	}
	fmt.Fprintf(&b, "[%s%s] %d/%d  ok %d  denied %d  failed %d",
		strings.Repeat("#", fill), strings.Repeat(" ", barWidth-fill), n, total, ok, denied, failed)
	io.WriteString(p.W, b.String())
	p.drawn = true
}

// Close ends the progress bar's line, so what follows starts on its own.
func (p *Progress) Close() {
	if p.drawn {
		fmt.Fprintln(p.W)
		p.drawn = false
	}
}
