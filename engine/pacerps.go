package engine

// PacerPs lets up to n pacers at a time keep their Go P through their
// short sleeps (preciseSleep's hold, sleep_linux.go). A pacer that keeps
// its P runs the moment the kernel wakes it, but that P runs nothing
// else meanwhile: soakd runs one P more than the CPUs for it, so one
// process gets one PacerPs of size 1, shared by every engine.Run in it
// (the daemon runs up to max_concurrent at once; the others' pacers
// sleep through the Go scheduler, as all do with a nil PacerPs).
type PacerPs struct{ slots chan struct{} }

// NewPacerPs lets n pacers keep their P at a time.
func NewPacerPs(n int) *PacerPs { return &PacerPs{slots: make(chan struct{}, n)} }

// take reports whether a pacer may keep its P; if so, it calls give
// when its segment ends. A nil PacerPs never lets one.
func (p *PacerPs) take() bool {
	if p == nil {
		return false
	}
	select {
	case p.slots <- struct{}{}:
		return true
	default:
		return false
	}
}

func (p *PacerPs) give() { <-p.slots }
