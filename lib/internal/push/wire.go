package push

import (
	"encoding/binary"
	"math"
	"unicode/utf8"

	prompb "buf.build/gen/go/prometheus/prometheus/protocolbuffers/go"
	"google.golang.org/protobuf/encoding/protowire"
)

// appendWriteRequest appends req in protobuf's wire format, the bytes
// proto.Marshal writes for it (TestTheWriteRequestEncoderWritesWhatProtoMarshalDoes),
// without its reflection: prompb's generic marshal was ~12% of tgpush's
// CPU (bench/README.md, session 12). It writes the fields tgpush sets, a
// series' labels and samples; ok is false for a request with anything
// else (metadata, exemplars, histograms, unknown fields), which
// proto.Marshal then writes, and for a string that is not UTF-8, which it
// refuses (tgpush's values are shown as UTF-8: label.Shown).
func appendWriteRequest(b []byte, req *prompb.WriteRequest) (_ []byte, ok bool) {
	if len(req.Metadata) != 0 || len(req.ProtoReflect().GetUnknown()) != 0 {
		return b, false
	}
	for _, ts := range req.Timeseries {
		if len(ts.Exemplars) != 0 || len(ts.Histograms) != 0 {
			return b, false
		}
		b = protowire.AppendTag(b, 1, protowire.BytesType)
		b = protowire.AppendVarint(b, uint64(seriesSize(ts)))
		for _, l := range ts.Labels {
			if !utf8.ValidString(l.Name) || !utf8.ValidString(l.Value) {
				return b, false // proto.Marshal refuses it, as before
			}
			b = protowire.AppendTag(b, 1, protowire.BytesType)
			b = protowire.AppendVarint(b, uint64(labelSize(l)))
			b = appendString(b, 1, l.Name)
			b = appendString(b, 2, l.Value)
		}
		for _, s := range ts.Samples {
			b = protowire.AppendTag(b, 2, protowire.BytesType)
			b = protowire.AppendVarint(b, uint64(sampleSize(s)))
			if v := math.Float64bits(s.Value); v != 0 { // proto3 leaves out a zero, not a -0
				b = protowire.AppendTag(b, 1, protowire.Fixed64Type)
				b = binary.LittleEndian.AppendUint64(b, v)
			}
			if s.Timestamp != 0 {
				b = protowire.AppendTag(b, 2, protowire.VarintType)
				b = protowire.AppendVarint(b, uint64(s.Timestamp))
			}
		}
	}
	return b, true
}

// appendString appends a string field, left out when empty (proto3).
func appendString(b []byte, num protowire.Number, s string) []byte {
	if s == "" {
		return b
	}
	b = protowire.AppendTag(b, num, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(len(s)))
	return append(b, s...)
}

func seriesSize(ts *prompb.TimeSeries) int {
	n := 0
	for _, l := range ts.Labels {
		n += 1 + protowire.SizeBytes(labelSize(l))
	}
	for _, s := range ts.Samples {
		n += 1 + protowire.SizeBytes(sampleSize(s))
	}
	return n
}

func labelSize(l *prompb.Label) int { return stringSize(l.Name) + stringSize(l.Value) }

func stringSize(s string) int {
	if s == "" {
		return 0
	}
	return 1 + protowire.SizeBytes(len(s))
}

func sampleSize(s *prompb.Sample) int {
	n := 0
	if math.Float64bits(s.Value) != 0 {
		n += 1 + 8
	}
	if s.Timestamp != 0 {
		n += 1 + protowire.SizeVarint(uint64(s.Timestamp))
	}
	return n
}
