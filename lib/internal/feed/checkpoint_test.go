package feed

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/timbertally/timbertally/lib/internal/lockfile"
)

// A second feed on a cursor that a running feed holds is refused at once,
// naming the holder's pid, and changes nothing: two feeds on one cursor
// overwrite each other's positions.
func TestASecondFeedOnOneCursorIsRefusedNamingTheHolder(t *testing.T) {
	dir, _, status := runFeed(t, "a\nb\n", "0", func(*Options) {})
	if status != 0 {
		t.Fatalf("first run: exit %d", status)
	}
	before, _ := os.ReadFile(filepath.Join(dir, "cur"))
	held, err := lockfile.Take(filepath.Join(dir, "cur.lock"), "feed")
	if err != nil {
		t.Fatal(err)
	}
	defer held.Close()
	for _, reset := range []bool{false, true} {
		_, stderr, status := runFeedIn(t, dir, "a\nb\n", "0", func(o *Options) { o.Reset = reset })
		if status != 1 || !strings.Contains(stderr, "feed: the cursor cur is in use by feed pid "+strconv.Itoa(os.Getpid())+", started ") {
			t.Fatalf("reset %v: exit %d, %q; want a refusal naming the holder", reset, status, stderr)
		}
		if after, _ := os.ReadFile(filepath.Join(dir, "cur")); string(after) != string(before) {
			t.Fatalf("reset %v: the refused run changed the cursor %q to %q", reset, before, after)
		}
	}
}

// A --reset its consumer refuses (tally: different content at positions
// its tape holds) leaves the cursor as it was: the reset cursor is written
// only once the consumer has reported, and this one never does.
func TestARefusedResetLeavesTheCursorAsItWas(t *testing.T) {
	dir, _, _ := runFeed(t, "a\nb\n", "0", func(*Options) {})
	before, _ := os.ReadFile(filepath.Join(dir, "cur"))
	if !strings.HasPrefix(string(before), "store id=s offset=4 ") {
		t.Fatalf("cursor %q after the first run", before)
	}
	os.WriteFile(filepath.Join(dir, "refuse.sh"), []byte("echo 'refused: nothing was written' >&2; exit 1\n"), 0o644)
	_, stderr, status := runFeedIn(t, dir, "a\nb\n", "0", func(o *Options) { o.Reset, o.Consumer = true, []string{"sh", "refuse.sh"} })
	if status != 1 {
		t.Fatalf("a refused reset: exit %d, %s", status, stderr)
	}
	if after, _ := os.ReadFile(filepath.Join(dir, "cur")); string(after) != string(before) {
		t.Fatalf("a refused --reset changed the cursor %q to %q", before, after)
	}
}

// A cursor position inside a line (an edited cursor, another file's) is
// refused: the rest of that line would be an entry.
func TestACursorPositionInsideALineIsRefused(t *testing.T) {
	dir, _, _ := runFeed(t, "one\ntwo\n", "0", func(*Options) {})
	cur, _ := os.ReadFile(filepath.Join(dir, "cur"))
	os.WriteFile(filepath.Join(dir, "cur"), []byte(strings.Replace(string(cur), "offset=8 ", "offset=6 ", 1)), 0o644)
	os.Remove(filepath.Join(dir, "in.txt"))
	_, stderr, status := runFeedIn(t, dir, "one\ntwo\n", "0", func(*Options) {})
	if status != 1 || !strings.Contains(stderr, "the cursor's position 6 is not where a line starts") {
		t.Fatalf("exit %d, %q; want the position inside a line refused", status, stderr)
	}
	if _, err := os.Stat(filepath.Join(dir, "in.txt")); err == nil {
		t.Fatal("the consumer was started")
	}
}

// holdAll takes every batch and makes none durable: offset stays 0, as
// tally's does while every entry is in a bucket still open.
const holdAll = `while IFS= read -r line; do
	set -- $line
	case $1 in
	batch)
		n=${5#entries=}
		i=0; while [ $i -lt $n ]; do IFS= read -r entry; i=$((i+1)); done
		printf 'progress id=%s offset=0 taken=%s\n' "${2#id=}" "${4#end=}";;
	esac
done
`

