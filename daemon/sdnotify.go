package daemon

import (
	"net"
	"strconv"
	"time"
)

// Notifier speaks systemd's sd_notify protocol: datagrams such as
// "READY=1" to the unixgram socket in $NOTIFY_SOCKET. Without that
// variable (not under systemd, or Type= is not notify) it does nothing.
type Notifier struct {
	addr     string
	watchdog time.Duration // WATCHDOG_USEC; 0 = no watchdog
}

// NewNotifier reads NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID
// through getenv; pid is this process's id (a watchdog meant for another
// process is ignored).
func NewNotifier(getenv func(string) string, pid int) *Notifier {
	n := &Notifier{addr: getenv("NOTIFY_SOCKET")}
	if us, err := strconv.ParseInt(getenv("WATCHDOG_USEC"), 10, 64); err == nil && us > 0 {
		if wp := getenv("WATCHDOG_PID"); wp == "" || wp == strconv.Itoa(pid) {
			n.watchdog = time.Duration(us) * time.Microsecond
		}
	}
	return n
}

// Enabled says whether there is a socket to notify.
func (n *Notifier) Enabled() bool { return n != nil && n.addr != "" }

// WatchdogInterval is how often to send WATCHDOG=1: half of
// WATCHDOG_USEC, as sd_watchdog_enabled(3) advises; 0 when off.
func (n *Notifier) WatchdogInterval() time.Duration {
	if n == nil {
		return 0
	}
	return n.watchdog / 2
}

// Notify sends one state string ("READY=1", "STOPPING=1",
// "WATCHDOG=1", "RELOADING=1", "STATUS=...").
func (n *Notifier) Notify(state string) error {
	if !n.Enabled() {
		return nil
	}
	addr := n.addr
	if addr[0] == '@' { // abstract namespace
		addr = "\x00" + addr[1:]
	}
	c, err := net.DialUnix("unixgram", nil, &net.UnixAddr{Name: addr, Net: "unixgram"})
	if err != nil {
		return err
	}
	defer c.Close()
	_, err = c.Write([]byte(state))
	return err
}
