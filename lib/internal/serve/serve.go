package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"log"
	"log/slog"
	"maps"
	"net"
	"net/http"
	"slices"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/exporter-toolkit/web"
	"github.com/timbertally/timbertally/lib/internal/command"
	"github.com/timbertally/timbertally/lib/internal/cumulative"
	"github.com/timbertally/timbertally/lib/internal/doc"
	"github.com/timbertally/timbertally/lib/internal/label"
	"github.com/timbertally/timbertally/lib/internal/tape"
)

// server is a running tgserve.
type server struct {
	stores   []*store
	labels   []tape.Label // --label, sorted by name
	registry *prometheus.Registry
}

// Run serves the stores of o until ctx is done or a store fails.
func Run(ctx context.Context, o *Options) error {
	sv, err := newServer(o)
	if err != nil {
		return err
	}
	defer sv.close()
	if o.WebConfig != "" {
		if err := web.Validate(o.WebConfig); err != nil {
			return command.Usagef("tgserve: --web.config.file %s: %v; it takes the Prometheus exporters' web configuration (tls_server_config, basic_auth_users with bcrypt hashes: htpasswd -nBC 10 USER)", o.WebConfig, err)
		}
	}
	l, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return fmt.Errorf("tgserve: cannot listen on %s: %v; is another tgserve (or another exporter) there? give another --listen ADDR", o.Listen, err)
	}
	// Every tape is read to its end before the first answer: a scrape
	// while a restarted tgserve is still reading would see lower totals,
	// which Prometheus takes for a counter reset.
	for _, s := range sv.stores {
		if err := s.catchUp(); err != nil {
			l.Close()
			return err
		}
	}
	return sv.serve(ctx, l, o)
}

func newServer(o *Options) (*server, error) {
	labels, err := label.ParseFlags("tgserve", o.Labels)
	if err != nil {
		return nil, command.Usage(err)
	}
	sv := &server{labels: labels, registry: prometheus.NewRegistry()}
	for _, dir := range o.Stores {
		s, err := openStore(dir, o.Stderr)
		if err != nil {
			sv.close()
			return nil, err
		}
		sv.stores = append(sv.stores, s)
	}
	if err := sv.check(); err != nil {
		sv.close()
		return nil, err
	}
	sv.registry.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
	for _, s := range sv.stores {
		sv.registry.MustRegister(sv.newestGauge(s))
	}
	return sv, nil
}

// check refuses what would make two series one, or one family of two
// types: two stores of one name, a --label naming a label of a store's
// series (one of the two values would be lost), and a metric of one kind in
// one store and another in the next.
func (sv *server) check() error {
	names := map[string]string{}
	for _, s := range sv.stores {
		if other, ok := names[s.name]; ok {
			return command.Usagef("tgserve: %s and %s are both named %s, the %s label that tells stores apart; serve them from two tgserves, or name the store directories apart", other, s.dir, s.name, StoreLabel)
		}
		names[s.name] = s.dir
		for _, l := range sv.labels {
			if slices.Contains(s.labels, l.Name) || l.Name == StoreLabel {
				return command.Usagef("tgserve: --label %s names a label the series of %s have already (its document's by=, or %s); give the label another name", l.Name, s.dir, StoreLabel)
			}
		}
	}
	kinds := map[string]doc.MetricKind{}
	where := map[string]string{}
	owner := map[string]string{} // an exposed name: the metric that gives it
	for _, q := range []string{cumulative.EntriesMetric, cumulative.LateMetric, cumulative.DroppedMetric, cumulative.CappedMetric, "timbertally_newest_bucket_end_seconds"} {
		for _, name := range exposed(q, doc.Count) {
			owner[name] = "tgserve's own " + q
		}
	}
	for _, s := range sv.stores {
		for _, m := range slices.Sorted(maps.Keys(s.kinds)) {
			k := s.kinds[m]
			if was, ok := kinds[m]; ok && was != k {
				return command.Usagef("tgserve: the metric %s is a %s in %s but a %s in %s: one family cannot be both; serve the stores from two tgserves", m, was, where[m], k, s.dir)
			}
			kinds[m], where[m] = k, s.dir
			for _, name := range exposed(m, k) {
				if o, ok := owner[name]; ok && o != m {
					return command.Usagef("tgserve: the metrics %s and %s (in %s) would both be served as %s; serve the stores from two tgserves, or re-derive one with a metric of another name", o, m, s.dir, name)
				}
				owner[name] = m
			}
		}
	}
	return nil
}

