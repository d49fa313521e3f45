//go:build !linux

package engine

func addFallback(map[string]func() pacerSleeper) {}
