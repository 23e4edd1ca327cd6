package command

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/user"
	"path/filepath"
	"strconv"
	"syscall"
)

// fixed is an error whose fix PermissionFix has added.
type fixed struct{ error }

func (f fixed) Unwrap() error { return f.error }

// PermissionFix returns err, from the binary name, with the fix for a
// permission error added: whose the file (or the directory it is to be
// made in) is, and how to run as that user or give this one access. Other
// errors, and one fixed already, are returned as they are. Conventions
// applies it to what an app's action returns.
func PermissionFix(name string, err error) error {
	var pe *fs.PathError
	var done fixed
	if !errors.Is(err, fs.ErrPermission) || !errors.As(err, &pe) || errors.As(err, &done) {
		return err
	}
	return fixed{permissionFix(name, err, pe)}
}

func permissionFix(name string, err error, pe *fs.PathError) error {
	me := userName(os.Getuid())
	path := pe.Path
	fi, serr := os.Stat(path)
	if serr != nil { // not there yet, or its directory is closed: the directory decides
		path = filepath.Dir(path)
		fi, serr = os.Stat(path)
	}
	st, ok := fileOwner(fi, serr)
	switch {
	case !ok:
		return fmt.Errorf("%w; run %s as a user that may %s %s, or give %s access to it", err, name, pe.Op, pe.Path, me)
	case int(st.Uid) == os.Getuid():
		return fmt.Errorf("%w; %s is yours, but its mode (%v) forbids it: chmod u+rwX %s", err, path, fi.Mode(), path)
	}
	owner := userName(int(st.Uid))
	return fmt.Errorf("%w; %s belongs to %s:%s (mode %v): run %s as %s, or give %s access: setfacl -m u:%s:rwX %s (or chgrp it to a group of %s's and chmod g+rwX)",
		err, path, owner, groupName(int(st.Gid)), fi.Mode(), name, owner, me, me, path, me)
}

// fileOwner is the owner and group of the file fi describes.
func fileOwner(fi fs.FileInfo, err error) (*syscall.Stat_t, bool) {
	if err != nil {
		return nil, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return st, ok
}

// groupName is the name of gid, or its number when it has none.
func groupName(gid int) string {
	if g, err := user.LookupGroupId(strconv.Itoa(gid)); err == nil {
		return g.Name
	}
	return strconv.Itoa(gid)
}

// userName is the name of uid, or "uid N" when it has none.
func userName(uid int) string {
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		return u.Username
	}
	return "uid " + strconv.Itoa(uid)
}

// Bare returns what a *fs.PathError wraps ("permission denied", "no such
// file or directory"), for a message that names the path itself, so that
// it is not named twice ("open web/lock: ").
func Bare(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
