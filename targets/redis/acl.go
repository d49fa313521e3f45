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
		if err2 := set(coarse); err2 != nil {
			return "", fmt.Errorf("ACL SETUSER %s: %v", SafeUser, err)
		}
	}
	if ok, err := mayRun(ctx, admin, SafeUser, safeProbe); err == nil && ok {
		return "", fmt.Errorf("ACL SETUSER %s: the user may still run %s", SafeUser, safeProbe)
	}
	return pw, nil
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
