package check

// Main runs the tgcheck command line on os.Args and returns its exit status.
func Main() int {
	panic("unimplemented")
}
