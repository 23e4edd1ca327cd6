//go:build linux

package testscripts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// envelopeKillDoc counts each store's entries under a container runtime's
// envelope: by=store gives the tape's count per file, by=pod the pod its
// kubelet path names, and the markers (2% malformed lines, the synthetic
// jitter's !late) name their store.
const envelopeKillDoc = `format apache-combined
envelope %s
window 1s grace=0s
metric requests count by=pod,store
`

// wrapLines wraps each line of lines as runtime kind ("cri" or "docker")
// writes a container's output, split into parts of at most 48 bytes as a
// runtime splits a line longer than its buffer; every fifth line is
// stderr. It is the test's own writer, independent of the toolkit.
func wrapLines(kind string, lines []byte, at time.Time) []byte {
	var out []byte
	n := 0
	for line := range bytes.Lines(lines) {
		line = bytes.TrimSuffix(line, []byte("\n"))
		stream := "stdout"
		if n%5 == 4 {
			stream = "stderr"
		}
		stamp := at.Add(time.Duration(n) * time.Millisecond).Format(time.RFC3339Nano)
		for i := 0; i == 0 || i < len(line); i += 48 {
			part, last := line[i:min(i+48, len(line))], i+48 >= len(line)
			if kind == "cri" {
				tag := "P"
				if last {
					tag = "F"
				}
				out = fmt.Appendf(out, "%s %s %s %s\n", stamp, stream, tag, part)
				continue
			}
			log := string(part)
			if last {
				log += "\n"
			}
			rec, _ := json.Marshal(map[string]string{"log": log, "stream": stream, "time": stamp})
			out = append(append(out, rec...), '\n')
		}
		n++
	}
	return out
}

// perStoreLabel sums what a tape accounts for of each store: its requests
// series by their store label, and its markers by id=.
func perStoreLabel(t *testing.T, tp []byte) map[string]int64 {
	t.Helper()
	n := map[string]int64{}
	for _, l := range readTape(t, tp) {
		switch {
		case l.kind == "series":
			// The store web_ID_0a1b is pod ID's (the kubelet's NS_POD_UID).
			if st := l.labels["store"]; "web_"+l.labels["pod"]+"_0a1b" != st {
				t.Errorf("the series %v names pod %q for store %q", l.labels, l.labels["pod"], st)
			}
			n[l.labels["store"]] += int64(l.value)
		case l.kind == "!late" || l.kind == "!drop" || l.kind == "!cap":
			n[l.keys["id"]] += l.count()
		}
	}
	return n
}

// TestSplitContainerLinesAreCountedOnceEachPerPodUnderKills follows --glob over
// a kubelet-like tree of CRI (rounds 0 and 2) or docker json-file (round
// 1) logs whose lines are split into parts, appended in pieces that end
// mid-line and mid-split-line, while feed, tally or both are killed
// (SIGKILL) at random moments and the same command started again; a last
// one-shot run completes the tape. Every entry of every file is accounted
// for exactly once: the lines the test wrapped, per file (one pod's),
// against the tape's series by=store and its markers.
func TestSplitContainerLinesAreCountedOnceEachPerPodUnderKills(t *testing.T) {
	h, rng := killHarness(t, "")
	kills := 0
	const rounds = 3
	for round := range rounds {
		kind := []string{"cri", "docker", "cri"}[round]
		writeFile(t, h.doc, fmt.Appendf(nil, envelopeKillDoc, kind))
		logs := filepath.Join(h.root, fmt.Sprintf("pods%d", round))
		path := func(id string) string { return filepath.Join(logs, "web_"+id+"_0a1b", "nginx", "0.log") }
		wrote := map[string]int{}
		begun := time.Now()
		write := func(id string, n int) {
			at := synthStart.Add(time.Since(begun))
			lines := globLines(t, id, int64(round*100+wrote[id]%97+int(id[0])), n, at)
			os.MkdirAll(filepath.Dir(path(id)), 0o755)
			appendTo(t, path(id), wrapLines(kind, lines, at))
			wrote[id] += bytes.Count(lines, []byte("\n"))
		}
		for _, id := range []string{"a", "b", "c"} {
			write(id, 800)
		}
		dir := h.provision(fmt.Sprintf("%s%d", kind, round))
		command := globCommand(dir, 5+rng.IntN(60), filepath.Join(logs, "*", "nginx", "0.log")) // batches of 5 to 64 lines: split lines cross them
		steps := []func(){
			func() { write("a", 600) },
			func() { write("d", 500); write("b", 300) },
			func() { write("c", 400) },
			func() { write("a", 300); write("d", 300) },
		}
		kills += killSteps(t, dir, round, command, steps, func() bool { return true }, func() time.Duration { // every step ends in a kill
			return time.Duration(rng.IntN(200)) * time.Millisecond
		}, rng)
		got := perStoreLabel(t, readFile(t, filepath.Join(dir, "tape")))
		for id, want := range wrote {
			// The glob's id is the text its wildcard matched: the pod's directory.
			if id := "web_" + id + "_0a1b"; got[id] != int64(want) {
				t.Errorf("round %d (%s, %d kills so far): store %s: the tape accounts for %d entries, the test wrote %d", round, kind, kills, id, got[id], want)
			}
		}
		if len(got) != len(wrote) {
			t.Errorf("round %d: the tape names stores %v, the test wrote %d files", round, got, len(wrote))
		}
	}
	t.Logf("%d kills in %d rounds", kills, rounds)
	killFloor(t, rounds, rounds, kills, 2*rounds)
}
