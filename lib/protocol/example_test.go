package protocol_test

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/timbertally/timbertally/lib/protocol"
)

// A consumer reads feed's header lines from its stdin, reads each batch's
// entries verbatim after its header, and answers with progress reports on
// its stdout. This one holds nothing across batches, so a batch is durable
// the moment it is read: it reports offset = the batch's end (taken
// omitted means taken = offset). A skip is answered the same way; idle,
// store and end lines, and kinds a later version adds, need no answer.
func Example_consumer() {
	in := bufio.NewReader(strings.NewReader("feed v=1\n" +
		"store id=web offset=0\n" +
		"batch id=web offset=0 end=28 entries=2\n" +
		"GET /a 200\n" +
		"GET /b 404 slow\n" +
		"skip id=web offset=28 end=1052 reason=long\n" +
		"idle id=web quiet=1500\n" +
		"end id=web\n"))
	if err := consume(in, os.Stdout); err != nil {
		fmt.Println(err)
	}
	// Output:
	// entry "GET /a 200"
	// entry "GET /b 404 slow"
	// progress id=web offset=28
	// progress id=web offset=1052
}

// consume is a whole consumer: every line of in is a header, or an entry of
// the batch whose header came before it.
func consume(in *bufio.Reader, out io.Writer) error {
	var report []byte
	for {
		line, err := in.ReadBytes('\n')
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
		h, err := protocol.ParseHeader(line[:len(line)-1])
		if err != nil {
			return err // feed must stop on garbage: say so and exit non-zero
		}
		switch h.Kind {
		case protocol.KindHello:
			if h.V != protocol.Version {
				return fmt.Errorf("feed speaks v=%s, this consumer v=%s", h.V, protocol.Version)
			}
		case protocol.KindBatch:
			for range h.Entries {
				entry, err := in.ReadString('\n')
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "entry %q\n", strings.TrimSuffix(entry, "\n"))
			}
			fallthrough
		case protocol.KindSkip:
			report = protocol.AppendReport(report[:0], protocol.Report{ID: h.ID, Offset: h.End, Taken: h.End})
			if _, err := out.Write(report); err != nil {
				return err
			}
		}
	}
}

// ParseHeader reads one header line, without its newline. Keys a later
// version adds are ignored, and a line of a kind this version does not
// know parses as KindUnknown, which a consumer skips.
func ExampleParseHeader() {
	for _, line := range []string{
		"batch id=web offset=4096 end=8192 entries=31",
		"batch id=web offset=0 end=10 entries=1 checksum=abc",
		"rewind id=web",
		"batch id=web offset=10 end=5 entries=1",
	} {
		h, err := protocol.ParseHeader([]byte(line))
		switch {
		case err != nil:
			fmt.Println(err)
		case h.Kind == protocol.KindUnknown:
			fmt.Println("a later kind: skipped")
		default:
			fmt.Printf("batch of %s: %d entries in [%d, %d)\n", h.ID, h.Entries, h.Offset, h.End)
		}
	}
	// Output:
	// batch of web: 31 entries in [4096, 8192)
	// batch of web: 1 entries in [0, 10)
	// a later kind: skipped
	// malformed batch line "batch id=web offset=10 end=5 entries=1": 1 entries cannot fit in -5 bytes
}

// AppendReport formats a progress report with its newline. A consumer
// that holds entries in memory (a bucket not yet sealed) reports what it
// has absorbed as taken and what is durable as offset, so that feed
// keeps sending while its cursor keeps only what survives a crash; window
// asks feed to send that many bytes of batches ahead of taken.
func ExampleAppendReport() {
	os.Stdout.Write(protocol.AppendReport(nil, protocol.Report{ID: "web", Offset: 4096, Taken: 4096}))
	os.Stdout.Write(protocol.AppendReport(nil, protocol.Report{ID: "web", Offset: 4096, Taken: 65536, Window: 1 << 20}))
	// Output:
	// progress id=web offset=4096
	// progress id=web offset=4096 taken=65536 window=1048576
}

// ParseReport is feed's side: it refuses anything that is not a progress
// report, quoting the line, because feed must stop on garbage.
func ExampleParseReport() {
	for _, line := range []string{"progress id=web offset=4096 taken=8192", "progress id=web offset=10 taken=5", "ok"} {
		r, err := protocol.ParseReport([]byte(line))
		fmt.Printf("%+v %v\n", r, err)
	}
	// Output:
	// {ID:web Offset:4096 Taken:8192 Window:0} <nil>
	// {ID: Offset:0 Taken:0 Window:0} malformed report "progress id=web offset=10 taken=5": taken=5 is below offset=10
	// {ID: Offset:0 Taken:0 Window:0} malformed report "ok": a report starts with "progress"
}

// AppendBatch and the other Append functions format feed's side, for a
// test that plays feed to a consumer.
func ExampleAppendBatch() {
	b := protocol.AppendHello(nil, 0)
	b = protocol.AppendStore(b, "web", 0)
	b = protocol.AppendBatch(b, "web", 0, 11, 1)
	b = append(b, "GET /a 200\n"...)
	b = protocol.AppendEnd(b, "web")
	os.Stdout.Write(b)
	// Output:
	// feed v=1
	// store id=web offset=0
	// batch id=web offset=0 end=11 entries=1
	// GET /a 200
	// end id=web
}