// exposed lists the family and sample names a document's metric of kind k
// is served under.
func exposed(metric string, k doc.MetricKind) []string {
	switch k {
	case doc.Min, doc.Max:
		return []string{metric}
	case doc.Histogram:
		return []string{metric, metric + doc.BucketSuffix, metric + doc.SumSuffix, metric + doc.CountSuffix, metric + "_created"}
	}
	f := strings.TrimSuffix(metric, "_total")
	return []string{f, f + "_total", f + "_created"}
}

// newestGauge is the end of a store's newest sealed bucket, in Unix
// seconds: what an alert on a stalled tally or a stalled log watches.
func (sv *server) newestGauge(s *store) prometheus.Collector {
	labels := prometheus.Labels{StoreLabel: s.name}
	for _, l := range sv.labels {
		labels[l.Name] = l.Value
	}
	return prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name:        "timbertally_newest_bucket_end_seconds",
		Help:        "The end of the tape's newest sealed bucket, in Unix seconds (0 before the first seal).",
		ConstLabels: labels,
	}, func() float64 {
		s.mu.Lock()
		defer s.mu.Unlock()
		start, width, ok := s.totals.Newest()
		if !ok {
			return 0
		}
		_, end := tape.Interval(start, time.Duration(width))
		return float64(end) / 1e9
	})
}

func (sv *server) close() {
	for _, s := range sv.stores {
		s.f.Close()
	}
}

// serve answers on l while following the tapes, until ctx is done or a
// tape fails.
func (sv *server) serve(ctx context.Context, l net.Listener, o *Options) error {
	mux := http.NewServeMux()
	mux.HandleFunc("/metrics", sv.metrics)
	landing, err := web.NewLandingPage(web.LandingConfig{
		Name:        "tgserve",
		Description: "The tapes of tally stores as counters, for scrape",
		Version:     o.Version,
		Links:       []web.LandingLinks{{Address: "/metrics", Text: "Metrics"}},
	})
	if err != nil {
		return err
	}
	mux.Handle("/", landing)
	// The server's own complaints (a TLS handshake refused) go where
	// tgserve's notes go, named.
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 10 * time.Second, ErrorLog: log.New(o.Stderr, "tgserve: ", 0)}
	flags := &web.FlagConfig{WebListenAddresses: &[]string{o.Listen}, WebSystemdSocket: new(bool), WebConfigFile: &o.WebConfig}
	logger := slog.New(slog.NewTextHandler(o.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn}))
	served := make(chan error, 1)
	go func() { served <- web.Serve(l, srv, flags, logger) }()
	err = sv.follow(ctx, o.Poll, o.Listen, served)
	shut, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	srv.Shutdown(shut)
	return err
}

// follow reads what tally appends to the tapes, every poll, until ctx is
// done (nil), a tape fails or the server stops.
func (sv *server) follow(ctx context.Context, poll time.Duration, addr string, served <-chan error) error {
	tick := time.NewTicker(poll)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case err := <-served:
			if errors.Is(err, http.ErrServerClosed) {
				return nil
			}
			return fmt.Errorf("tgserve: serving on %s stopped: %v", addr, err)
		case <-tick.C:
		}
		for _, s := range sv.stores {
			if err := s.catchUp(); err != nil {
				return err
			}
		}
	}
}

// metrics answers a scrape: tgserve's own metrics, then the tapes'.
func (sv *server) metrics(w http.ResponseWriter, r *http.Request) {
	om := expfmt.NegotiateAccept(r.Header, expfmt.DefaultOpenMetricsAcceptedFormats()...).FormatType() == expfmt.TypeOpenMetrics
	var b bytes.Buffer
	mfs, err := sv.registry.Gather()
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	for _, mf := range mfs {
		if om {
			_, err = expfmt.MetricFamilyToOpenMetrics(&b, mf)
		} else {
			_, err = expfmt.MetricFamilyToText(&b, mf)
		}
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
	}
	b.Write(appendExposition(nil, sv.rows(), om))
	if om {
		b.WriteString("# EOF\n")
		w.Header().Set("Content-Type", "application/openmetrics-text; version=1.0.0; charset=utf-8")
	} else {
		w.Header().Set("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
	}
	w.Write(b.Bytes())
}
