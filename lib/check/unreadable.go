package check

// unreadable is an error loading the store: its document or tape cannot
// be read, or the tape is damaged. tgcheck exits 1 on it, a failed check,
// where an error of the command line exits 2.
type unreadable struct{ error }

func (u unreadable) Unwrap() error { return u.error }
