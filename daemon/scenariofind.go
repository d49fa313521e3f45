package daemon

import (
	"os"
	"path/filepath"
)

// FindScenario resolves the scenario an API request names. A relative
// path (a bare file name such as quickstart.yaml, or sub/x.yaml) is
// looked up as ScenarioPath resolves it when that file lies in a
// scenario directory, else in each scenario directory in scenario_dirs
// order: the first that holds it wins. Found nowhere, it is named in
// the first scenario directory, so the answer is "no such file", not
// "outside the scenario directories". Absolute paths and paths leaving
// their directory (..) are ScenarioPath's; OpenScenario checks every
// result against the scenario directories all the same.
func (c *Config) FindScenario(p string) string {
	path := c.ScenarioPath(p)
	if p == "" || !filepath.IsLocal(p) {
		return path
	}
	dirs := c.Dirs()
	if exists(path) && within(resolved(path), dirs) {
		return path
	}
	for _, d := range dirs {
		if cand := filepath.Join(d, p); exists(cand) {
			return cand
		}
	}
	if len(dirs) > 0 && !within(resolved(path), dirs) {
		return filepath.Join(dirs[0], p)
	}
	return path
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// resolved is path absolute, with symlinks resolved where they exist
// (as Dirs are).
func resolved(path string) string {
	if abs, err := filepath.Abs(path); err == nil {
		path = abs
	}
	if real, err := filepath.EvalSymlinks(path); err == nil {
		path = real
	}
	return path
}
