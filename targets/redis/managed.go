package redis

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
	"github.com/soakd/soakd/targets/internal/cgroup"
)

// Server is a redis-server process started by soakd (target.managed) or
// by tests. Stop ends it: SIGTERM, then SIGKILL after StopGrace.
type Server struct {
	Port        int
	Dir         string
	Persistence string
	cmd         *exec.Cmd
	tempDir     bool
	exited      chan struct{}
	// oomKills is the cgroup's OOM kill count when the process ended.
	oomKills float64
	waitErr  error
	stopMu   sync.Mutex
	stopped  bool
	stderr   *tailBuffer
	// cg is the memory cgroup the server runs in (nil: none); cgNote
	// says why there is none when one was asked for.
	cg     *cgroup.Group
	cgNote string
	cgErr  error // from removing cg after the process ended
	cfg    ServerConfig
}

// StopGrace is how long Stop waits after SIGTERM before SIGKILL.
const StopGrace = 5 * time.Second

// ServerConfig says how to start a redis-server.
type ServerConfig struct {
	Command     string   // default redis-server
	Args        []string // appended after soakd's own arguments
	Dir         string   // data dir; "" = a new temp dir removed on Stop
	Port        int      // 0 = a free port
	Persistence string   // none | rdb:N | aof:everysec | aof:always | aof:no
	MaxMemory   int64
	Policy      string
	// CgroupMemory caps the server's memory through a cgroup where the
	// host allows one (0 = no cgroup); CgroupSwap is the swap it may use
	// on top (0 = none). When the host allows no cgroup the server starts
	// without one and CgroupNote says why.
	CgroupMemory int64
	CgroupSwap   int64
	// cgroups is the cgroup host; the zero value is this host.
	cgroups cgroup.Host
}

// CgroupName is the cgroup a managed server on port gets.
func CgroupName(port int) string {
	return fmt.Sprintf("soakd-redis-%d-%d", port, os.Getpid())
}

// PersistenceArgs returns redis-server arguments for a persistence variant.
func PersistenceArgs(p string) ([]string, error) {
	if p == "" {
		p = "none"
	}
	if err := scenarios.ValidPersistence(p); err != nil {
		return nil, err
	}
	switch {
	case p == "none":
		return []string{"--save", "", "--appendonly", "no"}, nil
	case strings.HasPrefix(p, "rdb:"):
		return []string{"--save", strings.TrimPrefix(p, "rdb:") + " 1", "--appendonly", "no"}, nil
	default: // aof:X
		return []string{"--appendonly", "yes", "--appendfsync", strings.TrimPrefix(p, "aof:"), "--save", ""}, nil
	}
}

// FreePort asks the kernel for a free loopback TCP port.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// StartServer starts redis-server and waits until it answers PING.
// With Port 0 it picks a free port, and picks again (up to three times)
// when another process took that port, or the cluster bus's port+10000,
// between the pick and redis-server's bind.
func StartServer(ctx context.Context, cfg ServerConfig) (*Server, error) {
	for try := 1; ; try++ {
		s, err := startServer(ctx, cfg)
		if err == nil || cfg.Port != 0 || try == 3 || !strings.Contains(err.Error(), "Address already in use") {
			return s, err
		}
	}
}

func startServer(ctx context.Context, cfg ServerConfig) (*Server, error) {
	if cfg.Command == "" {
		cfg.Command = "redis-server"
	}
	pargs, err := PersistenceArgs(cfg.Persistence)
	if err != nil {
		return nil, err
	}
	if cfg.Persistence == "" {
		cfg.Persistence = "none"
	}
	s := &Server{Port: cfg.Port, Dir: cfg.Dir, Persistence: cfg.Persistence, exited: make(chan struct{}), stderr: &tailBuffer{max: 4096}, cfg: cfg}
	if s.Dir == "" {
		d, err := os.MkdirTemp("", "soakd-redis-")
		if err != nil {
			return nil, err
		}
		s.Dir, s.tempDir = d, true
	} else if err := os.MkdirAll(s.Dir, 0o755); err != nil {
		return nil, err
	}
	if s.Port == 0 {
		if s.Port, err = FreePort(); err != nil {
			s.cleanup()
			return nil, err
		}
	}
	args := []string{"--port", strconv.Itoa(s.Port), "--bind", "127.0.0.1", "--dir", s.Dir, "--daemonize", "no", "--logfile", ""}
	args = append(args, pargs...)
	if cfg.MaxMemory > 0 {
		args = append(args, "--maxmemory", strconv.FormatInt(cfg.MaxMemory, 10))
	}
	if cfg.Policy != "" {
		args = append(args, "--maxmemory-policy", cfg.Policy)
	}
	args = append(args, cfg.Args...)
	s.cmd = exec.Command(cfg.Command, args...)
	s.cmd.Dir = s.Dir
	s.cmd.Stdout = s.stderr
	s.cmd.Stderr = s.stderr
	s.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if cfg.CgroupMemory > 0 {
		g, err := cfg.cgroups.Create(CgroupName(s.Port), cgroup.Limits{Memory: cfg.CgroupMemory, Swap: cfg.CgroupSwap})
		if err != nil {
			s.cgNote = err.Error()
		} else {
			s.cg = g
		}
	}
	if err := s.cmd.Start(); err != nil {
		s.removeCgroup()
		s.cleanup()
		return nil, fmt.Errorf("start %s: %w", cfg.Command, err)
	}
	// The server joins its cgroup right after exec, while it holds a
	// few MB: v1 leaves what it used before in the old group.
	if s.cg != nil {
		if err := s.cg.Join(s.cmd.Process.Pid); err != nil {
			s.cgNote = err.Error()
			s.removeCgroup()
			s.cg = nil
		}
	}
	go func() {
		s.waitErr = s.cmd.Wait()
		// Every way the process ends (Stop, Kill, a crash, an OOM kill)
		// comes through here: the cgroup goes before Exited closes,
		// its OOM kills read first (ExitReason names them).
		if s.cg != nil {
			s.oomKills = s.cg.Stats()[cgroup.StatOOMKills]
		}
		s.removeCgroup()
		close(s.exited)
	}()
	if err := s.waitReady(ctx, 10*time.Second); err != nil {
		s.Stop()
		return nil, err
	}
	return s, nil
}

