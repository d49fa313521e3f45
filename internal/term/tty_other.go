//go:build !linux && !darwin && !freebsd && !netbsd && !openbsd && !dragonfly

package term

// Elsewhere a stream is taken for no terminal: plain lines, no colour.
func isTerminal(int) bool { return false }

func width(int) int { return 0 }
