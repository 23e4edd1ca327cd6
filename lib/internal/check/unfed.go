package check

import (
	"fmt"
	"io"

	"github.com/timbertally/timbertally/lib/internal/tallystore"

	"github.com/timbertally/timbertally/lib/internal/store"
)

// unfed finds, for each --against store named with its history, the
// generations this tape never counted: the tape's counting of the store
// began in the generation whose first bytes DIR/bindings records (at its
// position there), and a list that places that generation later names
// files before it that were never fed. Their complete lines lie before
// the fed range: no run of feed can take them, so a tape checked against
// them does not hold (it would otherwise hold, or pass for "run feed
// again", while a whole generation is uncounted). It prints each such
// generation with its lines, and returns the ids of the stores it found
// them in (their lines past the tape's end are the list's shift, not
// lines feed would take).
func (o *options) unfed(w io.Writer) (map[string]bool, error) {
	first, err := tallystore.FirstGens(o.dir)
	if err != nil {
		return nil, fmt.Errorf("tgcheck: %v", err)
	}
	found := map[string]bool{}
	for _, in := range o.against {
		g, ok := first[in.ID]
		if !ok || len(in.History) == 0 {
			continue
		}
		placed, err := store.Spec{ID: in.ID, History: in.History, Path: in.Path}.Place(g.Sig, g.SigLen)
		if err != nil {
			return nil, fmt.Errorf("tgcheck: store %s: %w", in.ID, err)
		}
		at := placed[len(placed)-1]
		shift := at.Base - g.Base
		if !at.Is || shift <= 0 {
			continue
		}
		for _, p := range placed[:len(placed)-1] {
			if p.Base >= shift || p.Lines == 0 {
				continue
			}
			found[in.ID] = true
			fmt.Fprintf(w, "against: store %s: %s holds %d complete lines this tape never counted: its counting of the store began at position %d in %s (the first bytes %s records there), which this list places at position %d; they lie before what was fed, and no run of feed can take them\n",
				in.ID, p.Path, p.Lines, g.Base, at.Path, tallystore.At(o.dir).Bindings(), at.Base)
		}
	}
	return found, nil
}
