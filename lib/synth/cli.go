package synth

// Main runs the synth command line (used by testscripts and the benchmark
// script) on os.Args and returns its exit status.
func Main() int {
	panic("unimplemented")
}
