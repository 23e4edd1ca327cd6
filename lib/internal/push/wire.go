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
			b = appendLabel(b, l.Name, l.Value)
		}
		for _, s := range ts.Samples {
			b = appendSample(b, s.Value, s.Timestamp)
		}
	}
	return b, true
}

// appendOneSample appends a write request's series field of labels (in
// the order given) and one sample: the direct form's series
// (batch.direct), the bytes appendWriteRequest writes for the same series.
func appendOneSample(b []byte, labels []wireLabel, v float64, ms int64) []byte {
	n := 1 + protowire.SizeBytes(sampleSizeOf(v, ms))
	for _, l := range labels {
		n += 1 + protowire.SizeBytes(labelSizeOf(l.name, l.value))
	}
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(n))
	for _, l := range labels {
		b = appendLabel(b, l.name, l.value)
	}
	return appendSample(b, v, ms)
}

// wireLabel is a label on its way to the wire.
type wireLabel struct{ name, value string }

// appendLabel appends a series' label field.
func appendLabel(b []byte, name, value string) []byte {
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(labelSizeOf(name, value)))
	b = appendString(b, 1, name)
	return appendString(b, 2, value)
}

// appendSample appends a series' sample field.
func appendSample(b []byte, v float64, ms int64) []byte {
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendVarint(b, uint64(sampleSizeOf(v, ms)))
	if bits := math.Float64bits(v); bits != 0 { // proto3 leaves out a zero, not a -0
		b = protowire.AppendTag(b, 1, protowire.Fixed64Type)
		b = binary.LittleEndian.AppendUint64(b, bits)
	}
	if ms != 0 {
		b = protowire.AppendTag(b, 2, protowire.VarintType)
		b = protowire.AppendVarint(b, uint64(ms))
	}
	return b
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

func labelSize(l *prompb.Label) int { return labelSizeOf(l.Name, l.Value) }

func labelSizeOf(name, value string) int { return stringSize(name) + stringSize(value) }

func stringSize(s string) int {
	if s == "" {
		return 0
	}
	return 1 + protowire.SizeBytes(len(s))
}

func sampleSize(s *prompb.Sample) int { return sampleSizeOf(s.Value, s.Timestamp) }

func sampleSizeOf(v float64, ms int64) int {
	n := 0
	if math.Float64bits(v) != 0 {
		n += 1 + 8
	}
	if ms != 0 {
		n += 1 + protowire.SizeVarint(uint64(ms))
	}
	return n
}
