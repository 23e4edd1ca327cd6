// Command ackconsumer is the least a feed consumer can be, for benchmarks:
// it reads each batch whole and at once reports its end as both offset and
// taken. It holds nothing across batches, so feed's throughput with it is
// feed's own.
package main

import (
	"bufio"
	"fmt"
	"os"

	"github.com/timbertally/timbertally/lib/protocol"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "ackconsumer:", err)
		os.Exit(1)
	}
}

func run() error {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	var out []byte
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
		if h.Kind != protocol.KindBatch {
			continue
		}
		// A batch's entries fill exactly end-offset bytes.
		if _, err := in.Discard(int(h.End - h.Offset)); err != nil {
			return err
		}
		out = protocol.AppendReport(out[:0], protocol.Report{ID: h.ID, Offset: h.End, Taken: h.End})
		if _, err := os.Stdout.Write(out); err != nil {
			return err
		}
	}
}
