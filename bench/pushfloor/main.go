// Command pushfloor measures the floor under tgpush's cost: what posting
// the very bytes tgpush sends costs, with nothing read, built or
// compressed and no cursor saved (bench/push.sh, its "floor" rows).
//
//	pushfloor capture ADDR DIR   # a receiver on ADDR that keeps each request's body in DIR
//	pushfloor replay URL DIR     # posts DIR's bodies to URL in order, as tgpush sends them
//
// capture names each body by its arrival and its samples' stamp (a
// group's requests share it: tgpush stamps a group's samples alike).
// replay sends a group's requests two at a time (as tgpush) and the
// groups one after another, as tgpush does, with Go's HTTP client and
// remote write's headers, and stops at the first answer that is not 2xx.
package main

import (
	"bytes"
	"cmp"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"

	prompb "buf.build/gen/go/prometheus/prometheus/protocolbuffers/go"
	"github.com/klauspost/compress/s2"
	"google.golang.org/protobuf/proto"
)

func main() {
	if len(os.Args) != 4 {
		fmt.Fprintln(os.Stderr, "usage: pushfloor capture ADDR DIR | pushfloor replay URL DIR")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "capture":
		err = capture(os.Args[2], os.Args[3])
	case "replay":
		err = replay(os.Args[2], os.Args[3])
	default:
		err = fmt.Errorf("%q is neither capture nor replay", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "pushfloor:", err)
		os.Exit(1)
	}
}

func capture(addr, dir string) error {
	var n atomic.Int64
	return http.ListenAndServe(addr, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, err := io.ReadAll(r.Body)
		var stamp int64
		if err == nil {
			stamp, err = firstStamp(body)
		}
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, fmt.Sprintf("%09d-%d", n.Add(1), stamp)), body, 0o644)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
}

// firstStamp is the timestamp of a remote-write body's first sample.
func firstStamp(body []byte) (int64, error) {
	raw, err := s2.Decode(nil, body)
	if err != nil {
		return 0, err
	}
	var req prompb.WriteRequest
	if err := proto.Unmarshal(raw, &req); err != nil {
		return 0, err
	}
	for _, ts := range req.Timeseries {
		for _, s := range ts.Samples {
			return s.Timestamp, nil
		}
	}
	return 0, nil
}

func replay(url, dir string) error {
	names, err := filepath.Glob(filepath.Join(dir, "*"))
	if err != nil || len(names) == 0 {
		return fmt.Errorf("no bodies in %s", dir)
	}
	slices.Sort(names)
	bodies := make([][]byte, len(names))
	for i, name := range names {
		if bodies[i], err = os.ReadFile(name); err != nil {
			return err
		}
	}
	stamp := func(name string) string { _, s, _ := strings.Cut(filepath.Base(name), "-"); return s }
	for i := 0; i < len(bodies); {
		k := i + 1
		for k < len(bodies) && stamp(names[k]) == stamp(names[i]) {
			k++
		}
		if err := sendGroup(url, names[i:k], bodies[i:k]); err != nil {
			return err
		}
		i = k
	}
	return nil
}

// inflight is tgpush's requests of a group at once (lib/internal/push's
// Inflight, which this command outside lib/ may not import).
const inflight = 2

// sendGroup posts one group's bodies, inflight at a time.
func sendGroup(url string, names []string, bodies [][]byte) error {
	var (
		wg    sync.WaitGroup
		mu    sync.Mutex
		first error
		slots = make(chan struct{}, inflight)
	)
	for i, body := range bodies {
		slots <- struct{}{}
		wg.Add(1)
		go func() {
			defer func() { <-slots; wg.Done() }()
			if err := post(url, body); err != nil {
				mu.Lock()
				first = cmp.Or(first, fmt.Errorf("%s: %v", names[i], err))
				mu.Unlock()
			}
		}()
	}
	wg.Wait()
	return first
}

func post(url string, body []byte) error {
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Encoding", "snappy")
	req.Header.Set("Content-Type", "application/x-protobuf")
	req.Header.Set("X-Prometheus-Remote-Write-Version", "0.1.0")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return err
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s answered %s", url, resp.Status)
	}
	return nil
}
