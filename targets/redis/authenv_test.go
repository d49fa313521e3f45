package redis

import (
	"context"
	"strings"
	"testing"

	"github.com/soakd/soakd/scenarios"
	"github.com/soakd/soakd/targets"
)

// TestEmptyAuthEnvRefused: auth.password_env (or username_env) naming
// an empty variable is an error before any connection, as on elastic,
// mongo and cql (it connected without the password).
func TestEmptyAuthEnvRefused(t *testing.T) {
	env := func(k string) string {
		if k == "SET" {
			return "someone"
		}
		return ""
	}
	for _, c := range []struct {
		auth scenarios.Auth
		want string
	}{
		{scenarios.Auth{PasswordEnv: "SOAKD_NO_SUCH_PASSWORD"}, "auth.password_env names SOAKD_NO_SUCH_PASSWORD, which is empty"},
		{scenarios.Auth{UsernameEnv: "SOAKD_NO_SUCH_USER", PasswordEnv: "SET"}, "auth.username_env names SOAKD_NO_SUCH_USER, which is empty"},
	} {
		// Port 1 refuses connections: an error about it would mean the
		// variable was not checked first.
		_, err := Open(context.Background(), scenarios.Target{Kind: scenarios.KindRedis, URL: "redis://127.0.0.1:1", Auth: c.auth}, targets.Options{Env: env})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("auth %+v: err %v, want %q", c.auth, err, c.want)
		}
	}
}
