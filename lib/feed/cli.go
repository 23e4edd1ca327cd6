package feed

// Main runs the feed command line on os.Args and returns its exit status.
func Main() int {
	panic("unimplemented")
}
