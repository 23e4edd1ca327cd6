// Package extract cuts entries into fields and finds their time, as a
// document's format and time directives say.
package extract

import "github.com/timbertally/timbertally/lib/doc"

// Entry is one extracted entry. Fields are indexed as Extractor.Field says
// and alias the line given to Extract: they are valid until the line's
// bytes change.
type Entry struct {
	Time   int64 // Unix nanoseconds
	Fields [][]byte
}

// Extractor extracts entries for one document. It is not safe for
// concurrent use (it reuses its buffers so that extraction allocates
// nothing per entry).
type Extractor struct {
	d *doc.Doc
}
