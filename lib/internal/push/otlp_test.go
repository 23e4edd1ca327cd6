package push

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	colpb "go.opentelemetry.io/proto/otlp/collector/metrics/v1"
	"google.golang.org/protobuf/proto"
)

// otlpAnswer is an OTLP/HTTP receiver that answers every export with the
// status and body answer gives, after checking the request is protobuf
// OTLP (lib/internal/otlp is tested into a real Prometheus 3; this scripts
// the answers a real one does not give on demand).
func otlpAnswer(t *testing.T, answer func() (int, []byte)) (url string, requests func() int) {
	var mu sync.Mutex
	n := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var req colpb.ExportMetricsServiceRequest
		if r.Header.Get("Content-Type") != "application/x-protobuf" || r.Header.Get("Content-Encoding") != "" || proto.Unmarshal(body, &req) != nil {
			http.Error(w, "not OTLP/HTTP protobuf", http.StatusBadRequest)
			return
		}
		mu.Lock()
		n++
		mu.Unlock()
		status, out := answer()
		w.Header().Set("Content-Type", "application/x-protobuf")
		w.WriteHeader(status)
		w.Write(out)
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1/metrics", func() int { mu.Lock(); defer mu.Unlock(); return n }
}

func TestAnOTLPAnswerThatRejectedPointsStopsTgpushNamingThem(t *testing.T) {
	resp, _ := proto.Marshal(&colpb.ExportMetricsServiceResponse{PartialSuccess: &colpb.ExportMetricsPartialSuccess{RejectedDataPoints: 3, ErrorMessage: "too old"}})
	url, requests := otlpAnswer(t, func() (int, []byte) { return http.StatusOK, resp })
	code, stderr := refusal(t, "--protocol", "otlp", "--url", url, store(t, threeGroups))
	if code != 1 || !strings.Contains(stderr, "3 data points rejected (partial success): too old") || !strings.Contains(stderr, "the bucket at 2026-12-01T10:35:30Z") || requests() != 1 {
		t.Fatalf("exit %d after %d requests: %s", code, requests(), stderr)
	}
	// An empty 200 (or one that rejected nothing) is every point taken.
	ok, _ := proto.Marshal(&colpb.ExportMetricsServiceResponse{PartialSuccess: &colpb.ExportMetricsPartialSuccess{}})
	for _, body := range [][]byte{nil, ok} {
		url, requests := otlpAnswer(t, func() (int, []byte) { return http.StatusOK, body })
		if code, stderr := refusal(t, "--protocol", "otlp", "--url", url, store(t, threeGroups)); code != 0 || requests() != 3 {
			t.Fatalf("exit %d after %d requests: %s", code, requests(), stderr)
		}
	}
}

func TestAnOTLPURLWithNoEndpointIsRefusedNamingTheOTLPPaths(t *testing.T) {
	url, _ := otlpAnswer(t, func() (int, []byte) { return http.StatusNotFound, []byte("404 page not found") })
	code, stderr := refusal(t, "--protocol", "otlp", "--url", url, store(t, threeGroups))
	if code != 1 || !strings.Contains(stderr, "no OTLP metrics endpoint") || !strings.Contains(stderr, "/api/v1/otlp/v1/metrics for Prometheus 3") || strings.Contains(stderr, "remote-write") {
		t.Fatalf("exit %d: %s", code, stderr)
	}
}

func TestAnOTLP500IsRetriedWithANoteNamingPrometheusDeltaFeature(t *testing.T) {
	fail := true
	var mu sync.Mutex
	url, requests := otlpAnswer(t, func() (int, []byte) {
		mu.Lock()
		defer mu.Unlock()
		if fail {
			return http.StatusInternalServerError, []byte("invalid temporality and type combination")
		}
		return http.StatusOK, nil
	})
	var errb syncBuffer
	done := make(chan int)
	go func() {
		done <- run(context.Background(), []string{"tgpush", "--retry-max", "20ms", "--once", "--protocol", "otlp", "--url", url, store(t, threeGroups)}, io.Discard, &errb, false)
	}()
	for deadline := time.Now().Add(10 * time.Second); requests() < 3; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("no retries: %s", errb.String())
		}
	}
	mu.Lock()
	fail = false
	mu.Unlock()
	if code := <-done; code != 0 || !strings.Contains(errb.String(), "the receiver fails (500 Internal Server Error) (a Prometheus 3 answers so to delta points unless run with --enable-feature=otlp-native-delta-ingestion); retrying") {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	if strings.Count(errb.String(), "note: the receiver fails") != 1 || !strings.Contains(errb.String(), "takes samples again") {
		t.Errorf("one note per change of state: %s", errb.String())
	}
}
