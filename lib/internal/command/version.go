package command

import (
	"runtime/debug"
	"strings"
)

// buildVersion is what --version prints after "NAME version": the module's
// version, the VCS revision and commit time the binary was built from
// (and "modified" when the tree had uncommitted changes), and the Go
// release, all read from the binary's build info. A binary built by
// go install MODULE@VERSION has no VCS stamp: its version names the commit.
func buildVersion() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (built without module support)"
	}
	return version(bi)
}

func version(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	words := []string{v}
	settings := map[string]string{}
	for _, s := range bi.Settings {
		settings[s.Key] = s.Value
	}
	if r := settings["vcs.revision"]; r != "" {
		words = append(words, "revision="+r)
	}
	if t := settings["vcs.time"]; t != "" {
		words = append(words, "time="+t)
	}
	if settings["vcs.modified"] == "true" {
		words = append(words, "modified")
	}
	if bi.GoVersion != "" {
		words = append(words, "go="+bi.GoVersion)
	}
	return strings.Join(words, " ")
}
