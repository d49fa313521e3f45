//go:build !linux

package schedslice

import "time"

// Apply does nothing off Linux: the slice is EEVDF's.
func Apply(d time.Duration) (Result, error) {
	if err := Check(d); err != nil {
		return Result{}, err
	}
	if d == 0 {
		return Result{}, nil
	}
	return Result{}, ErrUnsupported
}
