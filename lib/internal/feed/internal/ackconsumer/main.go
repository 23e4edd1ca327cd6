// Command ackconsumer is the least a feed consumer can be, for benchmarks:
// it reads each batch whole and at once reports its end as both offset and
// taken. It holds nothing across batches, so feed's throughput with it is
// feed's own.
//
// With -poll it polls its input for feed's next batch before each read, as
// tally does with a feed that offers no window (package spin), instead of
// sleeping in the read: a sleeper's wake-up, tens of µs on a VM whose vCPU
// went idle, is paid once a batch and is the consumer's cost, not feed's
// (bench/README.md has both). With -window it asks for the window feed
// offers (docs/protocol.md), on a report at each store's resume position
// and on every report after, so feed sends ahead of its reports.
package main

import (
	"bufio"
	"flag"
	"fmt"
	"io"
	"os"

	"github.com/timbertally/timbertally/lib/internal/spin"
	"github.com/timbertally/timbertally/lib/protocol"
)

func main() {
	poll := flag.Bool("poll", false, "poll stdin for the next batch before each read, as tally does without a window")
	window := flag.Bool("window", false, "ask for the window feed offers")
	flag.Parse()
	var in io.Reader = os.Stdin
	if *poll {
		in = pollingStdin{spin.New()}
	}
	if err := run(in, os.Stdout, *window); err != nil {
		fmt.Fprintln(os.Stderr, "ackconsumer:", err)
		os.Exit(1)
	}
}

// pollingStdin reads stdin once it holds bytes, polling for them first for
// as long as the spinner allows.
type pollingStdin struct{ spin *spin.Spinner }

func (p pollingStdin) Read(b []byte) (int, error) {
	p.spin.Await(0, func() spin.Look { return spin.FoundIf(spin.Waiting(0) > 0) })
	return os.Stdin.Read(b)
}

// run acks every batch on r to w; with window it asks for the window feed's
// hello offers.
func run(r io.Reader, w io.Writer, window bool) error {
	in := bufio.NewReaderSize(r, 1<<20)
	var out []byte
	var ask int64
	for {
		line, err := in.ReadSlice('\n')
		if err != nil {
			if len(line) == 0 {
				return nil // EOF between lines: feed is done
			}
			return err
		}
		h, err := protocol.ParseHeader(line[:len(line)-1])
		if err != nil {
			return err
		}
		switch h.Kind {
		case protocol.KindHello:
			if window {
				ask = h.Window
			}
			continue
		case protocol.KindStore:
			if ask == 0 {
				continue
			}
			h.End = h.Offset // a report at the resume position asks before any batch
		case protocol.KindBatch:
			// A batch's entries fill exactly end-offset bytes.
			if _, err := in.Discard(int(h.End - h.Offset)); err != nil {
				return err
			}
		default:
			continue
		}
		out = protocol.AppendReport(out[:0], protocol.Report{ID: h.ID, Offset: h.End, Taken: h.End, Window: ask})
		if _, err := w.Write(out); err != nil {
			return err
		}
	}
}
