package tally

// Main runs the tally command line on os.Args and returns its exit status.
func Main() int {
	panic("unimplemented")
}
