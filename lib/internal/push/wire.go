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
		b = append(b, tag1Bytes)
		b = appendVarint(b, uint64(seriesSize(ts)))
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
	n := 1 + sizeBytes(sampleSizeOf(v, ms))
	for _, l := range labels {
		n += 1 + sizeBytes(labelSizeOf(l.name, l.value))
	}
	b = append(b, tag1Bytes)
	b = appendVarint(b, uint64(n))
	for _, l := range labels {
		b = appendLabel(b, l.name, l.value)
	}
	return appendSample(b, v, ms)
}

// The field tags tgpush writes, each one byte (field number << 3 | wire
// type): appended as constants, not worked out a field at a time.
const (
	tag1Bytes   = 1<<3 | byte(protowire.BytesType)
	tag2Bytes   = 2<<3 | byte(protowire.BytesType)
	tag1Fixed64 = 1<<3 | byte(protowire.Fixed64Type)
	tag2Varint  = 2<<3 | byte(protowire.VarintType)
)

// appendVarint is protowire.AppendVarint with the one-byte case (nearly
// every tag's length and every short string's) inlined at the call: the
// general function's call and switch were a third of building a group's
// bytes (BenchmarkBatchOfAHighCardinalityGroup/direct).
func appendVarint(b []byte, v uint64) []byte {
	if v < 0x80 {
		return append(b, byte(v))
	}
	return protowire.AppendVarint(b, v)
}

// sizeVarint is protowire.SizeVarint with the one-byte case inlined.
func sizeVarint(v uint64) int {
	if v < 0x80 {
		return 1
	}
	return protowire.SizeVarint(v)
}

// sizeBytes is protowire.SizeBytes: a length-delimited field's length
// prefix and its n bytes.
func sizeBytes(n int) int { return sizeVarint(uint64(n)) + n }

// wireLabel is a label on its way to the wire.
type wireLabel struct{ name, value string }

// appendLabel appends a series' label field.
func appendLabel(b []byte, name, value string) []byte {
	b = append(b, tag1Bytes)
	b = appendVarint(b, uint64(labelSizeOf(name, value)))
	b = appendString(b, tag1Bytes, name)
	return appendString(b, tag2Bytes, value)
}

// appendSample appends a series' sample field.
func appendSample(b []byte, v float64, ms int64) []byte {
	b = append(b, tag2Bytes)
	b = appendVarint(b, uint64(sampleSizeOf(v, ms)))
	if bits := math.Float64bits(v); bits != 0 { // proto3 leaves out a zero, not a -0
		b = append(b, tag1Fixed64)
		b = binary.LittleEndian.AppendUint64(b, bits)
	}
	if ms != 0 {
		b = append(b, tag2Varint)
		b = appendVarint(b, uint64(ms))
	}
	return b
}

// appendString appends a string field, its tag given (tag1Bytes,
// tag2Bytes), left out when empty (proto3).
func appendString(b []byte, tag byte, s string) []byte {
	if s == "" {
		return b
	}
	b = append(b, tag)
	b = appendVarint(b, uint64(len(s)))
	return append(b, s...)
}

func seriesSize(ts *prompb.TimeSeries) int {
	n := 0
	for _, l := range ts.Labels {
		n += 1 + sizeBytes(labelSize(l))
	}
	for _, s := range ts.Samples {
		n += 1 + sizeBytes(sampleSize(s))
	}
	return n
}

func labelSize(l *prompb.Label) int { return labelSizeOf(l.Name, l.Value) }

func labelSizeOf(name, value string) int { return stringSize(name) + stringSize(value) }

func stringSize(s string) int {
	if s == "" {
		return 0
	}
	return 1 + sizeBytes(len(s))
}

func sampleSize(s *prompb.Sample) int { return sampleSizeOf(s.Value, s.Timestamp) }

func sampleSizeOf(v float64, ms int64) int {
	n := 0
	if math.Float64bits(v) != 0 {
		n += 1 + 8
	}
	if ms != 0 {
		n += 1 + sizeVarint(uint64(ms))
	}
	return n
}
