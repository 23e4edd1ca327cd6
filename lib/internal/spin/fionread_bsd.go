//go:build darwin || dragonfly || freebsd || netbsd || openbsd

package spin

// fionread is FIONREAD's request code, _IOR('f', 127, int) in the BSDs'
// <sys/filio.h> (macOS's too): x/sys/unix names none.
const fionread = 0x4004667f
