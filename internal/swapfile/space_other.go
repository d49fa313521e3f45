//go:build !linux

package swapfile

import (
	"errors"
	"os"
)

// Swapfiles are a Linux feature (mkswap, swapon).
func statfsSpace(string) (int64, int64, error) {
	return 0, 0, errors.ErrUnsupported
}

func fallocate(*os.File, int64) error { return errors.ErrUnsupported }