// --max that moved no durable offset says so, once, even with -q, and
// never "run again to continue": the same command would repeat the run.
func TestMaxThatSealsNothingSaysSoAndNeverRunAgainToContinue(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, "hold.sh"), []byte(holdAll), 0o644)
	for range 2 {
		_, stderr, status := runFeedIn(t, dir, "a\nb\nc\n", "0", func(o *Options) {
			o.Max, o.Quiet, o.Consumer, o.BatchSize = 2, true, []string{"sh", "hold.sh"}, 1
		})
		if status != 0 || strings.Count(stderr, "\n") != 1 || !strings.Contains(stderr, "feed: stopped after --max 2 entries, and they sealed no bucket") ||
			!strings.Contains(stderr, "raise --max well above 2") || strings.Contains(stderr, "run again") {
			t.Fatalf("exit %d, %q; want one warning that nothing moved", status, stderr)
		}
	}
	if cur, _ := os.ReadFile(filepath.Join(dir, "cur")); !strings.HasPrefix(string(cur), "store id=s offset=0 ") {
		t.Fatalf("cursor %q", cur)
	}
	_, stderr, _ := runFeedIn(t, t.TempDir(), "a\nb\nc\n", "0", func(o *Options) { o.Max, o.BatchSize = 2, 1 })
	if !strings.Contains(stderr, "the cursor moved, run again to continue") {
		t.Fatalf("a --max that moved the cursor: %q", stderr)
	}
}

// A store truncated in place while feed was down (copytruncate), new lines
// written since: feed names the copy by its first bytes and gives the
// remedies as commands: the copy as the store's older generation (every
// entry counted), a new store id, and the re-derivation in its two steps;
// never --reset alone.
func TestACopytruncateWhileDownNamesTheCopyAndBothRemedies(t *testing.T) {
	dir, _, _ := runFeed(t, "old 1\nold 2\n", "0", func(*Options) {})
	p := filepath.Join(dir, "s.log")
	os.WriteFile(p+".1", []byte("old 1\nold 2\n"), 0o644)
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_TRUNC, 0) // the same inode
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("new 1\n")
	f.Close()
	os.Remove(filepath.Join(dir, "in.txt"))
	_, stderr, status := runFeedIn(t, dir, "new 1\n", "0", func(o *Options) { o.Consumer = []string{"tally", "--run", "T"} })
	for _, want := range []string{
		"same inode, but its first 12 bytes differ",
		"The content the cursor was reading is s.log.1 (the same first 12 bytes, and the same bytes before the cursor's position 12).",
		"the same command otherwise: feed --cursor cur s=s.log.1,s.log -- tally --run T (check it with tgcheck --against s=s.log.1,s.log T)",
		"Or feed s.log under a new store id: feed --cursor cur s.2=s.log -- tally --run T (store s keeps its counts, s.2 counts s.log from 0; check both with tgcheck --against s=s.log.1 --against s.2=s.log T)",
		"Or re-derive, both steps in this order (a --reset alone would replay the new content onto positions the tape already holds): tally --provision --replace --doc T/document T (the old tape is kept beside it), then feed --reset --cursor cur s=s.log -- tally --run T",
	} {
		if status != 1 || !strings.Contains(stderr, want) {
			t.Errorf("exit %d; stderr lacks %q:\n%s", status, want, stderr)
		}
	}
}

// A cursor named through a symbolic link is the file it links to: a feed
// on the link takes the cursor's own lock (refused while another feed
// holds it), and a save rewrites the cursor, leaving the link a link.
func TestACursorThroughASymlinkIsTheFileItLinksTo(t *testing.T) {
	dir, _, status := runFeed(t, "a\nb\n", "0", func(*Options) {})
	if status != 0 {
		t.Fatalf("first run: exit %d", status)
	}
	if err := os.Symlink("cur", filepath.Join(dir, "clink")); err != nil {
		t.Fatal(err)
	}
	held, err := lockfile.Take(filepath.Join(dir, "cur.lock"), "feed")
	if err != nil {
		t.Fatal(err)
	}
	_, stderr, status := runFeedIn(t, dir, "a\nb\n", "0", func(o *Options) { o.Cursor = filepath.Join(dir, "clink") })
	held.Close()
	if status != 1 || !strings.Contains(stderr, "is in use by feed pid "+strconv.Itoa(os.Getpid())) {
		t.Fatalf("through the link while the cursor is held: exit %d, %q; want it refused", status, stderr)
	}
	_, stderr, status = runFeedIn(t, dir, "a\nb\nc\n", "0", func(o *Options) { o.Cursor = filepath.Join(dir, "clink") })
	if status != 0 {
		t.Fatalf("through the link: exit %d, %s", status, stderr)
	}
	if fi, err := os.Lstat(filepath.Join(dir, "clink")); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Fatalf("the link is no longer a link: %v, %v", fi, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "clink.lock")); err == nil {
		t.Fatal("a second lock clink.lock was taken")
	}
	if cur, _ := os.ReadFile(filepath.Join(dir, "cur")); !strings.HasPrefix(string(cur), "store id=s offset=6 ") {
		t.Fatalf("the cursor is %q, want the run's offset 6 saved through the link", cur)
	}
}
