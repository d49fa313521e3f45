package rundir

import "runtime/debug"

// stampedVersion is set by the linker (make build: -ldflags "-X
// github.com/soakd/soakd/rundir.stampedVersion=..."), like main.version;
// nothing assigns it at run time.
var stampedVersion string

// BuildVersion names the running soakd build for a summary: the stamped
// version, else the module version, else the VCS revision the binary
// was built from (12 hex digits, "+dirty" for a modified tree); "" when
// the build recorded none (go test binaries).
func BuildVersion() string {
	if stampedVersion != "" {
		return stampedVersion
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return ""
	}
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	rev, dirty := "", false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if rev != "" && dirty {
		rev += "+dirty"
	}
	return rev
}
