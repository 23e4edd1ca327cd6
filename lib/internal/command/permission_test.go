package command

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// denied is the error a denied open of path gives, wrapped as the binaries
// wrap it.
func denied(path string) error {
	return fmt.Errorf("tally: cannot read the tape: %w", &fs.PathError{Op: "open", Path: path, Err: syscall.EACCES})
}

func TestAPermissionErrorOnAnotherUsersFileSaysWhoseItIsAndHowToGetIn(t *testing.T) {
	path := "/etc" // root's, for a test not run as root
	if os.Getuid() == 0 {
		path = filepath.Join(t.TempDir(), "tape")
		os.WriteFile(path, nil, 0o600)
		if err := os.Chown(path, 65534, 65534); err != nil {
			t.Fatal(err)
		}
	}
	err := PermissionFix("tally", denied(path))
	owner := userName(65534)
	if path == "/etc" {
		owner = "root"
	}
	me := userName(os.Getuid())
	for _, want := range []string{
		"tally: cannot read the tape: open " + path + ": permission denied; " + path + " belongs to " + owner + ":",
		"run tally as " + owner + ", or give " + me + " access: setfacl -m u:" + me + ":rwX " + path,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("got %q, want it to hold %q", err, want)
		}
	}
	if !errors.Is(err, fs.ErrPermission) || PermissionFix("tally", err) != err {
		t.Errorf("the fixed error must still be a permission error, and be fixed once: %v", err)
	}
}

func TestAPermissionErrorOnOnesOwnFileSaysToChmodIt(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(dir, 0o500)
	err := PermissionFix("feed", fmt.Errorf("feed: cursor: %w", &fs.PathError{Op: "open", Path: filepath.Join(dir, "cur.tmp"), Err: syscall.EACCES}))
	if want := "; " + dir + " is yours, but its mode (dr-x------) forbids it: chmod u+rwX " + dir; !strings.HasSuffix(err.Error(), want) {
		t.Errorf("got %q, want it to end %q", err, want)
	}
}

func TestOtherErrorsAreLeftAsTheyAre(t *testing.T) {
	for _, err := range []error{nil, errors.New("tally: bad"), &fs.PathError{Op: "open", Path: "x", Err: syscall.ENOENT}} {
		if got := PermissionFix("tally", err); got != err {
			t.Errorf("%v became %v", err, got)
		}
	}
}
