package read

// Main runs the tgread command line on os.Args and returns its exit status.
func Main() int {
	panic("unimplemented")
}
