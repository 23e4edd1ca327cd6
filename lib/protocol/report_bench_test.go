package protocol

import "testing"

// BenchmarkReportRoundTrip is one progress report as it crosses the pipe
// once per batch: tally's AppendReport, then feed's ParseReport.
func BenchmarkReportRoundTrip(b *testing.B) {
	want := Report{ID: "web1", Offset: 186350, Taken: 98709338}
	var line []byte
	b.ReportAllocs()
	for b.Loop() {
		line = AppendReport(line[:0], want)
		got, err := ParseReport(line[:len(line)-1])
		if err != nil || got != want {
			b.Fatalf("ParseReport(%q) = %+v, %v; want %+v", line, got, err, want)
		}
	}
}
