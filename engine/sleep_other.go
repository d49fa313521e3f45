//go:build !linux

package engine

import (
	"runtime"
	"time"
)

func pacerThread() (release func()) {
	runtime.LockOSThread()
	return runtime.UnlockOSThread
}

func preciseSleep(d time.Duration) { time.Sleep(d) }
