package redis

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"
	"time"

	goredis "github.com/redis/go-redis/v9"

	"github.com/soakd/soakd/targets/resp"
)

// A run without allow_destructive must not destroy data, whatever its
// custom ops or capture send: validate refuses what it can see, and the
// server is the last word. On a server soakd manages, the workload runs
// as SafeUser, an ACL user the destructive commands are denied to
// (soakd's own admin work, MODULE LIST, goes on the default user's
// connection). On any other server soakd checks at start whether the
// connected user may run them (ACL DRYRUN, Redis 7+) and warns with the
// ACL SETUSER line that makes a user that may not, or refuses to run
// when target.client.require_safe_user says so.

// SafeUser is the ACL user a managed server's workload runs as when the
// scenario does not allow destructive commands.
const SafeUser = "soakd-safe"

// AdminUser is the ACL user of soakd's own admin client on a managed
// server whose workload runs as SafeUser: the default user is denied
// the destructive commands too (lockDefault), since AUTH cannot be
// denied by an ACL and "AUTH default x" from a custom op or a captured
// line would otherwise give the workload's connection back every
// command (the default user has no password).
const AdminUser = "soakd-admin"

// SafeUserRules are the ACL rules of SafeUser (after ACL SETUSER name
// reset on >password): every key, channel and command but the ones
// resp.DestructiveCommands lists (a command, or a command and
// its subcommand). The rules deny what validate refuses, so a command
// the static check missed (a script's, a captured line's) is refused by
// the server too.
func SafeUserRules() []string {
	rules := []string{"~*", "&*", "+@all"}
	for _, d := range resp.DestructiveCommands() {
		rules = append(rules, "-"+strings.ToLower(strings.ReplaceAll(d, " ", "|")))
	}
	// The user may ask who it is and what it may run, for soakd's check
	// at start (checkUser).
	return append(rules, "+acl|whoami", "+acl|dryrun")
}

// SafeUserLine is the ACL SETUSER command that makes user a user that
// cannot run destructive commands (with a password to fill in).
func SafeUserLine(user string) string {
	return "ACL SETUSER " + user + " on >PASSWORD " + strings.Join(SafeUserRules(), " ")
}

// safeProbe is the command whose permission tells whether a user may
// destroy data.
const safeProbe = "FLUSHALL"

// createSafeUser makes SafeUser on a managed server (through admin, the
// default user's client) with a new random password, and returns the
// password. A server whose ACL cannot take a subcommand rule (before
// Redis 7) gets the commands denied whole (CONFIG, SCRIPT, FUNCTION).
func createSafeUser(ctx context.Context, admin goredis.UniversalClient) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	pw := hex.EncodeToString(b[:])
	set := func(rules []string) error {
		args := []any{"ACL", "SETUSER", SafeUser, "reset", "on", ">" + pw}
		for _, r := range rules {
			args = append(args, r)
		}
		return admin.Do(ctx, args...).Err()
	}
	rules := SafeUserRules()
	if err := set(rules); err != nil {
		if err2 := set(coarseRules(rules)); err2 != nil {
			return "", fmt.Errorf("ACL SETUSER %s: %v", SafeUser, err)
		}
	}
	if ok, err := mayRun(ctx, admin, SafeUser, safeProbe); err == nil && ok {
		return "", fmt.Errorf("ACL SETUSER %s: the user may still run %s", SafeUser, safeProbe)
	}
	return pw, nil
}

// createAdminUser makes AdminUser (every command) with a new random
// password on a managed server, through c (still the default user's),
// and returns the password.
func createAdminUser(ctx context.Context, c goredis.UniversalClient) (string, error) {
	var b [16]byte
	if _, err := rand.Read(b[:]); err != nil {
		return "", err
	}
	pw := hex.EncodeToString(b[:])
	if err := c.Do(ctx, "ACL", "SETUSER", AdminUser, "reset", "on", ">"+pw, "~*", "&*", "+@all").Err(); err != nil {
		return "", fmt.Errorf("ACL SETUSER %s: %w", AdminUser, err)
	}
	return pw, nil
}