func (s *Server) waitReady(ctx context.Context, limit time.Duration) error {
	c := goredis.NewClient(&goredis.Options{Addr: s.Addr(), DialTimeout: 200 * time.Millisecond, MaxRetries: -1, Protocol: 2, DisableIdentity: true})
	defer c.Close()
	deadline := time.Now().Add(limit)
	for {
		select {
		case <-s.exited:
			return fmt.Errorf("redis-server exited at start (%v): %s", s.waitErr, strings.TrimSpace(s.stderr.String()))
		case <-ctx.Done():
			return ctx.Err()
		default:
		}
		pctx, cancel := context.WithTimeout(ctx, 300*time.Millisecond)
		err := c.Ping(pctx).Err()
		cancel()
		if err == nil {
			return nil
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("redis-server on port %d not answering PING after %s: %v", s.Port, limit, err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// Addr is host:port.
func (s *Server) Addr() string { return "127.0.0.1:" + strconv.Itoa(s.Port) }

// URL is a redis:// URL for the server.
func (s *Server) URL() string { return "redis://" + s.Addr() }

// Pid is the server's process id.
func (s *Server) Pid() int { return s.cmd.Process.Pid }

// Exited is closed when the process has ended.
func (s *Server) Exited() <-chan struct{} { return s.exited }

// ExitReason says how the process ended (after Exited is closed): pid,
// exit status and the last line the server printed.
func (s *Server) ExitReason() string {
	select {
	case <-s.exited:
	default:
		return ""
	}
	how := "exited"
	if s.waitErr != nil {
		how = s.waitErr.Error()
	}
	if s.oomKills > 0 {
		how = fmt.Sprintf("OOM-killed by the kernel: its cgroup's memory cap (%s", targets.FormatBytes(s.cfg.CgroupMemory))
		if s.cfg.CgroupSwap > 0 {
			how += " + swap " + targets.FormatBytes(s.cfg.CgroupSwap)
		}
		how += fmt.Sprintf(") was reached (oom_kill %.0f)", s.oomKills)
	}
	msg := fmt.Sprintf("managed redis-server (pid %d, port %d) ended: %s", s.Pid(), s.Port, how)
	if s.oomKills > 0 {
		return msg // SIGKILLed: its last line predates the kill
	}
	lines := strings.Split(strings.TrimSpace(s.stderr.String()), "\n")
	if n := len(lines); n > 0 && lines[n-1] != "" {
		msg += "; last output: " + strings.TrimSpace(lines[n-1])
	}
	return msg
}

// OOMKills is the kernel's OOM kill count in the server's cgroup when
// its process ended (0 while it runs, without a cgroup, or when it ended
// another way).
func (s *Server) OOMKills() float64 {
	select {
	case <-s.exited:
		return s.oomKills
	default:
		return 0
	}
}

// Kill ends the process with SIGKILL at once (tests: a server crash).
func (s *Server) Kill() {
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	<-s.exited
}

// Stop ends the process (SIGTERM, SIGKILL after StopGrace) and removes
// a temp data dir. It is safe to call more than once.
func (s *Server) Stop() error {
	s.stopMu.Lock()
	defer s.stopMu.Unlock()
	if s.stopped {
		return nil
	}
	s.stopped = true
	select {
	case <-s.exited:
	default:
		_ = s.cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-s.exited:
		case <-time.After(StopGrace):
			_ = s.cmd.Process.Signal(syscall.SIGKILL)
			<-s.exited
		}
	}
	s.cleanup()
	if s.cgErr != nil {
		return s.cgErr
	}
	return nil
}

func (s *Server) removeCgroup() {
	if s.cg != nil {
		s.cgErr = s.cg.Remove()
	}
}

// Cgroup is the memory cgroup the server runs in: its version and path
// ("" when none), and why there is none when one was asked for.
func (s *Server) Cgroup() (version, path, note string) {
	if s.cg != nil {
		note = s.cg.Note
		return s.cg.Version, s.cg.Path, note
	}
	return "", "", s.cgNote
}

// CgroupStats reads the server's cgroup figures (nil without a cgroup
// or once the process has ended and the group is gone).
func (s *Server) CgroupStats() map[string]float64 {
	if s.cg == nil {
		return nil
	}
	select {
	case <-s.exited:
		return nil
	default:
	}
	return s.cg.Stats()
}

func (s *Server) cleanup() {
	if s.tempDir {
		os.RemoveAll(s.Dir)
	}
}

// tailBuffer keeps the last max bytes written (server output for errors).
type tailBuffer struct {
	mu  sync.Mutex
	b   []byte
	max int
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b = append(t.b, p...)
	if len(t.b) > t.max {
		t.b = append(t.b[:0], t.b[len(t.b)-t.max:]...)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return string(t.b)
}
