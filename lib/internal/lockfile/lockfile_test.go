package lockfile

import (
	"errors"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// A second Take of a held lock is refused at once, naming the holder; once
// the holder closes it, the lock can be taken again.
func TestASecondTakeIsRefusedNamingTheHolderUntilItIsReleased(t *testing.T) {
	p := filepath.Join(t.TempDir(), "c.lock")
	first, err := Take(p, "feed")
	if err != nil {
		t.Fatal(err)
	}
	_, err = Take(p, "feed")
	var held *HeldError
	if !errors.As(err, &held) || !strings.HasPrefix(held.Holder, "feed pid "+strconv.Itoa(os.Getpid())+", started ") {
		t.Fatalf("a second take: %v; want it refused naming this pid", err)
	}
	first.Close()
	again, err := Take(p, "feed")
	if err != nil {
		t.Fatalf("after the holder released it: %v", err)
	}
	again.Close()
}