// lockDefault denies the default user what SafeUser is denied (keeping
// its keys, channels and nopass: observers such as redis-cli MONITOR
// still connect), through admin (AdminUser's client), and checks it took.
func lockDefault(ctx context.Context, admin goredis.UniversalClient) error {
	deny := strings.Fields(strings.TrimPrefix(DefaultLockLine(), "ACL SETUSER default "))
	set := func(rules []string) error {
		args := []any{"ACL", "SETUSER", "default"}
		for _, r := range rules {
			args = append(args, r)
		}
		return admin.Do(ctx, args...).Err()
	}
	if err := set(deny); err != nil {
		if err2 := set(coarseRules(deny)); err2 != nil {
			return fmt.Errorf("ACL SETUSER default: %v", err)
		}
	}
	if ok, err := mayRun(ctx, admin, "default", safeProbe); err == nil && ok {
		return fmt.Errorf("ACL SETUSER default: the user may still run %s", safeProbe)
	}
	return nil
}

// coarseRules are rules for a server whose ACL cannot take a subcommand
// rule (before Redis 7): "-config|set" becomes "-config", and the
// subcommand grants go.
func coarseRules(rules []string) []string {
	coarse := make([]string, 0, len(rules))
	for _, r := range rules {
		if strings.HasPrefix(r, "+") && strings.Contains(r, "|") {
			continue
		}
		r, _, _ = strings.Cut(r, "|")
		if !slices.Contains(coarse, r) {
			coarse = append(coarse, r)
		}
	}
	return coarse
}

// mayRun asks the server whether user may run cmd (ACL DRYRUN): an
// error when the server cannot tell (before Redis 7, no ACL permission,
// not Redis).
func mayRun(ctx context.Context, c goredis.UniversalClient, user string, cmd ...string) (bool, error) {
	args := []any{"ACL", "DRYRUN", user}
	for _, a := range cmd {
		args = append(args, a)
	}
	res, err := c.Do(ctx, args...).Result()
	if err != nil {
		return false, err
	}
	s, ok := res.(string)
	if !ok {
		return false, fmt.Errorf("ACL DRYRUN answered %v", res)
	}
	return s == "OK", nil
}

// checkUser tells whether the user c is connected as may run destructive
// commands: the user's name and true when it may; an error when the
// server cannot tell.
func checkUser(ctx context.Context, c goredis.UniversalClient) (string, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	user, err := c.Do(ctx, "ACL", "WHOAMI").Text()
	if err != nil {
		return "", false, err
	}
	ok, err := mayRun(ctx, c, user, safeProbe)
	return user, ok, err
}

// unsafeUserMessage is the warning (or, with require_safe_user, the
// error) for a user that may run destructive commands.
func unsafeUserMessage(user string) string {
	return fmt.Sprintf("the redis user %q may run %s and the other destructive commands, and the scenario does not say allow_destructive: true; only soakd's static checks stand between a custom op or a replayed capture and the data. Connect as a user that cannot (auth.username_env), e.g. made with: %s", user, safeProbe, SafeUserLine("soakd-safe"))
}

// defaultUserMessage is the warning for a safe user on a server whose
// default user may run destructive commands: an ACL cannot deny AUTH, so
// "AUTH default ..." from a custom op or a captured line switches the
// connection to the default user, which needs no password unless one
// was set (soakd cannot tell without ACL GETUSER).
func defaultUserMessage(user string) string {
	return fmt.Sprintf("the redis user %q cannot run %s, but the default user can: if it has no password, an AUTH default from a custom op or a replayed capture gives the connection every command. Give it a password (ACL SETUSER default resetpass >PASSWORD) or deny it the destructive commands: %s", user, safeProbe, DefaultLockLine())
}

// DefaultLockLine is the ACL SETUSER command that denies the default
// user what SafeUser is denied (as soakd does on servers it manages).
func DefaultLockLine() string {
	var deny []string
	for _, r := range SafeUserRules() {
		if strings.HasPrefix(r, "-") || strings.HasPrefix(r, "+acl|") {
			deny = append(deny, r)
		}
	}
	return "ACL SETUSER default " + strings.Join(deny, " ")
}
