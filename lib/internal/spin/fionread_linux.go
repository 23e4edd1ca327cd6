//go:build portable

package spin

// fionread is FIONREAD's request code (TIOCINQ): x/sys/unix names none.
const fionread = 0x541b
