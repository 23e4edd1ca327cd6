package testscripts

import (
	"os"
	"path/filepath"
	"testing"
)

// serversDir is where .ci/servers.sh builds the servers Debian does not
// package (Prometheus 3, Cortex), once per machine or CI run.
func serversDir() string {
	if d := os.Getenv("TIMBERTALLY_SERVERS"); d != "" {
		return d
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(cache, "timbertally", "servers")
}

// builtServer returns the path of a server .ci/servers.sh builds (name:
// "prometheus3" or "cortex"), skipping the test when it is absent, except
// under CI=true, where .ci/run builds it and a skip would hide a test that
// must run.
func builtServer(t *testing.T, name string) string {
	t.Helper()
	p := filepath.Join(serversDir(), name)
	if fi, err := os.Stat(p); err == nil && fi.Mode()&0o111 != 0 {
		return p
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not built in %s; .ci/run runs .ci/servers.sh first, and CI must run this test", name, serversDir())
	}
	t.Skipf("%s is not built; run .ci/servers.sh (about 7 minutes, once) to run this test", name)
	return ""
}
