package push

import (
	prompb "buf.build/gen/go/prometheus/prometheus/protocolbuffers/go"
	"google.golang.org/protobuf/proto"
)

// A shape is what a group becomes on the wire, the seam between the
// pusher (which groups, stamps, holds, sends and moves the cursor) and the
// series a receiver holds: the per-bucket samples of remote write
// (buckets, here), the running totals of --counters (counters.go), the
// delta points of --protocol otlp (otlp.go). Every shape is sent a group
// a request (split by --max-samples), under the same cursor, retries and
// refusals.
type shape interface {
	// sends is the cursor's name for the shape (sends=).
	sends() string
	// add puts group g, of the bucket starting at (Unix ns), in b, its
	// samples stamped at ms (tape.SampleMs, or tape.MarkerMs for the
	// k-th marker-only group after the bucket); a failure goes in b.fail.
	add(b *batch, g Group, at, ms int64, k int)
	// pass reads a group that is not sent (before --from TIME, or
	// markers with no bucket to go with), for a shape whose samples
	// depend on every group before (the running totals).
	pass(b *batch, g Group)
	// requests are b's requests of at most max samples each, in the
	// order they must be taken.
	requests(b *batch, max int) []request
}

// request is one POST's message and how many samples it carries.
type request struct {
	msg     proto.Message
	raw     []byte // or the message's bytes already (a direct batch's), msg nil
	body    []byte // the request on the wire (pusher.encode)
	samples int
	// zeros: the zero samples before new series' first values (--counters),
	// taken and recorded in the cursor before the rest of the group, which
	// makes them newer than every zero.
	zeros bool
}

// buckets is the per-bucket shape: each series line of a group a sample
// of its bucket's value, read with sum_over_time.
type buckets struct{}

func (buckets) sends() string { return SendsBuckets }

func (buckets) add(b *batch, g Group, at, ms int64, _ int) { b.add(g, at, ms) }

func (buckets) pass(*batch, Group) {}

func (buckets) requests(b *batch, max int) []request {
	max = perRequest(b.samples, max)
	if b.direct {
		return b.rawRequests(max)
	}
	return writeRequests(b.requests(max))
}

// perRequest is how many of a group's n samples go in one request: at
// most max, and a group of more than twice minPerRequest is split so that
// its requests go Inflight at a time (they hold disjoint series) and the
// receiver stores them on as many cores: measured, the bypath store's
// groups of 4 000 samples into a local VictoriaMetrics went 7-15% faster
// as two requests than as one (bench/README.md, session 13).
func perRequest(n, max int) int {
	if n <= 2*minPerRequest {
		return max
	}
	return min(max, (n+Inflight-1)/Inflight)
}

// minPerRequest keeps small groups whole: a request's own cost, to tgpush
// and to the receiver, is not worth halving a few hundred samples for.
const minPerRequest = 1000

// writeRequests wraps remote-write requests.
func writeRequests(reqs []*prompb.WriteRequest) []request {
	out := make([]request, len(reqs))
	for i, r := range reqs {
		n := 0
		for _, ts := range r.Timeseries {
			n += len(ts.Samples)
		}
		out[i] = request{msg: r, samples: n}
	}
	return out
}
