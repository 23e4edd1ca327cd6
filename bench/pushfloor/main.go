// Command pushfloor measures the floor under tgpush's cost: what posting
// the very bytes tgpush sends costs, with nothing read, built or
// compressed and no cursor saved (bench/push.sh, its "floor" rows).
//
//	pushfloor capture ADDR DIR   # a receiver on ADDR that keeps each request's body in DIR
//	pushfloor replay URL DIR     # posts DIR's bodies to URL in order, one at a time, as tgpush does
//
// replay uses Go's HTTP client as tgpush does, with remote write's
// headers, and stops at the first answer that is not 2xx.
package main

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"sync/atomic"
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
		if err == nil {
			err = os.WriteFile(filepath.Join(dir, fmt.Sprintf("%09d", n.Add(1))), body, 0o644)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		w.WriteHeader(http.StatusNoContent)
	}))
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
	for i, body := range bodies {
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
			return fmt.Errorf("%s answered %s to %s", url, resp.Status, names[i])
		}
	}
	return nil
}
